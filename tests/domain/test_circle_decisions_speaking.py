"""The decisions of RULES.md for circle poker as table settings (docs/circle.md): who speaks first (R-CIRC-1), who
shows first (R-CIRC-13), and a card exposed at the cut (R-CIRC-2)."""

from __future__ import annotations

import pytest

from domain.cards.cards import Card, parse_cards
from domain.cards.decks import BackColour, DeckIdentity, composition
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, ShowdownOrder, TableSettings
from domain.circle.state import HandRuleError, Phase
from domain.circle.table import Table
from domain.device_reports import DeviceReport
from tests.support.circle_support import _deck, _draw_table, deal, holdem, start, stud

DRAW = TableSettings.create("draw", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4)
THREE_HANDS = "Jc Ac Th Jd Kd Td 7c Qh 9s 8c Ts 9d 9c 8s 7h"  # seat 1: jacks; seat 2: A K Q T 8; seat 3: tens


def test_r_circ_1_without_blinds_the_holder_of_la_mano_speaks_first_and_the_marker_turns_clockwise() -> None:
    table = _draw_table(4)
    first = table.start_hand(_deck(table))
    assert table.button_seat == 1 and first.seats == [1, 2, 3, 4]
    deal(first, list(composition(32))[:20])
    assert first.actor_seat == 1, "la mano speaks first (R-DRAW-1)"
    first.void("R-CIRC-14", "test: end the deal")
    table.finish_hand(first)
    # a voided deal does not move la mano; the next opened or blank one does
    second = table.start_hand(_deck(table))
    assert second.seats[0] == 1


def test_r_circ_1_with_the_setting_off_the_marker_is_a_dealer_button_and_its_left_speaks_first() -> None:
    settings = TableSettings.create("draw", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4,
                                    mano_speaks_first=False)
    table = _draw_table(4, settings)
    hand = table.start_hand(_deck(table))
    assert table.button_seat == 1 and hand.seats == [2, 3, 4, 1]
    deal(hand, list(composition(32))[:20])
    assert hand.actor_seat == 2


def test_r_circ_1_with_blinds_the_marker_is_the_button_whatever_the_setting() -> None:
    table = Table.open("Mesa B", holdem())
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    hand = table.start_hand(DeckIdentity(52, BackColour.RED))
    assert table.button_seat == 1 and hand.seats == [2, 3, 1]
    assert hand.state.bets == [1, 2, 0]


# -- R-CIRC-13: the showdown order -----------------------------------------------------------------------


