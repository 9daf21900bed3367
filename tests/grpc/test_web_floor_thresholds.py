"""Issue 34, items 3 and 5 — the thresholds the casino sets, and the alerts as a queue with a history: a hand that
lasts past the casino's minutes puts its table on the floor among those that need the pit, in words, as time alone
passes (no event); an alert left open past its time is escalated to the games director on the floor and on the
alerts page; an acknowledged alert leaves the queue for the shift's history, with who acknowledged it and why.  A
real service and dashboard over HTTP; the floor's clock is moved on by the test."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.web import floor as floor_module
from service.web.floor_rows import Thresholds
from tests.support.grpc_support import deal, start
from tests.support.web_support import Pit, holdem_table, pit_service, sign_in, until

AHEAD = [0.0]
"""Seconds the floor's clock is ahead of this machine's."""


@pytest.fixture
def pit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pit]:
    monkeypatch.setattr(floor_module, "THRESHOLDS_EVERY", 0.2)
    AHEAD[0] = 0.0
    with pit_service(tmp_path, thresholds=Thresholds(escalate_after_minutes=10, hand_minutes=10),
                     floor_clock=lambda: time.time() + AHEAD[0]) as running:
        yield running


def _row(http: httpx.Client, table: str) -> tuple[str, str]:
    """A table's row on the floor: its classes and its thresholds' words."""
    page = http.get("/").text
    found = re.search(rf'<tr id="row-{table}"[^>]* class="([^"]*)">(.*?)</tr>', page, re.S)
    assert found is not None, page
    words = re.search(r'<td data-key="thresholds">([^<]*)</td>', found.group(2))
    return found.group(1), words.group(1) if words else ""


def test_a_hand_past_the_casino_s_minutes_needs_the_pit_as_time_alone_passes(pit: Pit) -> None:
    dealer = holdem_table(pit)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        until(lambda: "hand-in-progress" in http.get("/").text, "the hand on the floor")
        assert _row(http, "Mesa 1") == ("", "")
        AHEAD[0] = 11 * 60  # eleven minutes on, nothing stored meanwhile
        until(lambda: _row(http, "Mesa 1")[0] == "attention-threshold", "the long hand flagged")
        assert _row(http, "Mesa 1")[1] == "hand 1 has lasted 11 min (more than 10)"


def test_an_alert_left_open_is_escalated_and_once_acknowledged_goes_to_the_history(pit: Pit) -> None:
    holdem_table(pit)
    pit.client("dealer").RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id="jam-1", table="Mesa 1", device="PT-SHUF", serial="SHUF-0001", kind=pb.DEVICE_REPORT_KIND_FAULT,
        colour=pb.DECK_COLOUR_BLUE, result="shuffler fault: jam"))
    with httpx.Client(base_url=pit.url) as http:
        csrf = sign_in(http, "pit")
        until(lambda: "shuffler fault: jam" in http.get("/alerts").text, "the alert")
        assert "escalated" not in _row(http, "Mesa 1")[0]
        assert "the games director" not in http.get("/alerts").text.split("<h2>", 1)[0]
        AHEAD[0] = 11 * 60
        until(lambda: "escalated" in _row(http, "Mesa 1")[0], "the alert escalated on the floor")
        queue = http.get("/alerts").text.split("<h2>", 1)[0]
        assert "open more than 10 min: escalated to the games director" in queue
        assert 'class="device-fault escalated"' in queue
        position = re.search(r'data-table="Mesa 1" data-position="(\d+)"', queue)
        assert position is not None
        done = http.post(f"/alerts/Mesa 1/{position.group(1)}", data={"reason": "jam cleared, deck checked",
                                                                       "csrf": csrf}, follow_redirects=True).text
        assert "acknowledged" in done
        until(lambda: "No open alert." in http.get("/alerts").text, "the queue empty")
        history = http.get("/alerts").text.split('id="history"', 1)[1]
        assert "shuffler fault: jam" in history and "pit: jam cleared, deck checked" in history
