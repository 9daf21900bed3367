"""The single-hand evaluation of 2-own + 3-board hands (Omaha, póquer sintético) through the
tables of domain.cards.split_tables equals the exact evaluation of every allowed five (R-CARD-6, R-SYNTH-1, R-CARD-5),
and the peers.

Random hands come from every deck and R-CARD-5 setting the rule is played with: 52 cards for Omaha, 28 for
sintético (and both settings of each, since the setting is a table decision).  Half the hands are drawn with one
suit six times as likely as the others, so that flushes and straight flushes are common.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phevaluator import evaluate_omaha_cards
from pokerkit import Card as PokerkitCard
from pokerkit import OmahaHoldemHand

from domain.cards.cards import ALL_CARDS
from domain.cards.decks import DECK_SIZES, composition
from domain.cards.hand_classes import Category
from domain.cards.hand_rules import HAND_RULES
from domain.cards.ranking import hand_ranking
from domain.cards.split_tables import BOARD_RANK_KEYS, BOARD_SUIT_BITS, BOARD_SUIT_KEYS, BOARD_SUIT_MASK, MARKS
from tests.support.cards import assert_same_order, cards

Hand = tuple[list[int], list[int]]
POKERKIT_CARDS = [next(iter(PokerkitCard.parse(str(card)))) for card in ALL_CARDS]


def random_split_hands(deck_size: int, own: int, board: int, count: int, seed: int, *, suited: bool) -> list[Hand]:
    """``count`` hands of ``own`` + ``board`` distinct cards of the deck; ``suited``: spades six times as likely."""
    rng = np.random.default_rng(seed)
    deck = np.array([card.code for card in composition(deck_size)])
    weights = np.where(deck & 3 == 3, 6.0, 1.0) if suited else np.ones(len(deck))
    weights /= weights.sum()
    hands = []
    for _ in range(count):
        drawn = rng.choice(deck, own + board, replace=False, p=weights).tolist()
        hands.append((drawn[:own], drawn[own:]))
    return hands


def every_five(deck_size: int, flush_over_full: bool, own: list[int], board: list[int]) -> int:
    """The best strength of every 5-card hand of exactly 2 own and 3 board cards, each looked up whole."""
    ranking = hand_ranking(deck_size, flush_over_full)
    return max(ranking.strength([*two, *three]) for two in combinations(own, 2) for three in combinations(board, 3))


def test_the_board_rank_keys_tell_boards_and_four_own_ranks_apart() -> None:
    """Boards of 3, 4 and 5 cards and four own cards are found by their rank-key sums: unique within each size,
    and a 5-card board's whole key sum stays under 2³⁰ (one-digit Python integers)."""
    for size in (3, 4, 5):
        held = [c for c in combinations_with_replacement(range(13), size) if max(Counter(c).values()) <= 4]
        sums = {sum(BOARD_RANK_KEYS[r] for r in ranks) for ranks in held}
        assert len(sums) == len(held)
    largest = (4 * BOARD_RANK_KEYS[-1] + BOARD_RANK_KEYS[-2]) << BOARD_SUIT_BITS | 5 * BOARD_SUIT_KEYS[-1]
    assert largest < 1 << 30
    assert 5 * BOARD_SUIT_KEYS[-1] <= BOARD_SUIT_MASK
    assert all(6 * BOARD_SUIT_KEYS[s] == BOARD_SUIT_KEYS[s + 1] for s in range(3))


def test_the_marks_are_a_golomb_ruler() -> None:
    """Two own ranks are found by the sum of their marks: every sum of two marks (a mark twice too) differs."""
    sums = [a + b for i, a in enumerate(MARKS) for b in MARKS[i:]]
    assert len(sums) == len(set(sums)) == 13 * 14 // 2
    assert list(MARKS) == sorted(set(MARKS))


