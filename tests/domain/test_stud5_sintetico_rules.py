"""Five-card stud (R-STUD5-1 … 3) and póquer sintético (R-SYNTH-1), as the regulation states them."""

from __future__ import annotations

import pytest

from domain.cards.decks import BackColour, DeckIdentity
from domain.cards.hand_classes import Category
from domain.circle.hand import TABLES_NAMESPACE, Hand
from domain.circle.seating import button_of
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.state import HandRuleError, Phase
from domain.errors import RuleError
from tests.support.circle_support import deal, start

STUD5 = TableSettings.create("stud5", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4, burn_cards=False)
SINTETICO = TableSettings.create("sintetico", BettingStructure.POT_LIMIT, antes=1, min_bet=2)


def test_r_stud5_1_five_card_stud_is_played_with_32_cards_and_everybody_antes() -> None:
    assert STUD5.deck_size == 32
    hand = start(STUD5, [50, 50, 50])
    assert hand.state.contributed == [1, 1, 1]
    with pytest.raises(HandRuleError) as error:
        deal(hand, "2c")
    assert error.value.rule == "R-CARD-2"
    with pytest.raises(HandRuleError) as error:
        start(STUD5, [50] * 7)  # 7 × 5 cards do not fit in 32
    assert error.value.rule == "R-STUD5-1"


def test_r_stud5_2_one_card_down_and_one_up_from_the_croupiers_left_then_one_up_card_per_interval() -> None:
    hand = start(STUD5, [50, 50, 50])
    deal(hand, "7c 8c 9c Ac Kd Qh")
    assert [[up for _, up in cards] for cards in hand.state.hole] == [[False, True]] * 3
    assert hand.state.phase is Phase.BETTING
    while hand.actor_seat is not None:
        hand.check(hand.actor_seat)
    deal(hand, "7d 8d 9d")
    assert [len(cards) for cards in hand.state.hole] == [3, 3, 3] and hand.state.phase is Phase.BETTING
    assert all(up for cards in hand.state.hole for _, up in cards[1:])


def test_r_stud5_3_the_highest_up_card_acts_first_equal_ranks_the_first_from_the_croupiers_left() -> None:
    hand = start(STUD5, [50, 50, 50])
    deal(hand, "7c 8c 9c Kc Ad Ah")  # up cards: K, A, A: the first ace from the croupier's left is seat 2
    assert hand.actor_seat == 2


def test_r_stud5_3_later_intervals_start_with_the_best_exposed_hand() -> None:
    hand = start(STUD5, [50, 50, 50])
    deal(hand, "7c 8c 9c Kc Ad Ah")
    while hand.actor_seat is not None:
        hand.check(hand.actor_seat)
    deal(hand, "Kd 7d 8d")  # seat 1 shows a pair of kings
    assert hand.actor_seat == 1


def test_r_stud5_3_setting_a_bring_in_by_the_lowest_up_card() -> None:
    settings = TableSettings.create("stud5", BettingStructure.FIXED_LIMIT, antes=1, bring_in=1, small_bet=2,
                                    big_bet=4, burn_cards=False)
    hand = start(settings, [50, 50, 50])
    deal(hand, "7c 8c 9c Kc 7d Ah")
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 2 and legal.bring_in == 1


def test_five_card_stud_in_32_cards_ranks_a_flush_above_a_full_house() -> None:
    hand = start(STUD5, [50, 50])
    deal(hand, "7h 8s 9h 8d")
    for cards in ("Th 8c", "Jh Ks", "Ah Kd"):
        while hand.actor_seat is not None:
            hand.check(hand.actor_seat)
        deal(hand, cards)
    while hand.actor_seat is not None:
        hand.check(hand.actor_seat)
    hand.show(1)
    hand.show(2)
    assert hand.state.value_of(0).category is Category.FLUSH
    assert hand.state.value_of(1).category is Category.FULL_HOUSE
    assert hand.stacks == [51, 49]  # the antes go to the flush


def _sintetico(stacks: list[int]) -> Hand:
    seats = list(range(1, len(stacks) + 1))
    return Hand.start(TABLES_NAMESPACE, 1, SINTETICO, seats=seats, stacks=stacks,
                      button_seat=button_of(SINTETICO, seats), deck=DeckIdentity(28, BackColour.RED))


def test_r_synth_1_sintetico_is_dealt_to_four_to_ten_players_from_28_cards() -> None:
    with pytest.raises(HandRuleError) as error:
        _sintetico([50, 50, 50])
    assert error.value.rule == "R-SYNTH-1"
    _sintetico([50] * 10)
    with pytest.raises(RuleError):
        Hand.start(TABLES_NAMESPACE, 1, SINTETICO, seats=[1, 2, 3, 4], stacks=[50] * 4, button_seat=4,
                   deck=DeckIdentity(52, BackColour.RED))


def test_r_synth_1_two_down_cards_then_five_community_cards_one_at_a_time_with_an_interval_after_each() -> None:
    hand = _sintetico([50, 50, 50, 50])
    deal(hand, "8c 8d 8h 8s 9c 9d 9h 9s")
    intervals = 1
    for card in ("Tc", "Td", "Jc", "Jd", "Ac"):
        assert hand.state.phase is Phase.BETTING
        while hand.actor_seat is not None:
            hand.check(hand.actor_seat)
        deal(hand, card)
        intervals += 1
        assert len(hand.state.board) == intervals - 1
    assert intervals == 6 and hand.state.phase is Phase.BETTING


def test_r_synth_1_the_hand_uses_both_down_cards_and_exactly_three_community_cards() -> None:
    hand = _sintetico([50, 50, 50, 50])
    # seat 1: 8c 9d; the board holds four hearts and the ace of spades
    deal(hand, "8c Ks Qs Js 9d Kc Qc Jc")
    for card in ("Th", "Jh", "Qh", "Kh", "As"):
        while hand.actor_seat is not None:
            hand.check(hand.actor_seat)
        deal(hand, card)
    while hand.actor_seat is not None:
        hand.check(hand.actor_seat)
    for seat in (1, 2, 3, 4):
        hand.show(seat)
    value = hand.state.value_of(0)
    assert value.describe() == "straight, queen high"  # 8-9 with T-J-Q; the heart flush on the board needs no own card
    assert set(hand.state.cards_of(0)) <= set(value.best_five)
    assert len(set(value.best_five) & set(hand.state.board)) == 3
