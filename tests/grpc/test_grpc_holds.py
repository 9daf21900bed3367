"""Issue 19, item 2 — an alert holds the table and an acknowledgement releases it, over gRPC (R-HOLD-1, R-DECK-3).

A device's fault holds the table: GetTable and ListTables show which alert holds it (its log position, kind, rule and
words), StartHand is FAILED_PRECONDITION naming R-HOLD-1 and records nothing, an observer and the croupier may not
acknowledge it, the pit boss does, and play resumes.  A deck check that counted wrong holds the table and takes that
deck out of play: acknowledged, the table may deal again but not from that deck (R-DECK-3) until a complete deck of
its colour is checked in, and the red–blue alternation still holds (R-DECK-2).  An alert the service raises itself
(the shuffler integrity monitor's) holds a banked table alike.  Against a real server, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.station.reference import render
from service.store.audit import Finding
from service.store.persistence import environment
from tests.support import grpc_support
from tests.support.grpc_support import (
    STATIONS,
    TOKENS,
    Client,
    act,
    open_banked,
    open_circle,
    rule_of,
    seat,
    serving,
    start,
)

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""


def _view(client: Client, table: str) -> pb.TableView:
    view: pb.TableView = client.GetTable(svc.GetTableRequest(table=table)).view
    return view


def _summary(client: Client, table: str) -> pb.TableSummary:
    summaries: list[pb.TableSummary] = list(client.ListTables(svc.ListTablesRequest(tables=[table])).tables)
    assert len(summaries) == 1
    return summaries[0]


def _report(client: Client, table: str, kind: pb.DeviceReportKind, colour: pb.DeckColour, result: str, *,
            device: str = "PT-SHUF") -> None:
    client.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id=client.next_id(), table=table, device=device, serial="SN-19", kind=kind, colour=colour,
        result=result))


def _refused(call: object) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        call()  # type: ignore[operator]
    return refused.value


def _acknowledge(client: Client, table: str, position: int, reason: str) -> svc.AcknowledgeAlertResponse:
    reply: svc.AcknowledgeAlertResponse = client.AcknowledgeAlert(svc.AcknowledgeAlertRequest(
        command_id=client.next_id(), table=table, position=position, reason=reason))
    return reply


def test_r_hold_1_a_device_fault_holds_the_table_until_the_pit_boss_acknowledges_it(port: int) -> None:
    pit, dealer, tv = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["tv"])
    open_circle(pit, "Mesa 1")
    seat(dealer, "Mesa 1", 1), seat(dealer, "Mesa 1", 2)
    assert not _view(dealer, "Mesa 1").holds
    _report(dealer, "Mesa 1", pb.DEVICE_REPORT_KIND_FAULT, pb.DECK_COLOUR_RED, "card jam at the reader",
            device="PT-SHOE")

    (hold,) = _view(tv, "Mesa 1").holds  # everyone sees what holds the table: the station and the dashboard
    assert (hold.kind, hold.rule, hold.detail) == ("device-fault", "R-HOLD-1",
                                                   "PT-SHOE SN-19: card jam at the reader")
    assert hold.position > 0 and list(_summary(tv, "Mesa 1").holds) == [hold]
    screen = render(_view(dealer, "Mesa 1"))  # the croupier's screen says so
    assert f"HELD by the alert at {hold.position}: PT-SHOE SN-19: card jam at the reader" in screen

    before = _view(pit, "Mesa 1").position
    refused = _refused(lambda: start(dealer, "Mesa 1", pb.DECK_COLOUR_RED))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused) == "R-HOLD-1"
    assert "card jam at the reader" in str(refused.details())
    assert _view(pit, "Mesa 1").position == before  # the refused start recorded nothing

    for who in (tv, dealer):  # an observer and the croupier may not clear it (R-AUD-1)
        denied = _refused(lambda who=who: _acknowledge(who, "Mesa 1", hold.position, "looks fine to me"))
        assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
    assert [h.position for h in _view(pit, "Mesa 1").holds] == [hold.position]

    _acknowledge(pit, "Mesa 1", hold.position, "jam cleared by the technician, the shoe reads again")
    assert not _view(dealer, "Mesa 1").holds and not _summary(tv, "Mesa 1").holds
    assert start(dealer, "Mesa 1", pb.DECK_COLOUR_RED).result.hand_number == 1  # play resumes


def test_r_hold_1_each_holding_alert_is_acknowledged_and_a_refused_read_holds_nothing(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    director = Client(port, TOKENS["director"])
    open_circle(pit, "Mesa 1")
    seat(dealer, "Mesa 1", 1), seat(dealer, "Mesa 1", 2)
    _report(dealer, "Mesa 1", pb.DEVICE_REPORT_KIND_FAULT, pb.DECK_COLOUR_RED,
            "read 7 As refused by the service: no card is due", device="PT-SHOE")  # R-DECK-4: handled by the hand
    _report(dealer, "Mesa 1", pb.DEVICE_REPORT_KIND_FAULT, pb.DECK_COLOUR_RED,
            "read 8 Kd: read twice (R-DECK-4)", device="PT-SHOE")
    _report(dealer, "Mesa 1", pb.DEVICE_REPORT_KIND_FAULT, pb.DECK_COLOUR_RED,
            "shoe connection lost: [Errno 5] Input/output error", device="PT-SHOE")  # out of reach: typed cards
    assert not _view(pit, "Mesa 1").holds
    _report(dealer, "Mesa 1", pb.DEVICE_REPORT_KIND_FAULT, pb.DECK_COLOUR_BLUE, "shuffler jammed")
    _report(dealer, "Mesa 1", pb.DEVICE_REPORT_KIND_FAULT, pb.DECK_COLOUR_RED, "reader jammed: two cards stuck",
            device="PT-SHOE")
    first, second = _view(pit, "Mesa 1").holds
    assert first.position < second.position
    _acknowledge(director, "Mesa 1", second.position, "shoe cable replaced")
    assert [h.position for h in _view(pit, "Mesa 1").holds] == [first.position]
    assert rule_of(_refused(lambda: start(dealer, "Mesa 1", pb.DECK_COLOUR_RED))) == "R-HOLD-1"
    _acknowledge(pit, "Mesa 1", first.position, "shuffler restarted, deck counted")
    assert start(dealer, "Mesa 1", pb.DECK_COLOUR_BLUE).result.hand_number == 1


def test_r_deck_3_a_deck_that_counts_wrong_leaves_play_until_a_complete_deck_is_checked_in(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1")
    seat(dealer, "Mesa 1", 1), seat(dealer, "Mesa 1", 2)
    _report(dealer, "Mesa 1", pb.DEVICE_REPORT_KIND_DECK_CHECK, pb.DECK_COLOUR_RED,
            "51 counted, INCOMPLETE: missing 1, duplicated 0, foreign 0")
    view = _view(pit, "Mesa 1")
    (hold,) = view.holds
    assert (hold.kind, hold.rule) == ("deck-count", "R-DECK-3")
    assert list(view.decks_out_of_play) == [pb.DECK_COLOUR_RED]
    assert "the red deck is OUT OF PLAY until a complete one is checked in (R-DECK-3)" in render(view)
    _acknowledge(pit, "Mesa 1", hold.position, "red deck taken off the table, a new one sent for")
    view = _view(pit, "Mesa 1")
    assert not view.holds and list(view.decks_out_of_play) == [pb.DECK_COLOUR_RED]  # acknowledged, still out

    before = view.position
    refused = _refused(lambda: start(dealer, "Mesa 1", pb.DECK_COLOUR_RED))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused) == "R-DECK-3"
    assert _view(pit, "Mesa 1").position == before
    assert start(dealer, "Mesa 1", pb.DECK_COLOUR_BLUE).result.hand_number == 1  # the other deck plays
    act(pit, "Mesa 1", void=cmd.Void(rule="R-CIRC-14", reason="the pit stops the hand for the deck change"))
    # R-DECK-2: the blue deck was in play; the red is next, and it is out of play: nothing is dealt
    assert rule_of(_refused(lambda: start(dealer, "Mesa 1", pb.DECK_COLOUR_BLUE))) == "R-DECK-2"
    assert rule_of(_refused(lambda: start(dealer, "Mesa 1", pb.DECK_COLOUR_RED))) == "R-DECK-3"

    _report(dealer, "Mesa 1", pb.DEVICE_REPORT_KIND_DECK_CHECK, pb.DECK_COLOUR_RED, "52 counted, complete")
    view = _view(pit, "Mesa 1")
    assert not view.holds and not view.decks_out_of_play
    assert start(dealer, "Mesa 1", pb.DECK_COLOUR_RED).result.hand_number == 2


@pytest.fixture
def app(tmp_path: Path) -> Iterator[PokerTables]:
    """An application on an SQLite file the test calls directly (the service's own alerts), served beside."""
    tables = PokerTables(env=environment(f"sqlite:///{tmp_path / 'tables.db'}"))
    try:
        yield tables
    finally:
        tables.close()


def test_r_hold_1_an_alert_the_service_raises_holds_a_banked_table_once(app: PokerTables) -> None:
    with serving(app, STATIONS) as bound:
        pit, croupier = Client(bound, TOKENS["pit"]), Client(bound, TOKENS["thb"])
        open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
        detail = "SN-19 blue: adjacent pairs kept, p = 2e-9 over 30 shuffles"
        raised = app.holds.raise_alert("THB 1", kind="shuffler-integrity", detail=detail)
        assert app.holds.raise_alert("THB 1", kind="shuffler-integrity", detail=detail) == raised  # recorded once
        (hold,) = _view(croupier, "THB 1").holds
        assert f"HELD by the alert at {hold.position}: {detail}" in render(_view(croupier, "THB 1"))
        assert (hold.position, hold.kind, hold.rule, hold.detail) == (
            raised.position, "shuffler-integrity", "GLI-19 §3.2.2", detail)
        refused = _refused(lambda: start(croupier, "THB 1", pb.DECK_COLOUR_BLUE))
        assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused) == "R-HOLD-1"
        _acknowledge(pit, "THB 1", hold.position, "shuffler taken out of service, hand shuffle until replaced")
        assert start(croupier, "THB 1", pb.DECK_COLOUR_BLUE).result.hand_number == 1


