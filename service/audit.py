"""Tamper evidence: every stored event is chained to the one before it by a SHA-256 hash, written in the same
transaction as the event, and ``pokertable audit verify`` checks the whole log (R-AUD-1).

The chain is a table beside the events (``stored_events_chain``: position, hash), filled by the recorders below
(SQLite and PostgreSQL; the service selects them through eventsourcing's ``APPLICATION_RECORDER_TOPIC``).  The hash of
the event at position *n* covers the hash at the position before it, *n* itself, and the event's originator, version,
topic and stored state, so changing, removing, moving or inserting an event breaks the chain at that event.  Whoever
could rewrite both tables could rebuild the chain: the head (last position and hash) is therefore printed by
``pokertable audit head`` for safekeeping (a games director's log, a regulator's mailbox), and ``verify --head``
checks the log still leads to it.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from psycopg import Cursor
from psycopg.rows import DictRow
from psycopg.sql import SQL, Identifier

from service.persistence import notifications

GENESIS = bytes(32)
PAGE = 1000


def _originator(value: object) -> str:
    if isinstance(value, UUID):
        return str(value)
    try:
        return str(UUID(str(value)))
    except ValueError:
        return str(value)


def _field(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def chain_hash(previous: bytes, position: int, event: StoredEvent) -> bytes:
    """The hash of one stored event (or notification) at a position, chained to the hash before it."""
    digest = hashlib.sha256(previous)
    digest.update(struct.pack(">q", position))
    digest.update(_field(_originator(event.originator_id).encode()))
    digest.update(struct.pack(">q", event.originator_version))
    digest.update(_field(event.topic.encode()))
    digest.update(_field(bytes(event.state)))
    return digest.digest()


def links(previous: bytes, positions: Sequence[int], events: Sequence[StoredEvent]) -> list[tuple[int, bytes]]:
    """The chain rows (position, hash) for events just inserted at these positions, after the hash ``previous``."""
    rows = []
    for position, event in zip(positions, events, strict=True):
        previous = chain_hash(previous, position, event)
        rows.append((position, previous))
    return rows


class ChainedSQLiteRecorder(SQLiteApplicationRecorder):
    """The SQLite application recorder, chaining each event it inserts."""

    @property
    def chain_table(self) -> str:
        return f"{self.events_table_name}_chain"

    def construct_create_table_statements(self) -> list[str]:
        return [*super().construct_create_table_statements(),
                f"CREATE TABLE IF NOT EXISTS {self.chain_table} (position INTEGER PRIMARY KEY, hash BLOB NOT NULL)"]

    def _insert_events(self, c: SQLiteCursor, stored_events: Sequence[StoredEvent],
                       **kwargs: Any) -> Sequence[int] | None:
        positions = super()._insert_events(c, stored_events, **kwargs)
        if positions:
            c.execute(f"SELECT hash FROM {self.chain_table} ORDER BY position DESC LIMIT 1")
            row = c.fetchone()
            c.executemany(f"INSERT INTO {self.chain_table} VALUES (?, ?)",
                          links(bytes(row[0]) if row else GENESIS, positions, stored_events))
        return positions

    def chain(self, start: int) -> list[tuple[int, bytes]]:
        """A page of the chain from ``start``."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT position, hash FROM {self.chain_table} WHERE position >= ? ORDER BY position LIMIT ?",
                      (start, PAGE))
            return [(int(row[0]), bytes(row[1])) for row in c.fetchall()]


