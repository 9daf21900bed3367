"""What the sign-ins write outside a command (issue 32): the stations' and the persons' records, and the failed
sign-ins (:class:`SignInFailures`).

A sign-in is not a command of :meth:`service.app.unit.UnitOfWork.execute`: the person is not signed in yet when his
sign-in is stored (the unit of work would refuse him), and a sign-in is never answered again by its id (its answer
is a new session).  :class:`StationRecords` reads the records afresh from the store, saves what a change made of them
with the unit of work's own :meth:`~service.app.unit.UnitOfWork.save` (attributed, in the group commit), and tries
once more when the store finds one written meanwhile by another instance.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from domain.errors import RuleError
from domain.staff import StationSessions, person_record_id, station_record_id
from service.app.access import SignInRefusedError, Viewer
from service.app.throttle import Throttle

if TYPE_CHECKING:
    from service.app.reads import Reads
    from service.app.staff import Staff
    from service.app.unit import UnitOfWork

THROTTLE_WINDOW = 60.0
THROTTLE_FAILURES = 20
"""Failed sign-ins at one station within :data:`THROTTLE_WINDOW` seconds after which its sign-ins are refused
unrecorded until the window has passed (a stolen station token cannot fill the log with guesses)."""
_log = logging.getLogger("pokertable.access")


def station_lock(station: str) -> str:
    """The lock of a station's record (no table's name has a control character: no clash)."""
    return f"\x00station/{station}"


def person_lock(person_id: str) -> str:
    """The lock of a person's record."""
    return f"\x00person/{person_id}"


class StationRecords:
    """The stations' and the persons' records, read afresh and saved with a second try."""

    def __init__(self, reads: Reads, unit: UnitOfWork) -> None:
        self.reads, self.unit = reads, unit

    def station(self, station: str) -> StationSessions:
        """A station's record as the store has it (a new one for a station never signed in at)."""
        try:
            record: Any = self.reads.repository.get(station_record_id(station))
        except AggregateNotFoundError:
            return StationSessions(station)
        assert isinstance(record, StationSessions)
        return record

    def saved(self, change: Callable[[], list[Any]], *records: UUID) -> None:
        """Store what ``change`` changes (the records it reads fresh each time); once more when the store refuses
        the write (another instance wrote one of ``records`` since it was cached: they are read again).  A refusal
        by the rules is never retried."""
        for attempt in (1, 2):
            try:
                changed = change()
                if changed:
                    self.unit.save(*changed)
                return
            except Exception as error:
                self.forget(*records)
                if attempt == 2 or isinstance(error, RuleError):
                    raise

    def forget(self, *aggregate_ids: Any) -> None:
        """Drop these records from the cache: the next read takes them from the store."""
        cache = self.reads.repository.cache
        if cache is None:
            return
        for aggregate_id in aggregate_ids:
            with contextlib.suppress(KeyError):
                cache.get(aggregate_id, evict=True)


class SignInFailures:
    """Failed sign-ins: each refusal recorded at its station (never the PIN), each wrong PIN on the person's record
    (his badge locks after ``lock_after`` in a row), and each station's throttle."""

    def __init__(self, records: StationRecords, staff: Staff, clock: Callable[[], float]) -> None:
        self.records, self.staff = records, staff
        self.throttle = Throttle(THROTTLE_FAILURES, THROTTLE_WINDOW, clock)  # by station

    def verify_not_throttled(self, station: str) -> None:
        """:class:`SignInRefusedError` while the station waits out its failures."""
        if wait := self.throttle.wait(station):
            _log.warning("sign-ins at %s throttled after %d failures", station, THROTTLE_FAILURES,
                         extra={"fields": {"event": "sign-in-throttled", "station": station}})
            raise SignInRefusedError(f"too many failed sign-ins at {station}: wait {wait} s", rule="R-AUD-1")

    def refused(self, station: Viewer, person_id: str, why: str) -> None:
        """Record a refused sign-in at the station (never the PIN), and count it towards the station's throttle."""
        self.throttle.failed(station.station)
        unit, records = self.records.unit, self.records
        with unit.acting(station), records.reads.locks(station_lock(station.station)):
            try:
                record = records.station(station.station)
                record.refuse(person_id if isinstance(person_id, str) else "", why)
                unit.save(record)
            except Exception as error:  # the refusal stands even if its record fails: said, not hidden
                records.forget(station_record_id(station.station))
                _log.error("a refused sign-in at %s was not recorded: %s", station.station, error)
        _log.warning("sign-in refused at %s (%s)", station.station, why,
                     extra={"fields": {"event": "sign-in-refused", "station": station.station, "why": why}})

    def wrong_pin(self, station: Viewer, person_id: str, lock_after: int) -> None:
        """A wrong PIN: counted on the person's record; the badge locks after ``lock_after`` in a row."""
        self.throttle.failed(station.station)
        locked = False
        with self.records.unit.acting(station), self.records.reads.locks(person_lock(person_id)):

            def change() -> list[Any]:
                nonlocal locked
                member = self.staff.person(person_id)
                locked = member.sign_in_failed(station.station, lock_after)
                return [member]

            self.records.saved(change, person_record_id(person_id))
        if locked:
            _log.warning("badge %s locked after %d wrong PINs (at %s)", person_id, lock_after, station.station,
                         extra={"fields": {"event": "lockout", "person": person_id, "station": station.station}})
        else:
            _log.warning("wrong PIN for %s at %s", person_id, station.station,
                         extra={"fields": {"event": "wrong-pin", "person": person_id, "station": station.station}})
