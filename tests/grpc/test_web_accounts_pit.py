"""Issue 34, item 3 — the accounts worked from the dashboard (R-ACC-1 … R-ACC-6): a fill the croupier's station asks
for waits on the pit's page and on the floor until the pit signs it there; a credit the pit asks for waits for the
croupier's signature at the station; a drop recorded and the shift closed from the page; a form typed wrong is
refused with the rule and records nothing; an observer reads no accounts and changes none (R-ACC-5). A real service
and dashboard on SQLite; the croupier's station is its gRPC client."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.api import accounts_pb2 as acc
from service.api import types_pb2 as pb
from tests.support.grpc_support import open_banked
from tests.support.web_support import Pit, pit_service, sign_in


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def _accounts(pit: Pit) -> acc.ShiftAccounts:
    boss = pit.client("pit")
    reply: acc.GetShiftAccountsResponse = boss.GetShiftAccounts(acc.GetShiftAccountsRequest(table="THB 1"))
    return reply.accounts


def _shift_opened(pit: Pit) -> None:
    boss = pit.client("pit")
    open_banked(boss, "THB 1", pb.GAME_HOLDEM_BONUS, ante_min=5)
    boss.OpenShift(acc.OpenShiftRequest(command_id=boss.next_id(), table="THB 1",
                                        opener=[acc.ChipCount(denomination=100, chips=50)]))


def test_a_fill_asked_at_the_station_waits_on_the_floor_and_is_signed_on_the_dashboard(pit: Pit) -> None:
    _shift_opened(pit)
    croupier = pit.client("thb")
    croupier.RequestTransfer(acc.RequestTransferRequest(command_id=croupier.next_id(), table="THB 1", slip="F-1",
                                                        kind=acc.TRANSFER_KIND_FILL,
                                                        chips=[acc.ChipCount(denomination=100, chips=20)]))
    assert _accounts(pit).fills == 0  # R-ACC-3: not counted before the pit signs it
    with httpx.Client(base_url=pit.url) as boss:
        csrf = sign_in(boss, "pit")
        page = boss.get("/accounts").text
        slip = page.split('<tr data-slip="THB 1/F-1"', 1)[1].split("</tr>", 1)[0]
        assert "attention-waiting" in slip and "<td>2000</td>" in slip and "(croupier)" in slip
        assert 'aria-label="sign THB 1 F-1"' in slip
        overlay = boss.get("/accounts/floor.json").json()["tables"]["THB 1"]
        assert overlay["pit_signs"] == 1 and overlay["slips"] == ["fill F-1 (2000) asked by the croupier"]
        assert 'data-accounts="/accounts/floor.json"' in boss.get("/").text  # the floor asks for it
        done = boss.post("/accounts/THB 1/sign", data={"slip": "F-1", "csrf": csrf}, follow_redirects=True).text
        assert "THB 1: slip F-1 signed" in done and "No slip waits." in done
    signed = _accounts(pit)
    assert signed.fills == 2000 and [t.signed_by for t in signed.transfers] == ["pit"]


def test_the_pit_asks_a_credit_records_a_drop_and_closes_the_shift_from_the_page(pit: Pit) -> None:
    _shift_opened(pit)
    croupier = pit.client("thb")
    with httpx.Client(base_url=pit.url) as boss:
        csrf = sign_in(boss, "pit")
        done = boss.post("/accounts/THB 1/transfer", data={"kind": "credit", "slip": "C-1", "chips": "100x10",
                                                           "csrf": csrf}, follow_redirects=True).text
        assert "THB 1: credit C-1 asked for" in done
        slip = done.split('<tr data-slip="THB 1/C-1"', 1)[1].split("</tr>", 1)[0]
        assert "the croupier, at the station" in slip and "Sign</button>" not in slip  # R-ACC-3: not the pit's
        croupier.SignTransfer(acc.SignTransferRequest(command_id=croupier.next_id(), table="THB 1", slip="C-1"))
        assert "THB 1: drop of 300 recorded" in boss.post("/accounts/THB 1/drop", data={
            "amount": "300", "csrf": csrf}, follow_redirects=True).text
        closed = boss.post("/accounts/THB 1/close", data={"chips": "100x40", "csrf": csrf},
                           follow_redirects=True).text
        assert "THB 1: shift 1 closed, win 0" in closed
    accounts = _accounts(pit)
    assert (accounts.open, accounts.credits, accounts.drop, accounts.win, accounts.closer_value) == (
        False, 1000, 300, 0, 4000)
    assert accounts.closed_by == "pit"


@pytest.mark.parametrize(("action", "form", "says"), [
    ("transfer", {"kind": "fill", "slip": "F-9", "chips": "=HYPERLINK(1)"}, "R-ACC-2"),
    ("transfer", {"kind": "fill", "slip": "F-9", "chips": "100x2 100x3"}, "R-ACC-2"),
    ("transfer", {"kind": "loan", "slip": "F-9", "chips": "100x2"}, "R-ACC-3"),
    ("transfer", {"kind": "fill", "slip": "", "chips": "100x2"}, "R-ACC-3"),
    ("withdraw", {"slip": "F-9", "reason": ""}, "R-ACC-3"),
    ("drop", {"amount": "-5"}, "R-ACC-4"),
    ("drop", {"amount": "1e9"}, "R-ACC-4"),
    ("sign", {"slip": "NO-SUCH"}, "R-ACC-3"),  # refused by the service
    ("open", {"chips": "100x5"}, "R-ACC-1"),  # a shift is open already: refused by the service
    ("format", {"chips": "100x5"}, "no such operation"),
])
def test_a_form_typed_wrong_is_refused_with_its_rule_and_records_nothing(
        pit: Pit, action: str, form: dict[str, str], says: str) -> None:
    _shift_opened(pit)
    before = pit.app.recorder.max_notification_id()
    with httpx.Client(base_url=pit.url) as boss:
        csrf = sign_in(boss, "pit")
        page = boss.post(f"/accounts/THB 1/{action}", data={**form, "csrf": csrf}, follow_redirects=True)
        assert page.status_code == 200
        error = page.text.split('<p class="error" role="alert">', 1)[1].split("</p>", 1)[0]
        assert error.startswith("THB 1: ") and says in error, error
    assert pit.app.recorder.max_notification_id() == before


def test_an_observer_reads_no_accounts_and_changes_none(pit: Pit) -> None:
    _shift_opened(pit)
    with httpx.Client(base_url=pit.url) as tv:
        csrf = sign_in(tv, "tv")
        assert "The tables' accounts are the pit's to read (R-ACC-5)." in html.unescape(tv.get("/accounts").text)
        assert tv.get("/accounts/floor.json").json() == {"tables": {}}
        assert "data-accounts" not in tv.get("/").text
        refused = tv.post("/accounts/THB 1/drop", data={"amount": "300", "csrf": csrf})
        assert refused.status_code == 403
    assert _accounts(pit).drop == 0
