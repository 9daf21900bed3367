"""Issue 34, item 5 — the approvals as a queue the pit works: the buttons each role may use and no others (the 1000:1
is the games director's, R-THB-10), the 1000:1 shown with what it is judged by (the box's cards and the croupier's,
the bet, the payout), a decision leaving the queue at once, and a refusal naming its rule once."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.web_support import Pit, pit_service, sign_in, thb_waiting_for_the_director, until


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def test_the_pit_boss_is_offered_no_button_of_the_directors_and_the_director_sees_what_he_judges(pit: Pit) -> None:
    thb_waiting_for_the_director(pit)  # box 1: A-A (As Ad), the croupier's A-A (Ac Ah), a bonus bet of 2
    with httpx.Client(base_url=pit.url) as boss, httpx.Client(base_url=pit.url) as director:
        sign_in(boss, "pit")
        until(lambda: 'data-table="THB 1"' in boss.get("/approvals").text, "the 1000:1 in the queue")
        page = boss.get("/approvals").text
        assert "Approve" not in page and "The games director decides it (R-THB-10)." in page
        sign_in(director, "director")
        page = director.get("/approvals").text
        assert 'aria-label="bonus of THB 1"' in page and "Approve" in page
        cards = re.findall(r'aria-label="([a-z]+ of [a-z]+)"', page)
        assert {"ace of spades", "ace of diamonds", "ace of clubs", "ace of hearts"} <= set(cards), cards
        assert '<strong data-key="bet">2</strong>' in page and '<strong data-key="pays">2000</strong>' in page


def test_a_decision_leaves_the_queue_at_once_and_a_refusal_names_its_rule_once(pit: Pit) -> None:
    thb_waiting_for_the_director(pit)
    with httpx.Client(base_url=pit.url) as director:
        csrf = sign_in(director, "director")
        until(lambda: 'data-table="THB 1"' in director.get("/approvals").text, "the 1000:1 in the queue")
        form = {"kind": "bonus", "seat": "3", "decision": "approve", "reason": "camera 4", "csrf": csrf}
        refused = director.post("/approvals/THB 1", data=form, follow_redirects=True).text  # box 3 folded
        error = re.search(r'<p class="error" role="alert">([^<]+)</p>', refused)
        assert error is not None and error.group(1).count("R-THB-") == 1, error
        reply = director.post("/approvals/THB 1", data={**form, "seat": "1"}, follow_redirects=True)
        assert "THB 1: bonus approved" in reply.text
        assert 'data-table="THB 1"' not in reply.text and "Nothing waits for the pit." in reply.text
