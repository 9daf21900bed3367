"""The hash chain's store: the SQLite and PostgreSQL application recorders that chain each event they insert, in the
same transaction (R-AUD-1), refuse positions below 1, and load an aggregate only from events whose links check.

The formula and how the log is checked are described in :mod:`service.store.audit`.
"""

from __future__ import annotations

import bisect
import hashlib
import struct
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Notification, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from eventsourcing.utils import retry
from psycopg import InterfaceError, OperationalError
from psycopg.sql import SQL, Composed, Identifier, Literal

GENESIS = bytes(32)
PAGE = 1000
LOWEST = -(2**63)
"""Where ``verify`` starts reading: below any position a row could have been given."""
REFUSED = "a log position is 1 or more (R-AUD-1)"


class TamperedLogError(RuntimeError):
    """An aggregate's event that its chain link does not vouch for: the aggregate is not loaded (R-AUD-1)."""

    rule = "R-AUD-1"


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
    return _hash(previous, position, _field(_originator(event.originator_id).encode()), event)


def _hash(previous: bytes, position: int, originator: bytes, event: StoredEvent) -> bytes:
    digest = hashlib.sha256(previous)
    digest.update(struct.pack(">q", position))
    digest.update(originator)
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


def check_link(position: int, event: StoredEvent, recorded: bytes | None, previous: bytes | None,
               originator: bytes | None = None) -> None:
    """That an event read to load an aggregate sits at a real position and matches its link (chained to the link
    before it); :class:`TamperedLogError` otherwise. ``originator``: the event's originator as hashed, if known."""
    if position >= 1 and recorded is not None and bytes(recorded) == _hash(
            GENESIS if previous is None else bytes(previous), position,
            _field(_originator(event.originator_id).encode()) if originator is None else originator, event):
        return
    refused = f"refusing to load {describe(event)} at position {position}"
    if position < 1:
        raise TamperedLogError(f"{refused}: below position 1, where the log starts: written around the service; "
                               "run 'pokertable audit verify' (R-AUD-1)")
    if recorded is None:
        raise TamperedLogError(f"{refused}: it has no chain link: written around the service; run "
                               "'pokertable audit verify' (R-AUD-1)")
    raise TamperedLogError(f"{refused}: it does not match its chained hash: the log was tampered with; run "
                           "'pokertable audit verify' (R-AUD-1)")


def describe(event: Any) -> str:
    """An event as a finding names it: its class, version and aggregate."""
    kind = event.topic.rsplit(":", 1)[-1]
    return f"{kind} v{event.originator_version} of {event.originator_id}"


def _chained_events(rows: list[Any], originator_id: UUID | str) -> list[StoredEvent]:
    """The events of one aggregate as read with their links, each checked."""
    originator = _field(_originator(originator_id).encode())  # one aggregate: hashed the same in every event
    events = []
    for row in rows:
        stored = StoredEvent(originator_id=originator_id, originator_version=row["originator_version"],
                             topic=row["topic"], state=bytes(row["state"]))
        check_link(int(row["position"]), stored, row["hash"], row["previous"], originator)
        events.append(stored)
    return events


def _checked_notifications(found: Sequence[Notification], chain: list[tuple[int, bytes]]) -> Sequence[Notification]:
    """A page of notifications, each checked against its link in ``chain`` (the links from the one before the page's
    first position to its last): what the Watch stream, history and exports read is what the chain vouches for."""
    positions = [position for position, _ in chain]
    hashes = dict(chain)
    for notification in found:
        before = bisect.bisect_left(positions, notification.id)
        check_link(notification.id, notification, hashes.get(notification.id),
                   chain[before - 1][1] if before else None)
    return found


