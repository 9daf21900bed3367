"""A table at a past moment (issue 8's history, bounded by issue 30): found from the table's own events and its
nearest snapshot, it is exactly what replaying the whole log up to that moment gives
(:func:`service.app.past.table_at_replayed`, what history did before issue 30), at every position and every
time of a log where two tables of two games play interleaved, on SQLite and PostgreSQL. So are the dealers' figures
and the shuffles seen of a period, and a search of a time range, whether the floor's hands index narrows the reads
or not, and when an attacker has rewritten it (its hints are checked against the log: a wrong one costs reads, never
a wrong answer).

Tier: store (SQLite files and PostgreSQL, required in CI)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import eventsourcing.domain
import pytest

from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.dealer_figures import dealer_figures
from domain.device_reports import HAND_SHUFFLE
from service.app.application import NotFoundError, PokerTables
from service.app.commands import OpenTable, SignIn, SignOut, Sit
from service.app.dealer_report import dealer_report, first_position_at, log_entries
from service.app.past import PastTable, _around, table_at_replayed, version_at
from service.app.shufflers import _finished_hands, shuffles_seen
from service.store.persistence import notifications
from tests.support.app_play import Ids, dealer, play_banked_hand, play_circle_hand, start_banked_hand, start_circle_hand
from tests.support.app_tables import SETTINGS
from tests.support.shuffler_floor import _Floor, _uniform
from tests.support.snapshotting import Snapshotting, _served
from tests.support.stores import store as store  # noqa: PLC0414  (the fixture: a fresh SQLite file, a PostgreSQL schema)


@pytest.fixture(autouse=True)
def _spread() -> Iterator[None]:
    """Play timed as on a floor: each event three seconds after the one before (hands minutes apart), so the hands
    index's hints (a hand started a second or more before a moment) have hands to name."""
    real, now = eventsourcing.domain.datetime_now_with_tzinfo, [datetime.now(UTC)]

    def clock() -> datetime:
        now[0] += timedelta(seconds=3)
        return now[0]

    eventsourcing.domain.datetime_now_with_tzinfo = clock
    yield
    eventsourcing.domain.datetime_now_with_tzinfo = real


HINTS = ["log only", "hands index", "forged index"]
"""What each read is checked under, in this order on one played store: the hands index not followed (the
bisections alone), followed, then rewritten by an attacker."""


def _hinted(app: PokerTables, hint: str) -> None:
    """The floor's hands index as ``hint`` says: not followed (the bisections alone), followed, or followed and then
    rewritten by an attacker with the database writable (every start moved, every position shifted)."""
    if hint == "log only":
        return
    app.floor_log.catch_up()
    if hint == "forged index":
        rows = app.floor_log.store.everything()[1]["hands"]
        assert rows, "a hands index to forge"
        starts = sorted(str(row[3]) for row in rows)
        with app.floor_log.store._cursor(commit=True) as cursor:
            cursor.execute("UPDATE {hands} SET position = position + 5")
            cursor.execute("UPDATE {hands} SET started = ? WHERE number % 2 = 0", (starts[0],))
            cursor.execute("UPDATE {hands} SET started = ? WHERE number % 2 = 1", (starts[-1],))


def _counting_reads(app: PokerTables) -> list[Any]:
    """The aggregates whose events ``app`` reads from now on, one entry a read."""
    read: list[Any] = []
    get = app.events.get

    def counting(originator_id: Any, **kwargs: Any) -> Any:
        read.append(originator_id)
        return get(originator_id, **kwargs)

    app.events.get = counting  # type: ignore[method-assign]
    return read


def _play(app: Snapshotting, rng: random.Random) -> None:
    ids = Ids("at")
    app.handle(OpenTable(ids(), "Mesa", SETTINGS))
    for seat in (1, 2, 3):
        app.handle(Sit(ids(), "Mesa", seat, 200))
    app.handle(OpenTable(ids(), "THB", ThbSettings(STANDARD_LIMITS[10])))
    for _ in range(3):
        deck, _ = start_circle_hand(app, "Mesa", ids)
        play_circle_hand(app, "Mesa", deck, rng, ids)
        start_banked_hand(app, "THB", ids, {1: 10, 2: 20})
        play_banked_hand(app, "THB", rng, ids)
    start_circle_hand(app, "Mesa", ids)  # one in progress at the end


