"""The hash chain's store on PostgreSQL: the application recorder that chains each event it inserts, in the same
statement and transaction (R-AUD-1), refuses positions below 1, and loads an aggregate only from events whose links
check (the formula and the rows read back are :mod:`service.store.chain`'s, shared with SQLite)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.persistence import DatabaseError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.utils import retry
from psycopg import Error as PsycopgError
from psycopg import InterfaceError, OperationalError
from psycopg.sql import SQL, Composable, Composed, Identifier, Literal

from service.store.chain import (
    GENESIS,
    PAGE,
    CheckedNotifications,
    Committed,
    LogTimeBehindError,
    Timed,
    _chained_events,
    links,
)

TIME_BEHIND = "PT409"
"""The SQLSTATE the insert function raises for events timed before the last one in the log (its message: that
event's time, microseconds since the epoch): :class:`service.store.chain.LogTimeBehindError`."""

WRITTEN_OUT = 64
"""Events and reads up to which an insert's arrays are written out in its statement, an element a parameter (a
command's few: psycopg adapts a scalar in C, a list in Python); past it (a store filled in bulk) they go as arrays,
one prepared statement whatever their length, and within PostgreSQL's 65,535 parameters."""


class ChainedPostgresRecorder(CheckedNotifications, PostgresApplicationRecorder):
    """The PostgreSQL application recorder, chaining each event it inserts (the recorder's table lock serialises
    the writers, so positions are chained in order)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.committed: Committed | None = None
        """Told of each commit: its positions and the last link as this process computed it from its events."""
        self.chain_table = f"{self.events_table_name}_chain"
        # The channel every insert NOTIFYs (and the instances' followers LISTEN on, service.store.follower) is the
        # schema's own: eventsourcing names it after the table alone, which every schema of a database shares.
        self.channel_name = f"{self.datastore.schema}_{self.events_table_name}"[:63]
        self.writer = uuid4().hex[:16]
        """This recorder's name in the payload of its inserts' NOTIFY (after the last position): its instance's
        follower knows its own inserts by it, whenever the storing thread gets to say so."""
        schema = Identifier(self.datastore.schema)
        self.sql_create_statements.append(SQL(
            "CREATE TABLE IF NOT EXISTS {0}.{1} (position bigint PRIMARY KEY, hash bytea NOT NULL)"
        ).format(schema, Identifier(self.chain_table)))
        # The time of each link's event (microseconds since the epoch), written under the insert's lock so that the
        # events' times never go backwards in log order whichever instance writes them (issue 29, item 4); a chain
        # made by an earlier version gains the column, its rows none.
        # made by an earlier version gains the column, its rows none (looked up first: an ALTER waits for the
        # table's readers, and the writers queue behind it, even when the column is there).
        self.sql_create_statements.append(SQL(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = {0} AND "
            "table_name = {1} AND column_name = 'logged') THEN ALTER TABLE {2}.{3} ADD COLUMN IF NOT EXISTS logged "
            "bigint; END IF; END $$").format(Literal(self.datastore.schema), Literal(self.chain_table), schema,
                                             Identifier(self.chain_table)))
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
        # The events go as four arrays (ids, versions, topics, states) written out in the statement, each element a
        # parameter of its own, not as one array of the recorder's composite type: psycopg adapts a composite value,
        # and a list, in Python (≈ 0.3 ms of the client's CPU a command), a scalar in C. One statement is prepared per
        # number of events and of reads. (The composite array's function, made by earlier versions, is left unused.)
        self._insert_function_name = f"pokertable_insert_chained_links_{self.datastore.originator_id_type}"
        self.sql_create_statements.append(self._insert_function())
        self._inserts: dict[tuple[int, int], bytes] = {}
        self._insert_arrays = self._insert_call([SQL("%s::{0}[]").format(of) for of in self._insert_types()]
                                                + [self._insert_writer()])
        self._selects: dict[tuple[bool, bool, bool, bool], bytes] = {}
        self._select_links = SQL(
            "SELECT position, hash FROM {0}.{1} WHERE position <= %s AND position >= (SELECT COALESCE(MAX(position), "
            "1) FROM {0}.{1} WHERE position < %s AND position >= 1) ORDER BY position"
        ).format(schema, Identifier(self.chain_table))
        self._select_links_of = SQL(
            "SELECT c.position, c.hash, (SELECT p.hash FROM {0}.{1} p WHERE p.position < c.position AND "
            "p.position >= 1 ORDER BY p.position DESC LIMIT 1) AS previous FROM {0}.{1} c WHERE c.position = ANY(%s)"
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

    def _links_around(self, first: int, last: int) -> list[tuple[int, bytes]]:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_links, (last, first), prepare=True)
            return [(int(row["position"]), bytes(row["hash"])) for row in curs.fetchall()]

    def _links_of(self, positions: Sequence[int]) -> list[tuple[int, bytes, bytes | None]]:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_links_of, (list(positions),), prepare=True)
            return [(int(row["position"]), bytes(row["hash"]), None if row["previous"] is None
                     else bytes(row["previous"])) for row in curs.fetchall()]

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
    def event_at(self, position: int) -> tuple[UUID, int] | None:
        """The aggregate and version of the event at log ``position`` (one read of the positions' index), or
        ``None`` (a gap)."""
        statement = SQL("SELECT originator_id, originator_version FROM {0}.{1} WHERE notification_id = %s"
                        ).format(Identifier(self.datastore.schema), Identifier(self.events_table_name))
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, (position,))
            row = curs.fetchone()
            return (UUID(str(row["originator_id"])), int(row["originator_version"])) if row else None

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def max_versions(self, originator_ids: Sequence[UUID]) -> dict[UUID, int]:
        """Each aggregate's last version (those with no event left out), in one query: what a view of many tables
        asks before it trusts its cached copies (:meth:`service.app.reads.Reads.current_as_of_now`)."""
        # Each aggregate's last version is the first entry of its (originator_id, originator_version) index read
        # backwards: one index probe an aggregate, whatever its length (a GROUP BY read every event of each table,
        # 143 ms at 0.9 M events; issue 30, item 4).
        statement = SQL("SELECT a.id AS originator_id, (SELECT e.originator_version FROM {0}.{1} e WHERE "
                        "e.originator_id = a.id ORDER BY e.originator_version DESC LIMIT 1) AS version "
                        "FROM unnest(%s::{2}[]) AS a(id)").format(
            Identifier(self.datastore.schema), Identifier(self.events_table_name),
            Identifier(self.datastore.originator_id_type))
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, (list(originator_ids),))
            return {UUID(str(row["originator_id"])): int(row["version"]) for row in curs.fetchall()
                    if row["version"] is not None}

    def planner_statistics_kept(self) -> bool:
        """Whether the server keeps the planner's statistics itself (``autovacuum`` on): without it, and without an
        ANALYZE after the log has grown, the planner plans for the tables as they were when last analyzed, and reads
        of a large log ran 100 to 250 times slower (issue 30, item 4; docs/ops/install.md)."""
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute("SELECT current_setting('autovacuum') = 'on' AND current_setting('track_counts') = 'on' "
                         "AS kept")
            row = curs.fetchone()
            return bool(row and row["kept"])

    checks_reads = True
    """``insert_events`` takes ``reads`` (aggregate id: version read) and refuses the insert if any has changed since:
    the application may then use its cached aggregates without reading the store first (issue 18, item 4)."""

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events_timed_under_lock(self, timed: Timed, *, reads: Mapping[UUID, int] | None = None,
                                       **kwargs: Any) -> Sequence[int] | None:
        """Insert events timed once the events table's lock is held (issue 29, item 4): in one transaction the lock
        is taken, the time of the log's last event read, ``timed`` given it (None: no time yet) to make the events
        and their times, and the insert function called: no other writer can come in between, so the times are
        never refused. Two round trips under the lock: what a write does when its first try was refused."""
        read = reads or {}
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(SQL("SET LOCAL lock_timeout = {0}").format(Literal(f"{self.datastore.lock_timeout}s")))
            curs.execute(SQL("LOCK TABLE {0}.{1} IN EXCLUSIVE MODE").format(
                Identifier(self.datastore.schema), Identifier(self.events_table_name)))
            curs.execute(SQL("SELECT logged FROM {0}.{1} ORDER BY position DESC LIMIT 1").format(
                Identifier(self.datastore.schema), Identifier(self.chain_table)))
            row = curs.fetchone()
            stored_events, times = timed(None if row is None or row["logged"] is None else int(row["logged"]))
            if not stored_events:
                return []
            statement, params = self._insert(stored_events, read, times)
            curs.execute(statement, params)
            rows = curs.fetchall()
        return self._told(rows, stored_events)  # once committed

    def _told(self, rows: Sequence[Any], stored_events: Sequence[StoredEvent]) -> list[int]:
        """The positions the insert function returned; :attr:`committed` told of them and of the last link, as this
        process computes it from its events."""
        positions = [int(row["inserted"]) for row in rows]
        if positions and self.committed is not None:
            self.committed(positions, links(bytes(rows[0]["before"]), positions, stored_events)[-1][1])
        return positions

    def _insert(self, stored_events: Sequence[StoredEvent], read: Mapping[UUID, int],
                times: Sequence[int] | None) -> tuple[bytes, list[Any]]:
        """The insert function's call for these events, reads and times, and its parameters."""
        columns: list[list[Any]] = [[e.originator_id for e in stored_events],
                                    [e.originator_version for e in stored_events],
                                    [e.topic for e in stored_events], [e.state for e in stored_events],
                                    list(times) if times is not None else [None] * len(stored_events),
                                    list(read), list(read.values())]
        if len(stored_events) + len(read) > WRITTEN_OUT:  # a bulk insert (a store being filled): the arrays as such
            return self._insert_arrays, columns
        shape = (len(stored_events), len(read))
        statement = self._inserts.get(shape) or self._insert_statement(*shape)
        return statement, [value for column in columns for value in column]

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], *, reads: Mapping[UUID, int] | None = None,
                      times: Sequence[int] | None = None, **kwargs: Any) -> Sequence[int] | None:
        """Insert and chain ``stored_events`` in one statement, hence one round trip and one implicit transaction
        (issue 18, item 4): the function made by :meth:`_insert_function` locks the events table, checks that no
        aggregate of ``reads`` has an event past the version read, inserts the events in order, chains each one and
        notifies the followers with the last position (the payload lets an instance tell its own inserts from
        others', :mod:`service.store.follower`).  A stale version, a stale read or a command id already recorded is an
        ``IntegrityError``, and nothing of the call is written.  ``times``: the events' times (microseconds since the
        epoch, in order), each kept with its link; a first one before the last event's in the log is refused with
        :class:`LogTimeBehindError` (nothing written), for the events to be timed again."""
        if not stored_events:
            return []
        statement, params = self._insert(stored_events, reads or {}, times)
        try:
            with self.datastore.get_connection() as conn, conn.cursor() as curs:
                curs.execute(statement, params, prepare=True)
                rows = curs.fetchall()
        except DatabaseError as error:
            cause = error.__cause__
            if isinstance(cause, PsycopgError) and cause.sqlstate == TIME_BEHIND and cause.diag.message_primary:
                raise LogTimeBehindError(int(cause.diag.message_primary)) from None
            raise
        return self._told(rows, stored_events)

    def _insert_types(self) -> list[Composable]:
        """The element types of the insert function's arrays: the events' ids, versions, topics, states, times,
        then the reads' ids and versions."""
        id_type = Identifier(self.datastore.originator_id_type)
        return [id_type, SQL("bigint"), SQL("text"), SQL("bytea"), SQL("bigint"), id_type, SQL("bigint")]

    def _insert_writer(self) -> Composed:
        """The insert function's last argument: the recorder's :attr:`writer`, a literal of the statement."""
        return SQL("{0}::text").format(Literal(self.writer))

    def _insert_call(self, arguments: list[Composed]) -> bytes:
        """The statement calling the insert function with these arguments."""
        return SQL("SELECT inserted, before FROM {0}.{1}({2})").format(
            Identifier(self.datastore.schema), Identifier(self._insert_function_name),
            SQL(", ").join(arguments)).as_bytes(None)

    def _insert_statement(self, events: int, reads: int) -> bytes:
        """The call of the insert function for so many events and reads, each array written out, an element a
        parameter (made once per shape)."""
        counts = (events, events, events, events, events, reads, reads)
        statement = self._insert_call([SQL("ARRAY[{0}]::{1}[]").format(SQL(", ").join([SQL("%s")] * count), of)
                                       for count, of in zip(counts, self._insert_types(), strict=True)]
                                      + [self._insert_writer()])
        self._inserts[events, reads] = statement
        return statement

    def _insert_function(self) -> Composed:
        """The server-side insert: the events table's lock (so positions commit in order, as eventsourcing's own
        insert does), for each event its row and its chain link, then the followers' notification (payload: the
        last position inserted and the recorder's :attr:`writer`; the function of earlier versions, with no writer,
        is left to instances of those versions), each link hashed as
        :func:`chain_hash` hashes it (``sha256`` over the previous hash, the position, the length-prefixed originator,
        the version, the length-prefixed topic and state; integers big-endian): the link is computed where the
        position is known, in the insert's transaction, so the head is never read back to the client."""
        schema, chain, events = (Identifier(self.datastore.schema), Identifier(self.chain_table),
                                 Identifier(self.events_table_name))
        return SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}(ids {id_type}[], versions bigint[], topics text[], "
            "states bytea[], times bigint[], read_ids {id_type}[], read_versions bigint[], writer text) "
            "RETURNS TABLE (inserted bigint, before bytea) LANGUAGE plpgsql AS $BODY$ "
            "DECLARE previous bytea; last bigint; at bigint; originator bytea; topic bytea; "
            "BEGIN "
            "SET LOCAL lock_timeout = {timeout}; "
            "LOCK TABLE {schema}.{events} IN EXCLUSIVE MODE; "
            "IF EXISTS (SELECT 1 FROM unnest(read_ids, read_versions) AS r(id, version) WHERE EXISTS (SELECT 1 "
            "FROM {schema}.{events} x WHERE x.originator_id = r.id AND x.originator_version > r.version)) THEN "
            "RAISE EXCEPTION 'an aggregate the command read has changed since it was read: read it again' "
            "USING ERRCODE = 'unique_violation'; END IF; "
            "SELECT c.hash, c.logged INTO previous, last FROM {schema}.{chain} c ORDER BY c.position DESC LIMIT 1; "
            "IF last IS NOT NULL AND times[1] < last THEN "
            "RAISE EXCEPTION USING ERRCODE = {time_behind}, MESSAGE = last::text; END IF; "
            "previous := COALESCE(previous, {genesis}::bytea); "
            "FOR i IN 1 .. COALESCE(array_length(ids, 1), 0) LOOP "
            "INSERT INTO {schema}.{events} (originator_id, originator_version, topic, state) "
            "VALUES (ids[i], versions[i], topics[i], states[i]) RETURNING notification_id INTO at; "
            "originator := convert_to(ids[i]::text, 'UTF8'); "
            "topic := convert_to(topics[i], 'UTF8'); "
            "inserted := at; before := previous; "
            "previous := sha256(previous || int8send(at) || int4send(octet_length(originator)) || originator "
            "|| int8send(versions[i]) || int4send(octet_length(topic)) || topic "
            "|| int4send(octet_length(states[i])) || states[i]); "
            "INSERT INTO {schema}.{chain} (position, hash, logged) VALUES (at, previous, times[i]); "
            "RETURN NEXT; "
            "END LOOP; "
            "PERFORM pg_notify({channel_name}, at::text || ' ' || writer); "
            "END; $BODY$"
        ).format(schema=schema, function=Identifier(self._insert_function_name), chain=chain, events=events,
                 channel_name=Literal(self.channel_name), time_behind=Literal(TIME_BEHIND),
                 timeout=Literal(f"{self.datastore.lock_timeout}s"), genesis=Literal(GENESIS),
                 id_type=Identifier(self.datastore.originator_id_type))

    def chain(self, start: int, stop: int | None = None) -> list[tuple[int, bytes]]:
        """A page of the chain from ``start`` (up to ``stop``, if given)."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(SQL("SELECT position, hash FROM {0}.{1} WHERE position >= %s AND position <= %s "
                             "ORDER BY position LIMIT %s")
                         .format(Identifier(self.datastore.schema), Identifier(self.chain_table)),
                         (start, 2**63 - 1 if stop is None else stop, PAGE))
            return [(int(row["position"]), bytes(row["hash"])) for row in curs.fetchall()]

    def link_at(self, position: int) -> bytes | None:
        """The chain's hash at ``position`` (``None``: no link there)."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(SQL("SELECT hash FROM {0}.{1} WHERE position = %s")
                         .format(Identifier(self.datastore.schema), Identifier(self.chain_table)), (position,))
            row = curs.fetchone()
            return bytes(row["hash"]) if row else None

    def head(self) -> tuple[int, bytes]:
        """The last link: its position and hash (0 and the genesis hash for an empty log)."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(SQL("SELECT position, hash FROM {0}.{1} ORDER BY position DESC LIMIT 1")
                         .format(Identifier(self.datastore.schema), Identifier(self.chain_table)))
            row = curs.fetchone()
            return (int(row["position"]), bytes(row["hash"])) if row else (0, GENESIS)
