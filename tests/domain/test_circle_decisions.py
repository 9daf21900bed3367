"""Issue 12, circle poker: the regulation's irregularities and the decisions RULES.md now writes down.

Each test is named after the rule it checks: R-CIRC-14 voids, R-CIRC-10 the absent bring-in, R-CIRC-9 exposed
cards in every game, R-DRAW-8 at most nine players, R-CIRC-3b ``min_raise``, R-CIRC-1 ``mano_speaks_first``,
R-CIRC-13 the showdown order and R-CIRC-2 a card exposed at the cut.
"""

from __future__ import annotations

import random

import pytest

from domain.cards.cards import Card, Rank, parse_cards
from domain.cards.decks import BackColour, DeckIdentity, composition
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, InvalidSettingsError, MinRaise, TableSettings
from domain.circle.state import HandRuleError, Phase
from domain.circle.table import Table
from tests.support.circle_support import DRAW, _deck, _draw_table, deal, holdem, start, stud

THREE_HANDS = "Jc Ac Th Jd Kd Td 7c Qh 9s 8c Ts 9d 9c 8s 7h"  # seat 1: jacks; seat 2: A K Q T 8; seat 3: tens


def _blank_hand(table: Table) -> Hand:
    """A five-card draw hand where everybody checks: blank (R-DRAW-3)."""
    hand = table.start_hand(_deck(table))
    deal(hand, THREE_HANDS)
    while not hand.is_complete:
        legal = hand.legal_actions()
        assert legal is not None
        hand.check(legal.seat)
    table.finish_hand(hand)
    return hand


# -- R-CIRC-14: a void gives back what was put in during the deal, and changes nothing else ----------------


def test_r_circ_14_a_void_after_a_blank_hand_keeps_the_carried_pot_the_openers_and_la_mano() -> None:
    table = _draw_table()
    first = _blank_hand(table)
    assert table.carried_pot == 3 and table.openers is Rank.QUEEN
    marker = table.button_seat
    second = table.start_hand(_deck(table))
    assert second.state.dead_money == 3 and second.seats[0] != first.seats[0]
    deal(second, THREE_HANDS[:20])
    second.void("R-CIRC-14", "two cards stuck together in the deal")
    table.finish_hand(second)
    assert table.stacks == {1: 49, 2: 49, 3: 49}  # this deal's antes back; the first hand's stay in the pot
    assert table.carried_pot == 3, "the carried pot never vanishes"
    assert table.openers is Rank.QUEEN, "a void does not send the openers back to jacks"
    assert sum(table.stacks.values()) + table.carried_pot == 150
    third = table.start_hand(_deck(table))
    assert third.seats == second.seats, "la mano does not move after a void"
    assert table.button_seat == second.seats[0] and marker != table.button_seat
    assert third.state.openers is Rank.QUEEN and third.state.dead_money == 3


def test_r_circ_14_a_void_mid_betting_returns_every_chip_put_in_during_that_deal() -> None:
    table = Table.open("Mesa H", holdem())
    for seat, stack in ((1, 100), (2, 80), (3, 60)):
        table.sit(seat, stack)
    hand = table.start_hand(DeckIdentity(52, BackColour.BLUE))
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.bet_or_raise_to(1, 10)  # seat 1, left of the big blind, speaks first three-handed
    hand.call(2)
    hand.void("R-DECK-4", "a card of the other deck in the shoe")
    table.finish_hand(hand)
    assert table.stacks == {1: 100, 2: 80, 3: 60}
    assert hand.state.phase is Phase.VOID and hand.state.void_rule == "R-DECK-4"


# -- R-CIRC-10: the absent player who owes the bring-in ---------------------------------------------------


@pytest.mark.parametrize("variant", ["stud7", "stud5"])
def test_r_circ_10_the_absent_player_owes_the_bring_in_it_is_taken_and_play_goes_on_after_it(variant: str) -> None:
    if variant == "stud7":
        settings = stud(ante=1, bring_in=2, small=5, big=10)
        cards = "9c 4c 9s Th 5c Td Jc 2c Jh"  # seat 2 shows the 2 of clubs: the bring-in (R-STUD7-1)
    else:  # R-STUD5-3 with the bring-in setting: the lowest up card brings in
        settings = TableSettings.create("stud5", BettingStructure.FIXED_LIMIT, antes=1, bring_in=2, small_bet=5,
                                        big_bet=10, burn_cards=False)
        cards = "9c Tc 9s Jh 7c Ad"  # down 9c Tc 9s; up Jh 7c Ad: seat 2 brings in
    hand = start(settings, [100, 100, 100])
    deal(hand, cards)
    assert hand.actor_seat == 2 and hand.state.bring_in_pending
    hand.declare_absent(2)
    assert hand.stacks[1] == 100 - 1 - 2, "his ante and the bring-in are taken from his stack"
    assert hand.state.folded[1] and hand.state.pot_total == 3 + 2
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 3
    assert legal.call == 2 and legal.bring_in is None and legal.raise_min == 5 and legal.fold
    events = [type(e).__name__ for e in hand.collect_events()]
    assert events[-2:] == ["BringInPosted", "Forfeited"]
    hand.call(3)
    hand.call(1)
    assert hand.state.next_slot is not None, "third street is over: the fourth-street cards are due"
    assert hand.state.pot_total == 3 + 2 + 2 + 2


