"""Hostile inputs the rules refuse (R-CIRC-5, R-CIRC-6, R-AUD-1, R-CIRC-2, R-CDP-2, R-CDP-3): refused with the rule they
break, recording nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from domain.banked.cdp import CdpHand, CdpRuleError, CdpSettings
from domain.banked.table import BankedTable
from domain.cards.cards import Card, parse_cards
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, InvalidSettingsError, TableSettings
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import MAX_CHIPS
from tests.support import attack_inputs as _base
from tests.support.attack_inputs import _act_request, _invalid, _opened, _refused, _started, _view
from tests.support.grpc_support import act, open_banked, rule_of, start

port = _base.port


def test_r_circ_5_the_domain_refuses_decreasing_or_too_many_blinds_and_decks_r_card_2_does_not_have() -> None:
    for blinds in ((10, 5), (1, 2, 1), (1,) * 11):
        with pytest.raises(InvalidSettingsError) as refused:
            TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=blinds)
        assert refused.value.rule == "R-CIRC-5"
    for size in (53, -1, 0, 51, 56):
        with pytest.raises(InvalidSettingsError) as refused:
            TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), deck_size=size or 1)
        assert refused.value.rule == "R-CARD-2"
    with pytest.raises(InvalidSettingsError):
        TableSettings.create("holdem", BettingStructure.NO_LIMIT, antes=(1,) * 11, blinds=(1, 2))
    assert TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(0, 2, 4)).stakes.blinds == (0, 2, 4)
    assert TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), deck_size=36).deck_size == 36


# -- chips ---------------------------------------------------------------------------------------------------------


def test_r_circ_6_add_chips_may_not_take_a_stack_past_the_chip_cap(port: int) -> None:
    pit, dealer = _opened(port)
    dealer.AddChips(svc.AddChipsRequest(command_id=dealer.next_id(), table="Mesa 1", seat=1, chips=MAX_CHIPS - 100))
    for _ in range(2):
        error = _refused(dealer.AddChips, svc.AddChipsRequest(command_id=dealer.next_id(), table="Mesa 1", seat=1,
                                                              chips=MAX_CHIPS))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(error) == "R-CIRC-6"
    error = _refused(dealer.AddChips, svc.AddChipsRequest(command_id=dealer.next_id(), table="Mesa 1", seat=1,
                                                          chips=1))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert _view(pit).view.circle.stacks[1] == MAX_CHIPS
    assert "cap" in (error.details() or "")
    for chips in (0, -1, MAX_CHIPS + 1, -(2**63)):
        error = _refused(dealer.AddChips, svc.AddChipsRequest(command_id=dealer.next_id(), table="Mesa 1", seat=2,
                                                              chips=chips))
        _invalid(error, "R-CIRC-6", "chips", chips)
    assert _view(pit).view.circle.stacks[2] == 100


# -- card sources --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [3, 99, -1, 2**31 - 1])
def test_r_aud_1_a_deal_names_a_source_a_station_deals_from(port: int, source: Any) -> None:
    """CardSource is an open enum: a value past CARD_SOURCE_SHOE (the domain's own "replay" and "test", a forged
    one) is no source a station deals from."""
    pit, dealer = _started(port)
    open_banked(pit, "CDP 1", pb.GAME_CASINO_DRAW)
    start(pit, "CDP 1")
    act(pit, "CDP 1", ante=cmd.Ante(seat=1, amount=10))
    act(pit, "CDP 1", close_bets=cmd.CloseBets())
    _view(pit, "CDP 1"), _view(pit)  # the pit's first look at each live hand is recorded (issue 29, item 7)
    banked_before, circle_before = _view(pit, "CDP 1"), _view(pit)
    forged = cmd.Deal(card="As", source=source, sequence=7)
    _invalid(_refused(pit.Act, _act_request(pit, "CDP 1", deal=forged)), "R-AUD-1", "command.deal.source")
    _invalid(_refused(dealer.Act, _act_request(dealer, "Mesa 1", deal=forged)), "R-AUD-1", "command.deal.source")
    assert (_view(pit, "CDP 1"), _view(pit)) == (banked_before, circle_before)


def test_r_aud_1_the_banked_domain_refuses_an_unknown_card_source() -> None:
    hand = CdpHand.start(BankedTable.create_id("CDP 1"), 1, CdpSettings(5, 100), DeckIdentity(52, BackColour.RED))
    hand.place_ante(1, 10)
    hand.close_bets()
    with pytest.raises(CdpRuleError) as refused:
        hand.deal(Card.parse("As"), "forged")
    assert refused.value.rule == "R-AUD-1" and hand.version == 3


# -- statuses and messages -----------------------------------------------------------------------------------------


def test_r_circ_2_a_hand_command_with_no_hand_in_progress_is_failed_precondition(port: int) -> None:
    pit, dealer = _opened(port)
    error = _refused(dealer.Act, _act_request(dealer, "Mesa 1", fold=cmd.Fold(seat=1)))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(error) == "R-CIRC-2"
    open_banked(pit, "CDP 1", pb.GAME_CASINO_DRAW)
    error = _refused(pit.Act, _act_request(pit, "CDP 1", fold=cmd.Fold(seat=1)))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "no hand" in (error.details() or "")


def _cdp_at_the_exchange() -> CdpHand:
    hand = CdpHand.start(BankedTable.create_id("CDP 1"), 1, CdpSettings(5, 100), DeckIdentity(52, BackColour.RED))
    for box in (1, 2):
        hand.place_ante(box, 10)
    hand.close_bets()
    for card in parse_cards("2c Ac 7d Ad 9h 5h Js 5s Kc Qc 3c 4d 6h 8s Td"):
        hand.deal(card)
    return hand


def test_r_cdp_2_a_box_that_plays_or_folds_before_exchanging_is_told_to_exchange_first() -> None:
    """Box 1, whose turn it is to exchange, plays: the refusal said "box 1 decides now, not box 1" — the box named
    was the box that acted, because the check asked for the decision stage and blamed the turn."""
    hand = _cdp_at_the_exchange()
    attempts: list[Callable[[], None]] = [lambda: hand.play(1, 20), lambda: hand.fold(1)]
    for attempt in attempts:
        with pytest.raises(CdpRuleError) as refused:
            attempt()
        assert refused.value.rule == "R-CDP-2"
        assert "box 1 exchanges" in refused.value.message and "not box 1" not in refused.value.message
    with pytest.raises(CdpRuleError) as refused:
        hand.play(2, 20)
    assert "box 1 exchanges" in refused.value.message
    hand.exchange(1, [Card.parse("2c")])
    with pytest.raises(CdpRuleError) as refused:
        hand.exchange(2, [])
    assert "None" not in refused.value.message and "box 1" in refused.value.message  # its card is due first
    hand.deal(Card.parse("2d"))
    hand.exchange(2, [])
    with pytest.raises(CdpRuleError) as refused:
        hand.play(2, 20)
    assert refused.value.rule == "R-CDP-3" and "box 1 decides now, not box 2" in refused.value.message
    hand.play(1, 20)
    hand.fold(2)
    assert hand.is_complete or hand.next_card == 0


def test_r_cdp_3_a_decision_before_the_deal_names_no_box() -> None:
    hand = CdpHand.start(BankedTable.create_id("CDP 1"), 1, CdpSettings(5, 100), DeckIdentity(52, BackColour.RED))
    hand.place_ante(1, 10)
    with pytest.raises(CdpRuleError) as refused:
        hand.fold(1)
    assert "None" not in refused.value.message
