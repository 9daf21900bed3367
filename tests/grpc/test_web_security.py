"""Issue 16, item 7 — attack the pit's dashboard (a real service with its dashboard on free ports, over real HTTP):
no page or stream shows anything without a session; a croupier's or a device's token does not sign in; the session
cookie is HttpOnly, SameSite=Strict; a forged cross-site POST is refused (no CSRF token, a wrong one, another
site's Origin); an observer cannot approve; a session of one role cannot act as another."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from starlette.routing import Route

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.web import dealers, decisions, disputes, reports, shufflers
from service.web.app import Dashboard, create_app
from service.web.sessions import COOKIE
from tests.support.web_support import TOKENS, Pit, pit_service, sign_in, thb_waiting_for_the_director, until


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def every_route() -> list[tuple[str, str]]:
    """Each route of the dashboard (method, path with sample parameters), but signing in and the static assets."""
    dashboard = Dashboard.__new__(Dashboard)  # the routes only, nothing served
    cast("Any", dashboard).signed_in = lambda handler, changes=False: handler
    app = create_app(dashboard, [*decisions.routes(dashboard), *disputes.routes(dashboard),
                                 *reports.routes(dashboard), *shufflers.routes(dashboard), *dealers.routes(dashboard)])
    out: list[tuple[str, str]] = []
    for route in app.routes:
        if not isinstance(route, Route) or route.path == "/signin":
            continue
        path = (route.path.replace("{table}", "THB 1").replace("{number:int}", "1").replace("{position:int}", "3")
                .replace("{format}", "json"))
        out.extend((method, path) for method in sorted(route.methods or ()) if method != "HEAD")
    return out


def test_every_route_is_listed() -> None:
    paths = {path for _, path in every_route()}
    assert {"/", "/events/floor", "/tables/THB 1", "/approvals", "/alerts", "/disputes",
            "/reports/shift", "/export/THB 1/1.json", "/shufflers", "/dealers", "/events/dealers"} <= paths
    assert ("POST", "/approvals/THB 1") in every_route() and ("POST", "/signout") in every_route()


def test_no_page_or_stream_shows_anything_without_a_session(pit: Pit) -> None:
    thb_waiting_for_the_director(pit)
    with httpx.Client(base_url=pit.url) as http:
        for method, path in every_route():
            reply = http.request(method, path, data={"reason": "x", "kind": "bonus", "decision": "approve"})
            assert reply.status_code in (303, 401), (method, path, reply.status_code)
            assert "THB 1" not in reply.text and "As" not in reply.text, (method, path)
            if reply.status_code == 303:
                assert reply.headers["location"] == "/signin"
    with httpx.Client(base_url=pit.url, cookies={COOKIE: "forged-session-id"}) as forged:
        for method, path in every_route():
            reply = forged.request(method, path)
            assert reply.status_code in (303, 401), (method, path)
    legal = pit.client("director").GetLegalActions(svc.GetLegalActionsRequest(table="THB 1"))
    assert pb.ACTION_KIND_APPROVE_BONUS in legal.allowed  # nothing was decided


@pytest.mark.parametrize("who", ["dealer", "thb"])
def test_a_croupiers_token_does_not_sign_in_nor_does_a_wrong_or_borrowed_name(pit: Pit, who: str) -> None:
    with httpx.Client(base_url=pit.url) as http:
        for station, token in ((who, TOKENS[who]), ("pit", TOKENS["tv"]), ("pit", "not-a-token-at-all"),
                               ("tv", TOKENS["pit"])):
            reply = http.post("/signin", data={"station": station, "token": token})
            assert reply.status_code == 200 and "Unknown station or token" in reply.text
            assert COOKIE not in reply.cookies


def test_the_session_cookie_is_http_only_same_site_strict(pit: Pit) -> None:
    with httpx.Client(base_url=pit.url) as http:
        reply = http.post("/signin", data={"station": "pit", "token": TOKENS["pit"]})
        cookie = reply.headers["set-cookie"]
        assert reply.status_code == 303 and cookie.startswith(f"{COOKIE}=")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict") and "Path=/" in cookie
        assert TOKENS["pit"] not in cookie  # the token stays on the server


def test_a_forged_cross_site_post_is_refused(pit: Pit) -> None:
    """The games director is signed in; another site's page makes his browser post the approval."""
    thb_waiting_for_the_director(pit)
    with httpx.Client(base_url=pit.url) as http:
        csrf = sign_in(http, "director")
        form = {"kind": "bonus", "seat": "1", "decision": "approve", "reason": "forged"}
        for attempt in ({}, {"csrf": "guessed"}, {"csrf": csrf, "_origin": "http://evil.example"}):
            origin = attempt.pop("_origin", None)
            reply = http.post("/approvals/THB 1", data={**form, **attempt},
                              headers={"origin": origin} if origin else {})
            assert reply.status_code == 403, (attempt, reply.status_code)
        legal = pit.client("director").GetLegalActions(svc.GetLegalActionsRequest(table="THB 1"))
        assert pb.ACTION_KIND_APPROVE_BONUS in legal.allowed  # nothing was decided
        reply = http.post("/approvals/THB 1", data={**form, "csrf": csrf, "reason": "aces against aces, checked"},
                          follow_redirects=True)
        assert reply.status_code == 200 and "bonus approved" in reply.text
        view = pit.client("pit").GetTable(svc.GetTableRequest(table="THB 1")).view
        assert not view.hand_in_progress  # the hand was paid (R-THB-10)


