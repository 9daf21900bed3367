"""Issue 34, items 1 and 2, in a real browser (Debian's Chromium driven by Playwright, as
tests/e2e/test_web_browser.py): a table that becomes held while the pit looks at the floor moves to the top of it,
coloured and marked "held", with how long it has waited — no reload; the filter shows only the tables that need the
pit; the casino's time zone is named on the page.  With ``UPDATE_SCREENSHOTS=1`` the floor is saved to
docs/pit/floor-priority.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.api import accounts_pb2 as acc
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support.browser import chromium as chromium  # noqa: PLC0414  (a fixture)
from tests.support.browser import page_of, shot
from tests.support.grpc_support import open_banked, open_circle
from tests.support.web_support import Pit, holdem_table, pit_service, until


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def table_order(page: Any) -> list[str]:
    """The floor's tables as the browser shows them, top to bottom (the hidden ones left out)."""
    return [str(name) for name in page.eval_on_selector_all(
        "#floor tbody tr", "rows => rows.filter(row => !row.hidden).map(row => row.dataset.table)")]


def test_a_table_held_while_the_pit_looks_moves_to_the_top_coloured_with_how_long_it_waited(
        chromium: Any, pit: Pit) -> None:
    for name in ("Mesa A", "Mesa B"):
        open_circle(pit.client("pit"), name, pb.GAME_OMAHA, blinds=[1, 2])
    dealer = holdem_table(pit)  # Mesa 1, opened last: at the bottom while nothing happens
    page = page_of(chromium, pit, "pit")
    page.get_by_role("cell", name="Mesa 1").wait_for()
    assert table_order(page) == ["Mesa A", "Mesa B", "Mesa 1"]
    page.get_by_text("Europe/Madrid").first.wait_for()  # the casino's zone, named
    dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id="check-1", table="Mesa 1", device="PT-SHUF", serial="SHUF-0001",
        kind=pb.DEVICE_REPORT_KIND_DECK_CHECK, colour=pb.DECK_COLOUR_BLUE,
        result="51 counted, INCOMPLETE: missing 1, duplicated 0, foreign 0"))
    until(lambda: table_order(page)[:1] == ["Mesa 1"], "the held table at the top, without a reload")
    row = page.locator("#row-Mesa\\ 1")
    assert "attention-held" in (row.get_attribute("class") or "")
    assert row.locator('td[data-key="attention"]').inner_text().strip().lower() == "held"
    colour = row.evaluate("line => getComputedStyle(line).backgroundColor")
    quiet = page.locator("#row-Mesa\\ A").evaluate("line => getComputedStyle(line).backgroundColor")
    assert colour != quiet  # coloured, not only moved
    assert row.locator('td[data-key="waited"]').inner_text().strip().endswith("min")
    page.get_by_label("only the tables that need the pit").check()
    assert table_order(page) == ["Mesa 1"]
    page.get_by_label("only the tables that need the pit").uncheck()
    page.get_by_role("searchbox", name="Table").fill("mesa a")
    assert table_order(page) == ["Mesa A"]
    page.get_by_role("searchbox", name="Table").fill("")
    shot(page, "floor-priority")


def test_a_fill_asked_at_the_station_puts_its_table_first_and_is_signed_on_the_accounts_page(
        chromium: Any, pit: Pit) -> None:
    """Issue 34, item 3: the croupier's station asks for a fill; the pit's floor colours the table and puts it with
    the decisions waiting (its accounts, asked for every few seconds, say a slip waits for the pit's signature); the
    pit boss signs it on the accounts page, and the row goes back to its place."""
    boss = pit.client("pit")
    open_circle(boss, "Mesa A", pb.GAME_OMAHA, blinds=[1, 2])
    open_banked(boss, "THB 1", pb.GAME_HOLDEM_BONUS, ante_min=5)  # opened last: at the bottom
    boss.OpenShift(acc.OpenShiftRequest(command_id=boss.next_id(), table="THB 1",
                                        opener=[acc.ChipCount(denomination=100, chips=50)]))
    page = page_of(chromium, pit, "pit")
    page.get_by_role("cell", name="THB 1").wait_for()
    assert table_order(page) == ["Mesa A", "THB 1"]
    croupier = pit.client("thb")
    croupier.RequestTransfer(acc.RequestTransferRequest(command_id=croupier.next_id(), table="THB 1", slip="F-1",
                                                        kind=acc.TRANSFER_KIND_FILL,
                                                        chips=[acc.ChipCount(denomination=100, chips=20)]))
    page.reload()  # the overlay is asked for at the page's start, then every ten seconds
    page.locator("tr.attention-accounts", has_text="fill F-1 (2000) asked by the croupier").wait_for()
    until(lambda: table_order(page) == ["THB 1", "Mesa A"], "THB 1 first")
    page.goto("/accounts")
    page.get_by_role("form", name="sign THB 1 F-1").get_by_role("button", name="Sign").click()
    page.get_by_text("THB 1: slip F-1 signed").wait_for()
    page.get_by_text("No slip waits.").wait_for()
    page.goto("/")
    page.get_by_role("cell", name="THB 1").wait_for()
    until(lambda: page.locator("tr.attention-accounts").count() == 0, "the slip signed")
    reply: acc.GetShiftAccountsResponse = boss.GetShiftAccounts(acc.GetShiftAccountsRequest(table="THB 1"))
    assert reply.accounts.fills == 2000



