"""The floor's projection in the store's own tables (issue 30, item 1; docs/architecture.md, "Reads bounded by the
work at hand"): what :mod:`domain.floor_log` keeps of the log, beside the log, with the last log position followed.

Tables (each ``pokertable_floor_…``; on PostgreSQL in the log's schema):

- ``pokertable_floor_position``: the position of the log the projection has followed to, and the projection's
  format (:data:`FORMAT`; a store of another format is rebuilt from the log);
- ``pokertable_floor_tables``: each table's id, name and opening position, its shuffler's last report and the
  correction waiting for the pit;
- ``pokertable_floor_alerts``: every alert, by the log position of the event that raised it, with its table, time,
  kind, words and who acknowledged it and why ("" while open; an index holds only the open ones);
- ``pokertable_floor_access``: the authentication log (issue 32): each sign-in, sign-out, refusal, wrong PIN and
  lockout, and each change of the staff, by the log position of its event, indexed by time;
- ``pokertable_floor_hands``: every hand by id: its table, number, start, whether it ended, its outcome, seats (or
  boxes) and its summary (what a search lists), indexed by table and start, by table and outcome, and by start;
  written here with the rest, read through :attr:`FloorStore.hands_index` (:mod:`service.store.hands_index`).

Everything one page of the log changes is written in **one transaction with the new position**, which it first
moves from the position it read from: a follower killed at any instant leaves the whole page and its position or
neither, and two followers (two instances on one PostgreSQL) never both write a page — the second finds the position
moved, writes nothing and reads on from there. Times are stored as ISO 8601 text in UTC, which sorts as time does.

The projection is a cache of the log, never evidence: the pit's holds are the tables' own (R-HOLD-1), and
``pokertable floor check`` compares it with a recomputation from the log (``rebuild`` makes it again).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.floor_log import (
    Accessed,
    AlertAcknowledged,
    AlertRaised,
    Change,
    HandEnded,
    HandStarted,
    Noted,
    TableOpened,
)
from service.store.hands_index import HandsFigures, HandsIndex, decoded, encoded, figures, house_of, stamp

FORMAT = 1
"""The projection's format: a store written in another is rebuilt from the log at the next catch-up.  (The access
table came with issue 32 in the same format: a log written before it has no event of the staff for it to miss.)"""
NAME = "floor"
TABLES = ("pokertable_floor_position", "pokertable_floor_tables", "pokertable_floor_alerts", "pokertable_floor_hands",
          "pokertable_floor_access")
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS {position} (name TEXT PRIMARY KEY, position BIGINT NOT NULL, format INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS {tables} (table_id TEXT PRIMARY KEY, name TEXT NOT NULL, position BIGINT NOT NULL, "
    "shuffler TEXT NOT NULL DEFAULT '', correction TEXT NOT NULL DEFAULT '')",
    "CREATE TABLE IF NOT EXISTS {alerts} (position BIGINT PRIMARY KEY, table_name TEXT NOT NULL, at TEXT NOT NULL, "
    "kind TEXT NOT NULL, words TEXT NOT NULL, acknowledged TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_alerts_open ON {alerts} (position) WHERE acknowledged = ''",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_alerts_table ON {alerts} (table_name, at)",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_alerts_at ON {alerts} (at)",
    "CREATE TABLE IF NOT EXISTS {hands} (hand_id TEXT PRIMARY KEY, table_name TEXT NOT NULL, number INTEGER NOT NULL, "
    "started TEXT NOT NULL, position BIGINT NOT NULL, ended INTEGER NOT NULL DEFAULT 0, outcome TEXT NOT NULL DEFAULT "
    "'', seats TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '', house BIGINT, stakes TEXT)",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_hands_table ON {hands} (table_name, started)",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_hands_outcome ON {hands} (table_name, outcome)",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_hands_started ON {hands} (started)",
    "CREATE TABLE IF NOT EXISTS {access} (position BIGINT PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL, "
    "person TEXT NOT NULL, station TEXT NOT NULL, by_person TEXT NOT NULL, detail TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_access_at ON {access} (at)",
]


@dataclass(frozen=True)
class AlertRow:
    """An alert as the floor keeps it."""

    position: int
    table: str
    at: datetime
    kind: str
    text: str
    acknowledged: str = ""


@dataclass(frozen=True)
class TableRow:
    """A table as the floor keeps it: its name, opening position, shuffler's last report and correction waiting."""

    table_id: str
    name: str
    position: int
    shuffler: str
    correction: str


class PositionMovedError(RuntimeError):
    """Another follower wrote this page first: read on from the position it left."""


