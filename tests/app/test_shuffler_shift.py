"""The pit's view of the shufflers (issue 19, items 1 and 5): :func:`service.app.shufflers.shift_report` — the current
shift by default, the failed decks first, the cards compared and where each deck alarmed — and the finished hands'
reads kept between two reports, so that the dashboard asking again as hands go on reads only what changed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from domain.integrity.monitor import ADJACENT, FAIL, NOT_ENOUGH, PASS
from domain.shifts import SHIFT
from service.app.application import PokerTables
from service.app.shufflers import ShiftRangeError, shift_report, shuffler_report
from service.cli.report import verdict_document
from tests.support.shuffler_floor import _Floor, _pass_through, _uniform


class _Counting:
    """An application whose event store counts the aggregates read."""

    def __init__(self, app: PokerTables) -> None:
        self.app, self.read = app, 0

    def table_names(self) -> list[str]:
        return self.app.table_names()

    def any_table(self, name: str) -> Any:
        return self.app.any_table(name)

    @property
    def events(self) -> Any:
        counting = self

        class _Events:
            def get(self, originator_id: Any) -> Any:
                counting.read += 1
                return counting.app.events.get(originator_id)

        return _Events()


def _app() -> PokerTables:
    return PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


def test_the_failed_decks_come_first_with_the_cards_compared_and_where_they_alarmed() -> None:
    app = _app()
    fair, broken = _Floor(app, "Mesa A"), _Floor(app, "Mesa Z")
    for _ in range(22):
        fair.hand(_uniform, serial="SN-A")
    for _ in range(4):
        broken.hand(_pass_through, serial="SN-Z")
    report = shift_report(app, since=datetime.now(UTC) - timedelta(hours=1))
    assert [(v.serial, v.colour, v.result.verdict) for v in report.verdicts] == [
        ("SN-Z", "blue", FAIL), ("SN-Z", "red", FAIL), ("SN-A", "blue", PASS), ("SN-A", "red", PASS)]
    assert report.decks == 4
    for verdict in report.verdicts[:2]:
        assert verdict.cards_compared == 11 and verdict.result.alarm_test == ADJACENT  # 11 cards read, all seen
        alarm = verdict.alarmed_at
        assert alarm is not None and (alarm.table, alarm.hand) == ("Mesa Z", 3 if verdict.colour == "red" else 4)
        assert verdict_document(verdict)["alarm_hand"] == alarm.hand
    for verdict in report.verdicts[2:]:
        assert verdict.alarmed_at is None and 0 < verdict.cards_compared <= 11 * 10


@pytest.mark.parametrize(("now", "zone", "start"), [
    ("2026-11-25T21:30:00+00:00", "Europe/Madrid", "2026-11-25T16:00:00+01:00"),
    ("2026-11-25T23:30:00+00:00", "Europe/Madrid", "2026-11-26T00:00:00+01:00"),  # past midnight in Madrid
    ("2026-11-25T07:59:59+00:00", "UTC", "2026-11-25T00:00:00+00:00"),
    ("2026-07-01T06:15:00+00:00", "Europe/Madrid", "2026-07-01T08:00:00+02:00"),  # summer time
])
def test_the_default_range_is_the_casino_s_current_shift(now: str, zone: str, start: str) -> None:
    report = shift_report(_app(), now=datetime.fromisoformat(now), zone=ZoneInfo(zone))
    assert report.since.isoformat() == start and report.until == datetime.fromisoformat(now)
    assert timedelta(0) <= report.until - report.since < SHIFT


def test_only_the_range_counts_and_a_range_that_cannot_be_is_refused() -> None:
    app = _app()
    floor = _Floor(app)
    for _ in range(4):
        floor.hand(_pass_through)
    now = datetime.now(UTC)
    assert [v.result.verdict for v in shift_report(app, since=now - timedelta(days=1), until=now).verdicts] == [
        FAIL, FAIL]
    assert shift_report(app, now=now + 2 * SHIFT).verdicts == ()  # a later shift: none of these hands
    assert shift_report(app, since=now - timedelta(days=2), until=now - timedelta(days=1)).verdicts == ()
    with pytest.raises(ShiftRangeError, match="ends before it starts") as refused:
        shift_report(app, since=now, until=now - timedelta(seconds=1))
    assert refused.value.rule == "R-DECK-2"
    with pytest.raises(ShiftRangeError, match="at least one"):
        shift_report(app, decks=0)


def test_a_second_report_reads_only_the_tables_and_their_last_hands_and_agrees_with_the_first() -> None:
    app = _app()
    floors = [_Floor(app, "Mesa A"), _Floor(app, "Mesa B")]
    for _ in range(6):
        for floor in floors:
            floor.hand(_uniform)
    counting = _Counting(app)
    first = [verdict_document(v) for v in shuffler_report(counting)]
    assert counting.read == 2 + 12  # each table's events, each hand's
    counting.read = 0
    assert [verdict_document(v) for v in shuffler_report(counting)] == first
    assert counting.read == 2 + 2  # each table's events, its last hand (it may be in progress)
    floors[0].hand(_uniform)  # one more hand: it and the hand before it (now finished) are read
    counting.read = 0
    after = {(v.serial, v.colour): v.result.shuffles for v in shuffler_report(counting)}
    assert counting.read == 2 + 3
    assert sum(after.values()) == sum(d["shuffles"] for d in first) + 1
    assert {v.result.verdict for v in shuffler_report(app)} == {NOT_ENOUGH}
