"""Issue 16 — the pit's dashboard in a real browser: Playwright for Python driving Debian's Chromium headless (through
its ``executable_path``; ``make test`` installs it where missing — in CI it is required, locally a visible skip),
against a real service with its dashboard on free ports.

Signed in as the pit boss, the floor lists the tables and a table's page goes live as a simulated station deals (no
reload: the cards appear as the station deals them, face-down ones too, for the pit); the games director approves a
1000:1 bonus from the approvals queue; the pit boss acknowledges a device fault, steps through a hand's
reconstruction event by event, and downloads the shift report as CSV.  With ``UPDATE_SCREENSHOTS=1`` each step's
screen is saved to docs/pit/ for docs/pit.md."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support.browser import chromium as chromium  # noqa: PLC0414  (a fixture)
from tests.support.browser import page_of, shot
from tests.support.grpc_support import act, deal, start
from tests.support.web_support import Pit, holdem_table, pit_service, thb_waiting_for_the_director


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def test_sign_in_and_see_a_table_go_live_as_a_station_deals(chromium: Any, pit: Pit) -> None:
    dealer = holdem_table(pit)
    page = page_of(chromium, pit, "pit")
    page.get_by_role("cell", name="Mesa 1").wait_for()
    shot(page, "floor")
    page.get_by_role("link", name="Mesa 1").click()
    page.get_by_text("Between hands").wait_for()
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", "As Kd Qh Ac")  # the simulated station deals; the page is not reloaded
    page.get_by_role("img", name="ace of clubs").wait_for()  # a hole card: the pit sees it
    assert page.get_by_role("img", name="king of diamonds").count() == 1
    page.get_by_text("Hand 1 in progress").wait_for()
    shot(page, "table")
    page.goto("/")
    row = page.locator("tr", has_text="Mesa 1")
    row.get_by_text("hand-in-progress").wait_for()


def test_the_games_director_approves_a_thousand_to_one(chromium: Any, pit: Pit) -> None:
    thb_waiting_for_the_director(pit)
    page = page_of(chromium, pit, "director")
    page.goto("/approvals")
    page.get_by_text("the 1000:1 bonus of box 1 waits").wait_for()
    shot(page, "approvals")
    form = page.get_by_role("form", name="bonus of THB 1")
    form.get_by_label("Reason").fill("A-A against the croupier's A-A, seen on camera 4")
    form.get_by_role("button", name="Approve").click()
    page.get_by_text("THB 1: bonus approved").wait_for()
    view = pit.client("pit").GetTable(svc.GetTableRequest(table="THB 1")).view
    assert not view.hand_in_progress  # the box was paid and the hand ended (R-THB-10)


def test_acknowledge_a_device_fault(chromium: Any, pit: Pit) -> None:
    holdem_table(pit)
    pit.client("dealer").RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id="jam-1", table="Mesa 1", device="PT-SHUF", serial="SHUF-0001", kind=pb.DEVICE_REPORT_KIND_FAULT,
        colour=pb.DECK_COLOUR_BLUE, result="shuffler fault: jam; the blue deck is not ready"))
    page = page_of(chromium, pit, "pit")
    page.goto("/alerts")
    page.get_by_text("shuffler fault: jam").wait_for()
    shot(page, "alerts")
    page.get_by_label("Reason").first.fill("jam cleared by the technician, deck checked")
    page.get_by_role("button", name="Acknowledge").first.click()
    page.get_by_text("acknowledged").first.wait_for()
    page.get_by_text("No open alert.").wait_for()  # the page redraws once the floor reads the acknowledgement


def test_tampering_found_by_the_audit_appears_live_and_is_acknowledged(chromium: Any, pit: Pit) -> None:
    """R-AUD-1: someone with the database file alters a hand's event; the service's audit finds it; the alerts page,
    open meanwhile, redraws with the alert of the casino's log, and the pit boss acknowledges it."""
    dealer = holdem_table(pit)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    page = page_of(chromium, pit, "pit")
    page.goto("/alerts")
    page.get_by_text("No open alert.").wait_for()
    with sqlite3.connect(pit.database) as conn:  # the attacker's edit: a card dealt changed in the file
        position, state = conn.execute("SELECT rowid, state FROM stored_events WHERE topic LIKE '%CardDealt' "
                                       "ORDER BY rowid LIMIT 1").fetchone()
        conn.execute("UPDATE stored_events SET state = ? WHERE rowid = ?",
                     (bytes(state).replace(b'"As"', b'"Ah"'), position))
    verdict = pit.app.audit.audit_log()  # what `pokertable serve` runs at start and every --audit-every seconds
    assert verdict.finding is not None and verdict.finding.position == position
    page.get_by_text(f"altered at log position {position} (Mesa 1)").wait_for()  # no reload by hand
    page.get_by_text("casino log").wait_for()
    shot(page, "tampering")
    page.get_by_label("Reason").first.fill("reported to the games director and the regulator; DB access revoked")
    page.get_by_role("button", name="Acknowledge").first.click()
    page.get_by_text("casino log: alert at").wait_for()
    page.get_by_text("No open alert.").wait_for()


def test_step_through_a_reconstruction_and_download_the_shift_report(chromium: Any, pit: Pit) -> None:
    dealer = holdem_table(pit)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    for seat in (1, 2):
        act(dealer, "Mesa 1", fold=cmd.Fold(seat=seat))
    page = page_of(chromium, pit, "pit")
    page.goto("/disputes?table=Mesa%201")
    form = page.get_by_role("form", name="reconstruct Mesa 1 hand 1")
    form.get_by_placeholder("reason (recorded, R-THB-13)").fill("player at seat 2 disputes his fold")
    form.get_by_role("button", name="Reconstruct").click()
    page.get_by_role("status").get_by_text("Event 1 of").wait_for()
    for _ in range(4):
        page.get_by_role("button", name="Next ▶").click()
    page.get_by_role("status").get_by_text("Event 5 of").wait_for()
    assert page.locator(".step:not([hidden])").get_by_role("img", name="ace of spades").count() == 1
    shot(page, "reconstruction")
    page.goto("/reports/shift")
    page.get_by_role("cell", name="Mesa 1").wait_for()
    shot(page, "shift-report")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download CSV").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert text.startswith("from,")  # the range, in the casino's time
    assert "\ntable,game,hands,hands_per_hour,rake,bank_result,voids,irregularities" in text
    assert "Mesa 1,holdem,1," in text
