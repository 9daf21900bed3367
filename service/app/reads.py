"""How the application's commands and views read aggregates (issue 18): from the cache where it can be trusted,
from the store where it cannot, and never twice for the same thing.

- A command runs on the cached aggregates (no copy) and, on PostgreSQL, names what it read for the store to check
  in the insert (:mod:`service.app.unit`); an aggregate found not to exist (the casino's record of audit findings,
  which every ``StartHand`` asks for, R-HOLD-1) is remembered as absent, and read at version 0.
- The sole writer of an SQLite file trusts its cache (nothing else writes the file): what is absent stays absent
  until it stores it, and a view is built from the cached objects themselves under the table's lock.
- On PostgreSQL a read of a cached aggregate asks the store whether it changed (eventsourcing's fast-forward, one
  round trip each); a view of many tables at once (``ListTables``, the pit's floor) asks once for all of them
  (:meth:`CachedReads.current_as_of_now`) and reads only those that changed.
"""

from __future__ import annotations

import contextlib
import copy
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from domain.audit_findings import FINDINGS_ID
from domain.tables import TableRecord

if TYPE_CHECKING:
    from eventsourcing.application import Repository
    from eventsourcing.persistence import ApplicationRecorder

ABSENT_KEPT = 1024
"""The most aggregates :meth:`CachedReads._fetch` remembers as absent (then it forgets them all)."""


@dataclass
class _Locks:
    """One lock per table: a table's commands apply one at a time, in order, within this process, and a copy of a
    table is never taken while a command changes it (re-entrant: a command reads its own table)."""

    guard: threading.Lock = field(default_factory=threading.Lock)
    tables: dict[str, threading.RLock] = field(default_factory=dict)

    def __call__(self, table: str) -> threading.RLock:
        lock = self.tables.get(table)
        if lock is None:
            with self.guard:
                lock = self.tables.setdefault(table, threading.RLock())
        return lock


class CachedReads:
    """The reads of :class:`service.app.application.PokerTables` (mixed into its queries)."""

    if TYPE_CHECKING:  # provided by the application
        repository: Repository[UUID]
        recorder: ApplicationRecorder
        _locks: _Locks
        _local: threading.local
        _absent: set[UUID]
        _checked_reads: bool

        @property
        def sole_writer(self) -> bool: ...

    @contextlib.contextmanager
    def current_as_of_now(self, table_ids: Sequence[UUID]) -> Iterator[None]:
        """Reads of these tables, of their hands in progress and of the casino's record of audit findings within:
        one query asks the store which of them changed since they were cached (their last versions), and a read
        takes the cached copy of each that did not, without a round trip of its own (PostgreSQL; the sole writer's
        cache is the truth, and a store without the query reads as usual)."""
        lookup = getattr(self.recorder, "max_versions", None)
        cache = self.repository.cache
        if self.sole_writer or lookup is None or cache is None or hasattr(self._local, "current"):
            yield
            return
        asked = {*table_ids, FINDINGS_ID}
        for table_id in table_ids:
            with contextlib.suppress(KeyError, AttributeError):
                cached: Any = cache.get(table_id)
                hand = cached.hand_in_progress
                if hand is not None:
                    asked.add(hand)
        self._local.current = (asked, lookup(list(asked)))
        try:
            yield
        finally:
            del self._local.current

    def _current(self, aggregate_id: UUID) -> Any:
        """A read (not a command's) where the cache is not the truth: the cached copy if the store said, in this
        batch (:meth:`current_as_of_now`), that it has nothing newer; else the store's (fast-forwarded)."""
        batch = getattr(self._local, "current", None)
        cache = self.repository.cache
        if batch is not None and aggregate_id in batch[0] and cache is not None:
            stored = batch[1].get(aggregate_id)
            if stored is None:
                raise AggregateNotFoundError(aggregate_id)
            with contextlib.suppress(KeyError):
                cached: Any = cache.get(aggregate_id)
                if cached.version >= stored:
                    return copy.deepcopy(cached)
        return self.repository.get(aggregate_id)

    def _fetch(self, aggregate_id: UUID, version: int | None = None) -> object:
        """An aggregate for a command (the cached object itself, no copy, forgotten if the command fails), or for a
        read (a copy, unless a view built under the table's lock peeks: :meth:`_peeking`)."""
        if version is not None:
            return self.repository.get(aggregate_id, version=version)
        if not hasattr(self._local, "fetched"):  # a read, not a command
            if self.sole_writer:  # its cache is the truth: what is absent stays absent until it saves it
                return self._stored_or_absent(aggregate_id, copied=not getattr(self._local, "peek", False))
            return self._current(aggregate_id)
        self._local.fetched.append(aggregate_id)
        aggregate: Any = None
        if self._checked_reads and not self._local.fresh and self.repository.cache is not None:
            with contextlib.suppress(KeyError):  # as cached, unread: the store checks it has not changed since
                aggregate = self.repository.cache.get(aggregate_id)
        if aggregate is None:
            aggregate = self._stored_or_absent(aggregate_id)
        if self._checked_reads:
            self._local.reads.setdefault(aggregate_id, aggregate.version)
        if isinstance(aggregate, TableRecord):
            self._local.table_record = aggregate  # the command's table: its signed-in dealer is recorded with it
        return aggregate

    def _stored_or_absent(self, aggregate_id: UUID, *, copied: bool = False) -> Any:
        """An aggregate from the store (or the cache: the object itself, or a copy); :class:`AggregateNotFoundError`
        when it does not exist, then remembered as absent (at most :data:`ABSENT_KEPT` of them), so that the next
        read does not ask the store again: the sole writer of an SQLite file knows it is still absent, and on
        PostgreSQL a command's first attempt takes it as absent and the store checks, in the insert, that no event of
        it has been stored since (a read at version 0); the fresh attempt asks the store."""
        if aggregate_id in self._absent and (self.sole_writer or (self._checked_reads and not self._local.fresh)):
            self._read_absent(aggregate_id)
            raise AggregateNotFoundError(aggregate_id)
        try:
            return self.repository.get(aggregate_id, deepcopy_from_cache=copied)
        except AggregateNotFoundError:
            self._note_absent(aggregate_id)
            self._read_absent(aggregate_id)
            raise

    def _note_absent(self, aggregate_id: UUID) -> None:
        if len(self._absent) >= ABSENT_KEPT:  # ids named by stations (a table that does not exist): bounded
            self._absent.clear()
        self._absent.add(aggregate_id)

    def _read_absent(self, aggregate_id: UUID) -> None:
        """The command read ``aggregate_id`` as absent: the store checks it still is (PostgreSQL)."""
        if self._checked_reads:
            self._local.reads.setdefault(aggregate_id, 0)

    @contextlib.contextmanager
    def _peeking(self, table: str) -> Iterator[None]:
        """A view of ``table`` is built: under its lock (no command changes it meanwhile), from the cached objects
        themselves rather than copies (the sole writer's; the view copies what it takes of them)."""
        with self._locks(table):
            self._local.peek = True
            try:
                yield
            finally:
                self._local.peek = False