@pytest.mark.parametrize("deck_size", [52, 28])
@pytest.mark.parametrize("flush_over_full", [False, True])
@pytest.mark.parametrize("own", [4, 2])
@pytest.mark.parametrize("board", [3, 4, 5])
def test_r_card_6_r_synth_1_tables_equal_every_five_on_random_hands(
    deck_size: int, flush_over_full: bool, own: int, board: int
) -> None:
    """Omaha (4 own) and sintético (2 own) on the flop, turn and river: the tables and the 60 (or 10) fives agree."""
    ranking = hand_ranking(deck_size, flush_over_full)
    seed = deck_size * 100 + own * 10 + board + (1000 if flush_over_full else 0)
    for suited in (False, True):
        hands = random_split_hands(deck_size, own, board, 1_500, seed + suited, suited=suited)
        fast = [ranking.strength_split(mine, shared) for mine, shared in hands]
        assert fast == [ranking.strength_split_by_fives(mine, shared) for mine, shared in hands]
        assert fast[:300] == [every_five(deck_size, flush_over_full, mine, shared) for mine, shared in hands[:300]]


def test_r_card_6_omaha_equals_phevaluator_exactly() -> None:
    """52 cards, standard ranking: our strength is 7463 − phevaluator's rank, on plain and on flush-rich hands."""
    ranking = hand_ranking(52)
    for suited in (False, True):
        for own, board in random_split_hands(52, 4, 5, 10_000, 52 + suited, suited=suited):
            assert ranking.strength_split(own, board) == 7463 - evaluate_omaha_cards(*board, *own)


def test_r_card_6_omaha_orders_hands_as_pokerkit() -> None:
    """pokerkit's Omaha hands, on flush-rich deals of the flop, turn and river: same order, same ties."""
    ranking = hand_ranking(52)
    for board_size in (3, 4, 5):
        hands = random_split_hands(52, 4, board_size, 700, 70 + board_size, suited=True)
        ours = [ranking.strength_split(own, board) for own, board in hands]
        theirs = [
            OmahaHoldemHand.from_game([POKERKIT_CARDS[c] for c in own], [POKERKIT_CARDS[c] for c in board]).entry.index
            for own, board in hands
        ]
        assert_same_order(ours, theirs)


@pytest.mark.parametrize(("flush_over_full", "category"), [(False, Category.FULL_HOUSE), (True, Category.FLUSH)])
def test_r_card_5_the_split_hand_follows_the_flush_setting(flush_over_full: bool, category: Category) -> None:
    """Kh Kd + Qs Qh Qd is a full house, As Ks + Qs 9s 8s a flush: the R-CARD-5 setting (a decision) picks."""
    for deck_size in (52, 28):
        ranking = hand_ranking(deck_size, flush_over_full)
        own, board = cards("As Ks Kh Kd"), cards("Qs Qh Qd 9s 8s")
        strength = ranking.strength_split([c.code for c in own], [c.code for c in board])
        assert ranking.hand_class(strength).category is category
        assert HAND_RULES["omaha"].evaluate(ranking, own, board).strength == strength


@st.composite
def split_hands(draw: st.DrawFn) -> tuple[int, bool, list[int], list[int]]:
    """Any deck and R-CARD-5 setting, 2 or 4 own cards and 3–5 board cards, all distinct."""
    deck_size = draw(st.sampled_from(DECK_SIZES))
    flush_over_full = draw(st.booleans())
    own, board = draw(st.sampled_from((2, 4))), draw(st.sampled_from((3, 4, 5)))
    deck = [card.code for card in composition(deck_size)]
    drawn = draw(st.lists(st.sampled_from(deck), min_size=own + board, max_size=own + board, unique=True))
    return deck_size, flush_over_full, drawn[:own], drawn[own:]


@settings(max_examples=400)
@given(split_hands())
def test_the_tables_equal_every_five_for_every_deck(hand: tuple[int, bool, list[int], list[int]]) -> None:
    """R-CARD-6 on every deck of R-CARD-2 and both settings of R-CARD-5, the order of the cards aside."""
    deck_size, flush_over_full, own, board = hand
    ranking = hand_ranking(deck_size, flush_over_full)
    expected = every_five(deck_size, flush_over_full, own, board)
    assert ranking.strength_split(own, board) == expected
    assert ranking.strength_split(own[::-1], board[::-1]) == expected
