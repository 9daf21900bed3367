"""Issue 19, item 2 — the pit dashboard shows what holds a table (R-HOLD-1): the floor's status says the table is
HELD while an alert that affects play is not acknowledged, and the alerts page lists each holding alert with its kind
(a device's fault, a deck check that counted wrong, the shuffler integrity monitor's alert raised by the service).
A real service and its dashboard on an SQLite file, read over HTTP as a signed-in pit boss."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support.web_support import Pit, holdem_table, pit_service, sign_in, until


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def test_r_hold_1_the_floor_says_held_and_the_alerts_page_lists_each_holding_alert(pit: Pit) -> None:
    dealer = holdem_table(pit)
    dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id="check-1", table="Mesa 1", device="PT-SHUF", serial="SHUF-0001",
        kind=pb.DEVICE_REPORT_KIND_DECK_CHECK, colour=pb.DECK_COLOUR_BLUE,
        result="51 counted, INCOMPLETE: missing 1, duplicated 0, foreign 0"))
    pit.app.holds.raise_alert("Mesa 1", kind="shuffler-integrity", detail="SHUF-0001 red: rising sequences, p = 1e-7")
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        until(lambda: "HELD by 2 alerts" in http.get("/").text, "the floor saying the table is held")
        page = http.get("/alerts").text
        assert "deck-count" in page and "51 counted, INCOMPLETE" in page
        assert "shuffler-integrity" in page and "rising sequences" in page
        for hold in pit.client("pit").GetTable(svc.GetTableRequest(table="Mesa 1")).view.holds:
            pit.client("pit").AcknowledgeAlert(svc.AcknowledgeAlertRequest(
                command_id=f"ack-{hold.position}", table="Mesa 1", position=hold.position, reason="cleared"))
        until(lambda: "HELD" not in http.get("/").text, "the floor no longer saying held")
