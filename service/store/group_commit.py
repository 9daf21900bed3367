"""Group commit: the commands of several tables that are ready at the same moment share one transaction.

Each command's events are still written atomically and acknowledged only once they are committed, but a durable
commit (an fsync on SQLite; a network round trip, the events table's lock and the server's fsync on PostgreSQL)
then serves a whole group instead of one command. The scheme is the leader/follower one of database logs: the first
writer to arrive commits everything queued so far, itself included; writers that arrive meanwhile queue, and when the
leader is done the first of them leads the next group. One writer alone commits at once, with no hand-over between
threads, so a single table's latency is what it was.

Each writer may also name what its command *read* (aggregate ids and the versions it read them at): the store
checks, in the same transaction, that none of them has changed since (PostgreSQL, where several instances write;
:mod:`service.store.chain`), and refuses the whole transaction with an integrity error otherwise.  A group's reads
are the union of its writers' (the lowest version where two read the same aggregate).

If a group's transaction fails on an integrity error (a stale version from another service instance, a command id
already applied), every member is written again on its own, so that only the offending members fail and the others
commit exactly as they would have alone.

An ``observer`` (the service's metrics, :mod:`service.grpc.metrics`) is told of each transaction committed, by the
writer that led it, once the group's writers have been released (so the next group may be committing meanwhile):
the events and recordings of each writer in it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar
from uuid import UUID

from eventsourcing.persistence import IntegrityError

E = TypeVar("E")
R = TypeVar("R")
_log = logging.getLogger(__name__)


@dataclass(eq=False)
class _Writer(Generic[E, R]):
    events: Sequence[E]
    reads: Mapping[UUID, int]
    done: threading.Event | None = None  # a writer that waits for a leader (the first to arrive never does)
    lead: bool = False
    recordings: list[R] = field(default_factory=list)
    error: BaseException | None = None


class GroupCommit(Generic[E, R]):
    """Writes lists of events with ``put`` (one transaction a call, returning one recording an event; its second
    argument: the reads to check, see the module's text), grouping the lists of concurrent callers into one call."""

    def __init__(self, put: Callable[[list[E], Mapping[UUID, int]], list[R]], *, most: int = 256) -> None:
        self._put, self._most = put, most
        self._lock = threading.Lock()
        self._queue: list[_Writer[E, R]] = []
        self._leading = False
        self.largest = 0  # the most writers a transaction has served
        self.observer: Callable[[Sequence[tuple[Sequence[E], Sequence[R]]]], None] | None = None
        """Told of each transaction committed: each of its writers' events and recordings (several transactions
        when a group was split to find the offender of an integrity error: those committed)."""

    def write(self, events: Sequence[E], reads: Mapping[UUID, int] | None = None) -> list[R]:
        """Write ``events`` atomically, with whatever other writers are ready, provided that none of the aggregates
        in ``reads`` (id: the version read) has changed since; return their recordings."""
        me: _Writer[E, R] = _Writer(events, reads or {})
        with self._lock:
            self._queue.append(me)
            leader = not self._leading
            self._leading = True
            if not leader:
                me.done = threading.Event()
        if me.done is not None:
            me.done.wait()
            if not me.lead:
                return self._outcome(me)
        self._lead()
        return self._outcome(me)

    def _lead(self) -> None:
        with self._lock:
            group, self._queue = self._queue[: self._most], self._queue[self._most:]
        try:
            self._commit(group)
        finally:
            with self._lock:
                if self._queue:
                    successor = self._queue[0]
                    successor.lead = True
                    assert successor.done is not None  # queued while a leader led
                    successor.done.set()
                else:
                    self._leading = False
            for writer in group:
                if writer.done is not None:
                    writer.done.set()
        observer = self.observer
        if observer is not None:
            committed = [(writer.events, writer.recordings) for writer in group if writer.error is None]
            try:
                if committed:
                    observer(committed)
            except Exception:  # the commands are committed and answered: an observer's failure changes nothing
                _log.exception("the group commit's observer failed")

    def _commit(self, group: list[_Writer[E, R]]) -> None:
        self.largest = max(self.largest, len(group))
        try:
            recordings = self._put([event for writer in group for event in writer.events], _union(group))
        except IntegrityError as error:
            if len(group) == 1:
                group[0].error = error
                return
            for writer in group:  # find the offenders: each alone
                self._commit_alone(writer)
            return
        except BaseException as error:  # the store failed: nothing of the group was written
            for writer in group:
                writer.error = error
            return
        start = 0
        for writer in group:
            writer.recordings = recordings[start: start + len(writer.events)]
            start += len(writer.events)

    def _commit_alone(self, writer: _Writer[E, R]) -> None:
        try:
            writer.recordings = self._put(list(writer.events), writer.reads)
        except BaseException as error:
            writer.error = error

    @staticmethod
    def _outcome(writer: _Writer[E, R]) -> list[R]:
        if writer.error is not None:
            raise writer.error
        return writer.recordings


def _union(group: Sequence[_Writer[E, R]]) -> Mapping[UUID, int]:
    """The reads of a group's writers: each aggregate at the lowest version any of them read it."""
    if len(group) == 1:
        return group[0].reads
    reads: dict[UUID, int] = {}
    for writer in group:
        for aggregate_id, version in writer.reads.items():
            reads[aggregate_id] = min(version, reads.get(aggregate_id, version))
    return reads