class ChainedSQLiteRecorder(SQLiteApplicationRecorder):
    """The SQLite application recorder, chaining each event it inserts, refusing positions below 1, and loading
    aggregates only from events whose links check."""

    @property
    def chain_table(self) -> str:
        return f"{self.events_table_name}_chain"

    def construct_create_table_statements(self) -> list[str]:
        events, chain = self.events_table_name, self.chain_table
        return [*super().construct_create_table_statements(),
                f"CREATE TABLE IF NOT EXISTS {chain} (position INTEGER PRIMARY KEY CHECK (position >= 1), "
                "hash BLOB NOT NULL)",
                # an SQLite CHECK cannot name the rowid, and a table made before this cannot take one: triggers
                *(f"CREATE TRIGGER IF NOT EXISTS {table}_position_{when.lower()} AFTER {when} ON {table} "
                  f"FOR EACH ROW WHEN NEW.{column} < 1 BEGIN SELECT RAISE(ABORT, '{REFUSED}'); END"
                  for table, column in ((events, "rowid"), (chain, "position")) for when in ("INSERT", "UPDATE"))]

    def select_events(self, originator_id: UUID | str, *, gt: int | None = None, lte: int | None = None,
                      desc: bool = False, limit: int | None = None) -> Sequence[StoredEvent]:
        """An aggregate's events, each checked against its link (:func:`check_link`)."""
        events, chain = self.events_table_name, self.chain_table
        statement = (f"SELECT e.rowid AS position, e.originator_id, e.originator_version, e.topic, e.state, "
                     f"(SELECT c.hash FROM {chain} c WHERE c.position = e.rowid) AS hash, "
                     f"(SELECT p.hash FROM {chain} p WHERE p.position < e.rowid AND p.position >= 1 "
                     f"ORDER BY p.position DESC LIMIT 1) AS previous FROM {events} e WHERE e.originator_id = ? ")
        params: list[Any] = [originator_id.hex if isinstance(originator_id, UUID) else originator_id]
        if gt is not None:
            statement += "AND e.originator_version > ? "
            params.append(gt)
        if lte is not None:
            statement += "AND e.originator_version <= ? "
            params.append(lte)
        statement += f"ORDER BY e.originator_version {'DESC' if desc else 'ASC'} "
        if limit is not None:
            statement += "LIMIT ?"
            params.append(limit)
        with self.datastore.transaction(commit=False) as c:
            c.execute(statement, params)
            return _chained_events(c.fetchall(), self.convert_originator_id(params[0]))

    def select_notifications(self, start: int | None, limit: int, stop: int | None = None,
                             topics: Sequence[str] = (), *, inclusive_of_start: bool = True) -> Sequence[Notification]:
        """Notifications in log order, each checked against its link (``audit verify`` reads them unchecked)."""
        found: Sequence[Notification] = super().select_notifications(start, limit, stop, topics,
                                                                     inclusive_of_start=inclusive_of_start)
        if not found:
            return found
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT position, hash FROM {self.chain_table} WHERE position <= ? AND position >= (SELECT "
                      f"COALESCE(MAX(position), 1) FROM {self.chain_table} WHERE position < ? AND position >= 1) "
                      "ORDER BY position", (found[-1].id, found[0].id))
            return _checked_notifications(found, [(int(row[0]), bytes(row[1])) for row in c.fetchall()])

    def unchecked_notifications(self, start: int, limit: int) -> Sequence[Notification]:
        """Notifications in log order as stored, for ``audit verify`` to judge."""
        found: Sequence[Notification] = super().select_notifications(start, limit)
        return found

    def position_of(self, originator_id: UUID, version: int) -> int | None:
        """The log position of an aggregate's event of ``version`` (an alert is named by it), or ``None``."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT rowid FROM {self.events_table_name} WHERE originator_id = ? AND originator_version = ?",
                      (originator_id.hex, version))
            row = c.fetchone()
            return int(row[0]) if row else None

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

    def head(self) -> tuple[int, bytes]:
        """The last link: its position and hash (0 and the genesis hash for an empty log)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT position, hash FROM {self.chain_table} ORDER BY position DESC LIMIT 1")
            row = c.fetchone()
            return (int(row[0]), bytes(row[1])) if row else (0, GENESIS)


