"""The log as the projections read it (:class:`domain.dealer_figures.LogEntry`): the stored topics of the events a
projection follows, under their topics of now and of before issue 14's move (:func:`service.store.topics.
old_topics`), and a notification read back as its entry. The dealers' figures (:mod:`service.app.dealer_report`) and
the floor's projection (:mod:`service.app.floor_log`) both read the log this way."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from eventsourcing.utils import get_topic

from domain.audit_findings import AuditFindings
from domain.banked.cdp import CdpHand
from domain.banked.table import BankedTable
from domain.banked.thb import ThbHand
from domain.circle.hand import Hand
from domain.circle.table import Table
from domain.dealer_figures import LogEntry
from domain.staff import StaffMember, StationSessions
from service.store.topics import old_topics

AGGREGATES: dict[str, type[Any]] = {"Table": Table, "BankedTable": BankedTable, "Hand": Hand, "ThbHand": ThbHand,
                                    "CdpHand": CdpHand, "AuditFindings": AuditFindings, "StaffMember": StaffMember,
                                    "StationSessions": StationSessions}
"""The aggregates whose events a projection may follow, by the name its events are given (``Table.HandStarted``)."""


def stored_topics(events: Iterable[str]) -> list[str]:
    """The stored topics of ``events`` (``Aggregate.Event`` names); an event an aggregate does not have (a banked
    table is never closed) has none."""
    found: list[str] = []
    for name in events:
        aggregate, _, event = name.partition(".")
        event_class = getattr(AGGREGATES[aggregate], event, None)
        if event_class is not None:
            found.extend(old_topics(get_topic(event_class)))
    return found


def log_entry(mapper: Any, notification: Any) -> LogEntry:
    """A notification of the log as its entry: position, time, originator, ``Aggregate.Event`` and data."""
    event: Any = mapper.to_domain_event(notification)
    data = {key: value for key, value in vars(event).items() if not key.startswith("originator")}
    return LogEntry(notification.id, event.timestamp, str(event.originator_id), type(event).__qualname__, data)
