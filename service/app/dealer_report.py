"""The dealers' figures read from the store (issue 19, item 4): the log's rotation, hand and irregularity events,
selected by topic (the old topics of events stored before issue 14's move too), given to the projection of
:mod:`domain.dealer_figures` in log order.

:func:`dealer_report` is what ``pokertable report dealers`` calls; :func:`shift_dealers` is the pit's view of it
(``ListDealerFigures``, the dashboard's ``/dealers``; issue 19, item 5): by default the current shift, as the
shufflers' view counts shifts (:func:`service.app.shufflers.shift_start`: from 00:00, 08:00 or 16:00 in the casino's
time zone), up to now.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from eventsourcing.utils import get_topic

from domain.banked.cdp import CdpHand
from domain.banked.table import BankedTable
from domain.banked.thb import ThbHand
from domain.circle.hand import Hand
from domain.circle.table import Table
from domain.dealer_figures import EVENTS, DealerReport, LogEntry, dealer_figures
from service.app.access import ServiceError
from service.app.shufflers import shift_start
from service.store.topics import old_topics

AGGREGATES: dict[str, type[Any]] = {"Table": Table, "BankedTable": BankedTable, "Hand": Hand, "ThbHand": ThbHand,
                                    "CdpHand": CdpHand}
PAGE = 1000


def topics() -> list[str]:
    """The stored topics of every event the projection reads."""
    found: list[str] = []
    for name in EVENTS:
        aggregate, _, event = name.partition(".")
        event_class = getattr(AGGREGATES[aggregate], event, None)  # a banked table is never closed
        if event_class is not None:
            found.extend(old_topics(get_topic(event_class)))
    return found


def log_entries(app: Any, *, until: datetime | None = None) -> Iterator[LogEntry]:
    """The projection's events of ``app``'s log (a :class:`service.app.application.PokerTables`), in log order, up to
    the first recorded at or after ``until``."""
    selected, start = topics(), 1
    while page := app.recorder.select_notifications(start=start, limit=PAGE, topics=selected):
        for notification in page:
            event = app.mapper.to_domain_event(notification)
            if until is not None and event.timestamp >= until:
                return
            data = {key: value for key, value in vars(event).items() if not key.startswith("originator")}
            yield LogEntry(notification.id, event.timestamp, str(event.originator_id), type(event).__qualname__, data)
        start = page[-1].id + 1


def dealer_report(app: Any, start: datetime, end: datetime, now: datetime) -> DealerReport:
    """The dealers' figures over ``[start, end)``, from ``app``'s log; a dealer still signed in deals until ``now``
    (or ``end``, if sooner)."""
    return dealer_figures(log_entries(app, until=end), start=start, end=end, now=min(now, end))


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
