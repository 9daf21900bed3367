"""GetFloor and ListAlerts (issue 30; docs/api.md): the pit's floor as of a log position, from the floor's projection
of the log, on a real server (SQLite and PostgreSQL). A dashboard starts from the alerts that are open and watches
from the position it was given: what happened before it is not read again, and nothing after it is missed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, open_banked, open_circle

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""


def _fault(client: Client, table: str, result: str,
           kind: pb.DeviceReportKind = pb.DEVICE_REPORT_KIND_FAULT) -> None:
    client.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id=client.next_id(), table=table, device="PT-SHOE", serial="SH-9", kind=kind,
        colour=pb.DECK_COLOUR_RED, result=result))


def _stamp(moment: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def test_get_floor_gives_the_open_alerts_and_the_position_to_watch_from(port: int) -> None:
    pit, dealer, tv = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["tv"])
    open_circle(pit, "Mesa 1")
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    _fault(dealer, "Mesa 1", "jam at the reader")
    _fault(dealer, "Mesa 1", "shuffled", pb.DEVICE_REPORT_KIND_SHUFFLE)
    _fault(dealer, "Mesa 1", "misread, read again")
    floor: svc.GetFloorResponse = tv.GetFloor(svc.GetFloorRequest())  # an observer: the dashboard's floor
    assert [(alert.table, alert.kind, alert.text) for alert in floor.alerts] == [
        ("Mesa 1", "device-fault", "PT-SHOE SH-9: jam at the reader"),
        ("Mesa 1", "device-fault", "PT-SHOE SH-9: misread, read again")]
    assert floor.position == pit.GetTable(svc.GetTableRequest(table="Mesa 1")).view.position
    assert [(table.table, table.shuffler) for table in floor.tables] == [("Mesa 1", "shuffle red: shuffled"),
                                                                       ("THB 1", "")]
    jam = floor.alerts[0]
    pit.AcknowledgeAlert(svc.AcknowledgeAlertRequest(command_id=pit.next_id(), table="Mesa 1", position=jam.position,
                                                     reason="jam cleared"))
    after: svc.GetFloorResponse = pit.GetFloor(svc.GetFloorRequest())
    assert [alert.position for alert in after.alerts] == [floor.alerts[1].position]  # the acknowledged one gone
    # Watching from the position given: only what came after it (the acknowledgement), never the alerts before
    stream = tv.Watch(svc.WatchRequest(after_position=floor.position), timeout=1)
    seen: list[str | None] = []
    try:
        seen.extend(change.event.WhichOneof("event") for change in stream)
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert seen == ["table_alert_acknowledged"]
    # ListAlerts: the table's alerts of a range, acknowledged or not
    listed: svc.ListAlertsResponse = pit.ListAlerts(svc.ListAlertsRequest(
        table="Mesa 1", since=_stamp(datetime.now(UTC) - timedelta(hours=1))))
    assert [(alert.position, alert.acknowledged) for alert in listed.alerts] == [
        (jam.position, "pit: jam cleared"), (floor.alerts[1].position, "")]
    assert not pit.ListAlerts(svc.ListAlertsRequest(table="Mesa 1", until=_stamp(
        datetime.now(UTC) - timedelta(hours=1)))).alerts


def test_list_alerts_refuses_a_range_that_ends_before_it_starts_and_a_croupier_is_refused_the_floor(
        port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1")
    now = datetime.now(UTC)
    with pytest.raises(grpc.RpcError) as refused:
        pit.ListAlerts(svc.ListAlertsRequest(table="Mesa 1", since=_stamp(now), until=_stamp(now - timedelta(days=1))))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as denied:
        dealer.GetFloor(svc.GetFloorRequest())
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as denied:
        dealer.ListAlerts(svc.ListAlertsRequest(table="Mesa 1"))
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
