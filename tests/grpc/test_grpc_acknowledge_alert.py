"""Issue 16, item 4 — alerts acknowledged by an authorised role, the acknowledgement an event (R-AUD-1): the pit boss
or the games director acknowledges an alert of a table (a device fault, a void), named by the log position of the
event that raised it, with a reason (AcknowledgeAlert); the Watch stream carries it as ``table_alert_acknowledged``
or ``banked_table_alert_acknowledged`` (position, reason, by). An alert is acknowledged once; a croupier, a device
and an observer may not; a malformed request is INVALID_ARGUMENT naming its field; a retried command id is answered
once; a closed table still takes acknowledgements. Against a real server, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.grpc.requests import MAX_POSITION
from tests.support import grpc_support
from tests.support.grpc_support import (
    TOKENS,
    Client,
    open_banked,
    open_circle,
    rule_of,
    seat,
    start,
    stored_changes,
    violations,
)

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

ACKNOWLEDGED = ("table_alert_acknowledged", "banked_table_alert_acknowledged")
REPORTED = ("table_device_reported", "banked_table_device_reported")


def _changes(client: Client, table: str) -> list[svc.WatchResponse]:
    """Every change of ``table`` stored so far."""
    return stored_changes(client, table)


def _first(client: Client, table: str, wanted: Callable[[svc.WatchResponse], bool]) -> svc.WatchResponse:
    """The first change of ``table`` that is ``wanted`` (the stream is left as soon as it comes)."""
    stream = client.Watch(svc.WatchRequest(table=table), timeout=10)
    try:
        found: svc.WatchResponse = next(change for change in stream if wanted(change))
    finally:
        stream.cancel()
    return found


def _log(client: Client, table: str) -> int:
    """The event log's last position now: unchanged when nothing at all was stored."""
    return int(client.GetTable(svc.GetTableRequest(table=table)).view.position)


def _kind(change: svc.WatchResponse) -> str:
    return str(change.event.WhichOneof("event"))


def _acknowledged(client: Client, table: str) -> list[tuple[str, int, str, str]]:
    """The acknowledgements on the table's Watch stream: (event case, position, reason, by)."""
    found = []
    for change in _changes(client, table):
        if _kind(change) in ACKNOWLEDGED:
            body: Any = getattr(change.event, _kind(change))
            found.append((_kind(change), body.position, body.reason, body.by))
    return found


def _fault(client: Client, table: str, result: str) -> int:
    """A device fault reported at ``table`` (RecordDeviceReport, kind FAULT): the log position of its event."""
    client.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id=client.next_id(), table=table, device="PT-SHOE", serial="SH-9", kind=pb.DEVICE_REPORT_KIND_FAULT,
        colour=pb.DECK_COLOUR_RED, result=result))
    report = _first(client, table, lambda change: _kind(change) in REPORTED
                    and getattr(change.event, _kind(change)).result == result)
    assert getattr(report.event, _kind(report)).kind == "fault"
    return int(report.position)


def _acknowledge(client: Client, table: str, position: int, reason: str,
                 command_id: str | None = None) -> svc.AcknowledgeAlertResponse:
    reply: svc.AcknowledgeAlertResponse = client.AcknowledgeAlert(svc.AcknowledgeAlertRequest(
        command_id=command_id or client.next_id(), table=table, position=position, reason=reason))
    return reply