class FloorStore:
    """The projection's tables, in the log's database (``datastore``: eventsourcing's SQLite or PostgreSQL
    datastore) or, for a store in memory (``datastore`` None), in a private SQLite database in memory."""

    def __init__(self, datastore: Any | None, *, writable: bool = True) -> None:
        self.writable = writable
        self._postgres = datastore is not None and hasattr(datastore, "schema")
        self._datastore = datastore
        self._memory: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # the in-memory database's one connection
        prefix = f'"{datastore.schema}".' if self._postgres and datastore is not None else ""
        self._names = {"position": prefix + TABLES[0], "tables": prefix + TABLES[1], "alerts": prefix + TABLES[2],
                       "hands": prefix + TABLES[3], "access": prefix + TABLES[4], "prefix": "pokertable_"}
        if datastore is None:
            self._memory = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._memory.row_factory = sqlite3.Row
        if writable:
            with self._cursor(commit=True) as cursor:
                for statement in SCHEMA:
                    cursor.execute(statement.format(**self._names))
                for column, kind in (("house", "BIGINT"), ("stakes", "TEXT")):
                    _hands_column(cursor, self._postgres, datastore, column, kind)
        self.hands_index = HandsIndex(self._cursor, self._snapshot)
        """The hands index's reads (:mod:`service.store.hands_index`)."""
        self.ready = writable or self._exists()
        """The tables are there to be read (a store opened read-only by a version before them has none)."""

    # -- the connection ---------------------------------------------------------------------------------

    @contextmanager
    def _cursor(self, *, commit: bool) -> Iterator[Any]:
        if self._memory is not None:
            with self._lock:
                cursor = self._memory.cursor()
                cursor.execute("BEGIN")
                try:
                    yield _Dialect(cursor, postgres=False, names=self._names)
                except BaseException:
                    self._memory.rollback()
                    raise
                else:
                    self._memory.commit() if commit else self._memory.rollback()
            return
        assert self._datastore is not None
        with self._datastore.transaction(commit=commit) as cursor:
            yield _Dialect(cursor, postgres=self._postgres, names=self._names)

    @contextmanager
    def _snapshot(self) -> Iterator[Any]:
        """A read-only transaction whose reads all see one moment (SQLite's read transaction does; PostgreSQL's
        must be asked for it: a follower may write between two statements)."""
        with self._cursor(commit=False) as cursor:
            if self._postgres:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            yield cursor

    def _exists(self) -> bool:
        try:
            with self._cursor(commit=False) as cursor:
                cursor.execute("SELECT position FROM {position} WHERE name = ?", (NAME,))
                cursor.fetchall()
        except Exception:  # no such table (a store written before issue 30's projection, opened read-only)
            return False
        return True

    # -- following the log --------------------------------------------------------------------------------

    def position(self) -> tuple[int, int]:
        """The log position followed to and the projection's format (0, FORMAT for a new projection)."""
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT position, format FROM {position} WHERE name = ?", (NAME,))
            row = cursor.fetchone()
        return (int(row["position"]), int(row["format"])) if row else (0, FORMAT)

    def clear(self) -> None:
        """Forget everything (a rebuild from the log follows)."""
        with self._cursor(commit=True) as cursor:
            for key in ("tables", "alerts", "hands", "access", "position"):
                cursor.execute(f"DELETE FROM {{{key}}}")

    def commit(self, start: int, end: int, changes: Sequence[Change], summaries: dict[str, dict[str, Any]],
               stakes: Mapping[str, list[dict[str, int]]] | None = None) -> None:
        """Write what the log's events after ``start`` up to ``end`` changed, and move the position to ``end``: in
        one transaction, the position moved first (:class:`PositionMovedError` if it is not ``start`` any more).
        ``summaries``: each ended hand's summary, by hand id; ``stakes``: each settled banked hand's boxes' stakes."""
        with self._cursor(commit=True) as cursor:
            if start == 0:
                cursor.execute("INSERT INTO {position} (name, position, format) VALUES (?, 0, ?) "
                               "ON CONFLICT (name) DO NOTHING", (NAME, FORMAT))
            cursor.execute("UPDATE {position} SET position = ?, format = ? WHERE name = ? AND position = ?",
                           (end, FORMAT, NAME, start))
            if cursor.rowcount != 1:
                raise PositionMovedError(f"the floor's projection moved past {start}")
            for change in changes:
                _write(cursor, change, summaries, stakes or {})

    # -- what the floor reads -------------------------------------------------------------------------------

    def tables(self) -> list[TableRow]:
        """Every table, in opening order."""
        with self._cursor(commit=False) as cursor:
            return _tables(cursor)

    def open_alerts(self) -> list[AlertRow]:
        """The alerts nobody acknowledged yet, oldest first (read from their index: what is open, not every alert)."""
        with self._cursor(commit=False) as cursor:
            return _open_alerts(cursor)

    def tables_as_of(self) -> tuple[int, list[TableRow]] | None:
        """The position followed to and every table as of it, read as of one moment (None: no projection of this
        format yet)."""
        with self._snapshot() as cursor:
            cursor.execute("SELECT position, format FROM {position} WHERE name = ?", (NAME,))
            row = cursor.fetchone()
            if row is None or int(row["format"]) != FORMAT:
                return None
            return int(row["position"]), _tables(cursor)

    def floor(self) -> tuple[int, list[AlertRow], list[TableRow]]:
        """The position followed to, the open alerts and every table, read as of one moment: a dashboard watching
        from that position then sees each later change once (another instance's follower may write meanwhile)."""
        with self._snapshot() as cursor:
            return _position(cursor), _open_alerts(cursor), _tables(cursor)

    def alerts_between(self, table: str, since: datetime, until: datetime) -> list[AlertRow]:
        """Every alert of ``table`` raised in ``[since, until]``, acknowledged or not, oldest first."""
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT position, table_name, at, kind, words, acknowledged FROM {alerts} "
                           "WHERE table_name = ? AND at >= ? AND at <= ? ORDER BY position",
                           (table, stamp(since), stamp(until)))
            return [_alert(row) for row in cursor.fetchall()]

    def alerts_of_every_table(self, since: datetime, until: datetime, limit: int) -> list[AlertRow]:
        """The alerts of every table (and of the casino's log) raised in ``[since, until]``, acknowledged or not,
        newest first, at most ``limit`` (the alerts' history: read from the index by time, never the whole log)."""
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT position, table_name, at, kind, words, acknowledged FROM {alerts} "
                           "WHERE at >= ? AND at <= ? ORDER BY at DESC, position DESC LIMIT ?",
                           (stamp(since), stamp(until), limit))
            return [_alert(row) for row in cursor.fetchall()]

    def shift_figures(self, since: datetime, until: datetime) -> tuple[dict[str, HandsFigures], dict[str, int]]:
        """Every table's hands started in ``[since, until]`` summed up (:func:`service.store.hands_index.figures`),
        and its irregularities: the alerts raised then, acknowledged or not, but a void's (the report counts voids
        apart): read as of one moment, from the indexes by start and by time — the range's rows, never the log."""
        with self._snapshot() as cursor:
            hands = figures(cursor, since, until)
            cursor.execute("SELECT table_name, COUNT(*) AS alerts FROM {alerts} WHERE at >= ? AND at <= ? "
                           "AND kind <> 'void' GROUP BY table_name", (stamp(since), stamp(until)))
            return hands, {str(row["table_name"]): int(row["alerts"]) for row in cursor.fetchall()}

    def access_between(self, since: datetime, until: datetime, limit: int) -> list[Accessed]:
        """The authentication log's entries in ``[since, until]``, oldest first, at most ``limit`` (issue 32; read
        from the index by time: the range's entries, never the whole log)."""
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT position, at, kind, person, station, by_person, detail FROM {access} "
                           "WHERE at >= ? AND at <= ? ORDER BY at, position LIMIT ?",
                           (stamp(since), stamp(until), limit))
            return [Accessed(int(row["position"]), datetime.fromisoformat(str(row["at"])), str(row["kind"]),
                             str(row["person"]), str(row["station"]), str(row["by_person"]), str(row["detail"]))
                    for row in cursor.fetchall()]

    def everything(self) -> tuple[int, dict[str, list[tuple[Any, ...]]]]:
        """The position and every row of every table, sorted, read as of one moment: what a check compares with a
        recomputation from the log up to that position."""
        found: dict[str, list[tuple[Any, ...]]] = {}
        with self._snapshot() as cursor:
            position = _position(cursor)
            for key, columns in (("tables", "table_id, name, position, shuffler, correction"),
                                 ("alerts", "position, table_name, at, kind, words, acknowledged"),
                                 ("hands", "hand_id, table_name, number, started, ended, outcome, seats, summary, "
                                           "house, stakes"),
                                 ("access", "position, at, kind, person, station, by_person, detail")):
                cursor.execute(f"SELECT {columns} FROM {{{key}}} ORDER BY 1")
                found[key] = [tuple(row.values()) if isinstance(row, dict) else tuple(row)
                              for row in cursor.fetchall()]
        # A hand kept before the house's take had its column holds none: what its summary says is compared (a
        # store written by an earlier version is what the log says; a take written wrong is not)
        found["hands"] = [(*row[:8], house_of(decoded(str(row[7]))) if row[8] is None and row[4] else row[8], row[9])
                          for row in found["hands"]]
        return position, found


