"""Issue 13, the "low" findings — each attack as it was made, through the API of a real server on SQLite (pokertable.v1,
issue 14).

Look-alike cards, positions past any log, table names that hide what they say, settings no table can play, enum
values no version of the contract has, chips past the cap, forged card sources, one name for two tables, the status
of "no hand in progress", the message of a box that acts out of turn. Every malformed request is INVALID_ARGUMENT with
the rule it breaks (ErrorInfo) and a BadRequest field violation naming the request field path; every refusal changes
nothing.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domain.banked.cdp import CdpSettings
from domain.banked.table import BankedTable
from domain.cards.cards import Card, parse_cards
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.table import Table
from domain.errors import InvalidCardError, RuleError
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import MAX_CHIPS
from tests.support.attack_inputs import _act_request, _invalid, _opened, _refused, _started, _view
from tests.support.attack_inputs import port as port  # noqa: PLC0414  (a fixture)
from tests.support.grpc_support import TOKENS, Client, deal, open_banked, open_circle, seat, start, violations

NO_LIMIT = pb.BETTING_STRUCTURE_NO_LIMIT
LOOK_ALIKES = ["\u212as", "A\u017f", "\u212a\u017f", "\uff21s", "A\u0455", "\u0410s"]  # Kelvin K, long s, fullwidth
# A, Cyrillic dze and A: each is "K"/"s"/"A" to a reader (and to Unicode case folding) and no card
NAMES = ["Mesa\x00 1", "Mesa\x07", "Mesa\n1", "Mesa\x7f", "Mesa \u202e1 aseM", "Mesa \u2066x\u2069", "Mesa\u200b1",
         "\ufeffMesa 1", "Mesa 1\u2028", " Mesa 1", "Mesa 1 "]
HOSTILE_ENUMS = [-1, 99, 2**31 - 1, -(2**31)]
"""Enum values no version of pokertable.v1 has: proto3 enums are open, so any int32 arrives."""


# -- cards ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_r_card_1_a_look_alike_card_is_no_card(text: str) -> None:
    with pytest.raises(InvalidCardError):
        Card.parse(text)
    with pytest.raises(InvalidCardError):
        parse_cards(f"2c {text}")


def test_r_card_1_look_alike_cards_through_the_api_are_invalid_argument_not_unknown(port: int) -> None:
    pit, dealer = _started(port)
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    start(pit, "THB 1")
    open_banked(pit, "CDP 1", pb.GAME_CASINO_DRAW)
    for table in ("Mesa 1", "THB 1", "CDP 1"):  # the pit's first look at each live hand is recorded (issue 29, item 7)
        _view(pit, table)
    before = [_view(pit, table) for table in ("Mesa 1", "THB 1", "CDP 1")]
    for text in LOOK_ALIKES:
        for table, case, field in (
            ("Mesa 1", {"deal": cmd.Deal(card=text)}, "command.deal.card"),
            ("Mesa 1", {"discard": cmd.Discard(seat=1, cards=["2c", text])}, "command.discard.cards"),
            ("Mesa 1", {"expose_card": cmd.ExposeCard(seat=1, card=text)}, "command.expose_card.card"),
            ("THB 1", {"deal": cmd.Deal(card=text)}, "command.deal.card"),
            ("THB 1", {"face_up_card": cmd.FaceUpCard(card=text)}, "command.face_up_card.card"),
            ("CDP 1", {"exchange": cmd.Exchange(seat=1, cards=[text])}, "command.exchange.cards"),
        ):
            _invalid(_refused(pit.Act, _act_request(pit, table, **case)), "R-CARD-1", field, (text, case))
        error = _refused(pit.RecordCutExposure, svc.RecordCutExposureRequest(
            command_id=pit.next_id(), table="Mesa 1", card=text, colour=pb.DECK_COLOUR_RED))
        _invalid(error, "R-CARD-1", "card", text)
    assert [_view(pit, table) for table in ("Mesa 1", "THB 1", "CDP 1")] == before


# -- Watch positions -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("position", [2**63 - 1, 2**63 - 2])
def test_r_aud_1_a_watch_position_past_any_log_is_invalid_argument(port: int, position: int) -> None:
    pit, _ = _started(port)
    stream = pit.Watch(svc.WatchRequest(table="Mesa 1", after_position=position), timeout=2)
    with pytest.raises(grpc.RpcError) as refused:
        next(iter(stream))
    _invalid(refused.value, "R-AUD-1", "after_position")


@pytest.mark.parametrize(("seconds", "nanos"), [(253_402_300_800, 0), (-62_135_596_801, 0), (2**63 - 1, 0),
                                                (-(2**63), 0), (1_790_000_000, -1), (1_790_000_000, 10**9)])
def test_r_aud_1_a_time_outside_what_a_timestamp_holds_is_invalid_argument(port: int, seconds: int,
                                                                           nanos: int) -> None:
    """google.protobuf.Timestamp holds 0001-01-01 to 9999-12-31 and 0 to 999,999,999 nanoseconds; anything else
    (a client's own encoding puts any int64 there) is refused, naming the field, for history and search."""
    pit, _ = _started(port)
    stamp = Timestamp(seconds=seconds, nanos=nanos)
    _invalid(_refused(pit.GetTable, svc.GetTableRequest(table="Mesa 1", at=stamp)), "R-AUD-1", "at")
    for field in ("since", "until"):
        request = svc.SearchHandsRequest(table="Mesa 1")
        getattr(request, field).CopyFrom(stamp)
        _invalid(_refused(pit.SearchHands, request), "R-AUD-1", field)


# -- table names ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_r_aud_1_a_table_name_with_control_format_or_bidi_characters_is_refused_by_the_domain(name: str) -> None:
    with pytest.raises(RuleError) as circle:
        Table.open(name, TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2)))
    assert circle.value.rule == "R-AUD-1"
    with pytest.raises(RuleError) as banked:
        BankedTable.open(name, "casino-draw", CdpSettings(5, 100))
    assert banked.value.rule == "R-AUD-1"


