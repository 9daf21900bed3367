"""Circle poker as the regulation states it (RULES §2, §4, §5), one test per sentence."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from domain.cards.cards import Card
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, RakePolicy, TableSettings
from domain.circle.state import HandRuleError, Phase, SlotKind
from tests.circle_support import deal, deal_while_due, holdem, omaha, shuffled, start, stud

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