def test_r_aud_1_tampering_holds_its_table_and_a_finding_of_no_table_holds_every_table(app: PokerTables) -> None:
    with serving(app, STATIONS) as bound:
        pit, dealer = Client(bound, TOKENS["pit"]), Client(bound, TOKENS["dealer"])
        open_circle(pit, "Mesa 1"), open_circle(pit, "Mesa 2")
        seat(dealer, "Mesa 1", 1), seat(dealer, "Mesa 1", 2)
        mesa_1 = _view(pit, "Mesa 1").position  # the last event of Mesa 1 (a seat)
        assert app.audit.record_finding(Finding("altered", mesa_1 - 1, "the event was altered"))
        (hold,) = _view(pit, "Mesa 1").holds
        assert (hold.kind, hold.rule) == ("audit", "R-AUD-1") and not _view(pit, "Mesa 2").holds
        assert rule_of(_refused(lambda: start(dealer, "Mesa 1", pb.DECK_COLOUR_RED))) == "R-HOLD-1"
        pit.AcknowledgeAlert(svc.AcknowledgeAlertRequest(command_id=pit.next_id(), table="", position=hold.position,
                                                         reason="the altered row restored from the backup"))
        assert not _view(pit, "Mesa 1").holds
        assert app.audit.record_finding(Finding("head", 10**6, "the signed head is ahead of the log"))
        assert [h.kind for h in _view(pit, "Mesa 2").holds] == ["audit"] == [h.kind for h in
                                                                             _view(pit, "Mesa 1").holds]
