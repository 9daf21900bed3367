"""Issue 34, item 2 — a floor that prioritises: the tables that need the pit come first, most urgent first (held by an
alert, R-HOLD-1; an open alert; a decision waiting, the 1000:1 of R-THB-10), marked in words and coloured, with when
they began to wait; then the tables dealing, between hands, closed.  Each row names its dealer and its seats taken of
its seats; the floor's totals are a line above it.  A real service and its dashboard over HTTP, as a pit boss."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.web.floor_rows import priority
from tests.support.grpc_support import open_circle, seat
from tests.support.web_support import Pit, holdem_table, pit_service, sign_in, thb_waiting_for_the_director, until

ROW = re.compile(r'<tr id="row-([^"]+)" data-table="[^"]+" data-game="[^"]*" data-priority="(\d)" data-order="\d+" '
                 r'data-since="([^"]*)" class="([^"]*)">')


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def rows(http: httpx.Client) -> list[tuple[str, int, float, str]]:
    """The floor's rows in the order the page draws them: table, priority, since (seconds), class."""
    return [(table, int(priority), float(since or 0), classes)
            for table, priority, since, classes in ROW.findall(http.get("/").text)]


def test_the_tables_that_need_the_pit_come_first_most_urgent_first(pit: Pit) -> None:
    open_circle(pit.client("pit"), "Mesa 0", pb.GAME_OMAHA, blinds=[1, 2])  # opened first: nothing to do there
    dealer = holdem_table(pit)  # Mesa 1, three players
    dealer.SignIn(svc.SignInRequest(command_id=dealer.next_id(), table="Mesa 1", dealer_id="D-7"))
    thb_waiting_for_the_director(pit)  # THB 1: a 1000:1 waits for the games director
    before = time.time()
    dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(  # Mesa 1 held: a deck check that counted wrong
        command_id="check-1", table="Mesa 1", device="PT-SHUF", serial="SHUF-0001",
        kind=pb.DEVICE_REPORT_KIND_DECK_CHECK, colour=pb.DECK_COLOUR_BLUE,
        result="51 counted, INCOMPLETE: missing 1, duplicated 0, foreign 0"))
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        until(lambda: [table for table, *_ in rows(http)] == ["Mesa 1", "THB 1", "Mesa 0"],
              "the held table first, then the decision waiting, then the quiet table")
        (held, waiting, quiet) = rows(http)
        assert held[1:2] == (0,) and "attention-held" in held[3] and held[2] >= before - 5
        assert waiting[1] == 2 and "attention-waiting" in waiting[3] and waiting[2] > 0
        assert quiet[1] == priority("", "between-hands") and quiet[3] == "" and quiet[2] == 0  # nothing waits
        page = http.get("/").text
        assert re.search(r'<td data-key="dealer">D-7</td><td data-key="seats">3/10</td>', page)
        totals = re.search(r'<p id="floor-totals"[^>]*>([^<]+)</p>', page)
        assert totals is not None and totals.group(1).startswith("3 tables · 1 dealing · 1 held · 1 waiting")
        for hold in pit.client("pit").GetTable(svc.GetTableRequest(table="Mesa 1")).view.holds:
            pit.client("pit").AcknowledgeAlert(svc.AcknowledgeAlertRequest(
                command_id=f"ack-{hold.position}", table="Mesa 1", position=hold.position, reason="recounted"))
        until(lambda: [table for table, *_ in rows(http)] == ["THB 1", "Mesa 0", "Mesa 1"],
              "Mesa 1 back among the quiet tables, in the order the tables were opened")


def test_the_floor_s_stream_carries_each_row_s_place_and_the_totals(pit: Pit) -> None:
    """The page's script re-sorts and colours the rows from the stream: each row says its priority, why the pit is
    needed and since when; each update carries the totals."""
    dealer = holdem_table(pit)
    seat(dealer, "Mesa 1", 4, 50)
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        with http.stream("GET", "/events/floor", timeout=10) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    update = json.loads(line.removeprefix("data: "))
                    break
    (row,) = [row for row in update["rows"] if row["table"] == "Mesa 1"]
    assert (row["priority"], row["attention"], row["since"], row["seats"]) == (
        priority("", "between-hands"), "", 0.0, "4/10")
    assert update["totals"] == {"tables": 1, "dealing": 0, "held": 0, "waiting": 0, "chips": 0}
