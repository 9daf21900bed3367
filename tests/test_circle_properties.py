"""Invariants over random legal play of Hold'em, Omaha and seven-card stud (hypothesis).

Chips are conserved (stacks + pots + rake); no card appears twice; replaying the stored events rebuilds an equal
hand; every pot is awarded exactly once.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.hand import Hand
from domain.table_settings import BettingStructure, RakePolicy, TableSettings
from tests.circle_support import Hands, play_randomly, shuffled, start


@st.composite
def tables(draw: st.DrawFn) -> tuple[TableSettings, list[int]]:
    """Settings of one of the three variants, with short, uneven stacks so all-ins and side pots are common."""
    variant = draw(st.sampled_from(["holdem", "omaha", "stud7"]))
    rake = draw(st.sampled_from([RakePolicy(), RakePolicy(5, 7)]))
    burn = draw(st.booleans())
    if variant == "stud7":
        settings = TableSettings.create("stud7", BettingStructure.FIXED_LIMIT, antes=draw(st.integers(0, 3)),
                                        bring_in=2, small_bet=5, big_bet=10, rake=rake, burn_cards=burn)
        players = draw(st.integers(2, 8))
    else:
        structure = draw(st.sampled_from(list(BettingStructure)))
        settings = TableSettings.create(variant, structure, blinds=(1, 2), antes=draw(st.integers(0, 1)),
                                        small_bet=2, big_bet=4, rake=rake, burn_cards=burn)
        players = draw(st.integers(2, 10 if variant == "holdem" else 9))
    stacks = draw(st.lists(st.integers(1, 200), min_size=players, max_size=players))
    return settings, stacks


def chips_in_play(hand: Hand) -> int:
    """Stacks, plus chips still in the pots, plus the rake taken."""
    state = hand.state
    awarded = sum(award.pot.amount for award in state.awards)
    rake = sum(award.rake for award in state.awards)
    return sum(state.stacks) + sum(state.contributed) - awarded + rake


def dealt_cards(hand: Hand) -> list[str]:
    state = hand.state
    return [str(c) for cards in state.hole for c, _ in cards] + [str(c) for c in state.board + state.burned]


@settings(max_examples=250)
@given(tables(), st.randoms(use_true_random=False))
def test_random_legal_hands_conserve_chips_deal_each_card_once_and_replay_identically(
    table: tuple[TableSettings, list[int]], rng: random.Random
) -> None:
    table_settings, stacks = table
    hand = start(table_settings, stacks)
    total = sum(stacks)
    deck = shuffled(table_settings.deck_size, rng)
    original_deal = hand.deal

    def checked_deal(*args: object, **kwargs: object) -> None:
        original_deal(*args, **kwargs)  # type: ignore[arg-type]
        assert chips_in_play(hand) == total

    hand.deal = checked_deal  # type: ignore[method-assign]
    play_randomly(hand, rng, deck)
    del hand.deal
    state = hand.state
    assert hand.is_complete
    # chips are conserved: every chip is in a stack or was raked
    assert chips_in_play(hand) == total
    assert sum(state.stacks) + sum(a.rake for a in state.awards) == total
    # no card appears twice
    cards = dealt_cards(hand)
    assert len(cards) == len(set(cards)) == len(state.seen)
    # every pot is awarded exactly once, and every chip put in is awarded
    events = hand.collect_events()
    awarded = [e for e in events if type(e).__name__ == "PotAwarded"]
    assert sorted(e.index for e in awarded) == list(range(len(awarded)))  # type: ignore[attr-defined]
    assert sum(e.amount for e in awarded) == sum(state.contributed)  # type: ignore[attr-defined]
    assert Counter(type(e).__name__ for e in events)["Completed"] == 1
    # replaying the stored events rebuilds an equal hand
    app = Hands()
    app.save(*events)
    replayed: object = app.repository.get(hand.id)
    assert isinstance(replayed, Hand)
    assert replayed.snapshot() == hand.snapshot()
    assert replayed.version == hand.version


@settings(max_examples=60)
@given(tables(), st.randoms(use_true_random=False), st.integers(1, 40))
def test_a_hand_rebuilt_at_any_earlier_version_equals_the_live_hand_at_that_point(
    table: tuple[TableSettings, list[int]], rng: random.Random, cut: int
) -> None:
    table_settings, stacks = table
    hand = start(table_settings, stacks)
    app = Hands()
    snapshots = {hand.version: hand.snapshot()}
    deck = shuffled(table_settings.deck_size, rng)
    for _ in range(cut):
        if hand.is_complete:
            break
        before = hand.version
        _one_step(hand, rng, deck)
        if hand.version != before:
            snapshots[hand.version] = hand.snapshot()
    app.save(hand)
    for version, snapshot in snapshots.items():
        rebuilt: object = app.repository.get(hand.id, version=version)
        assert isinstance(rebuilt, Hand)
        assert rebuilt.snapshot() == snapshot


def _one_step(hand: Hand, rng: random.Random, deck: object) -> None:
    """One card, action or show of random legal play."""
    from tests.circle_support import _random_action

    if hand.state.next_slot is not None:
        hand.deal(next(deck), source="test")  # type: ignore[call-overload]
    elif (legal := hand.legal_actions()) is not None:
        _random_action(hand, legal.seat, rng)
    else:
        seat = hand.seat_of(next(p for p in hand.state.in_hand if p not in hand.state.shown))
        hand.show(seat)
