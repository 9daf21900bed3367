"""Debian's Chromium driven headless by Playwright (the ``chromium`` fixture; a visible skip without it, a failure in
CI), a page signed in as a station, and a screenshot for docs/pit when UPDATE_SCREENSHOTS is set."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.web_support import NAMES, TOKENS, Pit

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(__file__).parent.parent.parent / "docs" / "pit"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
"""Chromium on this kind of machine: no sandbox (root), no network beyond the page (docs/pit.md)."""


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright; a visible skip without it, a failure in CI (where it is required)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("Chromium is required in CI (make test installs Debian's chromium)")
        pytest.skip("Debian's chromium is not installed here (make test installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield browser
        browser.close()


def page_of(chromium: Any, pit: Pit, who: str) -> Any:
    """A new browser page signed in as ``who``."""
    page = chromium.new_context(base_url=pit.url, accept_downloads=True).new_page()
    page.goto("/signin")
    page.get_by_label("Employee number").fill(NAMES[who])  # before the staff: the station's name
    page.get_by_label("Password").fill(TOKENS[who])  # before the staff: its token
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{pit.url}/")
    return page


def shot(page: Any, name: str) -> None:
    if os.environ.get("UPDATE_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
