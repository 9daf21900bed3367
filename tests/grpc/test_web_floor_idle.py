"""The dashboard's floor reads the tables' summaries only while the pit looks (issue 18: ``serve --http`` slowed a
busy floor's commands, from p50 2 ms to 38 ms at 200 tables, even with no browser open).

Nobody looking for ``idle_after`` seconds, the floor stops reading the tables (``ListTables``); its Watch stream of
the whole log goes on, so that no alert and no device report is missed. The next dashboard request has the tables
read again before its page is drawn: the page shows the floor as it is.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support.grpc_support import start
from tests.support.web_support import Pit, holdem_table, pit_service, sign_in, until


def _still(pit: Pit, seconds: float) -> bool:
    """No ListTables answered for ``seconds``."""
    before = pit.answered("ListTables")
    time.sleep(seconds)
    return pit.answered("ListTables") == before


def test_the_floor_stops_reading_the_tables_while_nobody_looks_and_shows_them_current_when_asked(
        tmp_path: Path) -> None:
    with pit_service(tmp_path, floor_idle_after=1.0) as pit, httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        dealer = holdem_table(pit)
        until(lambda: "between-hands" in http.get("/").text, "the table on the floor")
        time.sleep(1.2)  # nobody looks for longer than idle_after
        start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)  # a hand and a device's fault while nobody looks
        dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(
            command_id="jam-1", table="Mesa 1", device="PT-SHUF", serial="SHUF-0001",
            kind=pb.DEVICE_REPORT_KIND_FAULT, colour=pb.DECK_COLOUR_BLUE, result="jammed at card 17"))
        assert _still(pit, 0.5)  # the commands did not wake it: the service reads nothing for it
        until(lambda: "jammed at card 17" in http.get("/alerts").text, "the alert, kept by the floor's stream")
        assert "hand-in-progress" in http.get("/").text  # the request had the tables read again first