def _refusal(call: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        call()
    return refused.value


def test_r_aud_1_the_pit_boss_and_the_games_director_acknowledge_device_faults_on_the_watch_stream(
    port: int,
) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    director = Client(port, TOKENS["director"])
    open_circle(pit, "Mesa 1")
    jam = _fault(dealer, "Mesa 1", "jam at the reader")
    incomplete = _fault(dealer, "Mesa 1", "51 counted: a card is missing")
    reply = _acknowledge(pit, "Mesa 1", jam, "jam cleared, the shoe reads again")
    assert reply.result.table == "Mesa 1"
    _acknowledge(director, "Mesa 1", incomplete, "deck replaced; the missing card found under the table")
    assert _acknowledged(Client(port, TOKENS["tv"]), "Mesa 1") == [
        ("table_alert_acknowledged", jam, "jam cleared, the shoe reads again", "pit"),
        ("table_alert_acknowledged", incomplete, "deck replaced; the missing card found under the table", "dj"),
    ]
    first = _first(pit, "Mesa 1", lambda change: _kind(change) in ACKNOWLEDGED)
    assert first.position > incomplete > jam


def test_r_aud_1_a_banked_table_s_alerts_are_acknowledged_alike(port: int) -> None:
    pit, croupier, director = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"]), Client(port, TOKENS["director"])
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    jam = _fault(croupier, "THB 1", "shuffler jammed")
    _acknowledge(director, "THB 1", jam, "shuffler restarted, deck counted")
    assert _acknowledged(pit, "THB 1") == [
        ("banked_table_alert_acknowledged", jam, "shuffler restarted, deck counted", "dj")]


def test_r_aud_1_an_alert_is_acknowledged_once_and_the_second_records_nothing(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    director = Client(port, TOKENS["director"])
    open_circle(pit, "Mesa 1")
    jam = _fault(dealer, "Mesa 1", "jam")
    _acknowledge(pit, "Mesa 1", jam, "cleared")
    before = _log(pit, "Mesa 1")
    for who in (pit, director):
        refused = _refusal(lambda who=who: _acknowledge(who, "Mesa 1", jam, "cleared again"))
        assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused) == "R-AUD-1", refused
        assert "already acknowledged" in (refused.details() or "")
    assert _log(pit, "Mesa 1") == before
    assert len(_acknowledged(pit, "Mesa 1")) == 1


def test_r_aud_1_an_event_that_raised_no_alert_is_not_acknowledged_and_nothing_is_recorded(port: int) -> None:
    """Issue 33: the table's opening, a seat taken, a shuffle reported — events of the table that raised no alert —
    are refused as nothing to acknowledge (they had been recorded as acknowledged alerts)."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1")
    seat(dealer, "Mesa 1", 1)
    dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id=dealer.next_id(), table="Mesa 1", device="ACME", serial="S-1", kind=pb.DEVICE_REPORT_KIND_SHUFFLE,
        colour=pb.DECK_COLOUR_RED, result="shuffled"))
    quiet = [change.position for change in _changes(pit, "Mesa 1")]
    assert len(quiet) == 3
    before = _log(pit, "Mesa 1")
    for position in quiet:
        refused = _refusal(lambda position=position: _acknowledge(pit, "Mesa 1", position, "nothing happened"))
        assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused) == "R-AUD-1", refused
        assert "raised no alert" in (refused.details() or "")
    assert _log(pit, "Mesa 1") == before
    jam = _fault(dealer, "Mesa 1", "jam")
    _acknowledge(pit, "Mesa 1", jam, "cleared")  # a fault did raise one


@pytest.mark.parametrize("who", ["dealer", "shoe", "tv", "other", "thb"])
def test_r_aud_1_a_croupier_a_device_and_an_observer_may_not_acknowledge_and_nothing_is_recorded(
    port: int, who: str,
) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1")
    jam = _fault(dealer, "Mesa 1", "jam")
    before = _log(pit, "Mesa 1")
    station = Client(port, TOKENS[who])
    refused = _refusal(lambda: _acknowledge(station, "Mesa 1", jam, "I cleared it myself"))
    assert refused.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(refused) == "R-AUD-1", refused
    assert _log(pit, "Mesa 1") == before
    _acknowledge(pit, "Mesa 1", jam, "the pit cleared it")  # still open: the refusal changed nothing


@pytest.mark.parametrize(("field", "value"), [
    ("table", " Mesa 1"), ("position", 0), ("position", -1), ("position", MAX_POSITION + 1),
    ("reason", ""), ("reason", "   "), ("reason", "x" * 201), ("reason", "cleared\x1b[2J"), ("command_id", ""),
])
def test_r_aud_1_a_malformed_acknowledgement_is_invalid_argument_naming_its_field(port: int, field: str,
                                                                                  value: object) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1")
    jam = _fault(dealer, "Mesa 1", "jam")
    before = _log(pit, "Mesa 1")
    request: dict[str, Any] = {"command_id": pit.next_id(), "table": "Mesa 1", "position": jam, "reason": "cleared",
                               field: value}
    refused = _refusal(lambda: pit.AcknowledgeAlert(svc.AcknowledgeAlertRequest(**request)))
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT, refused
    assert violations(refused) == [field]
    if field != "command_id":
        assert rule_of(refused) == "R-AUD-1"
    assert _log(pit, "Mesa 1") == before


def test_r_aud_1_naming_no_table_acknowledges_only_tampering_the_audit_found(port: int) -> None:
    """No table: an alert of the casino's log (tampering found by the service's audit,
    tests/e2e/test_tampering_alerts.py); a table's device fault is not one, so nothing is recorded."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1")
    jam = _fault(dealer, "Mesa 1", "jam")
    before = _log(pit, "Mesa 1")
    refused = _refusal(lambda: _acknowledge(pit, "", jam, "cleared"))
    assert refused.code() == grpc.StatusCode.NOT_FOUND and rule_of(refused) == "R-AUD-1", refused
    assert "no tampering found by the audit" in (refused.details() or "")
    assert _log(pit, "Mesa 1") == before
    _acknowledge(pit, "Mesa 1", jam, "cleared")  # still open at its table