def _position(cursor: _Dialect) -> int:
    cursor.execute("SELECT position FROM {position} WHERE name = ?", (NAME,))
    row = cursor.fetchone()
    return int(row["position"]) if row else 0


def _tables(cursor: _Dialect) -> list[TableRow]:
    cursor.execute("SELECT table_id, name, position, shuffler, correction FROM {tables} ORDER BY position")
    return [TableRow(str(row["table_id"]), str(row["name"]), int(row["position"]), str(row["shuffler"]),
                     str(row["correction"])) for row in cursor.fetchall()]


def _open_alerts(cursor: _Dialect) -> list[AlertRow]:
    cursor.execute("SELECT position, table_name, at, kind, words, acknowledged FROM {alerts} "
                   "WHERE acknowledged = '' ORDER BY position")
    return [_alert(row) for row in cursor.fetchall()]


def _alert(row: Any) -> AlertRow:
    return AlertRow(int(row["position"]), str(row["table_name"]), datetime.fromisoformat(str(row["at"])),
                    str(row["kind"]), str(row["words"]), str(row["acknowledged"]))


def _write(cursor: _Dialect, change: Change, summaries: dict[str, dict[str, Any]],
           stakes: Mapping[str, list[dict[str, int]]]) -> None:
    if isinstance(change, TableOpened):
        cursor.execute("INSERT INTO {tables} (table_id, name, position) VALUES (?, ?, ?) "
                       "ON CONFLICT (table_id) DO NOTHING", (change.table_id, change.name, change.position))
    elif isinstance(change, HandStarted):
        cursor.execute("INSERT INTO {hands} (hand_id, table_name, number, started, position) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT (hand_id) DO NOTHING",
                       (change.hand_id, change.table, change.number, stamp(change.started), change.position))
    elif isinstance(change, HandEnded):
        summary = summaries.get(change.hand_id)
        if summary is not None:
            seats = "," + ",".join(str(seat) for seat in summary.get("seats", [])) + ","
            started = stamp(datetime.fromisoformat(str(summary["started"])))
            staked = stakes.get(change.hand_id)
            cursor.execute("UPDATE {hands} SET ended = 1, outcome = ?, seats = ?, summary = ?, started = ?, house = ?, "
                           "stakes = ? WHERE hand_id = ?",
                           (str(summary.get("outcome", "")), seats, encoded(summary), started, house_of(summary),
                            None if staked is None else json.dumps(staked), change.hand_id))
    elif isinstance(change, AlertRaised):
        cursor.execute("INSERT INTO {alerts} (position, table_name, at, kind, words) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT (position) DO NOTHING",
                       (change.position, change.table, stamp(change.at), change.kind, change.text))
    elif isinstance(change, AlertAcknowledged):
        cursor.execute("UPDATE {alerts} SET acknowledged = ? WHERE position = ? AND table_name = ? "
                       "AND acknowledged = ''", (change.by, change.position, change.table))
    elif isinstance(change, Accessed):
        cursor.execute("INSERT INTO {access} (position, at, kind, person, station, by_person, detail) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (position) DO NOTHING",
                       (change.position, stamp(change.at), change.kind, change.person, change.station, change.by,
                        change.detail))
    elif isinstance(change, Noted):
        if change.shuffler is not None:
            cursor.execute("UPDATE {tables} SET shuffler = ? WHERE name = ?", (change.shuffler, change.table))
        if change.correction is not None:
            cursor.execute("UPDATE {tables} SET correction = ? WHERE name = ?", (change.correction, change.table))


