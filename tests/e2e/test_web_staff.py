"""People at the pit's dashboard (issue 32): once the staff are in force a person signs in with his employee number
and password (the dashboard gives him a terminal of its own at the service), the administrator keeps the staff from
the staff page and reads the authentication log, a pit boss works the floor in his own name, and failed sign-ins are
throttled and logged — in Debian's Chromium and over plain HTTP."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from service.api import table_service_pb2 as svc
from service.app.credentials import Credentials
from tests.support.browser import chromium as chromium  # noqa: PLC0414  (a fixture)
from tests.support.grpc_support import Client, open_circle
from tests.support.web_support import CSRF, TOKENS, Pit, pit_service

PINS = {"A1": "admin-pin-1", "P1": "pitboss-1", "C1": "croupier-1", "AU": "auditor-1"}


@pytest.fixture(scope="module")
def pit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pit]:
    with pit_service(tmp_path_factory.mktemp("staff")) as running:
        running.app.staff.credentials = Credentials(Credentials.FAST)
        it = Client(running.grpc_port, TOKENS["it"])
        it.EnrolPerson(svc.EnrolPersonRequest(command_id=it.next_id(), person_id="A1", name="Ana Admin",
                                              roles=["administrator"], pin=PINS["A1"]))
        it.sign_in("A1", PINS["A1"])
        for person, name, roles in (("P1", "Pedro Pit", ["pit-boss"]), ("C1", "Carlos Croupier", ["croupier"]),
                                    ("AU", "Aurora Auditor", ["auditor"])):
            it.EnrolPerson(svc.EnrolPersonRequest(command_id=it.next_id(), person_id=person, name=name, roles=roles,
                                                  pin=PINS[person]))
        pit_boss = Client(running.grpc_port, TOKENS["pit"])
        pit_boss.sign_in("P1", PINS["P1"])
        open_circle(pit_boss, "Mesa 1")
        Client(running.grpc_port, TOKENS["dealer"]).sign_in("C1", PINS["C1"])  # he deals at Mesa 1 from now on
        yield running


def _signed_in(pit: Pit, person: str, secret: str) -> tuple[httpx.Client, str]:
    http = httpx.Client(base_url=pit.url, timeout=10, headers={"Origin": pit.url})
    reply = http.post("/signin", data={"station": person, "token": secret}, follow_redirects=True)
    assert reply.status_code == 200, reply.text
    found = CSRF.search(reply.text)
    assert found is not None, reply.text
    return http, found.group(1)


def test_a_pit_boss_signs_in_in_his_own_name_and_a_station_token_no_longer_does(pit: Pit) -> None:
    http, _ = _signed_in(pit, "P1", PINS["P1"])
    floor = http.get("/")
    assert "Pedro Pit (P1)" in floor.text and "Mesa 1" in floor.text
    assert 'href="/staff"' not in floor.text
    assert "Carlos Croupier (C1)" in http.get("/dealers").text  # the rotation, with his name
    refused = http.get("/staff")
    assert "may not access-log" in refused.text  # the service's role matrix decides (R-AUD-1)
    station = httpx.Client(base_url=pit.url, timeout=10, headers={"Origin": pit.url})
    reply = station.post("/signin", data={"station": "pit", "token": TOKENS["pit"]})
    assert reply.status_code == 200 and "wrong badge or PIN" in reply.text  # a station's token is no person's
    croupier = station.post("/signin", data={"station": "C1", "token": PINS["C1"]})
    assert "may not sign in" in croupier.text  # the dashboard is the pit's, not a table's


def test_failed_sign_ins_are_throttled_by_address_and_logged(pit: Pit, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pokertable.access")
    http = httpx.Client(base_url="http://127.0.0.1", timeout=10, headers={"Origin": pit.url},
                        transport=httpx.HTTPTransport(local_address="127.0.0.2"))
    http.base_url = httpx.URL(pit.url)
    for attempt in range(5):
        assert "wrong badge or PIN" in http.post("/signin", data={"station": "AU", "token": f"guess-{attempt}xx"}).text
    throttled = http.post("/signin", data={"station": "AU", "token": PINS["AU"]})
    assert throttled.status_code == 429 and "Too many failed sign-ins" in throttled.text
    logged = [record.getMessage() for record in caplog.records]
    assert sum("dashboard sign-in refused for 'AU'" in line for line in logged) == 5
    assert not any("guess-" in line or PINS["AU"] in line for line in logged)
    _signed_in(pit, "AU", PINS["AU"])  # from another address: not throttled


def test_the_administrator_keeps_the_staff_and_reads_the_access_log_in_chromium(pit: Pit, chromium: Any) -> None:
    page = chromium.new_context(base_url=pit.url).new_page()
    page.goto("/signin")
    page.get_by_label("Employee number").fill("A1")
    page.get_by_label("Password").fill(PINS["A1"])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{pit.url}/")
    assert "Ana Admin (A1)" in page.inner_text("header")
    page.get_by_role("link", name="Staff").click()
    enrol = page.locator("form.enrol")
    enrol.get_by_label("Employee number").fill("D1")
    enrol.get_by_label("Name").fill("Dora Director")
    enrol.get_by_label("games-director").check()
    enrol.get_by_label("First PIN").fill("director-1")
    enrol.get_by_role("button", name="Enrol").click()
    assert "D1 (Dora Director) enrolled as games-director" in page.inner_text("p.done")
    row = page.locator("table.staff tr", has_text="Carlos Croupier")
    row.get_by_label("Change").select_option("suspend")
    row.get_by_label("Reason or new PIN").fill("under investigation")
    row.get_by_role("button", name="Apply").click()
    assert "C1: suspend done" in page.inner_text("p.done")
    assert "suspended" in page.locator("table.staff tr", has_text="Carlos Croupier").inner_text()
    page.get_by_role("link", name="Access log").click()
    log = page.inner_text("table.access")
    assert "enrolled" in log and "Dora Director" in log and "suspended" in log and "under investigation" in log
    assert "director-1" not in page.content() and "$argon2" not in page.content()
    page.close()