def test_a_table_held_while_the_pit_looks_rings_and_notifies_once_turned_on(chromium: Any, pit: Pit) -> None:
    """Issue 34, item 5: sound and desktop notifications, off until the pit turns them on at his browser (the
    browser asks for the permission then); a table held by a new alert makes one signal, not one per redraw."""
    holdem_table(pit)
    page = page_of(chromium, pit, "pit")
    page.context.grant_permissions(["notifications"], origin=pit.url)
    page.get_by_role("cell", name="Mesa 1").wait_for()
    button = page.get_by_role("button", name="Sound and notifications: off")
    button.click()
    page.get_by_role("button", name="Sound and notifications: on").wait_for()
    assert page.evaluate("Notification.permission") == "granted"
    assert page.evaluate("window.pitSignals.length") == 0  # the page's first drawing is no news
    pit.client("dealer").RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id="jam-1", table="Mesa 1", device="PT-SHUF", serial="SHUF-0001", kind=pb.DEVICE_REPORT_KIND_FAULT,
        colour=pb.DECK_COLOUR_BLUE, result="shuffler fault: jam"))
    until(lambda: page.evaluate("window.pitSignals.length") >= 1, "the signal")
    page.wait_for_timeout(1500)  # the rows drawn again meanwhile signal nothing more
    signals = page.evaluate("window.pitSignals")
    assert len(signals) == 1 and signals[0].startswith("Mesa 1: "), signals
    page.reload()
    page.get_by_role("button", name="Sound and notifications: on").wait_for()  # kept at this browser


def test_the_pit_sorts_the_floor_by_a_column_and_sees_it_compact(chromium: Any, pit: Pit) -> None:
    """Issue 34, item 2: a click on a column's header sorts the floor by it (again: the other way; a third time:
    what needs the pit first, as before); *Compact* draws every table as a tile — the floor of a casino on one
    screen — and is kept at that browser."""
    for name in ("Mesa B", "Mesa C", "Mesa A"):
        open_circle(pit.client("pit"), name, pb.GAME_OMAHA, blinds=[1, 2])
    page = page_of(chromium, pit, "pit")
    page.get_by_role("cell", name="Mesa A").wait_for()
    assert table_order(page) == ["Mesa B", "Mesa C", "Mesa A"]  # the order they were opened
    header = page.locator("#floor thead th").first
    header.click()
    assert table_order(page) == ["Mesa A", "Mesa B", "Mesa C"] and header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert table_order(page) == ["Mesa C", "Mesa B", "Mesa A"] and header.get_attribute("aria-sort") == "descending"
    header.click()
    assert table_order(page) == ["Mesa B", "Mesa C", "Mesa A"] and header.get_attribute("aria-sort") is None
    page.get_by_role("button", name="Compact").click()
    floor = page.locator("#floor")
    assert "compact" in (floor.get_attribute("class") or "")
    width = page.evaluate("document.querySelector('#floor tbody tr').getBoundingClientRect().width")
    assert width < 200  # a tile, not a row across the page
    page.reload()
    page.get_by_role("cell", name="Mesa A").wait_for()
    assert "compact" in (page.locator("#floor").get_attribute("class") or "")
