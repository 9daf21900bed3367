"""The floor's projection in the store's own tables (issue 30, item 1; docs/architecture.md, "Reads bounded by the
work at hand"): what :mod:`domain.floor_log` keeps of the log, beside the log, with the last log position followed.

Tables (each ``pokertable_floor_…``; on PostgreSQL in the log's schema):

- ``pokertable_floor_position``: the position of the log the projection has followed to, and the projection's
  format (:data:`FORMAT`; a store of another format is rebuilt from the log);
- ``pokertable_floor_tables``: each table's id, name and opening position, its shuffler's last report and the
  correction waiting for the pit;
- ``pokertable_floor_alerts``: every alert, by the log position of the event that raised it, with its table, time,
  kind, words and who acknowledged it and why ("" while open; an index holds only the open ones);
- ``pokertable_floor_hands``: every hand by id: its table, number, start, whether it ended, its outcome, seats (or
  boxes) and its summary (what a search lists), indexed by table and start, by table and outcome, and by start.

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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from domain.floor_log import AlertAcknowledged, AlertRaised, Change, HandEnded, HandStarted, Noted, TableOpened

FORMAT = 1
"""The projection's format: a store written in another is rebuilt from the log at the next catch-up."""
NAME = "floor"
SLACK = timedelta(seconds=1)
"""How far a hand's start in the index may be from its own first event's (a hand not ended yet)."""
TABLES = ("pokertable_floor_position", "pokertable_floor_tables", "pokertable_floor_alerts", "pokertable_floor_hands")
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS {position} (name TEXT PRIMARY KEY, position BIGINT NOT NULL, format INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS {tables} (table_id TEXT PRIMARY KEY, name TEXT NOT NULL, position BIGINT NOT NULL, "
    "shuffler TEXT NOT NULL DEFAULT '', correction TEXT NOT NULL DEFAULT '')",
    "CREATE TABLE IF NOT EXISTS {alerts} (position BIGINT PRIMARY KEY, table_name TEXT NOT NULL, at TEXT NOT NULL, "
    "kind TEXT NOT NULL, words TEXT NOT NULL, acknowledged TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_alerts_open ON {alerts} (position) WHERE acknowledged = ''",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_alerts_table ON {alerts} (table_name, at)",
    "CREATE TABLE IF NOT EXISTS {hands} (hand_id TEXT PRIMARY KEY, table_name TEXT NOT NULL, number INTEGER NOT NULL, "
    "started TEXT NOT NULL, position BIGINT NOT NULL, ended INTEGER NOT NULL DEFAULT 0, outcome TEXT NOT NULL DEFAULT "
    "'', seats TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_hands_table ON {hands} (table_name, started)",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_hands_outcome ON {hands} (table_name, outcome)",
    "CREATE INDEX IF NOT EXISTS {prefix}floor_hands_started ON {hands} (started)",
]


def _shifted(moment: datetime, by: timedelta) -> datetime | None:
    """``moment`` moved by ``by``; None past the first or the last time there is (a request may ask for either).

    >>> _shifted(datetime.min.replace(tzinfo=UTC), -SLACK) is None, _shifted(datetime.max.replace(tzinfo=UTC), SLACK)
    (True, None)
    """
    try:
        return moment + by
    except OverflowError:
        return None


def stamp(moment: datetime) -> str:
    """A time as the tables keep it: ISO 8601 in UTC, to the microsecond (sorts as time does)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


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


@dataclass(frozen=True)
class HandRow:
    """A hand as the index keeps it (``summary``: what a search lists, once the hand ended; None before)."""

    hand_id: str
    table: str
    number: int
    started: datetime
    ended: bool
    summary: dict[str, Any] | None


@dataclass(frozen=True)
class HandMark:
    """Where a hand starts, as the index says: its number at its table, and the log position of its table's
    ``HandStarted``."""

    number: int
    position: int


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
                       "hands": prefix + TABLES[3], "prefix": "pokertable_"}
        if datastore is None:
            self._memory = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._memory.row_factory = sqlite3.Row
        if writable:
            with self._cursor(commit=True) as cursor:
                for statement in SCHEMA:
                    cursor.execute(statement.format(**self._names))
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
            for key in ("tables", "alerts", "hands", "position"):
                cursor.execute(f"DELETE FROM {{{key}}}")

    def commit(self, start: int, end: int, changes: Sequence[Change], summaries: dict[str, dict[str, Any]]) -> None:
        """Write what the log's events after ``start`` up to ``end`` changed, and move the position to ``end``: in
        one transaction, the position moved first (:class:`PositionMovedError` if it is not ``start`` any more).
        ``summaries``: each ended hand's summary, by hand id."""
        with self._cursor(commit=True) as cursor:
            if start == 0:
                cursor.execute("INSERT INTO {position} (name, position, format) VALUES (?, 0, ?) "
                               "ON CONFLICT (name) DO NOTHING", (NAME, FORMAT))
            cursor.execute("UPDATE {position} SET position = ?, format = ? WHERE name = ? AND position = ?",
                           (end, FORMAT, NAME, start))
            if cursor.rowcount != 1:
                raise PositionMovedError(f"the floor's projection moved past {start}")
            for change in changes:
                _write(cursor, change, summaries)

    def hand_table(self, hand_id: str) -> str | None:
        """A hand's table, if its start was followed."""
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT table_name FROM {hands} WHERE hand_id = ?", (hand_id,))
            row = cursor.fetchone()
        return str(row["table_name"]) if row else None

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

    def hands(self, table: str, *, since: datetime | None, until: datetime | None, outcome: str | None,
              seat: int | None) -> list[HandRow]:
        """The hands of ``table`` started in ``[since, until]``, give or take :data:`SLACK` (the caller checks each
        hand's own start: an ended hand's row holds it, a hand not ended yet holds its table's event's), ended ones
        of ``outcome`` with ``seat`` dealt in, in number order."""
        where, values = ["table_name = ?"], [table]
        if since is not None and since > datetime.min.replace(tzinfo=UTC) + SLACK:
            where.append("started >= ?")
            values.append(stamp(since - SLACK))
        if until is not None and until < datetime.max.replace(tzinfo=UTC) - SLACK:
            where.append("started <= ?")
            values.append(stamp(until + SLACK))
        if outcome is not None:
            where.append("outcome IN (?, '')")  # a hand not ended yet has no outcome: its own path decides
            values.append(outcome)
        if seat is not None:
            where.append("(ended = 0 OR seats LIKE ?)")
            values.append(f"%,{seat},%")
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT hand_id, table_name, number, started, ended, summary FROM {hands} WHERE "
                           + " AND ".join(where) + " ORDER BY number", tuple(values))
            return [HandRow(str(row["hand_id"]), str(row["table_name"]), int(row["number"]),
                            datetime.fromisoformat(str(row["started"])), bool(row["ended"]),
                            decoded(row["summary"]) if row["ended"] else None) for row in cursor.fetchall()]

    def hands_around(self, table: str, moment: datetime) -> tuple[HandMark | None, HandMark | None]:
        """The table's hands nearest ``moment`` by the index: the last started at least :data:`SLACK` before it and
        the first started more than :data:`SLACK` after it (None where there is none), each by its number and the
        log position of its table's ``HandStarted``: two seeks of the index by table and start. A hint, never an
        answer: the caller checks each against the log (:func:`service.app.past.version_at`), so a row that is
        wrong costs a read, not a wrong answer."""
        found: list[HandMark | None] = []
        with self._snapshot() as cursor:
            for where, order, by in (("<=", "DESC", -SLACK), (">", "ASC", SLACK)):
                bound = _shifted(moment, by)
                row = None
                if bound is not None:  # none before the first time there is, none after the last
                    cursor.execute(f"SELECT number, position FROM {{hands}} WHERE table_name = ? AND started {where} "
                                   f"? ORDER BY started {order} LIMIT 1", (table, stamp(bound)))
                    row = cursor.fetchone()
                found.append(HandMark(int(row["number"]), int(row["position"])) if row else None)
        return found[0], found[1]

    def last_hand_before(self, moment: datetime) -> HandMark | None:
        """The last hand any table started at least :data:`SLACK` before ``moment`` by the index (one seek of the
        index by start), or None: a hint the caller checks against the log, as :meth:`hands_around`'s."""
        if (bound := _shifted(moment, -SLACK)) is None:
            return None
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT number, position FROM {hands} WHERE started <= ? ORDER BY started DESC LIMIT 1",
                           (stamp(bound),))
            row = cursor.fetchone()
        return HandMark(int(row["number"]), int(row["position"])) if row else None

    def everything(self) -> tuple[int, dict[str, list[tuple[Any, ...]]]]:
        """The position and every row of every table, sorted, read as of one moment: what a check compares with a
        recomputation from the log up to that position."""
        found: dict[str, list[tuple[Any, ...]]] = {}
        with self._snapshot() as cursor:
            position = _position(cursor)
            for key, columns in (("tables", "table_id, name, position, shuffler, correction"),
                                 ("alerts", "position, table_name, at, kind, words, acknowledged"),
                                 ("hands", "hand_id, table_name, number, started, ended, outcome, seats, summary")):
                cursor.execute(f"SELECT {columns} FROM {{{key}}} ORDER BY 1")
                found[key] = [tuple(row.values()) if isinstance(row, dict) else tuple(row)
                              for row in cursor.fetchall()]
        return position, found