def test_an_observer_cannot_approve_and_a_pit_boss_cannot_do_the_directors_approval(pit: Pit) -> None:
    thb_waiting_for_the_director(pit)
    form = {"kind": "bonus", "seat": "1", "decision": "approve", "reason": "let me"}
    with httpx.Client(base_url=pit.url) as observer, httpx.Client(base_url=pit.url) as boss:
        csrf = sign_in(observer, "tv")
        assert "Approve" not in observer.get("/approvals").text  # no button offered
        assert observer.post("/approvals/THB 1", data={**form, "csrf": csrf}).status_code == 403
        boss_csrf = sign_in(boss, "pit")
        reply = boss.post("/approvals/THB 1", data={**form, "csrf": boss_csrf}, follow_redirects=True)
        assert "R-THB-10" in reply.text and "bonus approved" not in reply.text  # the service refused: the director's
        # one session's cookie with another's CSRF token: refused (the token is the session's own)
        assert observer.post("/approvals/THB 1", data={**form, "csrf": boss_csrf}).status_code == 403
    legal = pit.client("director").GetLegalActions(svc.GetLegalActionsRequest(table="THB 1"))
    assert pb.ACTION_KIND_APPROVE_BONUS in legal.allowed


@pytest.mark.parametrize("seat", ["one", "", "-1", "99", "1e3", "٣"])
def test_a_forged_approval_with_no_box_number_is_refused_plainly_and_records_nothing(pit: Pit, seat: str) -> None:
    """Attack (issue 34, "also found"): a bonus decision whose box is not a number answered 500 with a traceback in
    the log; it is refused with its rule, and nothing is recorded."""
    thb_waiting_for_the_director(pit)
    with httpx.Client(base_url=pit.url) as director:
        csrf = sign_in(director, "director")
        reply = director.post("/approvals/THB 1", data={"kind": "bonus", "seat": seat, "decision": "approve",
                                                        "reason": "checked", "csrf": csrf}, follow_redirects=True)
        assert reply.status_code == 200 and "is a number, 1 to 7 (R-THB-10)" in reply.text
    legal = pit.client("director").GetLegalActions(svc.GetLegalActionsRequest(table="THB 1"))
    assert legal.seat == 1 and pb.ACTION_KIND_APPROVE_BONUS in legal.allowed  # nothing decided: it still waits


def test_signing_out_ends_the_session(pit: Pit) -> None:
    with httpx.Client(base_url=pit.url) as http:
        csrf = sign_in(http, "pit")
        cookie = http.cookies[COOKIE]
        assert http.post("/signout", data={"csrf": csrf}).status_code == 303
    with httpx.Client(base_url=pit.url, cookies={COOKIE: cookie}) as replayed:  # the old cookie, kept by an attacker
        assert replayed.get("/").status_code == 303


def test_the_floor_lists_every_table_live(pit: Pit) -> None:
    """A table opened after the dashboard started shows on the floor; a hand started changes its row."""
    thb_waiting_for_the_director(pit)
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "tv")
        until(lambda: "THB 1" in http.get("/").text, "THB 1 on the floor")
        until(lambda: "hand-in-progress" in http.get("/").text and "bonus" in http.get("/").text,
              "the hand and the decision waiting")
        assert "aria-label" not in http.get("/").text  # the floor shows no card

