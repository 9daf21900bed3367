"""Invariants over random legal play of every circle game (hypothesis): Hold'em, Omaha, seven-card stud,
five-card draw (every legal deck size, openers and carried pots), five-card stud, póquer sintético and Pineapple
(a house game: one hole card discarded after the flop, R-PINE-1).

Chips are conserved (stacks + pots + rake + what carries to the next hand); no card is in two places at once;
replaying the stored events rebuilds an equal hand; every pot is awarded exactly once.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.circle.hand import Hand
from tests.support.circle_support import Hands, Stock, play_randomly, shuffled
from tests.support.circle_tables import Table, _one_step, chips_in_play, dealt_cards, start_table, tables


@settings(max_examples=400)
@given(tables(), st.randoms(use_true_random=False))
def test_random_legal_hands_conserve_chips_deal_each_card_once_and_replay_identically(
    table: Table, rng: random.Random
) -> None:
    hand = start_table(table)
    total = sum(table.stacks) + table.carried_pot
    deck = shuffled(hand.state.deck_size, rng)
    original_deal = hand.deal

    def checked_deal(*args: object, **kwargs: object) -> None:
        original_deal(*args, **kwargs)  # type: ignore[arg-type]
        assert chips_in_play(hand) == total

    hand.deal = checked_deal  # type: ignore[method-assign]
    play_randomly(hand, rng, deck)
    del hand.deal
    state = hand.state
    assert hand.is_complete
    # chips are conserved: every chip is in a stack, was raked, or carries to the next hand
    assert chips_in_play(hand) == total
    assert sum(state.stacks) + sum(a.rake for a in state.awards) + state.carried == total
    # no card appears twice
    cards = dealt_cards(hand)
    assert len(cards) == len(set(cards)) == len(state.seen)
    # every pot is awarded exactly once, and every chip put in is awarded
    events = hand.collect_events()
    awarded = [e for e in events if type(e).__name__ == "PotAwarded"]
    assert sorted(e.index for e in awarded) == list(range(len(awarded)))  # type: ignore[attr-defined]
    assert sum(e.amount for e in awarded) == sum(state.contributed) + state.dead_money - state.carried  # type: ignore[attr-defined]
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
    table: Table, rng: random.Random, cut: int
) -> None:
    hand = start_table(table)
    app = Hands()
    snapshots = {hand.version: hand.snapshot()}
    deck = Stock(shuffled(hand.state.deck_size, rng), rng)
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