def test_r_circ_10_an_absent_player_who_owes_no_forced_bet_loses_only_his_ante() -> None:
    hand = start(stud(ante=1, bring_in=2, small=5, big=10), [100, 100, 100])
    deal(hand, "9c 4c 9s Th 5c Td Jc 2c Jh")
    hand.post_bring_in(2)
    hand.declare_absent(3)
    assert hand.stacks[2] == 99 and hand.state.folded[2]


# -- R-CIRC-9: exposed cards, in every game and every phase ----------------------------------------------


def test_r_circ_9_in_holdem_the_next_hole_card_is_dealt_face_up_if_the_deal_is_not_over() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As")  # seat 1's first card
    hand.expose_card(1, Card.parse("As"))
    deal(hand, "Kd Qh Ac")  # seat 1's second card, Ac, comes face up
    assert hand.state.hole[0] == [(Card.parse("As"), False), (Card.parse("Ac"), True)]
    assert [up for _, up in hand.state.hole[1]] == [False]
    deal(hand, "Kc Qs")
    assert not any(up for cards in hand.state.hole[1:] for _, up in cards)


def test_r_circ_9_in_five_card_draw_the_first_replacement_card_is_dealt_face_up_even_when_exposed_in_the_draw() -> None:
    hand = start(DRAW, [50, 50, 50])
    deal(hand, THREE_HANDS)
    hand.bet_or_raise_to(1, 2)  # seat 1 opens with jacks
    hand.call(2)
    hand.call(3)
    hand.discard(1, parse_cards("7c 8c"))
    deal(hand, "Qd Ks")
    assert hand.state.phase is Phase.DRAWING and hand.drawer_seat == 2
    hand.expose_card(2, Card.parse("Ac"))  # during the draw (R-CIRC-9: any phase)
    hand.discard(2, parse_cards("8s Ts"))
    deal(hand, "Jh Qc")
    assert (Card.parse("Jh"), True) in hand.state.hole[1], "his first replacement card comes face up"
    assert (Card.parse("Qc"), False) in hand.state.hole[1], "only the first"


def _call_down(hand: Hand) -> None:
    """Every player calls or checks (or brings in) until a card is due or the betting is over."""
    while (legal := hand.legal_actions()) is not None:
        if legal.bring_in is not None:
            hand.post_bring_in(legal.seat)
        else:
            (hand.check if legal.check else hand.call)(legal.seat)


def test_r_circ_9_in_stud_the_next_down_card_is_dealt_face_up_not_merely_the_next_card() -> None:
    hand = start(stud(ante=1, bring_in=2, small=5, big=10), [500, 500])
    deal(hand, "9c 4c 9s 2h Jc Th")  # seat 1: 9c 9s down, Jc up; seat 2: 4c 2h down, Th up
    hand.expose_card(1, Card.parse("9c"))
    streets = iter(["Ad Kd", "Qd Jd", "Td 8d"])  # 4th, 5th and 6th streets: up cards anyway
    for _ in range(3):
        _call_down(hand)
        assert 0 in hand.state.next_card_up, "the penalty waits for his next down card"
        deal(hand, next(streets))
    _call_down(hand)
    seventh = hand.state.next_slot
    assert seventh is not None and not seventh.face_up
    deal(hand, "2c 3c")
    assert hand.state.hole[0][-1] == (Card.parse("2c"), True), "his 7th-street down card comes face up"
    assert hand.state.hole[1][-1] == (Card.parse("3c"), False)
    assert 0 not in hand.state.next_card_up


def test_r_circ_9_a_folded_hand_has_no_card_to_expose() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.fold(3)
    with pytest.raises(HandRuleError) as error:
        hand.expose_card(3, Card.parse("Qh"))
    assert error.value.rule == "R-CIRC-9"


# -- R-DRAW-8: at most nine players; the stock refills from discards and folded hands ----------------------


