"""Corrections of a circle hand's last betting action, in the domain (issue 15, item 6; R-AUD-1;
domain/circle/hand_corrections.py): the rule, and over random legal play of every circle game (hypothesis) that an
approved correction leaves exactly the hand rebuilt before the wrong action with the replacement applied, a refusal
changes nothing, chips are conserved, and replaying the stored events rebuilds the same hand."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure
from domain.circle.state import HandRuleError, LegalActions
from domain.export import hand_phh
from tests.support.circle_support import Hands, Stock, deal, holdem, shuffled, start
from tests.support.circle_tables import Table, _one_step, chips_in_play, start_table, tables
from tests.support.sizes import sample


def _events_named(hand: Hand, app: Hands) -> list[str]:
    app.save(hand)
    return [type(event).__name__ for event in app.events.get(hand.id)]


def _preflop() -> Hand:
    """Hold'em NL 1/2, seats 1-3 with 100 (seat 1 the button: seat 2 posts 1, seat 3 posts 2, seat 1 speaks)."""
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    return hand


def test_r_aud_1_a_wrong_bet_is_corrected_and_the_hand_goes_on_from_the_corrected_state() -> None:
    hand, app = _preflop(), Hands()
    first = hand.seats[hand.state.actor or 0]
    hand.bet_or_raise_to(first, 60)  # keyed 60; the player raised to 10
    assert hand.correctable() is not None
    hand.request_correction("bet", first, 10, reason="keyed 60 for 10", by="mesa-1")
    with pytest.raises(HandRuleError) as pending:
        hand.verify_no_pending_correction()
    assert pending.value.rule == "R-AUD-1"
    hand.decide_correction(True, reason="seen on camera", by="pit")
    position = hand.position_of(first)
    assert hand.state.bets[position] == 10 and hand.stacks[position] == 90
    legal = hand.legal_actions()
    assert legal is not None and legal.call == 9  # the small blind calls 9 more, not 59
    assert _events_named(hand, app)[-4:] == ["BetOrRaised", "CorrectionRequested", "CorrectionApproved",
                                             "BetOrRaised"]
    replayed: object = app.repository.get(hand.id)
    assert isinstance(replayed, Hand) and replayed.snapshot() == hand.snapshot()


def test_r_aud_1_a_refused_correction_changes_nothing_and_the_action_may_be_asked_again() -> None:
    hand = _preflop()
    first = hand.seats[hand.state.actor or 0]
    hand.bet_or_raise_to(first, 60)
    before = hand.snapshot()
    hand.request_correction("bet", first, 10, reason="keyed 60 for 10", by="mesa-1")
    hand.decide_correction(False, reason="the player did raise to 60", by="pit")
    assert hand.snapshot() == before and hand.pending_correction is None
    assert hand.correctable() is not None  # still the last action: a new request may follow
    hand.request_correction("bet", first, 12, reason="it was 12", by="mesa-1")
    hand.decide_correction(True, reason="camera", by="pit")
    assert hand.state.bets[hand.position_of(first)] == 12


def test_r_aud_1_only_the_last_action_and_only_a_betting_action_before_any_card() -> None:
    hand = _preflop()
    first = hand.seats[hand.state.actor or 0]
    hand.bet_or_raise_to(first, 10)
    second = hand.actor_seat
    assert second is not None
    hand.call(second)
    with pytest.raises(HandRuleError) as not_last:  # the bet is no longer the last action
        hand.request_correction("bet", first, 12, reason="wrong amount", by="mesa-1")
    assert not_last.value.rule == "R-AUD-1"
    with pytest.raises(HandRuleError):  # the replacement must be legal where the hand was: seat 2 cannot check
        hand.request_correction("check", second, None, reason="he checked", by="mesa-1")
    with pytest.raises(HandRuleError):  # only a betting action
        hand.request_correction("show", second, None, reason="x", by="mesa-1")
    with pytest.raises(HandRuleError):  # a reason is stated
        hand.request_correction("fold", second, None, reason=" ", by="mesa-1")
    hand.request_correction("fold", second, None, reason="he folded", by="mesa-1")
    with pytest.raises(HandRuleError):  # one at a time
        hand.request_correction("fold", second, None, reason="again", by="mesa-1")
    hand.decide_correction(True, reason="ok", by="pit")
    third = hand.actor_seat
    assert third is not None and hand.state.folded[hand.position_of(second)]
    hand.call(third)
    deal(hand, "2c 7d 9h")  # the flop (holdem() burns no card)
    assert hand.correctable() is None
    with pytest.raises(HandRuleError) as after_card:
        hand.request_correction("check", third, None, reason="too late", by="mesa-1")
    assert after_card.value.rule == "R-AUD-1"
    with pytest.raises(HandRuleError):  # nothing pending: nothing to decide
        hand.decide_correction(True, reason="x", by="pit")


