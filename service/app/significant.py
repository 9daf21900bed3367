"""Significant events of the service, in its own log (issue 29, item 2; R-AUD-1): starts and stops (with the version,
the release's digest, the configuration's digest and the host), configuration changes, key rotations, the audits'
runs and verdicts, and clock findings — what the standards for such systems ask to be logged (25 CFR 547.10/547.12,
AGCO 22.1), as tamper-evident as the cards.

They are kept a day at a time (UTC): one aggregate per day, :class:`SignificantDay`, so that ``pokertable report
significant --from --to`` reads the days asked and nothing else of the log. Recording is a command like the others
(:meth:`service.app.unit.UnitOfWork.execute`), with an id made of what is recorded: the same event told twice (a
retry, two instances) is recorded once.

>>> day = SignificantDay(day="2026-11-27")
>>> day.record("service-start", "version 0.1.0", by="service", instance="mesa-1:50051")
>>> [(entry.kind, entry.detail, entry.instance) for entry in day.entries]
[('service-start', 'version 0.1.0', 'mesa-1:50051')]
"""

from __future__ import annotations

import hashlib
import json
import socket
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from importlib import metadata
from typing import TYPE_CHECKING, Any, Protocol
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate, event

from domain.errors import RuleError
from pokertable.release import release_line
from service.app.access import ConflictError
from service.app.results import Result

if TYPE_CHECKING:
    from service.app.reads import Reads
    from service.app.unit import UnitOfWork


class PokerTables(Protocol):
    """What recording and reading significant events need of the application (its command path and its reads;
    :class:`service.app.application.PokerTables`)."""

    reads: Reads
    unit: UnitOfWork

KINDS = ("service-start", "service-stop", "configuration-changed", "key-rotated", "audit", "clock",
         "software-integrity")
"""What a significant event can be."""
MAX_DETAIL = 2000
_NAMESPACE = uuid5(NAMESPACE_URL, "https://pokertable.invalid/significant")
ATTEMPTS = 5
"""Times a record is tried when other instances write the day's record at the same moment."""
LOG = ""
"""The "table" whose lock significant events are recorded under: none (the casino's log)."""


@dataclass(frozen=True)
class Entry:
    """One significant event: when, what, its words, who recorded it and which instance."""

    at: datetime
    kind: str
    detail: str
    by: str
    instance: str


class SignificantDay(Aggregate):
    """The significant events of one day (UTC)."""

    @staticmethod
    def create_id(day: str, **_: Any) -> UUID:
        """One record per day."""
        return uuid5(_NAMESPACE, day)

    @event("Opened")
    def __init__(self, *, day: str) -> None:
        self.day = day
        self.entries: list[Entry] = []

    def record(self, kind: str, detail: str, *, by: str, instance: str) -> None:
        """R-AUD-1: record a significant event."""
        if kind not in KINDS:
            raise RuleError(f"a significant event is one of {', '.join(KINDS)}, not {kind!r}", rule="R-AUD-1")
        if not isinstance(detail, str) or len(detail) > MAX_DETAIL:
            raise RuleError(f"a significant event is described in at most {MAX_DETAIL} characters", rule="R-AUD-1")
        if not by or not instance:
            raise RuleError("a significant event names who recorded it and the instance", rule="R-AUD-1")
        self._recorded(kind=kind, detail=detail, by=by, instance=instance)

    @event("Recorded")
    def _recorded(self, *, kind: str, detail: str, by: str, instance: str) -> None:
        self.entries.append(Entry(self.modified_on, kind, detail, by, instance))


