"""Trusted time in the log (issue 29, item 4): the events' times never go backwards in log order, whichever instance
writes them and however far its clock lags; an event the log timed later keeps its clock's own reading beside it.

Tier: store (SQLite files and PostgreSQL, required in CI)."""

from __future__ import annotations

import copy
import random
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import EventStore, Recording, StoredEvent
from hypothesis import given
from hypothesis import strategies as st

from domain.log_time import CLOCK_READING
from domain.reconstruction import event_data
from service.app.application import PokerTables
from service.app.commands import AddChips, StartHand
from service.store.chain import LogTimeBehindError
from service.store.log_time import OrderedEventStore, from_micros, micros, timed_after
from tests.support.app_tables import RED, ids, open_table, play_to_the_end
from tests.support.stores import store as store  # noqa: PLC0414  (the fixture: a fresh SQLite file, a PostgreSQL schema)

SKEW = timedelta(seconds=3)


class _Noted(Aggregate):
    class Noted(Aggregate.Event):
        what: str


def _event(at: datetime, what: str = "x") -> Any:
    return _Noted.Noted(originator_id=uuid4(), originator_version=2, timestamp=at, what=what)  # type: ignore[call-arg]


@given(st.lists(st.integers(min_value=0, max_value=10**7), max_size=12),
       st.one_of(st.none(), st.integers(min_value=0, max_value=10**7)))
def test_events_are_timed_in_order_and_keep_their_clocks_reading(offsets: list[int], floor: int | None) -> None:
    start = datetime(2026, 11, 27, 16, tzinfo=UTC)
    events = [_event(start + timedelta(microseconds=offset), str(n)) for n, offset in enumerate(offsets)]
    base = micros(start)
    timed = timed_after(events, None if floor is None else base + floor)
    times = [micros(event.timestamp) for event in timed]
    assert times == sorted(times)
    if floor is not None:
        assert all(at >= base + floor for at in times)
    for before, after in zip(events, timed, strict=True):
        if after is before:  # already in order: kept as it is, with no reading beside it
            assert CLOCK_READING not in vars(after)
            continue
        assert vars(after)[CLOCK_READING] == before.timestamp < after.timestamp  # what its clock said, kept
        assert event_data(after) == event_data(before)  # what the event says is unchanged
        assert CLOCK_READING not in vars(before)  # the event made is not changed: a copy is timed


