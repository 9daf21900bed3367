"""Circle poker as the regulation states it (RULES §2, §4, §5), one test per sentence."""

from __future__ import annotations

import pytest

from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, RakePolicy
from domain.circle.state import HandRuleError, Phase, SlotKind
from tests.support.circle_support import deal, holdem, omaha, start, stud

# ---------------------------------------------------------------------------------------------------
# R-CIRC-2, R-FLOP-1 … 3: forced bets, dealing order, who acts first


def test_blinds_are_posted_left_of_the_button_and_the_next_player_acts_first() -> None:
    hand = start(holdem((1, 2)), [100, 100, 100])
    assert hand.state.bets == [1, 2, 0]
    deal(hand, "As Kd Qh Ac Kc Qs")
    assert hand.actor_seat == 3


def test_heads_up_the_button_posts_the_small_blind_and_acts_first_before_the_flop() -> None:
    hand = start(holdem((1, 2)), [100, 100])
    assert hand.state.bets == [2, 1]  # seat 1 big blind, seat 2 (button) small blind
    deal(hand, "As Kd Ac Kc")
    assert hand.actor_seat == 2
    hand.call(2)
    hand.check(1)
    deal(hand, "2c 7h 9d")
    assert hand.actor_seat == 1


def test_hole_cards_are_dealt_one_at_a_time_clockwise() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    assert [[str(c) for c in hand.state.cards_of(p)] for p in range(3)] == [["As", "Ac"], ["Kd", "Kc"], ["Qh", "Qs"]]


def test_after_the_flop_the_first_player_left_of_the_button_acts_first() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.call(3)
    hand.call(1)
    hand.check(2)
    deal(hand, "2c 7h 9d")
    assert hand.actor_seat == 1


def test_the_flop_the_turn_and_the_river_each_follow_a_burn() -> None:
    hand = start(holdem(burn=True), [100, 100])
    deal(hand, "As Kd Ac Kc")
    hand.call(2)
    hand.check(1)
    kinds = []
    for card in ["2s", "2c", "7h", "9d", "3s", "3c", "4s", "4c"]:
        slot = hand.state.next_slot
        assert slot is not None
        kinds.append(slot.kind)
        deal(hand, card)
        if hand.actor_seat is not None:
            hand.check(1)
            hand.check(2)
    assert kinds == [SlotKind.BURN, SlotKind.BOARD, SlotKind.BOARD, SlotKind.BOARD, SlotKind.BURN, SlotKind.BOARD,
                     SlotKind.BURN, SlotKind.BOARD]
    assert [str(c) for c in hand.state.burned] == ["2s", "3s", "4s"]


def test_antes_go_into_the_pot_but_do_not_count_as_bets() -> None:
    settings = holdem((1, 2), antes=1)
    hand = start(settings, [100, 100, 100])
    assert hand.state.contributed == [2, 3, 1]
    assert hand.state.bets == [1, 2, 0]


# ---------------------------------------------------------------------------------------------------
# R-CIRC-3: the actions of a betting turn


def test_checking_is_refused_while_a_bet_is_open_and_nothing_changes() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    before, pending = hand.snapshot(), len(hand.pending_events)
    with pytest.raises(HandRuleError) as error:
        hand.check(3)
    assert error.value.rule == "R-CIRC-3"
    assert hand.snapshot() == before and len(hand.pending_events) == pending
    assert not hand.can_check(3)


def test_acting_out_of_turn_is_refused() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    with pytest.raises(HandRuleError) as error:
        hand.call(1)
    assert error.value.rule == "R-CIRC-3"


def test_folding_forfeits_every_bet_made() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.bet_or_raise_to(3, 10)
    hand.fold(1)
    hand.fold(2)
    assert hand.is_complete
    assert hand.stacks == [99, 98, 103]


