"""Trusted time in the log (issue 29, item 4): the events' times never go backwards in log order.

An event is timed when it is made, by the clock of the process that makes it; it takes its place in the log later,
under the store's insert lock, behind events of other commands, threads and instances that may have been timed a
little after it. So the event store times each write again before it goes in: every event at least as late as the
one before it (in the write, and the last this process knows of in the log). The store keeps each event's time
beside its link and refuses, under its lock, a write whose first event is timed before the log's last
(:class:`service.store.chain.LogTimeBehindError`: another instance wrote in between); the write is then timed once
the insert lock is held, from the log's last time read under it (two round trips under the lock, only for a write
that was refused), so it cannot be refused again however busy the other instances are. An event timed again
keeps its clock's own reading beside the time it is given
(:data:`domain.log_time.CLOCK_READING`), so nothing of what the clock said is lost; the difference is the wait for
the lock (micro- to milliseconds), or a clock behind another instance's.

>>> from datetime import UTC, datetime
>>> at = datetime(2026, 11, 27, 16, 0, 0, 123456, tzinfo=UTC)
>>> micros(at), from_micros(micros(at)) == at
(1795795200123456, True)
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.persistence import EventStore, Notification, Recording, StoredEvent

from domain.log_time import CLOCK_READING
from service.store.chain import LogTimeBehindError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
ATTEMPTS = 20
"""How many times a write is timed again and sent again, on a store that cannot time it under its lock (in memory);
the chained stores take the lock at the second attempt."""
FAR_AHEAD = timedelta(seconds=2)
"""A log whose last event is this far ahead of this process's clock: said in the service's log (another instance's
clock runs ahead, or the store was written around the service); the events are still timed after it."""
_log = logging.getLogger(__name__)
ID = TypeVar("ID", bound=UUID | str)


def micros(moment: datetime) -> int:
    """A time as microseconds since the epoch (exact: no float)."""
    return (moment - _EPOCH) // _MICROSECOND


def from_micros(value: int) -> datetime:
    """Microseconds since the epoch as a time in UTC (exact)."""
    return _EPOCH + timedelta(microseconds=value)


def timed_after(events: Sequence[Any], floor: int | None) -> list[Any]:
    """``events`` each timed at least as late as the one before it and as ``floor`` (microseconds since the epoch):
    an event already so is kept as it is; one that is not is copied with the later time, its clock's reading kept
    beside it (:data:`CLOCK_READING`)."""
    timed = []
    latest = floor
    for event in events:
        at = micros(event.timestamp)
        if latest is not None and at < latest:
            later = copy.copy(event)
            object.__setattr__(later, "timestamp", from_micros(latest))
            if CLOCK_READING not in vars(event):
                object.__setattr__(later, CLOCK_READING, event.timestamp)
            timed.append(later)
        else:
            latest = at
            timed.append(event)
    return timed


class OrderedEventStore(EventStore[ID]):
    """The application's event store: each write timed after the log's last event (see the module's text); the
    recordings returned carry the events as stored."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.latest: int | None = None
        """The last event time this process wrote or was told of by the store (microseconds since the epoch)."""

    def put(self, domain_events: Sequence[Any], **kwargs: Any) -> list[Recording[ID]]:
        """Store the events timed after the log's last: first as they are timed here (one round trip); if the store
        refuses them (another instance wrote a later time meanwhile), timed under the store's insert lock, where
        nothing can come in between (stores that cannot: timed again from the time the store named, and tried
        again)."""
        floor = self.latest
        locked = getattr(self.recorder, "insert_events_timed_under_lock", None)
        for attempt in range(ATTEMPTS):
            if attempt and locked is not None:
                return self._put_under_lock(locked, domain_events, floor, **kwargs)
            events = timed_after(domain_events, floor)
            try:
                recordings = super().put(events, times=[micros(event.timestamp) for event in events], **kwargs)
            except LogTimeBehindError as behind:
                ahead = from_micros(behind.last) - datetime.now(UTC)
                if ahead > FAR_AHEAD:
                    _log.warning("the log's last event is timed %.3f s ahead of this host's clock: events are "
                                 "timed after it (issue 29, item 4); check the clocks of the instances",
                                 ahead.total_seconds())
                floor = behind.last if floor is None else max(floor, behind.last)
                continue
            self._note(events)
            return recordings
        raise LogTimeBehindError(floor if floor is not None else 0)

    def _put_under_lock(self, locked: Callable[..., Sequence[int] | None], domain_events: Sequence[Any],
                        floor: int | None, **kwargs: Any) -> list[Recording[ID]]:
        chosen: list[Any] = []
        stored: list[StoredEvent] = []

        def timed(last: int | None) -> tuple[Sequence[StoredEvent], Sequence[int]]:
            at = max((value for value in (floor, last) if value is not None), default=None)
            chosen[:] = timed_after(domain_events, at)
            stored[:] = [self.mapper.to_stored_event(event) for event in chosen]
            return stored, [micros(event.timestamp) for event in chosen]

        positions = locked(timed, **kwargs) or []
        self._note(chosen)
        return [Recording(event, Notification(originator_id=s.originator_id, originator_version=s.originator_version,
                                              topic=s.topic, state=s.state, id=position))
                for event, s, position in zip(chosen, stored, positions, strict=True)]

    def _note(self, events: Sequence[Any]) -> None:
        if events:
            last = micros(events[-1].timestamp)
            self.latest = last if self.latest is None else max(self.latest, last)


def retimed(aggregates: Mapping[Any, Any], recordings: Sequence[Recording[Any]]) -> None:
    """The aggregates just saved given the times their events were stored with (``created_on`` and
    ``modified_on``, as a reload from the store gives them): whatever made a stored time differ from the one the
    aggregate took when its event was made (the store timed it later, or the event store times events by another
    clock), the cached aggregate is what the store holds."""
    for recording in recordings:
        event: Any = recording.domain_event
        aggregate = aggregates.get(event.originator_id)
        if aggregate is None:
            continue
        if event.originator_version == aggregate.version:
            aggregate.modified_on = event.timestamp
        if event.originator_version == getattr(type(aggregate), "INITIAL_VERSION", 1):
            aggregate._created_on = event.timestamp  # eventsourcing's, with no setter
