"""Issue 34, item 7 — every page of the dashboard in both languages, in a real browser (Debian's Chromium driven by
Playwright), over a floor with something on every page: a Hold'em hand in progress, a 1000:1 waiting for the games
director, a shuffler's jam holding a table, a fill the croupier asked for, a shift open. Each page is drawn in
English, then in Spanish once the language is switched from its header, with its title and the page's own words;
with ``UPDATE_SCREENSHOTS=1`` each is saved to docs/pit/ as ``NAME-en.png`` and ``NAME-es.png`` (docs/pit.md)."""

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
from tests.support.grpc_support import deal, open_circle, start
from tests.support.web_support import Pit, holdem_table, pit_service, thb_waiting_for_the_director

PAGES = (  # the page, its path, its heading in English and in Spanish
    ("floor", "/", "Floor", "Sala"),
    ("table", "/tables/Mesa%201", "Mesa 1", "Mesa 1"),
    ("approvals", "/approvals", "Approvals", "Aprobaciones"),
    ("alerts", "/alerts", "Alerts", "Alertas"),
    ("disputes", "/disputes?table=Mesa+1", "Disputes", "Reclamaciones"),
    ("accounts", "/accounts", "Accounts", "Cuentas"),
    ("shift-report", "/reports/shift", "Shift report", "Informe del turno"),
    ("shufflers", "/shufflers", "Shufflers", "Barajadoras"),
    ("dealers", "/dealers", "Dealers", "Crupieres"),
)


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def _busy_floor(pit: Pit) -> None:
    thb_waiting_for_the_director(pit, opener=10_000)
    dealer = holdem_table(pit)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    croupier = pit.client("thb")
    croupier.RequestTransfer(acc.RequestTransferRequest(command_id=croupier.next_id(), table="THB 1", slip="F-1",
                                                        kind=acc.TRANSFER_KIND_FILL,
                                                        chips=[acc.ChipCount(denomination=100, chips=20)]))
    open_circle(pit.client("pit"), "Mesa 2", pb.GAME_OMAHA, seat_count=9)
    pit.client("dealer").RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id="jam-2", table="Mesa 1", device="PT-SHUF", serial="SHUF-0002", kind=pb.DEVICE_REPORT_KIND_FAULT,
        colour=pb.DECK_COLOUR_BLUE, result="shuffler fault: jam; the blue deck is not ready"))


def test_every_page_in_english_and_in_spanish(chromium: Any, pit: Pit) -> None:
    _busy_floor(pit)
    page = page_of(chromium, pit, "pit")
    page.get_by_role("cell", name="THB 1").wait_for()
    for lang in ("en", "es"):
        if lang == "es":
            page.get_by_role("button", name="Español").click()
            page.wait_for_selector('html[lang="es"]')
        for name, path, english, spanish in PAGES:
            page.goto(path)
            page.wait_for_selector(f'html[lang="{lang}"]')
            heading = page.get_by_role("heading", level=1)
            assert heading.inner_text().startswith(english if lang == "en" else spanish), (name, lang)
            page.wait_for_load_state("networkidle") if name not in ("floor", "table", "shufflers", "dealers") \
                else page.wait_for_timeout(700)  # a live page: its stream stays open
            shot(page, f"{name}-{lang}")
