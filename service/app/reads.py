"""How the application's commands and views read aggregates (issue 18): from the cache where it can be trusted,
from the store where it cannot, and never twice for the same thing.

- A command runs on the cached aggregates (no copy) and, on PostgreSQL, names what it read for the store to check
  in the insert (:mod:`service.app.unit`); an aggregate found not to exist (the casino's record of audit findings,
  which every ``StartHand`` asks for, R-HOLD-1) is remembered as absent, and read at version 0.
- The sole writer of an SQLite file trusts its cache (nothing else writes the file): what is absent stays absent
  until it stores it, and a view is built from the cached objects themselves under the table's lock.
- On PostgreSQL a read of a cached aggregate asks the store whether it changed (eventsourcing's fast-forward, one
  round trip each); a view of many tables at once (``ListTables``, the pit's floor) asks once for all of them
  (:meth:`Reads.current_as_of_now`) and reads only those that changed.

:class:`Reads` is held by the application (``app.reads``) and by its unit of work (:mod:`service.app.unit`), which
shares with it the command in progress's thread-local state (what it fetched and read, whether afresh).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from domain.audit_findings import FINDINGS_ID
from domain.banked.table import BankedTable
from domain.circle.hand import Hand
from domain.circle.table import Table
from domain.games import GAMES, HAND_CLASSES, game_of
from domain.tables import TableRecord
from service.app.access import NotFoundError, PreconditionError, ServiceError

if TYPE_CHECKING:
    from eventsourcing.application import Repository
    from eventsourcing.persistence import ApplicationRecorder

ABSENT_KEPT = 1024
"""The most aggregates :meth:`Reads.fetch` remembers as absent (then it forgets them all)."""
_table_id = functools.lru_cache(maxsize=4096)(Table.create_id)
"""A circle table's id by its name (a UUID of the name, made once per name: every command reads its table)."""
_banked_table_id = functools.lru_cache(maxsize=4096)(BankedTable.create_id)
"""A banked table's id by its name (as :data:`_table_id`)."""


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


