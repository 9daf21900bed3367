"""Issue 34, items 4 and 7, in a real browser (Debian's Chromium driven by Playwright): a table drawn as a table —
each seat at its place around the felt with its chips and cards, the dealer button, the seat to act lit and said,
the hand's stage in words, its last actions listed as they happen (no reload); the same in Spanish; a banked table's
boxes along the players' side with the house's cards. With ``UPDATE_SCREENSHOTS=1`` the pages are saved to docs/pit/
in both languages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from tests.support.browser import chromium as chromium  # noqa: PLC0414  (a fixture)
from tests.support.browser import page_of, shot
from tests.support.grpc_support import act, deal, start
from tests.support.web_support import Pit, holdem_table, pit_service, thb_waiting_for_the_director


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def _spanish(page: Any) -> None:
    page.get_by_role("button", name="Español").click()
    page.wait_for_selector('html[lang="es"]')


def test_a_hand_is_drawn_around_the_felt_with_who_acts_and_its_last_actions(chromium: Any, pit: Pit) -> None:
    dealer = holdem_table(pit)
    page = page_of(chromium, pit, "pit")
    page.goto("/tables/Mesa%201")
    page.get_by_text("Between hands").wait_for()
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")  # the station deals; the page is not reloaded
    felt = page.get_by_role("group", name="the table")
    acting = felt.locator(".place.to-act")
    acting.get_by_text("→ to act").wait_for()
    assert felt.locator(".place").count() == 3 and felt.locator(".marker").count() == 1
    assert felt.locator(".marker").inner_text() == "D"  # the dealer button
    seat = acting.get_attribute("data-seat")
    assert felt.get_by_text("before the flop · betting").count() == 1
    act(dealer, "Mesa 1", fold=cmd.Fold(seat=int(seat or 0)))
    page.locator(".last-actions li", has_text=f"seat {seat} folds").wait_for()
    assert page.locator(".last-actions li").first.inner_text() == "blinds 1, 2"  # from the hand's start
    assert page.get_by_role("img", name="ace of spades").count() == 1  # the pit sees the hole cards
    shot(page, "table-en")
    _spanish(page)
    page.locator(".last-actions li", has_text=f"el asiento {seat} se retira").wait_for()
    page.get_by_role("group", name="la mesa").locator(".place.to-act").get_by_text("→ le toca").wait_for()
    assert page.get_by_text("antes del flop · apuestas").count() == 1
    shot(page, "table-es")


def test_a_banked_table_draws_its_boxes_and_the_house(chromium: Any, pit: Pit) -> None:
    thb_waiting_for_the_director(pit)
    page = page_of(chromium, pit, "director")
    page.goto("/tables/THB%201")
    felt = page.get_by_role("group", name="the table")
    felt.get_by_text("a 1000:1 waits for the games director").wait_for()
    assert felt.locator(".place").count() == 2  # boxes 1 and 3
    assert felt.locator(".place-1").get_by_text("Box 1").count() == 1
    assert felt.locator(".middle").get_by_role("img").count() >= 2  # the house's cards
    shot(page, "table-banked-en")
    _spanish(page)
    page.get_by_role("group", name="la mesa").get_by_text("un 1000:1 espera al director de juegos").wait_for()
    shot(page, "table-banked-es")