def test_r_aud_1_a_table_name_with_control_format_or_bidi_characters_is_refused_by_the_api(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    circle = pb.CircleSettings(structure=NO_LIMIT, blinds=[1, 2])
    for name in NAMES:
        for request in (
            svc.OpenTableRequest(command_id=pit.next_id(), table=name, game=pb.GAME_HOLDEM, circle=circle),
            svc.OpenTableRequest(command_id=pit.next_id(), table=name, game=pb.GAME_CASINO_DRAW,
                                 casino_draw=pb.CasinoDrawSettings(ante_min=5, ante_max=9)),
        ):
            _invalid(_refused(pit.OpenTable, request), "R-AUD-1", "table", repr(name))
        _invalid(_refused(pit.GetTable, svc.GetTableRequest(table=name)), "R-AUD-1", "table", repr(name))
        _invalid(_refused(pit.SeatPlayer, svc.SeatPlayerRequest(command_id=pit.next_id(), table=name, seat=1,
                                                                chips=100)), "R-AUD-1", "table", repr(name))
    pit.OpenTable(svc.OpenTableRequest(command_id=pit.next_id(), table="Mesa ñ 1 — salón", game=pb.GAME_HOLDEM,
                                       circle=circle))  # letters, accents and punctuation of any script are names


def test_r_aud_1_one_name_space_for_circle_and_banked_tables(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    open_circle(pit, "Mesa 1")
    error = _refused(pit.OpenTable, svc.OpenTableRequest(
        command_id=pit.next_id(), table="Mesa 1", game=pb.GAME_CASINO_DRAW,
        casino_draw=pb.CasinoDrawSettings(ante_min=5, ante_max=100)))
    assert "already" in (error.details() or "")
    _invalid(error, "R-AUD-1", "table")
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    error = _refused(pit.OpenTable, svc.OpenTableRequest(
        command_id=pit.next_id(), table="THB 1", game=pb.GAME_HOLDEM,
        circle=pb.CircleSettings(structure=NO_LIMIT, blinds=[1, 2])))
    assert "already" in (error.details() or "")
    _invalid(error, "R-AUD-1", "table")  # as for a circle table opened twice
    assert _view(pit, "THB 1").view.family == pb.GAME_FAMILY_BANKED, "still the Hold'em Bonus table"
    assert _view(pit, "Mesa 1").view.game == pb.GAME_HOLDEM


# -- settings ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("settings", "rule", "field"), [
    ({"blinds": [1, 2], "deck_size": 53}, "R-CARD-2", "deck_size"),
    ({"blinds": [1, 2], "deck_size": -1}, "R-CARD-2", "deck_size"),
    ({"blinds": [1, 2], "deck_size": 51}, "R-CARD-2", "deck_size"),
    ({"blinds": [10, 5]}, "R-CIRC-5", "blinds"),
    ({"blinds": [1, 2, 1]}, "R-CIRC-5", "blinds"),
    ({"blinds": [1] * 11}, "R-CIRC-5", "blinds"),
    ({"blinds": [1] * 60_000}, "R-CIRC-5", "blinds"),  # ≈ 60 KB: every later command of the table paid for them
    ({"blinds": [1, MAX_CHIPS + 1]}, "R-CIRC-5", "blinds"),
    ({"blinds": [1, 2], "ante": -1}, "R-CIRC-5", "ante"),
    ({"blinds": [1, 2], "min_bet": -5}, "R-CIRC-5", "min_bet"),
    ({"blinds": [1, 2], "structure": 99}, "R-CIRC-5", "structure"),
    ({"blinds": [1, 2], "structure": pb.BETTING_STRUCTURE_UNSPECIFIED}, "R-CIRC-5", "structure"),
    ({"blinds": [1, 2], "min_raise": -1}, "R-CIRC-3b", "min_raise"),
    ({"blinds": [1, 2], "showdown_order": 2**31 - 1}, "R-CIRC-13", "showdown_order"),
])
def test_r_circ_5_settings_no_table_can_play_are_refused_when_opened_and_configured(
    port: int, settings: dict[str, Any], rule: str, field: str,
) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    circle = pb.CircleSettings(**{"structure": NO_LIMIT, **settings})
    error = _refused(pit.OpenTable, svc.OpenTableRequest(command_id=pit.next_id(), table="Mesa 9",
                                                         game=pb.GAME_HOLDEM, circle=circle))
    _invalid(error, rule, f"circle.{field}")
    open_circle(pit, "Mesa 1", no_burns=True)
    seat(dealer, "Mesa 1", 1)
    before = _view(pit)
    error = _refused(pit.ConfigureTable, svc.ConfigureTableRequest(command_id=pit.next_id(), table="Mesa 1",
                                                                   settings=circle))
    _invalid(error, rule, f"settings.{field}")
    assert _view(pit) == before
    with pytest.raises(grpc.RpcError) as missing:
        _view(pit, "Mesa 9")
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize("value", HOSTILE_ENUMS)
def test_r_circ_5_an_unknown_game_or_settings_of_the_other_family_are_invalid_argument(port: int, value: Any) -> None:
    pit = Client(port, TOKENS["pit"])
    circle = pb.CircleSettings(structure=NO_LIMIT, blinds=[1, 2])
    error = _refused(pit.OpenTable, svc.OpenTableRequest(command_id=pit.next_id(), table="Mesa 9", game=value,
                                                         circle=circle))
    _invalid(error, "R-CIRC-5", "game", value)
    error = _refused(pit.OpenTable, svc.OpenTableRequest(command_id=pit.next_id(), table="Mesa 9",
                                                         game=pb.GAME_HOLDEM_BONUS, circle=circle))
    _invalid(error, "R-CIRC-5", "circle")
    error = _refused(pit.OpenTable, svc.OpenTableRequest(command_id=pit.next_id(), table="Mesa 9",
                                                         game=pb.GAME_OMAHA, casino_draw=pb.CasinoDrawSettings(
                                                             ante_min=5, ante_max=100)))
    _invalid(error, "R-CIRC-5", "casino_draw")
    error = _refused(pit.OpenTable, svc.OpenTableRequest(
        command_id=pit.next_id(), table="THB 9", game=pb.GAME_HOLDEM_BONUS,
        holdem_bonus=pb.HoldemBonusSettings(ante_min=5, ante_pays_from=value)))
    _invalid(error, "R-THB-8", "holdem_bonus.ante_pays_from", value)
    error = _refused(pit.OpenTable, svc.OpenTableRequest(
        command_id=pit.next_id(), table="THB 9", game=pb.GAME_HOLDEM_BONUS,
        holdem_bonus=pb.HoldemBonusSettings(ante_min=7)))
    _invalid(error, "R-THB-2", "holdem_bonus.ante_min")
    for table in ("Mesa 9", "THB 9"):
        with pytest.raises(grpc.RpcError) as missing:
            _view(pit, table)
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize("value", HOSTILE_ENUMS)
def test_r_deck_2_an_unknown_deck_colour_or_report_kind_is_invalid_argument(port: int, value: Any) -> None:
    pit, dealer = _opened(port)
    before = _view(pit)
    _invalid(_refused(dealer.StartHand, svc.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1",
                                                             deck_colour=value)), "R-DECK-2", "deck_colour", value)
    _invalid(_refused(dealer.RecordCutExposure, svc.RecordCutExposureRequest(
        command_id=dealer.next_id(), table="Mesa 1", card="Qh", colour=value)), "R-DECK-2", "colour", value)
    report: dict[str, Any] = {"command_id": "", "table": "Mesa 1", "device": "Shuffler", "serial": "S-1",
              "kind": pb.DEVICE_REPORT_KIND_SHUFFLE, "colour": pb.DECK_COLOUR_RED, "result": "deck ready"}
    for field, rule in (("kind", "R-DECK-3"), ("colour", "R-DECK-2")):
        request = svc.RecordDeviceReportRequest(**{**report, "command_id": dealer.next_id(), field: value})
        _invalid(_refused(dealer.RecordDeviceReport, request), rule, field, value)
    assert _view(pit) == before


def test_r_aud_1_an_act_without_a_command_is_invalid_argument(port: int) -> None:
    pit, dealer = _started(port)
    before = _view(pit)
    error = _refused(dealer.Act, svc.ActRequest(command_id=dealer.next_id(), table="Mesa 1"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "command" in violations(error), violations(error)
    _invalid(_refused(dealer.Act, _act_request(dealer, "Mesa 1", bet=cmd.Bet(seat=1, amount=-10))), "R-CIRC-6",
             "command.bet.amount")
    _invalid(_refused(dealer.Act, _act_request(dealer, "Mesa 1", bet=cmd.Bet(seat=1, amount=MAX_CHIPS + 1))),
             "R-CIRC-6", "command.bet.amount")
    _invalid(_refused(pit.Act, _act_request(pit, "Mesa 1", void=cmd.Void(rule="R-CIRC-14", reason="a\u202eb"))),
             "R-AUD-1", "command.void.reason")
    _invalid(_refused(pit.Act, _act_request(pit, "Mesa 1", void=cmd.Void(rule="R-CIRC-14\u202e", reason="bidi"))),
             "R-AUD-1", "command.void.rule")
    assert _view(pit) == before