def test_r_aud_1_the_table_at_any_past_position_or_time_is_the_log_replayed_up_to_it(store: dict[str, str]) -> None:
    app = _served(store)
    _play(app, random.Random(4))
    last = app.recorder.max_notification_id() or 0
    rng = random.Random(9)
    positions = sorted({1, 2, last, *rng.sample(range(1, last + 1), min(40, last))})
    times = [cast(Any, app.mapper.to_domain_event(n)).timestamp for n in notifications(app.recorder)]
    moments = [times[0] - timedelta(seconds=1), *rng.sample(times, 15), times[-1] + timedelta(seconds=1),
               datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)]  # the first and last times there are
    asked = [(table, position, None) for table in ("Mesa", "THB") for position in positions] + [
        (table, None, moment) for table in ("Mesa", "THB") for moment in moments]
    expected: list[PastTable | None] = []
    for table, position, moment in asked:
        try:
            expected.append(table_at_replayed(app, table, position, moment))
        except NotFoundError:
            expected.append(None)
    for hint in HINTS:
        _hinted(app, hint)
        for (table, position, moment), answer in zip(asked, expected, strict=True):
            if answer is None:
                with pytest.raises(NotFoundError):
                    app.views.table_at(table, position=position, moment=moment)
            else:
                assert app.views.table_at(table, position=position, moment=moment) == answer, (hint, table, position,
                                                                                               moment)
        if hint == "hands index":  # the index narrowed the search to the hands around the moment, and rightly
            _narrowed(app, positions)


def _narrowed(app: PokerTables, positions: list[int]) -> None:
    """The hands index places the table's hand starts around each position so that its version then lies between
    them, and names both ends for most positions."""
    record = app.any_table("Mesa")
    narrowed = 0
    for position in positions:
        found = version_at(app, record.id, record.version, position, None)
        around = _around(app, "Mesa", record.id, record.version, position=position, moment=None)
        assert around is not None
        before, after = around
        assert before is None or (found is not None and before <= found[0]), (position, around, found)
        assert after is None or found is None or found[0] < after, (position, around, found)
        narrowed += before is not None and after is not None
    assert narrowed >= len(positions) // 3


def test_a_search_in_a_time_range_reads_only_the_hands_near_it_and_finds_what_a_full_scan_finds(
        store: dict[str, str]) -> None:
    """Issue 30, item 1: a table's hands are found by their start times by bisection; the answer is the same as
    reading every hand, for ranges that start and end before, between and after the hands."""
    app = _served(store)
    _play(app, random.Random(6))
    hands = app.hands_of("Mesa")
    starts = [cast(Any, next(iter(app.events.get(hand, lte=1)))).timestamp for hand in hands]
    every = app.views.search_hands("Mesa")
    assert [summary.hand_id for summary in every] == [str(hand) for hand in hands]
    edges = [starts[0] - timedelta(seconds=1), *starts, starts[-1] + timedelta(seconds=1)]
    for since in edges:
        for until in edges:
            expected = [s for s in every if since <= s.started <= until]
            assert app.views.search_hands("Mesa", since=since, until=until) == expected, (since, until)
    read = _counting_reads(app)
    assert len(app.views.search_hands("Mesa", since=starts[-1], until=starts[-1])) == 1
    assert len(read) <= 2 * (len(hands).bit_length() + 1) + 1  # probes of the bisections, and the one hand