def test_r_aud_1_a_retried_command_id_is_answered_once(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1")
    jam = _fault(dealer, "Mesa 1", "jam")
    first = _acknowledge(pit, "Mesa 1", jam, "cleared", command_id="ack-1")
    again = _acknowledge(pit, "Mesa 1", jam, "cleared", command_id="ack-1")
    assert again == first
    assert len(_acknowledged(pit, "Mesa 1")) == 1
    other = _refusal(lambda: _acknowledge(pit, "Mesa 1", jam, "another reason", command_id="ack-1"))
    assert other.code() == grpc.StatusCode.ALREADY_EXISTS, other


def _voided_hand(pit: Client, dealer: Client) -> None:
    """Mesa 1's first hand, voided by the pit at once: a card missing from the deck (R-DECK-1)."""
    open_circle(pit, "Mesa 1")
    for number in (1, 2):
        seat(dealer, "Mesa 1", number)
    start(dealer, "Mesa 1")
    pit.Act(svc.ActRequest(command_id=pit.next_id(), table="Mesa 1", command=cmd.Command(
        void=cmd.Void(rule="R-DECK-1", reason="a card missing from the deck"))))


def test_r_aud_1_a_void_is_acknowledged_at_a_closed_table_and_only_its_own_table_s_events_are_its_alerts(
    port: int,
) -> None:
    """The pit clears a table's alerts after it closes; the alert of a void is an event of the hand; a position
    that is another table's event, or no event yet, names no alert of this table (NOT_FOUND)."""
    pit, dealer, croupier = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["thb"])
    _voided_hand(pit, dealer)
    void = int(_first(pit, "Mesa 1", lambda change: _kind(change) == "hand_voided").position)
    pit.CloseTable(svc.CloseTableRequest(command_id=pit.next_id(), table="Mesa 1"))
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    elsewhere = _fault(croupier, "THB 1", "jam")
    before = _log(pit, "Mesa 1")
    for position in (elsewhere, before + 1_000):
        missing = _refusal(lambda position=position: _acknowledge(pit, "Mesa 1", position, "not ours"))
        assert missing.code() == grpc.StatusCode.NOT_FOUND and rule_of(missing) == "R-AUD-1", missing
    assert _log(pit, "Mesa 1") == before
    _acknowledge(pit, "Mesa 1", void, "the void reviewed with the croupier")
    assert _acknowledged(pit, "Mesa 1") == [("table_alert_acknowledged", void, "the void reviewed with the croupier",
                                             "pit")]
    missing = _refusal(lambda: _acknowledge(pit, "Mesa 9", void, "no such table"))
    assert missing.code() == grpc.StatusCode.NOT_FOUND


def test_r_circ_14_one_void_is_one_alert_naming_its_rule_and_its_reason(port: int) -> None:
    """Issue 34: a void raised two alerts (the hand's ``Voided`` and the table's ``HandVoided``); it is one, the
    hand's, and it says the rule and the reason the pit gave."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    _voided_hand(pit, dealer)
    alerts = pit.ListAlerts(svc.ListAlertsRequest(table="Mesa 1")).alerts
    voids = [alert for alert in alerts if alert.kind == "void"]
    assert len(voids) == 1, alerts
    assert voids[0].position == _first(pit, "Mesa 1", lambda change: _kind(change) == "hand_voided").position
    assert "R-DECK-1" in voids[0].text and "a card missing from the deck" in voids[0].text
