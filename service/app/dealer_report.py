"""The dealers' figures read from the store (issue 19, item 4): the log's rotation, hand and irregularity events,
selected by topic (the old topics of events stored before issue 14's move too), given to the projection of
:mod:`domain.dealer_figures` in log order.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from eventsourcing.utils import get_topic

from domain.banked.cdp import CdpHand
from domain.banked.table import BankedTable
from domain.banked.thb import ThbHand
from domain.circle.hand import Hand
from domain.circle.table import Table
from domain.dealer_figures import EVENTS, DealerReport, LogEntry, dealer_figures
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
