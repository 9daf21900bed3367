"""Invariants of hand evaluation, over random hands of every deck (hypothesis)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards.batch import batch_evaluator
from domain.cards.cards import Card, format_cards, parse_cards
from domain.cards.decks import DECK_SIZES, composition
from domain.cards.ranking import hand_ranking


@st.composite
def hands(draw: st.DrawFn, sizes: tuple[int, ...] = (5, 6, 7)) -> tuple[int, list[Card]]:
    """A deck size and a hand of distinct cards of that deck."""
    deck_size = draw(st.sampled_from(DECK_SIZES))
    size = draw(st.sampled_from(sizes))
    cards = draw(st.lists(st.sampled_from(composition(deck_size)), min_size=size, max_size=size, unique=True))
    return deck_size, cards


@settings(max_examples=400)
@given(hands(), st.data())
def test_the_order_of_the_cards_does_not_matter(hand: tuple[int, list[Card]], data: st.DataObject) -> None:
    deck_size, cards = hand
    ranking = hand_ranking(deck_size)
    shuffled = data.draw(st.permutations(cards))
    assert ranking.strength([c.code for c in cards]) == ranking.strength([c.code for c in shuffled])
    assert ranking.evaluate(cards).strength == ranking.evaluate(shuffled).strength


@settings(max_examples=400)
@given(hands((6, 7)))
def test_six_and_seven_cards_play_their_best_five(hand: tuple[int, list[Card]]) -> None:
    """R-CARD-6, R-CARD-7: the hand is always played at its highest possible combination."""
    deck_size, cards = hand
    ranking = hand_ranking(deck_size)
    best_of_fives = max(ranking.strength([c.code for c in five]) for five in combinations(cards, 5))
    value = ranking.evaluate(cards)
    assert value.strength == best_of_fives
    assert set(value.best_five) <= set(cards)
    assert ranking.strength([c.code for c in value.best_five]) == value.strength


@st.composite
def same_deck_hands(draw: st.DrawFn) -> tuple[int, list[list[Card]]]:
    """A deck size and up to 30 hands of 5–7 distinct cards of it, all of one size."""
    deck_size = draw(st.sampled_from(DECK_SIZES))
    size = draw(st.sampled_from((5, 6, 7)))
    one_hand = st.lists(st.sampled_from(composition(deck_size)), min_size=size, max_size=size, unique=True)
    return deck_size, draw(st.lists(one_hand, min_size=1, max_size=30))


@settings(max_examples=200)
@given(same_deck_hands())
def test_the_batch_api_equals_the_single_hand_api(many: tuple[int, list[list[Card]]]) -> None:
    deck_size, rows = many
    ranking = hand_ranking(deck_size)
    array = np.array([[c.code for c in row] for row in rows], dtype=np.uint8)
    assert batch_evaluator(deck_size).strengths(array).tolist() == [ranking.strength([c.code for c in r]) for r in rows]


@settings(max_examples=300)
@given(hands((9,)))
def test_omaha_style_hands_use_exactly_two_own_and_three_board_cards(hand: tuple[int, list[Card]]) -> None:
    """R-CARD-6 and R-SYNTH-1: Omaha and sintético hands are the best of exactly 2 own + 3 board cards."""
    deck_size, cards = hand
    own, board = cards[:4], cards[4:]
    ranking = hand_ranking(deck_size)
    fives = [(*two, *three) for two in combinations(own, 2) for three in combinations(board, 3)]
    expected = max(ranking.strength([c.code for c in five]) for five in fives)
    value = ranking.evaluate_split(own, board)
    assert value.strength == expected
    assert len(set(value.best_five) & set(own)) == 2 and len(set(value.best_five) & set(board)) == 3
    own_codes, board_codes = np.array([[c.code for c in own]]), np.array([[c.code for c in board]])
    batch = batch_evaluator(deck_size).strengths_split(own_codes, board_codes)
    assert batch.tolist() == [expected]


@given(st.lists(st.sampled_from(composition(52)), min_size=1, max_size=10))
def test_cards_survive_formatting_and_parsing(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == cards
    assert parse_cards(format_cards(cards, pretty=True)) == cards
    assert parse_cards("".join(str(c) for c in cards)) == cards
