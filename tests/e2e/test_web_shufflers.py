"""Issue 19, items 1 and 5 — the shufflers' integrity on the pit's dashboard, in a real browser (Playwright driving
Debian's Chromium headless, as tests/e2e/test_web_browser.py) against a real service on free ports.

Mesa 1's shuffler passes its decks through; Mesa 2's (dealt by the pit boss) shuffles fairly.  Signed in as the pit
boss, the Shufflers page, reached from the navigation, lists Mesa 1's two decks first, marked as failed, with where
they alarmed; it draws itself again, without a reload, when a third shuffler's deck fails while it is open.  An
observer's session is refused by the service (R-DECK-2).  ``UPDATE_SCREENSHOTS=1`` saves docs/pit/shufflers.png."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.web import shufflers
from tests.support.browser import chromium, page_of, shot
from tests.support.shoe_support import ShoeTable, pass_through, uniform
from tests.support.web_support import Pit, pit_service

__all__ = ["chromium"]  # the browser fixture of tests/support/browser.py


@pytest.fixture
def pit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pit]:
    monkeypatch.setattr(shufflers, "REFRESH_PAUSE", 0.2)  # the page's stream reads again at once here
    with pit_service(tmp_path) as running:
        yield running


def test_the_pit_boss_sees_the_failed_shuffler_decks_first_and_live(chromium: Any, pit: Pit) -> None:
    broken = ShoeTable(pit.client("pit"), pit.client("dealer"), "Mesa 1")
    fair = ShoeTable(pit.client("pit"), pit.client("pit"), "Mesa 2")
    for _ in range(4):
        broken.hand(pass_through, serial="SHUF-0001", device="PT-SHUF")
        fair.hand(uniform, serial="SHUF-0002", device="PT-SHUF")
    page = page_of(chromium, pit, "pit")
    page.get_by_role("link", name="Shufflers").click()  # the current shift (a shift may have begun since the hands)
    page.get_by_role("heading", name="Shufflers").wait_for()
    hour_ago = (datetime.now(UTC) - timedelta(hours=1)).replace(tzinfo=None).isoformat(timespec="minutes")
    page.get_by_label("From").fill(hour_ago)
    page.get_by_role("button", name="Show").click()
    page.get_by_role("alert").get_by_text("2 shuffler decks failed").wait_for()
    rows = page.locator("table.shufflers tbody tr")
    assert [rows.nth(i).get_attribute("data-serial") for i in range(4)] == [
        "SHUF-0001", "SHUF-0001", "SHUF-0002", "SHUF-0002"]
    first = rows.nth(0)
    assert "fail" in (first.get_attribute("class") or "")
    assert "⚠ FAIL" in first.inner_text() and "shuffle 1: adjacent pairs — Mesa 1 hand 4" in first.inner_text()
    assert "not enough data" in rows.nth(3).inner_text()
    shot(page, "shufflers")
    # a third shuffler fails at Mesa 2 while the page is open: it is drawn again, no reload
    for _ in range(4):
        fair.hand(pass_through, serial="SHUF-0003", device="PT-SHUF")
    page.get_by_role("alert").get_by_text("4 shuffler decks failed").wait_for(timeout=10_000)
    assert rows.nth(2).get_attribute("data-serial") == "SHUF-0003"


def test_an_observer_is_refused_the_shufflers(chromium: Any, pit: Pit) -> None:
    page = page_of(chromium, pit, "tv")
    page.goto("/shufflers")
    page.get_by_role("alert").get_by_text("R-DECK-2").wait_for()