class Reads:
    """How the application reads aggregates: tables and hands of every game by name and id, for a command (the
    cached objects) or for a view (copies, or the cached objects under the table's lock)."""

    def __init__(self, repository: Repository[UUID], recorder: ApplicationRecorder, *, checked_reads: bool) -> None:
        self.repository, self.recorder = repository, recorder
        self.locks = _Locks()
        """One lock per table (:class:`_Locks`)."""
        self.local = threading.local()
        """The command in progress on this thread: the aggregates it fetched and the versions it read them at."""
        self.absent: set[UUID] = set()
        """Aggregates a command found not to exist (the casino's record of audit findings, most often: every
        StartHand asks for it): not asked of the store again by the next command (:meth:`fetch`)."""
        self.checked_reads = checked_reads
        """Commands use the cached aggregates as they are and the store checks, in the insert, that none has changed
        since (PostgreSQL; :mod:`service.store.chain`): no read before a command. SQLite's sole writer needs no
        check: its cache is the truth."""

    @property
    def sole_writer(self) -> bool:
        """Whether this instance is its store's only writer (an SQLite file claimed by
        :class:`service.store.persistence.SoleWriter`): then its cached aggregates are the truth, not fast-forwarded."""
        return not self.repository.fastforward

    # -- tables and hands -----------------------------------------------------------------------------------------

    def any_table(self, name: str) -> Table | BankedTable:
        """A table of any game by its name (one name space), or :class:`NotFoundError`."""
        with self.locks(name):  # a copy for a reader is not taken halfway through a command's change
            for table_id in (_table_id(name), _banked_table_id(name)):
                try:
                    record = self.fetch(table_id)
                except AggregateNotFoundError:
                    continue
                assert isinstance(record, Table | BankedTable)
                return record
        raise NotFoundError(f"no table {name!r}")

    def table(self, name: str, rule: str = "R-CIRC-2") -> Table:
        """A circle table (seats, stacks, circle settings), or :class:`NotFoundError`; a table of a banked game is
        refused naming ``rule`` (:class:`PreconditionError`)."""
        record = self.any_table(name)
        if not isinstance(record, Table):
            raise PreconditionError(f"{name!r} deals {record.game}: its boxes take bets hand by hand, no seats, "
                                    "stacks or circle settings", rule=rule)
        return record

    def any_hand(self, hand_id: UUID, version: int | None = None) -> Any:
        """A hand of any game by id (as of ``version`` if given), or :class:`NotFoundError`."""
        try:
            record = self.fetch(hand_id, version)
        except AggregateNotFoundError:
            raise NotFoundError(f"no hand {hand_id}") from None
        if type(record) not in HAND_CLASSES:
            raise NotFoundError(f"{hand_id} is not a hand")
        return record

    def hand(self, hand_id: UUID, version: int | None = None) -> Hand:
        """A hand by id (as of ``version`` if given), as a circle hand (a caller that knows its table's game), or
        :class:`NotFoundError`."""
        return cast(Hand, self.any_hand(hand_id, version))

    def current_hand(self, record: Table | BankedTable) -> Any:
        """The hand in progress at a table of any game, or :class:`PreconditionError` naming the game's rule."""
        if record.hand_in_progress is None:
            raise PreconditionError("no hand is in progress at this table", rule=game_of(record).no_hand_rule)
        return self.any_hand(record.hand_in_progress)

    def hands_of(self, table: str) -> list[UUID]:
        """The ids of a table's hands, oldest first."""
        with self.locks(table):
            record = self.any_table(table)
            return [record.hand_id(number) for number in range(1, record.hands_started + 1)]

    def verify_name_free(self, name: str) -> None:
        """One name space for the tables of every game: a name is taken by a table of any (R-AUD-1)."""
        for aggregate_id in {game.table_class.create_id(name) for game in GAMES.values()}:
            try:
                self.repository.get(aggregate_id)
            except AggregateNotFoundError:
                continue
            raise ServiceError(f"table {name!r} is already open", rule="R-AUD-1")

    # -- how -------------------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def current_as_of_now(self, table_ids: Sequence[UUID]) -> Iterator[None]:
        """Reads of these tables, of their hands in progress and of the casino's record of audit findings within:
        one query asks the store which of them changed since they were cached (their last versions), and a read
        takes the cached copy of each that did not, without a round trip of its own (PostgreSQL; the sole writer's
        cache is the truth, and a store without the query reads as usual)."""
        lookup = getattr(self.recorder, "max_versions", None)
        cache = self.repository.cache
        if self.sole_writer or lookup is None or cache is None or hasattr(self.local, "current"):
            yield
            return
        asked = {*table_ids, FINDINGS_ID}
        for table_id in table_ids:
            with contextlib.suppress(KeyError, AttributeError):
                cached: Any = cache.get(table_id)
                hand = cached.hand_in_progress
                if hand is not None:
                    asked.add(hand)
        self.local.current = (asked, lookup(list(asked)))
        try:
            yield
        finally:
            del self.local.current

    def _current(self, aggregate_id: UUID) -> Any:
        """A read (not a command's) where the cache is not the truth: the cached copy if the store said, in this
        batch (:meth:`current_as_of_now`), that it has nothing newer; else the store's (fast-forwarded)."""
        batch = getattr(self.local, "current", None)
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

    def fetch(self, aggregate_id: UUID, version: int | None = None) -> object:
        """An aggregate for a command (the cached object itself, no copy, forgotten if the command fails), or for a
        read (a copy, unless a view built under the table's lock peeks: :meth:`peeking`)."""
        if version is not None:
            return self.repository.get(aggregate_id, version=version)
        if not hasattr(self.local, "fetched"):  # a read, not a command
            if self.sole_writer:  # its cache is the truth: what is absent stays absent until it saves it
                return self._stored_or_absent(aggregate_id, copied=not getattr(self.local, "peek", False))
            return self._current(aggregate_id)
        self.local.fetched.append(aggregate_id)
        aggregate: Any = None
        if self.checked_reads and not self.local.fresh and self.repository.cache is not None:
            with contextlib.suppress(KeyError):  # as cached, unread: the store checks it has not changed since
                aggregate = self.repository.cache.get(aggregate_id)
        if aggregate is None:
            aggregate = self._stored_or_absent(aggregate_id)
        if self.checked_reads:
            self.local.reads.setdefault(aggregate_id, aggregate.version)
        if isinstance(aggregate, TableRecord):
            self.local.table_record = aggregate  # the command's table: its signed-in dealer is recorded with it
        return aggregate

    def _stored_or_absent(self, aggregate_id: UUID, *, copied: bool = False) -> Any:
        """An aggregate from the store (or the cache: the object itself, or a copy); :class:`AggregateNotFoundError`
        when it does not exist, then remembered as absent (at most :data:`ABSENT_KEPT` of them), so that the next
        read does not ask the store again: the sole writer of an SQLite file knows it is still absent, and on
        PostgreSQL a command's first attempt takes it as absent and the store checks, in the insert, that no event of
        it has been stored since (a read at version 0); the fresh attempt asks the store."""
        if aggregate_id in self.absent and (self.sole_writer or (self.checked_reads and not self.local.fresh)):
            self._read_absent(aggregate_id)
            raise AggregateNotFoundError(aggregate_id)
        try:
            return self.repository.get(aggregate_id, deepcopy_from_cache=copied)
        except AggregateNotFoundError:
            self._note_absent(aggregate_id)
            self._read_absent(aggregate_id)
            raise

    def _note_absent(self, aggregate_id: UUID) -> None:
        if len(self.absent) >= ABSENT_KEPT:  # ids named by stations (a table that does not exist): bounded
            self.absent.clear()
        self.absent.add(aggregate_id)

    def _read_absent(self, aggregate_id: UUID) -> None:
        """The command read ``aggregate_id`` as absent: the store checks it still is (PostgreSQL)."""
        if self.checked_reads:
            self.local.reads.setdefault(aggregate_id, 0)

    @contextlib.contextmanager
    def peeking(self, table: str) -> Iterator[None]:
        """A view of ``table`` is built: under its lock (no command changes it meanwhile), from the cached objects
        themselves rather than copies (the sole writer's; the view copies what it takes of them)."""
        with self.locks(table):
            self.local.peek = True
            try:
                yield
            finally:
                self.local.peek = False
