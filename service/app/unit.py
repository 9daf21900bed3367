"""The unit of work of a command (R-AUD-1): applied once per command id, atomically with the record of it, under
its table's lock; on PostgreSQL run first on the cached aggregates and checked by the store as it inserts (issue 18,
item 4), and run again on fresh copies when the store finds one changed since or the rules refuse the command.

:class:`CommandUnit` is a part of :class:`service.app.application.PokerTables`, which names the record of a command
(``COMMAND_RECORD``: ``ProcessedCommand``, whose stored topic stays in that module).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate, DomainEventProtocol
from eventsourcing.persistence import EventStore, IntegrityError, Recording

from domain.errors import RuleError
from service.app.access import ConflictError, DuplicateCommandError, ServiceError
from service.app.commands import fingerprint

if TYPE_CHECKING:
    from eventsourcing.application import Repository

    from service.app.reads import _Locks


class CommandUnit:
    """A command applied once, atomically with its record (mixed into the application, before it)."""

    COMMAND_RECORD: ClassVar[Any]
    """The aggregate recording a command applied (its id from the command id; result, fingerprint, dealer): its
    ``recorded(command_id, result, fingerprint, dealer)`` is the one event stored with the command's changes."""

    if TYPE_CHECKING:  # provided by service.app.application.PokerTables
        _locks: _Locks
        _local: threading.local
        _checked_reads: bool
        repository: Repository[UUID]
        events: EventStore[UUID]
        on_stored: Callable[[str], None] | None

        def save(self, *objs: Any, reads: Mapping[UUID, int] | None = None,
                 records: Sequence[DomainEventProtocol[UUID]] = (), **kwargs: Any) -> list[Recording[UUID]]: ...
        def _dealer_of(self, table: str, changed: list[Aggregate]) -> str: ...

    def _execute(self, command_id: str, table: str, change: Callable[[], tuple[dict[str, Any], list[Aggregate]]],
                 what: tuple[object, ...]) -> dict[str, Any]:
        """Apply a change once per command id, atomically with the record of it.  ``what`` is the command and its
        arguments: a retry must ask the same at the same table, or it is refused (:class:`DuplicateCommandError`)."""
        if not command_id or len(command_id) > 128:
            raise ServiceError("a command id has 1 to 128 characters")
        digest = fingerprint(table, what)
        with self._locks(table):
            # First with the cached aggregates as they are (checked by the store as it inserts); if the store finds
            # one changed since (another instance wrote it), or the rules refuse the command, once more with each
            # aggregate read afresh: a refusal is always decided on what the store holds.
            for fresh in (False, True) if self._checked_reads else (True,):
                self._local.fetched, self._local.reads, self._local.fresh = [], {}, fresh
                self._local.table_record = None
                try:
                    result, changed = change()  # a RuleError here has recorded nothing
                    self.save(*changed, records=(self.COMMAND_RECORD.recorded(
                        command_id, result, digest, self._dealer_of(table, changed)),),
                              reads=self._local.reads)  # checked by the store (PostgreSQL), with these events only
                    if self.on_stored is not None:
                        self.on_stored(table)
                except IntegrityError:
                    self._forget_fetched()  # the cached copies are ahead of the store: read them afresh next time
                    done = self._processed(command_id, digest)
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
                    done = self._processed(command_id, digest)
                    if done is not None:
                        return done
                    raise
                except Exception:
                    self._forget_fetched()
                    done = self._processed(command_id, digest)
                    if done is not None:
                        return done
                    raise
                finally:
                    del self._local.fetched, self._local.reads
                return result
            raise AssertionError("unreachable: the last attempt returns or raises")

    def _put(self, events: list[DomainEventProtocol[UUID]], reads: Mapping[UUID, int]) -> list[Recording[UUID]]:
        """One transaction of the group commit: its events, and the reads the store checks (PostgreSQL)."""
        return self.events.put(events, reads=reads) if reads else self.events.put(events)

    def _forget_fetched(self) -> None:
        cache = self.repository.cache
        for aggregate_id in getattr(self._local, "fetched", []):
            if cache is not None:
                with contextlib.suppress(KeyError):
                    cache.get(aggregate_id, evict=True)

    def _processed(self, command_id: str, digest: str) -> dict[str, Any] | None:
        """The first result of a command already applied, if this is a true retry of it; ``None`` if no command
        has this id; :class:`DuplicateCommandError` if the id was used for another command or table."""
        try:
            record: object = self.repository.get(self.COMMAND_RECORD.create_id(command_id))
        except AggregateNotFoundError:
            return None
        assert isinstance(record, self.COMMAND_RECORD)
        if record.fingerprint and record.fingerprint != digest:
            raise DuplicateCommandError(f"command id {command_id!r} was already used for another command; a retry "
                                        "repeats the same command at the same table, a new command takes a new id",
                                        rule="R-AUD-1")
        result: dict[str, Any] = record.result
        return result