_INT_KEYS = "\u0000int-keys"
"""How a summary's mapping keyed by numbers (a seat's net result) is kept in JSON, whose keys are text."""


def encoded(value: Any) -> str:
    """A hand's summary as JSON that :func:`decoded` reads back as it was (numbers as keys kept numbers).

    >>> decoded(encoded({"net": {1: -2, 3: 2}, "seats": [1, 3]}))
    {'net': {1: -2, 3: 2}, 'seats': [1, 3]}
    """
    def plain(item: Any) -> Any:
        if isinstance(item, dict):
            if item and all(isinstance(key, int) for key in item):
                return {_INT_KEYS: [[key, plain(inner)] for key, inner in item.items()]}
            return {str(key): plain(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [plain(inner) for inner in item]
        return item if item is None or isinstance(item, bool | int | str) else str(item)

    return json.dumps(plain(value), sort_keys=True)


def decoded(text: str) -> dict[str, Any]:
    """A summary as :func:`encoded` kept it."""
    def hook(item: dict[str, Any]) -> Any:
        return {key: inner for key, inner in item[_INT_KEYS]} if set(item) == {_INT_KEYS} else item

    found: dict[str, Any] = json.loads(text, object_hook=hook)
    return found


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


def _write(cursor: _Dialect, change: Change, summaries: dict[str, dict[str, Any]]) -> None:
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
            cursor.execute("UPDATE {hands} SET ended = 1, outcome = ?, seats = ?, summary = ?, started = ? "
                           "WHERE hand_id = ?", (str(summary.get("outcome", "")), seats,
                                                 encoded(summary), started,
                                                 change.hand_id))
    elif isinstance(change, AlertRaised):
        cursor.execute("INSERT INTO {alerts} (position, table_name, at, kind, words) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT (position) DO NOTHING",
                       (change.position, change.table, stamp(change.at), change.kind, change.text))
    elif isinstance(change, AlertAcknowledged):
        cursor.execute("UPDATE {alerts} SET acknowledged = ? WHERE position = ? AND table_name = ? "
                       "AND acknowledged = ''", (change.by, change.position, change.table))
    elif isinstance(change, Noted):
        if change.shuffler is not None:
            cursor.execute("UPDATE {tables} SET shuffler = ? WHERE name = ?", (change.shuffler, change.table))
        if change.correction is not None:
            cursor.execute("UPDATE {tables} SET correction = ? WHERE name = ?", (change.correction, change.table))


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