def test_r_draw_8_a_five_card_draw_hand_deals_in_at_most_nine_players() -> None:
    table = _draw_table(10)
    with pytest.raises(HandRuleError) as error:
        table.start_hand(DeckIdentity(52, BackColour.RED))
    assert error.value.rule == "R-DRAW-8" and "9" in str(error.value)
    table.leave(10)
    hand = table.start_hand(DeckIdentity(52, BackColour.RED))
    assert len(hand.seats) == 9


def test_r_draw_8_the_stock_refills_from_the_other_discards_and_the_folded_hands_never_the_openers() -> None:
    rng = random.Random(12)
    for _ in range(500):
        cards = list(composition(52))
        rng.shuffle(cards)
        hand = start(DRAW, [50] * 9)
        deal(hand, cards[:45])
        if hand.state.has_openers(hand.state.cards_of(0)):
            break
    else:  # pragma: no cover
        pytest.fail("no deal where seat 1 can open")
    stock = cards[45:]
    hand.bet_or_raise_to(1, 2)
    for seat in range(2, 10):
        (hand.call if seat <= 4 else hand.fold)(seat)  # seats 5–9 fold: 25 cards on the table
    opener_discards = hand.state.cards_of(0)[:4]
    hand.discard(1, opener_discards)
    deal(hand, stock[:4])  # the opener, first to draw, is served from the stock (7 cards)
    hand.discard(2, hand.state.cards_of(1)[:4])
    assert hand.can_reshuffle_discards()
    back = hand.state.reshufflable()
    assert not set(back) & set(opener_discards), "never the opener's discards"
    folded = {card for p in range(4, 9) for card in hand.state.cards_of(p)}
    assert folded <= set(back), "the folded hands join the new stock"
    hand.reshuffle_discards()
    assert not any(hand.state.cards_of(p) for p in range(4, 9))
    assert hand.state.stock_left >= 4


# -- R-CIRC-3b: min_raise ---------------------------------------------------------------------------------


def test_r_circ_3b_standard_a_short_all_in_does_not_reopen_the_betting() -> None:
    hand = start(holdem(), [200, 200, 200, 25])
    deal(hand, "As Kd Qh Jc Ac Kc Qs Jd")
    hand.bet_or_raise_to(3, 20)
    hand.all_in(4)  # 25: a raise of 5, less than the full raise of 18
    hand.call(1)
    hand.call(2)
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 3 and legal.raise_min is None and legal.call == 5
    with pytest.raises(HandRuleError) as error:
        hand.bet_or_raise_to(3, 60)
    assert "decision" in str(error.value) or error.value.rule in ("R-CIRC-6", "R-CIRC-3b")


def test_r_circ_3b_any_every_raise_of_at_least_one_chip_reopens_the_betting() -> None:
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False,
                                    min_raise=MinRaise.ANY)
    assert TableSettings.from_dict(settings.to_dict()) == settings
    hand = start(settings, [200, 200, 200, 25])
    deal(hand, "As Kd Qh Jc Ac Kc Qs Jd")
    legal = hand.legal_actions()
    assert legal is not None and legal.raise_min == 3, "a raise of one chip over the big blind"
    hand.bet_or_raise_to(3, 20)
    hand.all_in(4)
    hand.call(1)
    hand.call(2)
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 3 and legal.raise_min == 26
    hand.bet_or_raise_to(3, 26)


def test_r_circ_3b_settings_stored_before_the_setting_existed_load_as_standard() -> None:
    data = holdem().to_dict()
    del data["min_raise"], data["mano_speaks_first"]
    settings = TableSettings.from_dict(data)
    assert settings.min_raise is MinRaise.STANDARD and settings.mano_speaks_first


# -- R-CIRC-1: mano_speaks_first -------------------------------------------------------------------------


@pytest.mark.parametrize(("structure", "stakes"), [
    (BettingStructure.FIXED_LIMIT, {"small_bet": 5, "big_bet": 10}),
    (BettingStructure.NO_LIMIT, {"min_bet": 5}),
])
def test_r_stud7_1_a_bring_in_above_the_small_bet_is_refused_when_a_table_is_opened(
        structure: BettingStructure, stakes: dict[str, int]) -> None:
    """Issue 33: the bring-in is less than a bet (the player who brings in may complete it); a stud table opened with
    one above the small bet (the minimum bet, without a limit) had been taken."""
    with pytest.raises(InvalidSettingsError) as refused:
        TableSettings.create("stud7", structure, antes=1, bring_in=6, **stakes)  # type: ignore[arg-type]
    assert refused.value.rule == "R-STUD7-1" and "at most the" in str(refused.value)
    assert TableSettings.create("stud7", structure, antes=1, bring_in=5, **stakes).stakes.bring_in == 5  # type: ignore[arg-type]
