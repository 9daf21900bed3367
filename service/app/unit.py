"""The unit of work of a command (R-AUD-1): applied once per command id, atomically with the record of it, under
its table's lock; on PostgreSQL run first on the cached aggregates and checked by the store as it inserts (issue 18,
item 4), and run again on fresh copies when the store finds one changed since or the rules refuse the command.

:class:`UnitOfWork` is held by the application (``app.unit``) and given what it works with: the application's
:class:`service.app.reads.Reads` (whose thread-local state says what the command fetched and read), its repository
and event store, the record of a command (``ProcessedCommand``), and what follows a write (snapshots, notification).
It stores in one transaction with the other commands ready at the same moment (:mod:`service.store.group_commit`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, ProcessingEvent
from eventsourcing.domain import Aggregate, DomainEventProtocol
from eventsourcing.persistence import IntegrityError, Recording

from domain.attribution import Attribution
from domain.banked.cdp import CdpHand
from domain.banked.thb import ThbHand
from domain.circle.hand import Hand
from domain.errors import RuleError
from domain.tables import TableRecord
from service.app.access import ConflictError, DuplicateCommandError, NotFoundError, Role, ServiceError, Viewer
from service.app.commands import fingerprint
from service.app.results import Result
from service.store.group_commit import GroupCommit
from service.store.log_time import retimed

if TYPE_CHECKING:
    from eventsourcing.application import Repository
    from eventsourcing.persistence import EventStore

    from service.app.reads import Reads

Change = Callable[[], tuple[Result, list[Aggregate]]]
"""A command's change: run under its table's lock, it returns its result and the aggregates it changed."""
What = tuple[object, ...] | Callable[[TableRecord | None], tuple[object, ...]]
"""What a command asks, for its record's fingerprint; or how to tell it from the command's table as its change read
it (the few commands whose stored form depends on the table's game: :meth:`service.app.commands.Command.what`)."""

FINISHED_HANDS = (Hand, ThbHand, CdpHand)
"""Hands that leave the aggregate cache once complete: the cache keeps what commands change (the tables and their
hands in progress), not the hands of the last hours, which the collector walked through on every full collection
(40 to 130 ms pauses on PostgreSQL with 200 tables, the tail of the commands' latency)."""


class UnitOfWork:
    """A command applied once, atomically with its record; and the storing of any aggregates' events."""

    def __init__(self, reads: Reads, repository: Repository[UUID], events: EventStore[UUID], command_record: Any, *,
                 record: Callable[[ProcessingEvent[UUID]], list[Recording[UUID]]],
                 stored: Callable[[ProcessingEvent[UUID], list[Recording[UUID]]], None]) -> None:
        """``command_record``: the aggregate recording a command applied (its id from the command id; its
        ``recorded(command_id, result, fingerprint, dealer)`` the one event stored with the command's changes);
        ``record``: eventsourcing's own write (a save with keyword arguments); ``stored``: told of each write."""
        self.reads, self.repository, self.events, self.command_record = reads, repository, events, command_record
        self._record, self._stored = record, stored
        self.group_commit: GroupCommit[DomainEventProtocol[UUID], Recording[UUID]] = GroupCommit(self._put)
        self.on_stored: Callable[[str], None] | None = None
        """Told the table's name each time a command of it is stored (from the storing thread): watchers look then."""
        self.verify_actor: Callable[[Viewer], None] | None = None
        """Checks, within each attempt of a command, that who gives it may still act (issue 32: the person signed
        in at its station, :meth:`service.app.sessions.Sessions.verify_actor`)."""
        self.after_save: Callable[[list[Recording[UUID]]], None] | None = None
        """Told of each batch of events stored (from the storing thread): the head signer counts them
        (:mod:`service.store.signing`)."""

    def execute(self, command_id: str, table: str, change: Change, what: What) -> Result:
        """Apply a change once per command id, atomically with the record of it.  ``what`` is the command and its
        arguments: a retry must ask the same at the same table, or it is refused (:class:`DuplicateCommandError`)."""
        if not command_id or len(command_id) > 128:
            raise ServiceError("a command id has 1 to 128 characters")
        local, reads = self.reads.local, self.reads

        def digest() -> str:  # told by the table the change read (no read of its own)
            return fingerprint(table, what(local.table_record) if callable(what) else what)

        with reads.locks(table):
            # First with the cached aggregates as they are (checked by the store as it inserts); if the store finds
            # one changed since (another instance wrote it), or the rules refuse the command, once more with each
            # aggregate read afresh: a refusal is always decided on what the store holds.
            for fresh in (False, True) if reads.checked_reads else (True,):
                local.fetched, local.reads, local.fresh = [], {}, fresh
                local.table_record = None
                try:
                    self._verify_actor()  # R-AUD-1: a person signed in, on the records as read now
                    result, changed = change()  # a RuleError here has recorded nothing
                    self.save(*changed, records=(self.command_record.recorded(
                        command_id, result.stored(), digest(), self._dealer_of(table, changed)),),
                              reads=local.reads)  # checked by the store (PostgreSQL), with these events only
                    if self.on_stored is not None:
                        self.on_stored(table)
                except IntegrityError:
                    self._forget_fetched()  # the cached copies are ahead of the store: read them afresh next time
                    done = self._processed(command_id, digest())
                    if done is not None:  # a retry of a command already applied: its first result
                        return done
                    if not fresh:
                        continue
                    raise ConflictError("the table changed meanwhile; nothing was applied: retry", rule="R-AUD-1") \
                        from None
                except (RuleError, ServiceError):
                    self._forget_fetched()
                    if not fresh:
                        continue
                    done = self._processed(command_id, digest())
                    if done is not None:
                        return done
                    raise
                except Exception:
                    self._forget_fetched()
                    done = self._processed(command_id, digest())
                    if done is not None:
                        return done
                    raise
                finally:
                    del local.fetched, local.reads
                return result
            raise AssertionError("unreachable: the last attempt returns or raises")

    def save(self, *objs: Any, reads: Mapping[UUID, int] | None = None,
             records: Sequence[DomainEventProtocol[UUID]] = (), **kwargs: Any) -> list[Recording[UUID]]:
        """Store the pending events of ``objs`` (aggregates only) in one transaction.

        What :meth:`Application.save` does, less its test of every object against the library's runtime-checkable
        protocols (on Python 3.11 each such ``isinstance`` costs ≈ 40 µs, a fifth of a command, in a profile of
        ``benchmarks/service.py``'s commands; everything this application saves is an :class:`Aggregate`), and
        with the events of commands of other tables that are ready at the same moment written in the same
        transaction (:mod:`service.store.group_commit`): still atomic per command, and returned only once durable.
        ``reads``: the aggregates a command read, and their versions then, for the store to check that none has
        changed since (PostgreSQL; a save made while the command's is told, such as a signed head, has none).
        ``records``: events stored after the aggregates' of aggregates not kept (a command's record, whose aggregate
        only a retry reads, from the store), so neither built nor cached.
        """
        absent = self.reads.absent
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        for aggregate in objs:
            if aggregate is not None:
                processing_event.events.extend(aggregate.collect_events())
                processing_event.aggregates[aggregate.id] = aggregate
                absent.discard(aggregate.id)
        for record in records:
            processing_event.events.append(record)
            absent.discard(record.originator_id)
        self._stamp(processing_event.events)
        if kwargs:
            processing_event.saved_kwargs.update(kwargs)
            recordings = self._record(processing_event)
            retimed(processing_event.aggregates, recordings)
        else:  # the usual case: in one transaction with the other commands ready now (service.store.group_commit)
            recordings = self.group_commit.write(processing_event.events, reads)
            retimed(processing_event.aggregates, recordings)
            cache = self.repository.cache
            if cache and (self.reads.checked_reads or not self.repository.fastforward):
                for aggregate_id, aggregate in processing_event.aggregates.items():
                    if isinstance(aggregate, FINISHED_HANDS) and aggregate.is_complete:
                        with contextlib.suppress(KeyError):  # no command changes it again: a read loads it
                            cache.get(aggregate_id, evict=True)
                    else:
                        cache.put(aggregate_id, aggregate)
        self._stored(processing_event, recordings)
        if self.after_save is not None:
            self.after_save(recordings)
        return recordings

    def _verify_actor(self) -> None:
        viewer = getattr(self.reads.local, "viewer", None)
        if viewer is not None and self.verify_actor is not None:
            self.verify_actor(viewer)

    def _stamp(self, events: Sequence[DomainEventProtocol[UUID]]) -> None:
        """R-AUD-1 (issue 32): every event of a command names its person and its station
        (:mod:`domain.attribution`); events stored by the service itself, outside any command, are not stamped."""
        viewer: Viewer | None = getattr(self.reads.local, "viewer", None)
        if viewer is None:
            return
        stamp = Attribution(viewer.person, viewer.station).stored()
        for stamped in events:
            for key, value in stamp.items():
                object.__setattr__(stamped, key, value)

    @contextlib.contextmanager
    def acting(self, viewer: Viewer) -> Iterator[None]:
        """The station whose commands run within: each command's record names the table's signed-in dealer when
        it comes from one of the table's own stations (its croupier's, its devices), R-AUD-1."""
        previous = getattr(self.reads.local, "viewer", None)
        self.reads.local.viewer = viewer
        try:
            yield
        finally:
            self.reads.local.viewer = previous

    def _dealer_of(self, table: str, changed: list[Aggregate]) -> str:
        """R-AUD-1: the dealer signed in at ``table`` (after this command), when the acting station is one of the
        table's own (its croupier's or a device's); "" otherwise."""
        viewer: Viewer | None = getattr(self.reads.local, "viewer", None)
        if viewer is None or viewer.table != table or viewer.role not in (Role.DEALER, Role.DEVICE):
            return ""
        record = next((a for a in changed if isinstance(a, TableRecord)), None) or self.reads.local.table_record
        if record is None:
            try:
                record = self.reads.any_table(table)
            except NotFoundError:
                return ""
        return str(record.dealer_id)

    def _put(self, events: list[DomainEventProtocol[UUID]], reads: Mapping[UUID, int]) -> list[Recording[UUID]]:
        """One transaction of the group commit: its events, and the reads the store checks (PostgreSQL)."""
        return self.events.put(events, reads=reads) if reads else self.events.put(events)

    def _forget_fetched(self) -> None:
        cache = self.repository.cache
        for aggregate_id in getattr(self.reads.local, "fetched", []):
            if cache is not None:
                with contextlib.suppress(KeyError):
                    cache.get(aggregate_id, evict=True)

    def _processed(self, command_id: str, digest: str) -> Result | None:
        """The first result of a command already applied, if this is a true retry of it; ``None`` if no command
        has this id; :class:`DuplicateCommandError` if the id was used for another command or table."""
        record_class = self.command_record
        try:
            record: Any = self.repository.get(record_class.create_id(command_id))
        except AggregateNotFoundError:
            return None
        assert isinstance(record, record_class)
        if record.fingerprint and record.fingerprint != digest:
            raise DuplicateCommandError(f"command id {command_id!r} was already used for another command; a retry "
                                        "repeats the same command at the same table, a new command takes a new id",
                                        rule="R-AUD-1")
        return Result.from_stored(record.result)
