"""Circle poker as the regulation states it (RULES §2, §4, §5), one test per sentence: stud's bring-in and order of
speaking (R-STUD7-1), cards exposed or absent players (R-CIRC-9, R-CIRC-10), cards seen twice or foreign to the deck
(R-DECK-4, R-CARD-2), and illegal commands that record nothing."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from domain.cards.cards import Card
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.state import HandRuleError, Phase, SlotKind
from tests.support.circle_support import deal, deal_while_due, holdem, shuffled, start, stud


def _third_street(stacks: list[int], cards: str) -> Hand:
    hand = start(stud(), stacks)
    deal(hand, cards)
    return hand


def test_the_lowest_up_card_brings_in_and_equal_ranks_go_by_suit_clubs_lowest() -> None:
    hand = _third_street([100, 100, 100], "As Ks Qs Ad Kd Qd Kc 2d 2c")
    assert hand.actor_seat == 3
    legal = hand.legal_actions()
    assert legal is not None and legal.bring_in == 2 and legal.raise_min == 5 and not legal.check
    with pytest.raises(HandRuleError) as error:
        hand.fold(3)
    assert error.value.rule == "R-STUD7-1"


def test_from_fourth_street_the_best_exposed_hand_acts_first() -> None:
    hand = _third_street([100, 100, 100], "As Ks Qs Ad Kd Qd Kc 2d 2c")
    hand.post_bring_in(3)
    hand.call(1)
    hand.call(2)
    deal(hand, "5c 9h 2h")  # seat 3 shows a pair of deuces
    assert hand.actor_seat == 3


def test_a_big_bet_is_allowed_on_fourth_street_when_anyone_shows_a_pair() -> None:
    hand = _third_street([100, 100, 100], "As Ks Qs Ad Kd Qd Kc 2d 2c")
    hand.post_bring_in(3)
    hand.call(1)
    hand.call(2)
    deal(hand, "Kh 9h 3h")  # seat 1 shows a pair of kings
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 1 and (legal.raise_min, legal.raise_max) == (5, 10)
    with pytest.raises(HandRuleError):
        hand.bet_or_raise_to(1, 7)
    hand.bet_or_raise_to(1, 10)
    legal = hand.legal_actions()
    assert legal is not None and legal.raise_min == 20


def test_the_seventh_card_is_dealt_face_down() -> None:
    hand = start(stud(), [100, 100])
    rng = random.Random(3)
    deck = shuffled(52, rng)
    _play_passively(hand, deck, until_street="seventh")
    deal_while_due(hand, deck)
    assert [up for _, up in hand.state.hole[0]] == [False, False, True, True, True, True, False]


def test_when_the_stock_is_short_one_community_card_is_dealt_face_up() -> None:
    hand = start(stud(burn=True), [100] * 8)
    deck = shuffled(52, random.Random(5))
    _play_passively(hand, deck, until_street="seventh")
    assert hand.state.stock_left == 1
    slot = hand.state.next_slot
    assert slot is not None and slot.kind is SlotKind.BOARD
    deal_while_due(hand, deck)
    assert len(hand.state.board) == 1 and all(len(cards) == 6 for cards in hand.state.hole)
    assert hand.state.value_of(0).strength > 0


def _play_passively(hand: Hand, deck: object, until_street: str) -> None:
    cards = iter(deck)  # type: ignore[call-overload]
    while not (hand.state.street.name == until_street and hand.state.phase is Phase.DEALING):
        if hand.state.next_slot is not None:
            hand.deal(next(cards), source="test")
            continue
        legal = hand.legal_actions()
        assert legal is not None
        if legal.bring_in is not None:
            hand.post_bring_in(legal.seat)
        elif legal.check:
            hand.check(legal.seat)
        else:
            hand.call(legal.seat)


# ---------------------------------------------------------------------------------------------------
# R-CIRC-9, R-CIRC-10: irregularities


def test_a_card_exposed_by_mistake_is_covered_again_and_the_hand_stays_valid() -> None:
    hand = start(holdem(), [100, 100])
    deal(hand, "As Kd Ac Kc")
    hand.expose_card(1, Card.parse("As"))
    assert not hand.is_complete and hand.actor_seat == 2
    hand.call(2)


def test_in_stud_after_a_card_exposed_by_mistake_the_next_card_comes_face_up() -> None:
    hand = _third_street([100, 100, 100], "As Ks Qs Ad Kd Qd Kc 3d 2c")
    hand.expose_card(1, Card.parse("As"))
    hand.post_bring_in(3)
    hand.call(1)
    hand.call(2)
    deal(hand, "5c 9h 2h")
    deal_ups = [up for _, up in hand.state.hole[0]]
    assert deal_ups == [False, False, True, True]


def test_exposing_the_down_cards_without_calling_an_outstanding_bet_forfeits_the_hand() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.bet_or_raise_to(3, 10)
    hand.expose_hand(1)
    assert hand.state.folded[0]
    hand.fold(2)
    assert hand.is_complete and hand.stacks == [99, 98, 103]


def test_an_absent_player_loses_his_ante_and_forced_bets() -> None:
    hand = start(holdem((1, 2), antes=1), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.call(3)
    hand.declare_absent(1)
    assert hand.state.folded[0] and hand.state.contributed[0] == 2
    with pytest.raises(HandRuleError) as error:
        hand.declare_absent(3)
    assert error.value.rule == "R-CIRC-10"


# ---------------------------------------------------------------------------------------------------
# R-DECK-4, R-CARD-2: cards from outside are checked


def test_a_card_seen_twice_is_refused() -> None:
    hand = start(holdem(), [100, 100])
    deal(hand, "As Kd")
    before = hand.snapshot()
    with pytest.raises(HandRuleError) as error:
        hand.deal(Card.parse("As"))
    assert error.value.rule == "R-DECK-4"
    assert hand.snapshot() == before


def test_a_card_foreign_to_the_deck_in_play_is_refused() -> None:
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), deck_size=32, burn_cards=False)
    hand = start(settings, [100, 100])
    with pytest.raises(HandRuleError) as error:
        hand.deal(Card.parse("2c"))
    assert error.value.rule == "R-CARD-2"
    assert hand.state.next_slot is not None and not hand.state.seen


@pytest.mark.parametrize(
    "command",
    [
        lambda h: h.check(3),
        lambda h: h.bet_or_raise_to(3, 3),
        lambda h: h.bet_or_raise_to(3, 1000),
        lambda h: h.fold(1),
        lambda h: h.post_bring_in(3),
        lambda h: h.show(3),
        lambda h: h.deal(Card.parse("2c")),
        lambda h: h.muck(1),
    ],
)
def test_an_illegal_command_records_no_event_and_changes_nothing(command: Callable[[Hand], None]) -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    before, pending = hand.snapshot(), len(hand.pending_events)
    with pytest.raises(HandRuleError) as error:
        command(hand)
    assert error.value.rule.startswith("R-")
    assert error.value.rule in str(error.value)
    assert hand.snapshot() == before and len(hand.pending_events) == pending
