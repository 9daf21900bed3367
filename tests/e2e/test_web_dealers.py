"""Issue 19, items 4 and 5 — the dealers' figures on the pit's dashboard, in a real browser (Playwright driving
Debian's Chromium headless, as tests/e2e/test_web_browser.py) against a real service on free ports.

At Mesa 1 D-7 deals a hand the pit voids, then D-9 replaces him (a rotation) and deals the next.  Signed in as the
pit boss, the Dealers page, reached from the navigation, lists both dealers with their table, hands and voids, and
the two sign-ins (D-9's naming D-7); when D-9 signs out while the page is open, it is drawn again, without a reload.
An observer's session is refused by the service (R-AUD-1).  ``UPDATE_SCREENSHOTS=1`` saves docs/pit/dealers.png."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.web import dealers
from tests.support.browser import chromium, page_of, shot
from tests.support.grpc_support import act, start
from tests.support.web_support import Pit, holdem_table, pit_service

__all__ = ["chromium"]  # the browser fixture of tests/support/browser.py


@pytest.fixture
def pit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pit]:
    monkeypatch.setattr(dealers, "REFRESH_PAUSE", 0.2)  # the page's stream reads again at once here
    with pit_service(tmp_path) as running:
        yield running


def _cells(row: Any) -> list[str]:
    return [text.strip() for text in row.locator("td").all_inner_texts()]


def test_the_pit_boss_sees_each_dealer_s_figures_and_the_rotations_live(chromium: Any, pit: Pit) -> None:
    croupier, boss = holdem_table(pit, seats=2), pit.client("pit")
    croupier.SignIn(svc.SignInRequest(command_id=croupier.next_id(), table="Mesa 1", dealer_id="D-7"))
    start(croupier, "Mesa 1", pb.DECK_COLOUR_RED)
    act(boss, "Mesa 1", void=cmd.Void(rule="R-CIRC-14", reason="misdeal recognised by the croupier"))
    croupier.SignIn(svc.SignInRequest(command_id=croupier.next_id(), table="Mesa 1", dealer_id="D-9"))
    start(croupier, "Mesa 1", pb.DECK_COLOUR_BLUE)
    page = page_of(chromium, pit, "pit")
    page.get_by_role("link", name="Dealers").click()  # the current shift (a shift may have begun since the hands)
    page.get_by_role("heading", name="Dealers").wait_for()
    hour_ago = (datetime.now(UTC) - timedelta(hours=1)).replace(tzinfo=None).isoformat(timespec="minutes")
    page.get_by_label("From").fill(hour_ago)
    page.get_by_role("button", name="Show").click()
    page.get_by_role("link", name="The current shift").wait_for()  # the range asked for is shown
    rows = page.locator("table.dealers tbody tr")
    assert [rows.nth(i).get_attribute("data-dealer") for i in range(rows.count())] == ["D-7", "D-9"]
    seven, nine = _cells(rows.nth(0)), _cells(rows.nth(1))
    assert (seven[:2], seven[3], seven[5:]) == (["D-7", "Mesa 1"], "1", ["1", "0", "0"])  # a hand, voided
    assert (nine[:2], nine[3], nine[5:]) == (["D-9", "Mesa 1"], "1", ["0", "0", "0"])
    rotations = page.locator("table.rotations tbody tr")
    assert [_cells(rotations.nth(i))[1:] for i in range(rotations.count())] == [
        ["Mesa 1", "D-7", "sign-in", ""], ["Mesa 1", "D-9", "sign-in", "D-7"]]
    shot(page, "dealers")
    # D-9 signs out while the page is open: drawn again, no reload
    page.evaluate("window.stayed = true")
    croupier.SignOut(svc.SignOutRequest(command_id=croupier.next_id(), table="Mesa 1"))
    page.locator('table.rotations tbody tr[data-kind="sign-out"]').wait_for(timeout=10_000)
    assert _cells(rotations.nth(2))[1:] == ["Mesa 1", "D-9", "sign-out", ""]
    assert page.evaluate("window.stayed") is True


def test_an_observer_is_refused_the_dealers(chromium: Any, pit: Pit) -> None:
    page = page_of(chromium, pit, "tv")
    page.goto("/dealers")
    page.get_by_role("alert").get_by_text("R-AUD-1").wait_for()
