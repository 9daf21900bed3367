"""The pit dashboard's shift report shows each table's accounts (issue 19, items 3 and 5; docs/accounts.md): the open
or last shift's win and hold against the theoretical win and its band, a shift outside it flagged, on the page and in
the CSV; an observer's report leaves the accounts out (R-ACC-5). A real service and dashboard on SQLite."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.api import accounts_pb2 as acc
from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from tests.support.grpc_support import act, deal, open_banked, start
from tests.support.web_support import Pit, pit_service, sign_in, thb_waiting_for_the_director, until


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def _chips(value: int) -> list[acc.ChipCount]:
    return [acc.ChipCount(denomination=1, chips=value)]


def test_the_shift_report_shows_the_accounts_and_flags_a_shift_outside_its_band(pit: Pit) -> None:
    boss, dealer = pit.client("pit"), pit.client("thb")
    open_banked(boss, "THB 1", pb.GAME_HOLDEM_BONUS, ante_min=5)
    boss.OpenShift(acc.OpenShiftRequest(command_id=boss.next_id(), table="THB 1", opener=_chips(5_000)))
    start(dealer, "THB 1", pb.DECK_COLOUR_RED)
    act(dealer, "THB 1", ante=cmd.Ante(seat=1, amount=10))
    act(dealer, "THB 1", close_bets=cmd.CloseBets())
    deal(dealer, "THB 1", "As Kd 2c 3h")
    act(dealer, "THB 1", fold=cmd.Fold(seat=1))  # the house wins the ante: 10
    boss.RecordDrop(acc.RecordDropRequest(command_id=boss.next_id(), table="THB 1", amount=200))
    closed = boss.CloseShift(acc.CloseShiftRequest(command_id=boss.next_id(), table="THB 1",
                                                   closer=_chips(5_010 - 2_000)))  # 2,000 missing from the tray
    assert closed.flagged and closed.win == -1_990
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        until(lambda: 'data-table="THB 1"' in http.get("/reports/shift").text, "THB 1 in the report")
        page = http.get("/reports/shift").text
        assert '<tr data-accounts="THB 1" class="flagged">' in page and "outside the band" in page
        assert "<td>-1990</td><td>-995.00</td>" in page  # the win, and the hold: −1,990 / 200
        sections = http.get("/reports/shift", params={"format": "csv"}).text.replace("\r\n", "\n").split("\n\n")
        rows = list(csv.DictReader(io.StringIO(sections[-1].strip())))
        assert [(r["table"], r["shift"], r["win"], r["drop"], r["flagged"]) for r in rows] == [
            ("THB 1", "1", "-1990", "200", "outside band")]
        assert int(rows[0]["low"]) > -1990
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "tv")  # an observer reads the report, not the accounts
        until(lambda: 'data-table="THB 1"' in http.get("/reports/shift").text, "THB 1 in the observer's report")
        assert "data-accounts" not in http.get("/reports/shift").text


def test_an_open_shift_whose_hands_already_left_the_band_is_flagged_before_any_count(pit: Pit) -> None:
    """Issue 34, item 2 (R-ACC-6 live): the 1000:1 approved pays 2,000 on a bonus of 2; the shift's hands have lost
    far more than the band of their theoretical win allows, and the report says so while the shift is open."""
    thb_waiting_for_the_director(pit, opener=10_000)
    with httpx.Client(base_url=pit.url) as director:
        csrf = sign_in(director, "director")
        until(lambda: 'data-table="THB 1"' in director.get("/approvals").text, "the 1000:1 in the queue")
        form = {"kind": "bonus", "seat": "1", "decision": "approve", "reason": "camera 4", "csrf": csrf}
        assert "THB 1: bonus approved" in director.post("/approvals/THB 1", data=form, follow_redirects=True).text
        until(lambda: "outside the band now" in director.get("/reports/shift").text, "the live flag")
        page = director.get("/reports/shift").text
        assert '<tr data-accounts="THB 1" class="flagged">' in page
        row = page.split('<tr data-accounts="THB 1"', 1)[1].split("</tr>", 1)[0]
        assert "<td>open</td>" in row
        sections = director.get("/reports/shift", params={"format": "csv"}).text.replace("\r\n", "\n").split("\n\n")
        rows = list(csv.DictReader(io.StringIO(sections[-1].strip())))
        assert rows[0]["flagged"] == "outside band now" and int(rows[0]["result_so_far"]) < int(rows[0]["low"])