def test_microseconds_are_exact_far_from_the_epoch() -> None:
    at = datetime(2999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
    assert from_micros(micros(at)) == at


class _LaggingStore(OrderedEventStore[UUID]):
    """An event store on a host whose clock is ``SKEW`` behind the others'."""

    def put(self, domain_events: Sequence[Any], **kwargs: Any) -> list[Recording[UUID]]:
        lagging = []
        for event in domain_events:
            late = copy.copy(event)
            object.__setattr__(late, "timestamp", event.timestamp - SKEW)
            lagging.append(late)
        return super().put(lagging, **kwargs)


class _LaggingInstance(PokerTables):
    name = "pokertable"  # the same log as PokerTables

    def construct_event_store(self) -> EventStore[UUID]:
        return _LaggingStore(mapper=self.mapper, recorder=self.recorder)


def _log(app: PokerTables) -> list[Any]:
    """Every event of the store, in log order."""
    events, start = [], 1
    while page := app.recorder.select_notifications(start, 500):
        events += [app.mapper.to_domain_event(n) for n in page]
        start = page[-1].id + 1
    return events


def test_r_aud_1_two_instances_one_clock_behind_never_time_the_log_backwards(store: dict[str, str]) -> None:
    """Two instances play at once on one store, one of them with its clock 3 s behind: every event's time is at
    least its predecessor's in log order; the lagging instance's events carry its clock's reading; what each
    instance caches is what the store gives a third one."""
    first, second = PokerTables(env=store), _LaggingInstance(env=store)
    failures: list[BaseException] = []

    def play(app: PokerTables, seed: int) -> None:
        try:
            command, rng = ids(), random.Random(seed)
            table = open_table(app, command)
            for _ in range(3):
                app.handle(StartHand(next(command), table, RED))
                play_to_the_end(app, table, command, rng)
        except BaseException as error:  # reported by the test's thread
            failures.append(error)

    threads = [threading.Thread(target=play, args=(app, seed)) for seed, app in enumerate((first, second, first))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures
    log = _log(first)
    times = [event.timestamp for event in log]
    backwards = [n for n in range(1, len(times)) if times[n] < times[n - 1]]
    assert not backwards, f"{len(backwards)} of {len(times)} events timed before the event stored before them"
    retimed = [event for event in log if CLOCK_READING in vars(event)]
    assert retimed, "the lagging instance's events are timed after the others' (its clock is 3 s behind)"
    assert all(vars(event)[CLOCK_READING] < event.timestamp for event in retimed)
    third = PokerTables(env=store)
    for app in (first, second):
        for name in app.table_names():
            cached, stored = app.table(name), third.table(name)
            assert (cached.created_on, cached.modified_on, cached.version) == \
                   (stored.created_on, stored.modified_on, stored.version)


def test_r_aud_1_what_an_instance_caches_is_what_the_store_holds_when_its_events_are_not_timed_again(
        store: dict[str, str]) -> None:
    """The lagging instance writes alone (nothing later in the log: its events are stored at its clock's time, not
    timed again): its cached table has the times the store gives a fresh instance. (The two-instance test above met
    this only when the other instance stalled for the clock's 3 s; its cached table then kept the time it was made
    with.)"""
    lagging = _LaggingInstance(env=store)
    table = open_table(lagging, ids())
    cached, stored = lagging.table(table), PokerTables(env=store).table(table)
    assert CLOCK_READING not in vars(_log(lagging)[0])
    assert (cached.created_on, cached.modified_on, cached.version) == \
           (stored.created_on, stored.modified_on, stored.version)


def test_r_aud_1_the_store_refuses_an_event_timed_before_the_logs_last_and_writes_nothing(
        store: dict[str, str]) -> None:
    app = PokerTables(env=store)
    open_table(app, ids())
    log = _log(app)
    last = micros(log[-1].timestamp)
    stored = StoredEvent(originator_id=uuid4(), originator_version=1, topic="tests.app.test_log_time:_Noted.Noted",
                         state=b"{}")
    with pytest.raises(LogTimeBehindError) as refused:
        app.recorder.insert_events([stored], times=[last - 1])
    assert refused.value.last == last
    assert len(_log(app)) == len(log)  # nothing written, the chain untouched
    assert app.recorder.insert_events([stored], times=[last])  # the same time as the last: in order


def test_r_aud_1_a_write_refused_once_is_timed_under_the_insert_lock_and_never_refused_again(
        store: dict[str, str]) -> None:
    """A write whose first try was refused (another instance wrote a later time meanwhile) is timed once the
    store's insert lock is held: given the log's last time, its events follow it, and nothing can come in between."""
    app = PokerTables(env=store)
    open_table(app, ids())
    last = micros(_log(app)[-1].timestamp)
    recorder: Any = app.recorder
    seen: list[int | None] = []

    def timed(at: int | None) -> tuple[list[StoredEvent], list[int]]:
        seen.append(at)
        event = _event(from_micros(last - 5_000_000))  # timed 5 s before the log's last: behind
        later = timed_after([event], at)
        return [app.mapper.to_stored_event(e) for e in later], [micros(e.timestamp) for e in later]

    positions = recorder.insert_events_timed_under_lock(timed)
    assert seen == [last] and len(positions) == 1
    stored = _log(app)[-1]
    assert stored.timestamp == from_micros(last) and vars(stored)[CLOCK_READING] == from_micros(last - 5_000_000)
    attempts: list[str] = []
    store_put = EventStore.put

    def refused_once(self: Any, events: Sequence[Any], **kwargs: Any) -> Any:
        attempts.append("optimistic")
        raise LogTimeBehindError(micros(datetime.now(UTC)))

    EventStore.put = refused_once  # type: ignore[method-assign,assignment]
    try:
        app.handle(AddChips(next(ids()), app.table_names()[0], 1, 5))  # refused once, then written under the lock
    finally:
        EventStore.put = store_put  # type: ignore[method-assign]
    assert attempts == ["optimistic"]
    times = [event.timestamp for event in _log(app)]
    assert times == sorted(times)