class ChainedPostgresRecorder(PostgresApplicationRecorder):
    """The PostgreSQL application recorder, chaining each event it inserts (the recorder's table lock serialises
    the writers, so positions are chained in order)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chain_table = f"{self.events_table_name}_chain"
        self._statements: tuple[bytes, bytes] | None = None
        self.sql_create_statements.append(SQL(
            "CREATE TABLE IF NOT EXISTS {0}.{1} (position bigint PRIMARY KEY, hash bytea NOT NULL)"
        ).format(Identifier(self.datastore.schema), Identifier(self.chain_table)))

    def _fetch_ids_after_insert_events(self, curs: Cursor[DictRow], stored_events: Sequence[StoredEvent],
                                       **kwargs: Any) -> Sequence[int] | None:
        positions = super()._fetch_ids_after_insert_events(curs, stored_events, **kwargs)
        if positions:
            head, insert = self._chain_statements(curs)
            curs.execute(head, prepare=True)
            row = curs.fetchone()
            curs.executemany(insert, links(bytes(row["hash"]) if row else GENESIS, positions, stored_events))
        return positions

    def _chain_statements(self, curs: Cursor[DictRow]) -> tuple[bytes, bytes]:
        """The two statements of every insert, composed once (composing them per insert cost ≈ 0.1 ms)."""
        if self._statements is None:
            table = Identifier(self.datastore.schema), Identifier(self.chain_table)
            self._statements = (
                SQL("SELECT hash FROM {0}.{1} ORDER BY position DESC LIMIT 1").format(*table).as_bytes(curs),
                SQL("INSERT INTO {0}.{1} (position, hash) VALUES (%s, %s)").format(*table).as_bytes(curs))
        return self._statements

    def chain(self, start: int) -> list[tuple[int, bytes]]:
        """A page of the chain from ``start``."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(SQL("SELECT position, hash FROM {0}.{1} WHERE position >= %s ORDER BY position LIMIT %s")
                         .format(Identifier(self.datastore.schema), Identifier(self.chain_table)), (start, PAGE))
            return [(int(row["position"]), bytes(row["hash"])) for row in curs.fetchall()]


@dataclass(frozen=True)
class Finding:
    """The first place where the log and its chain disagree."""

    kind: str  # "altered", "removed", "inserted", "reordered", "head"
    position: int
    message: str


@dataclass(frozen=True)
class Verdict:
    """The outcome of a check of the whole log."""

    events: int
    head: tuple[int, bytes]
    finding: Finding | None

    @property
    def clean(self) -> bool:
        return self.finding is None


def _chain(recorder: ChainedSQLiteRecorder | ChainedPostgresRecorder) -> Iterator[tuple[int, bytes]]:
    start = 1
    while page := recorder.chain(start):
        yield from page
        start = page[-1][0] + 1


def _describe(event: Any) -> str:
    kind = event.topic.rsplit(":", 1)[-1]
    return f"{kind} v{event.originator_version} of {event.originator_id}"


def verify(recorder: ApplicationRecorder, expected_head: tuple[int, bytes] | None = None) -> Verdict:
    """Check every event against the chain, in position order; the first disagreement is named."""
    if not isinstance(recorder, ChainedSQLiteRecorder | ChainedPostgresRecorder):
        raise TypeError("this store was not opened with a chaining recorder (service.persistence.environment)")
    chain = list(_chain(recorder))
    previous, count, last, link = GENESIS, 0, 0, 0

    def found(kind: str, position: int, message: str) -> Verdict:
        return Verdict(count, (last, previous), Finding(kind, position, message))

    for event in notifications(recorder, page=PAGE):
        count += 1
        if link < len(chain) and chain[link][0] < event.id:
            return found("removed", chain[link][0], f"the event at position {chain[link][0]} was removed "
                         "(the chain records it)")
        if link == len(chain) or chain[link][0] != event.id:
            return found("inserted", event.id, f"position {event.id}: {_describe(event)} is not in the chain: "
                         "inserted")
        recorded = chain[link][1]
        actual = chain_hash(previous, event.id, event)
        if actual != recorded:
            if (origin := _recorded_at(chain, event)) is not None:
                return found("reordered", event.id, f"position {event.id}: {_describe(event)} was recorded at "
                             f"position {origin}: the log was reordered")
            return found("altered", event.id, f"position {event.id}: {_describe(event)} does not match its "
                         "chained hash: altered")
        previous, last, link = recorded, event.id, link + 1
    if link < len(chain):
        return found("removed", chain[link][0], f"the event at position {chain[link][0]} was removed "
                     "(the chain records it)")
    if expected_head is not None and dict(chain).get(expected_head[0]) != expected_head[1]:
        return found("head", expected_head[0], f"the log does not lead to the safekept head at position "
                     f"{expected_head[0]}")
    return Verdict(count, (last, previous), None)


def _recorded_at(chain: list[tuple[int, bytes]], event: Any) -> int | None:
    """The position the chain says this event was first recorded at, if another one."""
    previous = GENESIS
    for position, recorded in chain:
        if position != event.id and recorded == chain_hash(previous, position, event):
            return position
        previous = recorded
    return None
