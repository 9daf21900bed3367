"""The dealers' figures read from the store (issue 19, item 4): the log's rotation, hand and irregularity events,
selected by topic (the old topics of events stored before issue 14's move too), given to the projection of
:mod:`domain.dealer_figures` in log order.

:func:`dealer_report` is what ``pokertable report dealers`` calls; :func:`shift_dealers` is the pit's view of it
(``ListDealerFigures``, the dashboard's ``/dealers``; issue 19, item 5): by default the current shift, as the
shufflers' view counts shifts (:func:`domain.shifts.shift_start`: from 00:00, 08:00 or 16:00 in the casino's
time zone), up to now.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from domain.dealer_figures import EVENTS, DealerReport, LogEntry, dealer_figures
from domain.shifts import shift_start
from service.app import past
from service.app.access import ServiceError
from service.app.log_entries import log_entry, stored_topics

PAGE = 1000


def log_entries(app: Any, *, until: datetime | None = None) -> Iterator[LogEntry]:
    """The projection's events of ``app``'s log (a :class:`service.app.application.PokerTables`), in log order, up to
    the first recorded at or after ``until``."""
    selected, start = stored_topics(EVENTS), 1
    while page := app.recorder.select_notifications(start=start, limit=PAGE, topics=selected):
        for notification in page:
            entry = log_entry(app.mapper, notification)
            if until is not None and entry.time >= until:
                return
            yield entry
        start = page[-1].id + 1


MARGIN = timedelta(minutes=10)
"""How far before a period its log is read from: events stored before this version were timed as they were made, not
in log order, a few milliseconds apart at most (issue 29, item 4); an event timed in the period is never missed."""
_BEFORE = timedelta(microseconds=1)


def first_position_at(app: Any, moment: datetime) -> int:
    """The first log position whose event is timed at or after ``moment`` (one past the last if none), found by
    bisection over the positions: a few single-row reads, whatever the log's length (the log is timed in order),
    from the last hand started before ``moment`` by the floor's hands index (checked against the log): the bisection
    then covers the time since then, not the log."""
    recorder = app.recorder
    low, high = 1, (recorder.max_notification_id() or 0) + 1
    floor = getattr(app, "floor_log", None)
    if floor is not None and floor.store.ready:  # from the hands index: the last hand started before it
        before = floor.store.hands_index.last_before(moment)
        if before is not None and low <= before.position < high:
            found = recorder.select_notifications(start=before.position, limit=1)
            if found and app.mapper.to_domain_event(found[0]).timestamp < moment:  # checked against the log
                low = found[0].id + 1
    while low < high:
        middle = (low + high) // 2
        found = recorder.select_notifications(start=middle, limit=1)
        if not found:  # nothing at or after middle (a gap up to the end)
            high = middle
        elif app.mapper.to_domain_event(found[0]).timestamp < moment:
            low = found[0].id + 1
        else:
            high = middle
    return low


def _state_before(app: Any, start: datetime) -> Iterator[LogEntry]:
    """The tables as they stood just before ``start``, as log entries timed just before it: each table open then,
    its name, the dealer signed in and the hand in progress (its events in the period are the table's). Read from
    each table's own events and snapshots (:func:`service.app.past.version_at`), not the log."""
    before = start - _BEFORE
    for name in app.table_names():
        current = app.any_table(name)
        found = past.version_at(app, current.id, current.version, None, before, table=name)
        if found is None:  # opened since
            continue
        record = app.reads.fetch(current.id, found[0])
        kind, table = type(record).__name__, str(record.id)
        yield LogEntry(0, before, table, f"{kind}.Opened", {"name": record.name})
        if getattr(record, "closed", False):
            yield LogEntry(0, before, table, f"{kind}.Closed", {})
            continue
        if record.dealer_id:
            yield LogEntry(0, before, table, f"{kind}.DealerSignedIn", {"dealer_id": record.dealer_id, "previous": ""})
        if record.hand_in_progress is not None:
            yield LogEntry(0, before, table, f"{kind}.HandStarted", {"hand_id": str(record.hand_in_progress)})


def log_entries_between(app: Any, start: datetime, end: datetime) -> Iterator[LogEntry]:
    """What the projection needs of ``[start, end)``, at a cost bounded by the period, not the log (issue 30, item 1):
    the tables' state just before ``start``, then the log's events timed from ``start`` on, read from the position
    where the period begins (less :data:`MARGIN`)."""
    if start - datetime.min.replace(tzinfo=UTC) <= MARGIN:  # a period from the beginning of time: all of the log
        yield from log_entries(app, until=end)
        return
    yield from _state_before(app, start)
    selected, position = stored_topics(EVENTS), first_position_at(app, start - MARGIN)
    while page := app.recorder.select_notifications(start=position, limit=PAGE, topics=selected):
        for notification in page:
            entry = log_entry(app.mapper, notification)
            if entry.time >= end:
                return
            if entry.time >= start:
                yield entry
        position = page[-1].id + 1


def dealer_report(app: Any, start: datetime, end: datetime, now: datetime) -> DealerReport:
    """The dealers' figures over ``[start, end)``, from ``app``'s log; a dealer still signed in deals until ``now``
    (or ``end``, if sooner). Read from the period's part of the log (:func:`log_entries_between`) on a store that
    locates events (SQLite, PostgreSQL); from the log's start otherwise."""
    entries = log_entries_between(app, start, end) if past.locates(app) else log_entries(app, until=end)
    return dealer_figures(entries, start=start, end=end, now=min(now, end))


class DealerRangeError(ServiceError):
    """A range of the dealers' figures that ends before it starts (R-AUD-1); ``field`` is the bound at fault: ``until``
    when one was given, else ``since`` (a start after now)."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message, rule="R-AUD-1")
        self.field = field


@dataclass(frozen=True)
class DealersShift:
    """The pit's view of the dealers (``ListDealerFigures``): the range reported on, and the dealers' figures and
    the rotations in it."""

    since: datetime
    until: datetime
    report: DealerReport


def shift_dealers(app: Any, *, since: datetime | None = None, until: datetime | None = None,
                  now: datetime | None = None, zone: ZoneInfo | None = None) -> DealersShift:
    """The dealers' figures over ``[since, until)``, by default the current shift: from the start of the shift
    ``until`` (default ``now``, the clock's time when not given) falls in, in the casino's time ``zone`` (UTC if
    none).  A dealer still signed in deals until ``now``, or ``until`` if sooner.  :class:`DealerRangeError` for a
    range that ends before it starts; a range that ends as it starts holds nothing.

    >>> from eventsourcing.application import Application
    >>> shift = shift_dealers(Application(), now=datetime(2026, 11, 25, 21, 30, tzinfo=UTC),
    ...                       zone=ZoneInfo("Europe/Madrid"))
    >>> shift.since.isoformat(), shift.report.figures, shift.report.rotations
    ('2026-11-25T16:00:00+01:00', [], [])
    >>> shift_dealers(Application(), since=datetime(2026, 11, 26, tzinfo=UTC), now=datetime(2026, 11, 25, tzinfo=UTC))
    Traceback (most recent call last):
    ...
    service.app.dealer_report.DealerRangeError: the range ends before it starts (R-AUD-1)
    """
    now = now or datetime.now(UTC)
    end = until or now
    start = since or shift_start(end, zone or ZoneInfo("UTC"))
    if end < start:
        raise DealerRangeError("the range ends before it starts", "until" if until is not None else "since")
    if end == start:
        return DealersShift(start, end, DealerReport([]))
    return DealersShift(start, end, dealer_report(app, start, end, now))