class ChainedPostgresRecorder(PostgresApplicationRecorder):
    """The PostgreSQL application recorder, chaining each event it inserts (the recorder's table lock serialises
    the writers, so positions are chained in order)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chain_table = f"{self.events_table_name}_chain"
        # The channel every insert NOTIFYs (and the instances' followers LISTEN on, service.grpc.follower) is the
        # schema's own: eventsourcing names it after the table alone, which every schema of a database shares.
        self.channel_name = f"{self.datastore.schema}_{self.events_table_name}"[:63]
        schema = Identifier(self.datastore.schema)
        self.sql_create_statements.append(SQL(
            "CREATE TABLE IF NOT EXISTS {0}.{1} (position bigint PRIMARY KEY, hash bytea NOT NULL)"
        ).format(schema, Identifier(self.chain_table)))
        # Positions below 1 refused, in tables made before this too (NOT VALID: rows already there are left to
        # 'audit verify' and to the load check, rather than stopping the service from starting).
        for table, column in ((self.events_table_name, "notification_id"), (self.chain_table, "position")):
            name = f"{table}_position_check"
            self.sql_create_statements.append(SQL(
                "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid "
                "JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = {0} AND r.relname = {1} "
                "AND c.conname = {2}) THEN ALTER TABLE {3}.{4} ADD CONSTRAINT {5} CHECK ({6} >= 1) NOT VALID; "
                "END IF; EXCEPTION WHEN duplicate_object THEN NULL; END $$"
            ).format(Literal(self.datastore.schema), Literal(table), Literal(name), schema, Identifier(table),
                     Identifier(name), Identifier(column)))
        # Each link is looked up by its key, row by row (scalar subqueries): a join let the planner hash the whole
        # chain table for every aggregate loaded.
        self._select_chained = SQL(
            "SELECT e.notification_id AS position, e.originator_id, e.originator_version, e.topic, e.state, "
            "(SELECT c.hash FROM {0}.{1} c WHERE c.position = e.notification_id) AS hash, "
            "(SELECT p.hash FROM {0}.{1} p WHERE p.position < e.notification_id AND p.position >= 1 "
            "ORDER BY p.position DESC LIMIT 1) AS previous FROM {0}.{2} e WHERE e.originator_id = %s"
        ).format(schema, Identifier(self.chain_table), Identifier(self.events_table_name))
        # One statement a command (issue 18, item 4): the events and their chain links written by a function of
        # the schema (its text follows the recorder's settings, so it is made again at each start).
        self._insert_function_name = f"pokertable_insert_chained_{self.datastore.originator_id_type}"
        self.sql_create_statements.append(self._insert_function())
        self._insert_chained = SQL("SELECT inserted FROM {0}.{1}(%s, %s, %s) AS inserted").format(
            schema, Identifier(self._insert_function_name)).as_bytes(None)
        self._selects: dict[tuple[bool, bool, bool, bool], bytes] = {}
        self._select_links = SQL(
            "SELECT position, hash FROM {0}.{1} WHERE position <= %s AND position >= (SELECT COALESCE(MAX(position), "
            "1) FROM {0}.{1} WHERE position < %s AND position >= 1) ORDER BY position"
        ).format(schema, Identifier(self.chain_table))

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_events(self, originator_id: UUID | str, *, gt: int | None = None, lte: int | None = None,
                      desc: bool = False, limit: int | None = None) -> Sequence[StoredEvent]:
        """An aggregate's events, each checked against its link (:func:`check_link`)."""
        params: list[Any] = [originator_id]
        shape = (gt is not None, lte is not None, desc, limit is not None)
        params += [value for value in (gt, lte, limit) if value is not None]
        statement = self._selects.get(shape)
        if statement is None:  # rendered once per shape: rendering a composed statement costs ≈ 0.1 ms a call
            composed = self._select_chained
            if gt is not None:
                composed += SQL(" AND e.originator_version > %s")
            if lte is not None:
                composed += SQL(" AND e.originator_version <= %s")
            composed += SQL(" ORDER BY e.originator_version DESC" if desc else " ORDER BY e.originator_version ASC")
            if limit is not None:
                composed += SQL(" LIMIT %s")
            statement = self._selects[shape] = composed.as_bytes(None)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, params, prepare=True)
            return _chained_events(curs.fetchall(), originator_id)

    def select_notifications(self, start: int | None, limit: int, stop: int | None = None,
                             topics: Sequence[str] = (), *, inclusive_of_start: bool = True) -> Sequence[Notification]:
        """Notifications in log order, each checked against its link (``audit verify`` reads them unchecked)."""
        found: Sequence[Notification] = super().select_notifications(start, limit, stop, topics,
                                                                     inclusive_of_start=inclusive_of_start)
        if not found:
            return found
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_links, (found[-1].id, found[0].id), prepare=True)
            return _checked_notifications(found, [(int(row["position"]), bytes(row["hash"]))
                                                  for row in curs.fetchall()])

    def unchecked_notifications(self, start: int, limit: int) -> Sequence[Notification]:
        """Notifications in log order as stored, for ``audit verify`` to judge."""
        found: Sequence[Notification] = super().select_notifications(start, limit)
        return found

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def position_of(self, originator_id: UUID, version: int) -> int | None:
        """The log position of an aggregate's event of ``version`` (an alert is named by it), or ``None``."""
        statement = SQL("SELECT notification_id FROM {0}.{1} WHERE originator_id = %s AND originator_version = %s"
                        ).format(Identifier(self.datastore.schema), Identifier(self.events_table_name))
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, (originator_id, version))
            row = curs.fetchone()
            return int(row["notification_id"]) if row else None

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def max_versions(self, originator_ids: Sequence[UUID]) -> dict[UUID, int]:
        """Each aggregate's last version (those with no event left out), in one query: what a view of many tables
        asks before it trusts its cached copies (:meth:`service.app.reads.CachedReads.current_as_of_now`)."""
        statement = SQL("SELECT originator_id, MAX(originator_version) AS version FROM {0}.{1} WHERE originator_id = "
                        "ANY(%s) GROUP BY originator_id").format(Identifier(self.datastore.schema),
                                                                  Identifier(self.events_table_name))
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, (list(originator_ids),))
            return {UUID(str(row["originator_id"])): int(row["version"]) for row in curs.fetchall()}

    checks_reads = True
    """``insert_events`` takes ``reads`` (aggregate id: version read) and refuses the insert if any has changed since:
    the application may then use its cached aggregates without reading the store first (issue 18, item 4)."""

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], *, reads: Mapping[UUID, int] | None = None,
                      **kwargs: Any) -> Sequence[int] | None:
        """Insert and chain ``stored_events`` in one statement, hence one round trip and one implicit transaction
        (issue 18, item 4): the function made by :meth:`_insert_function` locks the events table, checks that no
        aggregate of ``reads`` has an event past the version read, inserts the events in order, chains each one and
        notifies the followers with the last position (the payload lets an instance tell its own inserts from
        others', :mod:`service.grpc.follower`).  A stale version, a stale read or a command id already recorded is an
        ``IntegrityError``, and nothing of the call is written."""
        if not stored_events:
            return []
        rows = [self.construct_pg_stored_event(event.originator_id, event.originator_version, event.topic,
                                               event.state) for event in stored_events]
        read_ids, read_versions = (list(reads), list(reads.values())) if reads else ([], [])
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._insert_chained, (rows, read_ids, read_versions), prepare=True)
            return [int(row["inserted"]) for row in curs.fetchall()]

    def _insert_function(self) -> Composed:
        """The server-side insert: the events table's lock (so positions commit in order, as eventsourcing's own
        insert does), for each event its row and its chain link, then the followers' notification (payload: the
        last position inserted), hashed as
        :func:`chain_hash` hashes it (``sha256`` over the previous hash, the position, the length-prefixed originator,
        the version, the length-prefixed topic and state; integers big-endian): the link is computed where the
        position is known, in the insert's transaction, so the head is never read back to the client."""
        schema, chain, events = (Identifier(self.datastore.schema), Identifier(self.chain_table),
                                 Identifier(self.events_table_name))
        return SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}(events {schema}.{event_type}[], "
            "read_ids {id_type}[], read_versions bigint[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "DECLARE e {schema}.{event_type}; previous bytea; at bigint; originator bytea; topic bytea; "
            "BEGIN "
            "SET LOCAL lock_timeout = {timeout}; "
            "LOCK TABLE {schema}.{events} IN EXCLUSIVE MODE; "
            "IF EXISTS (SELECT 1 FROM unnest(read_ids, read_versions) AS r(id, version) WHERE EXISTS (SELECT 1 "
            "FROM {schema}.{events} x WHERE x.originator_id = r.id AND x.originator_version > r.version)) THEN "
            "RAISE EXCEPTION 'an aggregate the command read has changed since it was read: read it again' "
            "USING ERRCODE = 'unique_violation'; END IF; "
            "SELECT c.hash INTO previous FROM {schema}.{chain} c ORDER BY c.position DESC LIMIT 1; "
            "previous := COALESCE(previous, {genesis}::bytea); "
            "FOREACH e IN ARRAY events LOOP "
            "INSERT INTO {schema}.{events} (originator_id, originator_version, topic, state) "
            "VALUES (e.originator_id, e.originator_version, e.topic, e.state) RETURNING notification_id INTO at; "
            "originator := convert_to(e.originator_id::text, 'UTF8'); "
            "topic := convert_to(e.topic, 'UTF8'); "
            "previous := sha256(previous || int8send(at) || int4send(octet_length(originator)) || originator "
            "|| int8send(e.originator_version) || int4send(octet_length(topic)) || topic "
            "|| int4send(octet_length(e.state)) || e.state); "
            "INSERT INTO {schema}.{chain} (position, hash) VALUES (at, previous); "
            "RETURN NEXT at; "
            "END LOOP; "
            "PERFORM pg_notify({channel_name}, at::text); "
            "END; $BODY$"
        ).format(schema=schema, function=Identifier(self._insert_function_name), chain=chain, events=events,
                 event_type=Identifier(self.stored_event_type_name), channel_name=Literal(self.channel_name),
                 timeout=Literal(f"{self.datastore.lock_timeout}s"), genesis=Literal(GENESIS),
                 id_type=Identifier(self.datastore.originator_id_type))

    def chain(self, start: int) -> list[tuple[int, bytes]]:
        """A page of the chain from ``start``."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(SQL("SELECT position, hash FROM {0}.{1} WHERE position >= %s ORDER BY position LIMIT %s")
                         .format(Identifier(self.datastore.schema), Identifier(self.chain_table)), (start, PAGE))
            return [(int(row["position"]), bytes(row["hash"])) for row in curs.fetchall()]

    def head(self) -> tuple[int, bytes]:
        """The last link: its position and hash (0 and the genesis hash for an empty log)."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(SQL("SELECT position, hash FROM {0}.{1} ORDER BY position DESC LIMIT 1")
                         .format(Identifier(self.datastore.schema), Identifier(self.chain_table)))
            row = curs.fetchone()
            return (int(row["position"]), bytes(row["hash"])) if row else (0, GENESIS)