def test_r_circ_13_the_last_to_bet_in_the_last_interval_shows_first_then_clockwise() -> None:
    hand = start(holdem(), [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.call(3)
    hand.call(1)
    hand.check(2)
    for board in ("2c 7h 9d", "3c"):
        deal(hand, board)
        for seat in (1, 2, 3):
            hand.check(seat)
    deal(hand, "4s")
    hand.check(1)
    hand.bet_or_raise_to(2, 10)
    hand.call(3)
    hand.call(1)
    assert hand.state.phase is Phase.SHOWDOWN and hand.next_to_show_seat == 2
    with pytest.raises(HandRuleError) as error:
        hand.show(1)
    assert error.value.rule == "R-CIRC-13" and "decision" in str(error.value)
    with pytest.raises(HandRuleError):
        hand.muck(3)
    hand.show(2)
    assert hand.next_to_show_seat == 3
    hand.muck(3)
    hand.show(1)
    assert hand.is_complete


def _checked_to_the_showdown(settings: TableSettings) -> Hand:
    """Three-handed Hold'em, called before the flop and checked down to the showdown."""
    hand = start(settings, [100, 100, 100])
    deal(hand, "As Kd Qh Ac Kc Qs")
    hand.call(3)
    hand.call(1)
    hand.check(2)
    for board in ("2c 7h 9d", "3c", "4s"):
        deal(hand, board)
        for seat in (1, 2, 3):
            hand.check(seat)
    return hand


def test_r_circ_13_with_no_bet_in_the_last_interval_the_first_to_speak_shows_first() -> None:
    hand = _checked_to_the_showdown(holdem())
    assert hand.next_to_show_seat == 1, "the first player left of the button"


def test_r_circ_13_in_stud_with_no_bet_the_first_clockwise_from_the_croupiers_left_shows_first() -> None:
    hand = start(stud(ante=1, bring_in=2, small=5, big=10), [500, 500, 500])
    deal(hand, "9c 4c 9s Th 5c Td Jc 2c Jh")  # seat 2 brings in
    hand.post_bring_in(2)
    hand.call(3)
    hand.call(1)
    cards = iter(parse_cards("Ah Ad Ac Kh Kd Kc Qh Qd Qc 8h 8d 8c"))
    while hand.state.phase is not Phase.SHOWDOWN:
        if hand.state.next_slot is not None:
            hand.deal(next(cards), source="test")
        else:
            legal = hand.legal_actions()
            assert legal is not None
            hand.check(legal.seat)
    assert hand.next_to_show_seat == 1


def test_r_circ_13_after_the_draw_with_no_bet_the_opener_shows_first() -> None:
    hand = start(DRAW, [50, 50, 50])
    deal(hand, THREE_HANDS)
    hand.check(1)  # la mano, with jacks, checks
    hand.check(2)
    hand.bet_or_raise_to(3, 2)  # seat 3 opens with two pair
    hand.call(1)
    hand.call(2)
    for seat in (3, 1, 2):
        hand.discard(seat, [])
    for seat in (3, 1, 2):  # R-DRAW-6: the second interval starts with the opener
        hand.check(seat)
    assert hand.next_to_show_seat == 3
    hand.show(3)
    assert hand.next_to_show_seat == 1
    hand.muck(1)
    hand.muck(2)
    assert hand.is_complete and hand.stacks == [47, 47, 56]


# -- R-CIRC-2: a card exposed at the cut -----------------------------------------------------------------


def test_r_circ_2_a_card_exposed_at_the_cut_is_recorded_and_forces_a_new_shuffle_before_the_deal() -> None:
    table = Table.open("Mesa C", holdem())
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    table.record_cut_exposure(Card.parse("Qh"), "red", "croupier 17")
    assert table.reshuffle_required == {"card": "Qh", "colour": "red", "by": "croupier 17", "rule": "R-CIRC-2"}
    with pytest.raises(HandRuleError) as error:
        table.start_hand(DeckIdentity(52, BackColour.RED))
    assert error.value.rule == "R-CIRC-2" and "shuffled again" in str(error.value)
    table.record_device_report(DeviceReport("ShuffleStar", "SS-1", "shuffle", "blue", "deck ready"))
    with pytest.raises(HandRuleError):
        table.start_hand(DeckIdentity(52, BackColour.RED))  # the other deck's shuffle does not count
    table.record_device_report(DeviceReport("ShuffleStar", "SS-1", "shuffle", "red", "deck ready"))
    assert table.reshuffle_required is None
    table.start_hand(DeckIdentity(52, BackColour.RED))
    names = [type(e).__name__ for e in table.collect_events()]
    assert "CutCardExposed" in names


def test_r_circ_2_a_cut_exposure_is_refused_during_a_hand_and_without_a_witness() -> None:
    table = Table.open("Mesa C", holdem())
    for seat in (1, 2):
        table.sit(seat, 100)
    with pytest.raises(HandRuleError) as error:
        table.record_cut_exposure(Card.parse("Qh"), "red", " ")
    assert error.value.rule == "R-AUD-1"
    table.start_hand(DeckIdentity(52, BackColour.RED))
    version = table.version
    with pytest.raises(HandRuleError):
        table.record_cut_exposure(Card.parse("Qh"), "red", "croupier 17")
    assert table.version == version and table.reshuffle_required is None


def test_r_circ_13_the_setting_any_lets_players_show_in_any_order() -> None:
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False,
                                    showdown_order=ShowdownOrder.ANY)
    assert TableSettings.from_dict(settings.to_dict()) == settings
    hand = _checked_to_the_showdown(settings)
    assert hand.next_to_show_seat is None
    for seat in (3, 1, 2):
        hand.show(seat)
    assert hand.is_complete


def test_r_circ_7_the_last_claim_on_the_pot_is_offered_show_and_never_muck() -> None:
    """Issue 33: the legal actions offered the last player with a claim on a pot a muck the hand then refused."""
    from domain.actions import Muck, Show
    from domain.circle.actions import legal

    hand = _checked_to_the_showdown(holdem())
    assert legal(hand).seat == 1 and Muck in legal(hand).allowed  # two others still claim the pot
    hand.muck(1)
    hand.muck(2)
    offered = legal(hand)
    assert offered.seat == 3 and offered.allowed == (Show,)
    with pytest.raises(HandRuleError) as refused:
        hand.muck(3)
    assert refused.value.rule == "R-CIRC-7"
    hand.show(3)
    assert hand.is_complete


def _at_the_draw() -> Hand:
    """Three-handed five-card draw, opened by seat 3 and called: the draw starts with the opener, then clockwise."""
    hand = start(DRAW, [50, 50, 50])
    deal(hand, THREE_HANDS)
    hand.check(1)
    hand.check(2)
    hand.bet_or_raise_to(3, 2)  # seat 3 opens with two pair
    hand.call(1)
    hand.call(2)
    return hand


def test_r_circ_10_a_player_absent_at_his_turn_to_draw_is_out_and_the_draw_goes_on() -> None:
    """Issue 33 (R-CIRC-10, decision: the draw is a turn): he could not be declared absent at the draw."""
    from domain.actions import Absent, Discard
    from domain.circle.actions import legal

    hand = _at_the_draw()
    assert hand.drawer_seat == 3 and legal(hand).allowed[:2] == (Discard, Absent)
    with pytest.raises(HandRuleError) as early:
        hand.declare_absent(1)  # not his turn yet
    assert early.value.rule == "R-CIRC-10"
    hand.discard(3, [])
    hand.declare_absent(1)
    assert hand.drawer_seat == 2 and hand.state.folded[0]  # out of the hand; the draw goes on
    hand.discard(2, [])
    hand.check(3)
    hand.check(2)
    assert hand.next_to_show_seat == 3
    hand.show(3)
    hand.muck(2)
    assert hand.is_complete and hand.stacks == [47, 47, 56]  # seat 1 lost his ante and his call


def test_r_circ_10_the_last_but_one_absent_at_the_draw_leaves_the_pot_to_the_last() -> None:
    hand = _at_the_draw()
    hand.declare_absent(3)  # the opener, absent at his turn to draw
    hand.declare_absent(1)
    assert hand.is_complete and hand.stacks == [47, 56, 47]
    replayed = None
    for stored in hand.collect_events():
        replayed = stored.mutate(replayed)
    assert replayed is not None and replayed.stacks == hand.stacks  # the events alone say the same


def test_r_circ_1_a_hand_started_directly_deals_from_its_button_and_la_mano() -> None:
    """Issue 33: ``Hand.start`` took its seats as the dealing order whatever button it was given: the button (and,
    where la mano speaks first, its holder) now decides the order, as the table's own start does."""
    from domain.cards.decks import BackColour, DeckIdentity
    from domain.ids import TABLES_NAMESPACE

    blinds = holdem()
    hand = Hand.start(TABLES_NAMESPACE, 1, blinds, seats=[1, 2, 3], stacks=[100, 200, 300], button_seat=2,
                      deck=DeckIdentity(52, BackColour.RED))
    assert hand.seats == [3, 1, 2] and hand.stacks == [300 - 1, 100 - 2, 200]  # seat 3 the small blind, 1 the big
    mano = Hand.start(TABLES_NAMESPACE, 2, DRAW, seats=[1, 2, 3], stacks=[50, 60, 70], button_seat=2,
                      deck=DeckIdentity(32, BackColour.RED))
    assert mano.seats == [2, 3, 1]  # R-CIRC-1: la mano's holder is dealt first and speaks first
    deal(mano, THREE_HANDS)
    assert mano.actor_seat == 2
    with pytest.raises(HandRuleError) as nowhere:
        Hand.start(TABLES_NAMESPACE, 3, blinds, seats=[1, 2, 3], stacks=[100] * 3, button_seat=7,
                   deck=DeckIdentity(52, BackColour.RED))
    assert nowhere.value.rule == "R-CIRC-1"
