"""Issue 34, item 3 — a table run from its page: the pit boss voids the hand in progress naming the rule and the reason
(recorded as the table's event, R-CIRC-14), and closes the table between hands; a void without its reason, or with
a rule that is no void's, is refused with R-AUD-1 and records nothing; an observer changes nothing. A real service
and dashboard over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote_plus

import httpx
import pytest

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support.grpc_support import deal, start
from tests.support.web_support import Pit, holdem_table, pit_service, sign_in


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def _view(pit: Pit) -> pb.TableView:
    reply: svc.GetTableResponse = pit.client("pit").GetTable(svc.GetTableRequest(table="Mesa 1"))
    return reply.view


def test_the_pit_voids_the_hand_with_its_reason_then_closes_the_table(pit: Pit) -> None:
    dealer = holdem_table(pit)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", "As Kd Qh")
    with httpx.Client(base_url=pit.url) as boss:
        csrf = sign_in(boss, "pit")
        page = boss.get("/tables/Mesa 1").text
        assert 'aria-label="void the hand at Mesa 1"' in page and "<option>R-CIRC-14</option>" in page
        done = boss.post("/tables/Mesa 1/void", data={"rule": "R-CIRC-14", "reason": "a card turned over in the deal",
                                                       "csrf": csrf}, follow_redirects=True).text
        assert "the hand is voided (R-CIRC-14)" in done
        assert not _view(pit).hand_in_progress
        closed = boss.post("/tables/Mesa 1/close", data={"csrf": csrf}, follow_redirects=True).text
        assert "the table is closed" in closed
    assert _view(pit).circle.closed


@pytest.mark.parametrize("form", [{"rule": "R-CIRC-14", "reason": ""}, {"rule": "R-FLOP-1", "reason": "why not"},
                                  {"reason": "no rule"}])
def test_a_void_without_its_rule_or_reason_is_refused_and_records_nothing(pit: Pit, form: dict[str, str]) -> None:
    dealer = holdem_table(pit)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    before = pit.app.recorder.max_notification_id()
    with httpx.Client(base_url=pit.url) as boss:
        csrf = sign_in(boss, "pit")
        refused = boss.post("/tables/Mesa 1/void", data={**form, "csrf": csrf})  # not followed: the page it goes
        # back to is a look at the hand, recorded as every look of the pit is (R-AUD-1)
        assert refused.status_code == 303
        assert "a void names its rule and its reason (R-AUD-1)" in unquote_plus(refused.headers["location"])
    assert pit.app.recorder.max_notification_id() == before and _view(pit).hand_in_progress


def test_an_observer_runs_no_table(pit: Pit) -> None:
    holdem_table(pit)
    with httpx.Client(base_url=pit.url) as tv:
        csrf = sign_in(tv, "tv")
        assert "void the hand at" not in tv.get("/tables/Mesa 1").text
        assert tv.post("/tables/Mesa 1/close", data={"csrf": csrf}).status_code == 403
    assert not _view(pit).circle.closed
