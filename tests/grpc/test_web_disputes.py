"""Issue 16, item 5 — the disputes search over HTTP: by table, or over every table of a game, by outcome; each hand
found names its table, and its reconstruction and exports are that table's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.support.web_support import Pit, pit_service, sign_in, thb_waiting_for_the_director, uncontested_hand, until

HAND_ROW = re.compile(r'<tr data-table="([^"]+)" data-hand="(\d+)">')


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def _found(http: httpx.Client, **query: str) -> list[tuple[str, int]]:
    reply = http.get("/disputes", params=query)
    assert reply.status_code == 200, reply.text
    return [(table, int(number)) for table, number in HAND_ROW.findall(reply.text)]


@contextmanager
def _two_tables(pit: Pit) -> Iterator[httpx.Client]:
    """Mesa 1's uncontested hand and THB 1's hand waiting for the games director, both found by the pit boss's
    search (his signed-in client)."""
    uncontested_hand(pit)
    thb_waiting_for_the_director(pit)
    with httpx.Client(base_url=pit.url) as http:
        sign_in(http, "pit")
        until(lambda: {"Mesa 1", "THB 1"} <= {table for table, _ in _found(http, table="", game="")},
              "both tables' hands on the floor")
        yield http


def test_hands_are_searched_by_table_or_by_game_across_tables(pit: Pit) -> None:
    with _two_tables(pit) as http:
        assert _found(http, table="Mesa 1") == [("Mesa 1", 1)]
        assert _found(http, table="", game="holdem") == [("Mesa 1", 1)]
        assert _found(http, table="", game="holdem-bonus") == [("THB 1", 1)]
        assert _found(http, table="", game="omaha") == []
        assert _found(http, table="", game="", outcome="uncontested") == [("Mesa 1", 1)]
        assert _found(http, table="", game="", outcome="in-progress") == [("THB 1", 1)]
        page = http.get("/disputes", params={"table": "", "game": "holdem-bonus"}).text
        assert 'action="/disputes/THB%201/1"' in page and 'href="/export/THB%201/1.json"' in page
        assert "No hand found." in http.get("/disputes", params={"table": "", "game": "omaha"}).text


def test_phh_is_offered_only_where_it_can_express_the_hand_and_a_refusal_is_no_200(pit: Pit) -> None:
    """Issue 34, item 7: a Texas Hold'em Bonus hand (PHH has no form for a banked game) is offered as JSON only; a
    Hold'em hand as PHH and JSON; asked for a form it has not, the page says why with 409, not a 200 that says
    no; the outcome is in words."""
    with _two_tables(pit) as http:
        page = http.get("/disputes", params={"table": "", "game": ""}).text
        assert 'href="/export/Mesa%201/1.phh"' in page and 'href="/export/Mesa%201/1.json"' in page
        assert 'href="/export/THB%201/1.phh"' not in page and 'href="/export/THB%201/1.json"' in page
        assert "won uncontested" in page and "HAND_OUTCOME" not in page
        refused = http.get("/export/THB%201/1.phh")
        assert refused.status_code == 409 and "PHH" in refused.text


def test_an_observer_is_not_offered_the_reconstruction_it_would_be_refused(pit: Pit) -> None:
    """Issue 34, item 7: the pit boss and the games director reconstruct (R-THB-13); an observer's search lists the
    hands without the form it would be refused, and a forged one is refused all the same."""
    uncontested_hand(pit)
    with httpx.Client(base_url=pit.url) as observer, httpx.Client(base_url=pit.url) as boss:
        csrf = sign_in(observer, "tv")
        until(lambda: _found(observer, table="Mesa 1") == [("Mesa 1", 1)], "the hand found")
        page = observer.get("/disputes", params={"table": "Mesa 1"}).text
        assert 'action="/disputes/Mesa%201/1"' not in page and "R-THB-13" in page
        forged = observer.post("/disputes/Mesa%201/1", data={"reason": "curious", "csrf": csrf})
        assert forged.status_code == 403 and "R-THB-13" in forged.text
        sign_in(boss, "pit")
        assert 'action="/disputes/Mesa%201/1"' in boss.get("/disputes", params={"table": "Mesa 1"}).text