def test_a_bet_cannot_exceed_the_players_chips() -> None:
    hand = start(holdem(), [100, 50, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    with pytest.raises(HandRuleError) as error:
        hand.bet_or_raise_to(3, 101)
    assert error.value.rule == "R-CIRC-6"


# ---------------------------------------------------------------------------------------------------
# R-CIRC-5: betting structures


def test_a_no_limit_raise_is_at_least_the_previous_raise() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.bet_or_raise_to(3, 6)
    with pytest.raises(HandRuleError) as error:
        hand.bet_or_raise_to(1, 9)
    assert error.value.rule == "R-CIRC-5"
    legal = hand.legal_actions()
    assert legal is not None and (legal.raise_min, legal.raise_max) == (10, 100)
    hand.bet_or_raise_to(1, 10)


def test_pot_limit_allows_at_most_the_pot_after_calling() -> None:
    hand = start(omaha(), [100, 100, 100])
    deal(hand, "As Kd Qh Jc Ac Kc Qs Jd Ah Kh Qd Js")
    legal = hand.legal_actions()
    assert legal is not None and (legal.raise_min, legal.raise_max) == (4, 7)  # call 2, then the pot of 5: to 7
    with pytest.raises(HandRuleError) as error:
        hand.bet_or_raise_to(3, 8)
    assert error.value.rule == "R-CIRC-5"


def test_fixed_limit_bets_are_the_small_bet_before_the_turn_and_the_big_bet_after() -> None:
    hand = start(holdem((1, 2), structure=BettingStructure.FIXED_LIMIT, small_bet=2, big_bet=4), [100, 100])
    deal(hand, "As Kd Ac Kc")
    legal = hand.legal_actions()
    assert legal is not None and (legal.raise_min, legal.raise_max) == (4, 4)
    hand.call(2)
    hand.check(1)
    deal(hand, "2c 7h 9d")
    legal = hand.legal_actions()
    assert legal is not None and legal.raise_min == 2
    hand.check(1)
    hand.check(2)
    deal(hand, "3s")
    legal = hand.legal_actions()
    assert legal is not None and legal.raise_min == 4


# ---------------------------------------------------------------------------------------------------
# R-CIRC-4: the raise cap


def _fixed_limit_three_handed() -> Hand:
    hand = start(holdem((1, 2), structure=BettingStructure.FIXED_LIMIT, small_bet=2, big_bet=4), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    return hand


def test_fixed_limit_allows_one_bet_and_three_raises() -> None:
    hand = _fixed_limit_three_handed()
    hand.bet_or_raise_to(3, 4)
    hand.bet_or_raise_to(1, 6)
    hand.bet_or_raise_to(2, 8)  # the big blind was the bet: this is the third raise
    with pytest.raises(HandRuleError) as error:
        hand.bet_or_raise_to(3, 10)
    assert error.value.rule == "R-CIRC-4"
    hand.call(3)


def test_with_only_two_players_left_there_is_no_cap() -> None:
    hand = _fixed_limit_three_handed()
    hand.fold(3)
    hand.bet_or_raise_to(1, 4)
    hand.bet_or_raise_to(2, 6)
    hand.bet_or_raise_to(1, 8)
    hand.bet_or_raise_to(2, 10)
    hand.bet_or_raise_to(1, 12)
    assert hand.state.raise_count == 6


# ---------------------------------------------------------------------------------------------------
# R-CIRC-6: table stakes, all-in, side pots, and the reopening of the betting


def test_an_all_in_short_raise_does_not_reopen_the_betting() -> None:
    hand = start(holdem(), [100, 100, 17])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.call(3)
    hand.call(1)
    hand.check(2)
    deal(hand, "2c 7h 9d")
    hand.bet_or_raise_to(1, 10)
    hand.call(2)
    hand.all_in(3)  # 15: a raise of 5, less than the bet of 10
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 1
    assert legal.call == 5 and legal.raise_min is None
    with pytest.raises(HandRuleError) as error:
        hand.bet_or_raise_to(1, 30)
    assert error.value.rule == "R-CIRC-6"


def test_short_all_ins_that_add_up_to_a_full_raise_reopen_the_betting() -> None:
    hand = start(holdem(), [100, 18, 24, 100])
    deal(hand, "As Kd Qh Jc Ac Kc Qs Jd")
    hand.call(3)
    hand.call(4)
    hand.call(1)
    hand.check(2)
    deal(hand, "2c 7h 9d")
    hand.bet_or_raise_to(1, 10)
    hand.all_in(2)  # to 16: +6
    hand.all_in(3)  # to 22: +6, together a full raise of 12 ≥ 10
    hand.call(4)
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 1 and legal.raise_min == 32


def test_a_player_who_cannot_cover_a_bet_wins_only_what_he_matched() -> None:
    hand = start(holdem(), [20, 100, 100])
    deal(hand, "As Ks Qs Ad Kd Qd")
    hand.bet_or_raise_to(3, 50)
    hand.call(1)  # all-in for 20
    hand.call(2)
    deal(hand, "2c 7h 9d")
    hand.check(2)
    hand.check(3)
    deal(hand, "3c")
    hand.check(2)
    hand.check(3)
    deal(hand, "4s")
    hand.check(2)
    hand.check(3)
    assert hand.state.phase is Phase.SHOWDOWN
    for seat in (1, 2, 3):  # R-CIRC-13: nobody bet on the river: from the button's left, clockwise
        hand.show(seat)
    assert hand.is_complete
    assert hand.stacks == [60, 110, 50]
    assert [(a.pot.amount, a.shares) for a in hand.state.awards] == [(60, ((0, 60),)), (60, ((1, 60),))]


def test_an_uncalled_bet_comes_back() -> None:
    hand = start(holdem(), [30, 100])
    deal(hand, "As Kd Ac Kc")
    hand.bet_or_raise_to(2, 100)
    hand.call(1)  # all-in for 30
    deal(hand, "2c 7h 9d 3c 4s")
    hand.show(1)
    hand.show(2)
    assert hand.stacks == [60, 70]
    assert [a.pot.contested for a in hand.state.awards] == [True, False]


# ---------------------------------------------------------------------------------------------------
# R-CIRC-7, R-CIRC-11, R-CIRC-12: winning without showdown, odd chips, rake


def test_if_everybody_else_folds_the_last_player_wins_every_pot_without_showing() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.fold(3)
    hand.fold(1)
    assert hand.is_complete and hand.state.shown == {}
    assert hand.stacks == [99, 101, 100]


def test_an_odd_chip_goes_to_the_first_winner_clockwise_from_the_button() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "2c 4d 6h 3c 5d 7h")
    hand.call(3)
    hand.fold(1)
    hand.check(2)
    deal(hand, "Ts Js Qs")
    hand.check(2)
    hand.check(3)
    deal(hand, "Ks")
    hand.check(2)
    hand.check(3)
    deal(hand, "As")
    hand.check(2)
    hand.check(3)
    hand.show(2)
    hand.show(3)
    assert hand.stacks == [99, 101, 100]  # pot of 5 split 3/2: the odd chip to seat 2, first clockwise


def test_in_stud_the_odd_chip_goes_to_the_winner_with_the_highest_card_by_suit() -> None:
    hand = start(stud(ante=1, bring_in=2, small=5, big=10), [100, 100, 100])
    deal(hand, "9c 4c 9s Th 5c Td Jc 2c Jh")  # seat 2 shows the 2 of clubs and brings in
    hand.post_bring_in(2)
    hand.call(3)
    hand.call(1)  # pot: 3 antes + 3 × 2 = 9
    deal(hand, "Qd 6d Qh")
    hand.check(1)
    hand.fold(2)
    hand.check(3)
    for cards in ("Kc Ks", "2h 2d", "3d 3c"):  # both make the straight nine to king
        deal(hand, cards)
        hand.check(1)
        hand.check(3)
    hand.show(1)
    hand.show(3)
    assert hand.stacks == [101, 97, 102]  # 4 each; the odd chip to seat 3, whose king of spades is highest


def test_the_rake_is_a_percentage_of_each_pot_with_a_cap() -> None:
    hand = start(holdem((1, 2), rake=RakePolicy(percent=10, cap=3)), [100, 100])
    deal(hand, "As Kd Ac Kc")
    hand.bet_or_raise_to(2, 20)
    hand.call(1)
    for cards in ("2c 7h 9d", "3c", "4s"):
        deal(hand, cards)
        hand.check(1)
        hand.check(2)
    hand.show(1)
    hand.show(2)
    assert hand.state.awards[0].rake == 3  # 10 % of 40 is 4, capped at 3
    assert hand.stacks == [117, 80]


def test_an_uncalled_bet_is_not_raked() -> None:
    hand = start(holdem((1, 2), rake=RakePolicy(percent=10, cap=100)), [100, 100])
    deal(hand, "As Kd Ac Kc")
    hand.bet_or_raise_to(2, 10)
    hand.fold(1)
    assert hand.stacks == [98, 102]  # the pot of 4 is raked 0 (10 % rounds down), the 8 uncalled come back whole


# ---------------------------------------------------------------------------------------------------
# R-FLOP-2, R-CARD-6: Omaha uses exactly two own cards


def test_omaha_pays_the_best_hand_of_two_own_and_three_board_cards() -> None:
    hand = start(omaha(), [100, 100])
    # seat 1: four aces (only a pair of aces in Omaha); seat 2: 7-8 of hearts with three hearts on the board
    deal(hand, "As 7h Ad 8h Ac 2c Ah 3d")
    hand.call(2)
    hand.check(1)
    for cards in ("Kh Qh 2h", "9s", "9c"):
        deal(hand, cards)
        hand.check(1)
        hand.check(2)
    hand.show(1)
    hand.show(2)
    assert hand.stacks == [98, 102]


# ---------------------------------------------------------------------------------------------------
# R-STUD7-1: seven-card stud