def test_the_phh_export_records_the_replacement_not_the_corrected_action() -> None:
    hand = _preflop()
    first = hand.seats[hand.state.actor or 0]
    hand.bet_or_raise_to(first, 60)
    hand.request_correction("bet", first, 10, reason="keyed 60 for 10", by="mesa-1")
    hand.decide_correction(True, reason="camera", by="pit")
    for _ in range(2):
        seat = hand.actor_seat
        assert seat is not None
        hand.fold(seat)
    app = Hands()
    app.save(hand)
    phh = hand_phh(list(app.events.get(hand.id)))
    assert "cbr 10" in phh and "cbr 60" not in phh


def _replacement(legal: LegalActions, rng: random.Random, fixed_limit: bool) -> tuple[str, int | None]:
    """A random betting action among those legal where the hand was before the corrected action (fixed limit: the
    bet is the smallest or the largest, R-STUD7-1)."""
    options: list[tuple[str, int | None]] = []
    if legal.fold:
        options.append(("fold", None))
    if legal.check:
        options.append(("check", None))
    if legal.call is not None:
        options.append(("call", None))
    if legal.bring_in is not None:
        options.append(("bring-in", None))
    if legal.raise_min is not None and legal.raise_max is not None:
        amounts = [legal.raise_min, legal.raise_max]
        if not fixed_limit:
            amounts.append(rng.randint(legal.raise_min, legal.raise_max))
        options.append(("bet", rng.choice(amounts)))
    return rng.choice(options)


@pytest.mark.slow
@settings(max_examples=sample(30, 100), deadline=None)  # random hands with corrections: tests/support/sizes.py
@given(tables(), st.randoms(use_true_random=False))
def test_corrections_in_random_play_restore_exactly_conserve_chips_and_replay_identically(
    table: Table, rng: random.Random
) -> None:
    hand = start_table(table)
    total = sum(table.stacks) + table.carried_pot
    app = Hands()
    deck = Stock(shuffled(hand.state.deck_size, rng), rng)
    corrected = 0
    for _ in range(400):
        if hand.is_complete:
            break
        undo = hand.correctable()
        if undo is not None and rng.random() < 0.4:
            legal = hand.restored(undo.version - 1).state.legal_actions(hand.seats)
            assert legal is not None and legal.seat == undo.seat
            action, amount = _replacement(legal, rng, table.settings.structure is BettingStructure.FIXED_LIMIT)
            hand.request_correction(action, undo.seat, amount, reason="random correction", by="mesa-1")
            assert chips_in_play(hand) == total
            approve = rng.random() < 0.7
            before = hand.snapshot()
            hand.decide_correction(approve, reason="random decision", by="pit")
            app.save(hand)
            if not approve:
                assert hand.snapshot() == before
            else:  # the hand rebuilt from the store before the wrong action, with the replacement applied
                expected: Any = app.repository.get(hand.id, version=undo.version - 1)
                assert isinstance(expected, Hand)
                if amount is not None:
                    expected.bet_or_raise_to(undo.seat, amount)
                else:
                    {"fold": expected.fold, "check": expected.check, "call": expected.call,
                     "bring-in": expected.post_bring_in}[action](undo.seat)
                assert expected.snapshot() == hand.snapshot()
                corrected += 1
        else:
            _one_step(hand, rng, deck)
        assert chips_in_play(hand) == total
    event("a correction approved" if corrected else "no correction approved")
    app.save(hand)
    replayed: object = app.repository.get(hand.id)
    assert isinstance(replayed, Hand)
    assert replayed.snapshot() == hand.snapshot() and replayed.version == hand.version
    if hand.is_complete:
        state = hand.state
        assert sum(state.stacks) + sum(a.rake for a in state.awards) + state.carried == total