def _hands_column(cursor: _Dialect, postgres: bool, datastore: Any, column: str, kind: str) -> None:
    """A column of the hands added to a table made by an earlier version (looked up first: an ALTER waits for the
    table's readers, and the writers queue behind it): ``house`` (the house's take of each ended hand: the shift
    report sums it) and ``stakes`` (a banked hand's settled boxes' stakes: a shift's theoretical win adds them up).
    Its rows keep none: what reads them takes the hand's summary, or the hand, instead."""
    if postgres:
        cursor.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = ? AND table_name = ? AND "
                       "column_name = ?", (datastore.schema, TABLES[3], column))
    else:
        cursor.execute(f"SELECT 1 FROM pragma_table_info('{TABLES[3]}') WHERE name = ?", (column,))
    if cursor.fetchone() is None:
        cursor.execute(f"ALTER TABLE {{hands}} ADD COLUMN {column} {kind}")


class _Dialect:
    """A cursor that takes SQLite's ``?`` placeholders and ``{name}`` table names on either database."""

    def __init__(self, cursor: Any, *, postgres: bool, names: dict[str, str]) -> None:
        self.cursor, self.postgres, self.names = cursor, postgres, names

    def execute(self, statement: str, values: Sequence[Any] = ()) -> None:
        text = statement.format(**self.names)
        if self.postgres:
            text = text.replace("%", "%%").replace("?", "%s")
        self.cursor.execute(text, tuple(values))

    def fetchone(self) -> Any:
        return self.cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self.cursor.fetchall())

    @property
    def rowcount(self) -> int:
        return int(getattr(self.cursor, "sqlite_cursor", self.cursor).rowcount)