def test_the_dealers_figures_of_a_period_read_from_its_part_of_the_log_are_those_of_the_whole_log(
        store: dict[str, str]) -> None:
    """Issue 30, item 1: the dealers' figures of a period start from the tables' state just before it and the log
    from where the period begins; for periods that start and end before, between and after the sign-ins, hands
    and rotations at two tables, they equal the figures read from the log's first event."""
    app = _served(store)
    rng, ids = random.Random(8), Ids("dealers")
    app.handle(OpenTable(ids(), "Mesa", SETTINGS))
    for seat in (1, 2, 3):
        app.handle(Sit(ids(), "Mesa", seat, 200))
    app.handle(OpenTable(ids(), "THB", ThbSettings(STANDARD_LIMITS[10])))
    for round_, dealer_id in enumerate(("D-1", "D-2", "D-3")):
        app.handle(SignIn(ids(), "Mesa", dealer_id), dealer("Mesa"))
        if round_ != 1:
            app.handle(SignIn(ids(), "THB", f"B-{round_}"), dealer("THB"))
        deck, _ = start_circle_hand(app, "Mesa", ids)
        play_circle_hand(app, "Mesa", deck, rng, ids, void_after=4 if round_ == 1 else None)
        start_banked_hand(app, "THB", ids, {1: 10})
        play_banked_hand(app, "THB", rng, ids)
        if round_ == 1:
            app.handle(SignOut(ids(), "THB"), dealer("THB"))
    start_circle_hand(app, "Mesa", ids)  # in progress at the end
    times = [cast(Any, app.mapper.to_domain_event(n)).timestamp for n in notifications(app.recorder)]
    picks = sorted(random.Random(2).sample(times, 8))
    edges = [times[0] - timedelta(seconds=1), *picks, times[-1] + timedelta(seconds=1)]
    now = times[-1] + timedelta(minutes=5)
    whole_period = dealer_report(app, edges[0], edges[-1], now)
    assert {f.dealer for f in whole_period.figures} >= {"D-1", "D-2", "D-3", "B-0", "B-2"}
    assert sum(f.hands for f in whole_period.figures) == 7 and sum(f.voids for f in whole_period.figures) == 1
    assert first_position_at(app, picks[-1]) > 1  # a late period is read from where it begins
    periods = [(start, end) for start in edges for end in edges if end > start]
    wholes = [dealer_figures(log_entries(app, until=end), start=start, end=end, now=min(now, end))
              for start, end in periods]
    for hint in HINTS:
        _hinted(app, hint)
        for (start, end), whole in zip(periods, wholes, strict=True):
            assert dealer_report(app, start, end, now) == whole, (hint, start, end)


def test_the_shuffles_seen_from_a_moment_read_only_the_hands_near_it_and_are_those_of_the_whole_history(
        store: dict[str, str]) -> None:
    """Issue 30, item 1: the shuffler check from a moment reads each table from the last hand of each colour
    before it (bisection over the hands and the table's versions); what it sees is what reading every hand since the
    table opened sees in that range, with a hand shuffled by hand and a card keyed in among them."""
    app = _served(store)
    floor = _Floor(app)
    for number in range(1, 15):
        if number == 5:
            floor.hand(_uniform, device=HAND_SHUFFLE, serial="station-1")
        else:
            floor.hand(_uniform, keyed_at=4 if number == 8 else None)
    every = shuffles_seen(app)
    assert len(every) >= 8
    record = app.table("Mesa S")
    starts = [cast(Any, next(iter(app.events.get(record.hand_id(n), lte=1)))).timestamp
              for n in range(1, record.hands_started + 1)]
    for hint in HINTS:
        _hinted(app, hint)
        for since in [starts[0] - timedelta(seconds=1), *starts, starts[-1] + timedelta(seconds=1)]:
            assert shuffles_seen(app, since=since) == [s for s in every if s.started >= since], (hint, since)
        read = _counting_reads(app)
        _finished_hands(app).clear()
        assert len(shuffles_seen(app, since=starts[-1])) == 1
        hands_read = len({hand for hand in read if hand != record.id})
        assert hands_read <= 4 + len(starts).bit_length() + 1 + 2, hint  # not every hand (a forged hint: 2 more)
        if hint == "hands index":
            assert hands_read <= 4 + 2 + 1, hands_read  # the index's two hands and the range's, not a bisection