class InstanceConfiguration(Aggregate):
    """The configuration an instance last started with (its values as recorded), to tell what changed since."""

    @staticmethod
    def create_id(instance: str, **_: Any) -> UUID:
        """One record per instance."""
        return uuid5(_NAMESPACE, f"configuration:{instance}")

    @event("Opened")
    def __init__(self, *, instance: str) -> None:
        self.instance = instance
        self.values: dict[str, str] = {}

    def changes(self, values: Mapping[str, str]) -> list[str]:
        """What differs from the values last recorded, one ``name: old -> new`` each (none the first time)."""
        if not self.values:
            return []
        return [f"{name}: {self.values.get(name, '(absent)')} -> {values.get(name, '(absent)')}"
                for name in sorted({*self.values, *values}) if self.values.get(name) != values.get(name)]

    @event("Set")
    def set(self, *, values: dict[str, str]) -> None:
        """The values an instance started with."""
        self.values = dict(values)


def day_of(moment: datetime) -> str:
    """The UTC day a moment belongs to."""
    return moment.astimezone(UTC).date().isoformat()


def record(app: PokerTables, kind: str, detail: str, *, instance: str, by: str = "service",
           configuration: Mapping[str, str] | None = None) -> None:
    """Record a significant event now (in the day's record, UTC), once (a retry of the same event within the same
    second is the same command). ``configuration`` (a start): the values the instance starts with; what differs from
    its last start is recorded too (``configuration-changed``)."""
    now = datetime.now(UTC)
    day = day_of(now)
    command_id = "significant:" + hashlib.sha256(
        f"{kind}\x00{instance}\x00{detail}\x00{now.isoformat(timespec='seconds')}".encode()).hexdigest()[:48]

    def change() -> tuple[Result, list[Aggregate]]:
        today = _fetched(app, SignificantDay.create_id(day)) or SignificantDay(day=day)
        assert isinstance(today, SignificantDay)
        today.record(kind, detail, by=by, instance=instance)
        changed: list[Aggregate] = [today]
        if configuration is not None:
            last = _fetched(app, InstanceConfiguration.create_id(instance)) or InstanceConfiguration(instance=instance)
            assert isinstance(last, InstanceConfiguration)
            if differences := last.changes(configuration):
                today.record("configuration-changed", "; ".join(differences)[:MAX_DETAIL], by=by, instance=instance)
            if last.values != configuration:
                last.set(values=dict(configuration))
            changed.append(last)
        return Result(table=LOG, version=today.version), changed

    for attempt in range(ATTEMPTS):  # another instance recording in the same day's record meanwhile: again
        try:
            app.unit.execute(command_id, LOG, change, ("significant", kind, instance, detail))
            return
        except ConflictError:
            if attempt == ATTEMPTS - 1:
                raise


def _fetched(app: PokerTables, aggregate_id: UUID) -> object | None:
    try:
        return app.reads.fetch(aggregate_id)
    except AggregateNotFoundError:
        return None


def started(app: PokerTables, *, instance: str, configuration: Mapping[str, str], key: str) -> None:
    """Record the service's start: its version, the release's digest (:func:`pokertable.release.release_line`), the
    configuration's digest (``configuration``: the settings as the log shows them, secrets masked), the host and
    the signing key; and what changed in its configuration since the instance last started."""
    try:
        version = metadata.version("pokertable")
    except metadata.PackageNotFoundError:
        version = "unknown"
    digest = hashlib.sha256(json.dumps(dict(configuration), sort_keys=True).encode()).hexdigest()[:16]
    detail = json.dumps({"version": version, "release": release_line(), "configuration": digest, "host": host(),
                         "key": key}, sort_keys=True)
    record(app, "service-start", detail, instance=instance, configuration=configuration)


def entries(app: PokerTables, since: datetime, until: datetime) -> Iterator[Entry]:
    """The significant events from ``since`` to ``until``, in time order: only the days asked are read."""
    day: date = since.astimezone(UTC).date()
    while day <= until.astimezone(UTC).date():
        record_ = _fetched(app, SignificantDay.create_id(day.isoformat()))
        if isinstance(record_, SignificantDay):
            yield from (entry for entry in record_.entries if since <= entry.at <= until)
        day += timedelta(days=1)


def host() -> str:
    """This machine's name."""
    return socket.gethostname()
