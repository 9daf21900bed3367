"""The hash chain's store: the SQLite application recorder that chains each event it inserts, in the same transaction
(R-AUD-1), refuses positions below 1, and loads an aggregate only from events whose links check, and what both stores
share (the link's formula, checking a link, the rows read back); the PostgreSQL one is
:mod:`service.store.chain_postgres`.

The formula and how the log is checked are described in :mod:`service.store.audit`.
"""

from __future__ import annotations

import bisect
import hashlib
import struct
import threading
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Notification, StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor

GENESIS = bytes(32)
PAGE = 1000
LOWEST = -(2**63)
"""Where ``verify`` starts reading: below any position a row could have been given."""
_HIGHEST = 2**63 - 1
REFUSED = "a log position is 1 or more (R-AUD-1)"


Timed = Callable[[int | None], tuple[Sequence[StoredEvent], Sequence[int]]]
"""What a write timed under the insert lock is given: the time of the log's last event (None: none has one) → the
events to insert and their times (:meth:`ChainedSQLiteRecorder.insert_events_timed_under_lock`)."""

Committed = Callable[[Sequence[int], bytes], None]
"""What a chaining recorder tells after each commit: the events' positions and the chain hash at the last of them,
computed by this process from the events it sent."""


class LogTimeBehindError(RuntimeError):
    """An insert whose first event is timed before the last event in the log (issue 29, item 4): nothing of it was
    written; ``last`` is that event's time (microseconds since the epoch), for the events to be timed again from it
    (:class:`service.store.log_time.OrderedEventStore`)."""

    def __init__(self, last: int) -> None:
        super().__init__(f"an event is timed before the last one in the log ({last} µs after the epoch): timed again")
        self.last = last


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


SPARSE = 4
"""A page of notifications more than this many positions apart on average (a page of a few topics: the dealers'
figures, the floor's follower) is checked against its own links, read by position, not every link of its span."""


class CheckedNotifications(ApplicationRecorder):
    """How both chaining recorders read the log: each page of notifications checked against the links around it
    (the recorder's :meth:`_links_around`), or, for ``audit verify`` to judge, as stored. Mixed in before a concrete
    recorder, whose ``select_notifications`` reads the page."""

    def select_notifications(self, start: int | None, limit: int, stop: int | None = None,
                             topics: Sequence[str] = (), *, inclusive_of_start: bool = True) -> Sequence[Notification]:
        """Notifications in log order, each checked against its link (``audit verify`` reads them unchecked)."""
        found: Sequence[Notification] = super().select_notifications(  # type: ignore[safe-super]  # a concrete one's
            start, limit, stop, topics, inclusive_of_start=inclusive_of_start)
        if not found:
            return found
        if len(found) * SPARSE < found[-1].id - found[0].id + 1:  # a page of a few topics: its own links only
            links = {position: (link, previous) for position, link, previous in self._links_of(
                [notification.id for notification in found])}
            for notification in found:
                link, previous = links.get(notification.id, (None, None))
                check_link(notification.id, notification, link, previous)
            return found
        return _checked_notifications(found, self._links_around(found[0].id, found[-1].id))

    def unchecked_notifications(self, start: int, limit: int, stop: int | None = None) -> Sequence[Notification]:
        """Notifications in log order as stored (up to ``stop``, if given), for ``audit verify`` to judge."""
        found: Sequence[Notification] = super().select_notifications(start, limit, stop)  # type: ignore[safe-super]
        return found

    def _links_around(self, first: int, last: int) -> list[tuple[int, bytes]]:
        """The links from the one before position ``first`` to ``last``."""
        raise NotImplementedError

    def _links_of(self, positions: Sequence[int]) -> list[tuple[int, bytes, bytes | None]]:
        """The link at each of ``positions`` that has one, with the link before it (None for the first)."""
        raise NotImplementedError


class ChainedSQLiteRecorder(CheckedNotifications, SQLiteApplicationRecorder):
    """The SQLite application recorder, chaining each event it inserts, refusing positions below 1, and loading
    aggregates only from events whose links check."""

    @property
    def chain_table(self) -> str:
        return f"{self.events_table_name}_chain"

    def construct_create_table_statements(self) -> list[str]:
        events, chain = self.events_table_name, self.chain_table
        return [*super().construct_create_table_statements(),
                f"CREATE TABLE IF NOT EXISTS {chain} (position INTEGER PRIMARY KEY CHECK (position >= 1), "
                "hash BLOB NOT NULL, logged INTEGER)",
                # an SQLite CHECK cannot name the rowid, and a table made before this cannot take one: triggers
                *(f"CREATE TRIGGER IF NOT EXISTS {table}_position_{when.lower()} AFTER {when} ON {table} "
                  f"FOR EACH ROW WHEN NEW.{column} < 1 BEGIN SELECT RAISE(ABORT, '{REFUSED}'); END"
                  for table, column in ((events, "rowid"), (chain, "position")) for when in ("INSERT", "UPDATE"))]

    def create_table(self) -> None:
        """The tables, and the chain's ``logged`` column added to a chain made by an earlier version (its rows
        keep none: no order of times is asked of them)."""
        super().create_table()
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"PRAGMA table_info({self.chain_table})")
            if "logged" not in {row[1] for row in c.fetchall()}:
                c.execute(f"ALTER TABLE {self.chain_table} ADD COLUMN logged INTEGER")

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

    def _links_around(self, first: int, last: int) -> list[tuple[int, bytes]]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT position, hash FROM {self.chain_table} WHERE position <= ? AND position >= (SELECT "
                      f"COALESCE(MAX(position), 1) FROM {self.chain_table} WHERE position < ? AND position >= 1) "
                      "ORDER BY position", (last, first))
            return [(int(row[0]), bytes(row[1])) for row in c.fetchall()]

    def _links_of(self, positions: Sequence[int]) -> list[tuple[int, bytes, bytes | None]]:
        chain = self.chain_table
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT c.position, c.hash, (SELECT p.hash FROM {chain} p WHERE p.position < c.position AND "
                      f"p.position >= 1 ORDER BY p.position DESC LIMIT 1) AS previous FROM {chain} c WHERE c.position "
                      f"IN ({', '.join('?' * len(positions))})", tuple(positions))
            return [(int(row[0]), bytes(row[1]), None if row[2] is None else bytes(row[2])) for row in c.fetchall()]

    def position_of(self, originator_id: UUID, version: int) -> int | None:
        """The log position of an aggregate's event of ``version`` (an alert is named by it), or ``None``."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT rowid FROM {self.events_table_name} WHERE originator_id = ? AND originator_version = ?",
                      (originator_id.hex, version))
            row = c.fetchone()
            return int(row[0]) if row else None

    def event_at(self, position: int) -> tuple[UUID, int] | None:
        """The aggregate and version of the event at log ``position`` (one point read), or ``None`` (a gap)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT originator_id, originator_version FROM {self.events_table_name} WHERE rowid = ?",
                      (position,))
            row = c.fetchone()
            return (UUID(row[0]), int(row[1])) if row else None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last: tuple[int, bytes, int | None] | None = None
        """The last link this recorder committed (position, hash, the time of its event): the link before the next
        insert's first event when that event's position follows it at once, read again from the chain table
        otherwise."""
        self._linked = threading.local()  # the last link of the transaction in progress on this thread
        self.committed: Committed | None = None
        """Told of each commit once it is durable: its positions and the last link as this process computed it
        (:class:`service.store.claims.OwnWrites`: what the service's signed heads claim)."""

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        """Insert and chain the events in one transaction; the last link is remembered once it is committed.
        ``times`` (keyword; microseconds since the epoch, one an event, in order): the events' times, refused with
        :class:`LogTimeBehindError` (nothing written) if the first is before the last event's in the log.

        Remembering is safe without a sole writer: positions are the events table's rowids, each new one above
        the highest there, so an insert whose first position follows the remembered one at once has no event of
        anyone else's between them; an insert that rolled back left nothing remembered (its position is taken
        again, and the link before it is read)."""
        return self._remembered(lambda: super(ChainedSQLiteRecorder, self).insert_events(stored_events, **kwargs))

    def _remembered(self, insert: Callable[[], Sequence[int] | None]) -> Sequence[int] | None:
        """Run one transaction's ``insert``; the last link it chained remembered once it is committed (none if it
        rolled back), and :attr:`committed` told."""
        self._linked.link = None
        try:
            positions = insert()
        except BaseException:
            self._last = None
            raise
        self._last = self._linked.link
        if positions and self._last is not None and self.committed is not None:
            self.committed(positions, self._last[1])
        return positions

    def insert_events_timed_under_lock(self, timed: Timed, **kwargs: Any) -> Sequence[int] | None:
        """Insert events timed once the database's write lock is held (issue 29, item 4): in one transaction a write
        takes the lock, the time of the log's last event is read, ``timed`` makes the events and their times, and
        they are inserted: no other writer can come in between. What a write does when its first try was refused."""
        def insert() -> Sequence[int] | None:
            with self.datastore.transaction(commit=True) as c:
                # a write that changes nothing: SQLite's write lock from here to the commit
                c.execute(f"UPDATE {self.chain_table} SET logged = logged WHERE position = 0")
                c.execute(f"SELECT logged FROM {self.chain_table} ORDER BY position DESC LIMIT 1")
                row = c.fetchone()
                stored_events, times = timed(None if row is None or row[0] is None else int(row[0]))
                return self._insert_events(c, stored_events, times=times, **kwargs) if stored_events else []

        return self._remembered(insert)

    def _insert_events(self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], *,
                       times: Sequence[int] | None = None, **kwargs: Any) -> Sequence[int] | None:
        positions = super()._insert_events(c, stored_events, **kwargs)  # the write lock is held from here
        if positions:
            last = self._last
            if last is not None and last[0] == positions[0] - 1:
                previous, logged = last[1], last[2]
            else:
                c.execute(f"SELECT hash, logged FROM {self.chain_table} ORDER BY position DESC LIMIT 1")
                row = c.fetchone()
                previous, logged = (bytes(row[0]), row[1]) if row else (GENESIS, None)
            if times is not None and logged is not None and times[0] < logged:
                raise LogTimeBehindError(int(logged))  # the transaction rolls back
            rows = links(previous, positions, stored_events)
            stamped = list(times) if times is not None else [None] * len(rows)
            c.executemany(f"INSERT INTO {self.chain_table} (position, hash, logged) VALUES (?, ?, ?)",
                          [(position, hashed, at) for (position, hashed), at in zip(rows, stamped, strict=True)])
            self._linked.link = (*rows[-1], stamped[-1])
        return positions

    def chain(self, start: int, stop: int | None = None) -> list[tuple[int, bytes]]:
        """A page of the chain from ``start`` (up to ``stop``, if given)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT position, hash FROM {self.chain_table} WHERE position >= ? AND position <= ? "
                      "ORDER BY position LIMIT ?", (start, _HIGHEST if stop is None else stop, PAGE))
            return [(int(row[0]), bytes(row[1])) for row in c.fetchall()]

    def link_at(self, position: int) -> bytes | None:
        """The chain's hash at ``position`` (``None``: no link there)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT hash FROM {self.chain_table} WHERE position = ?", (position,))
            row = c.fetchone()
            return bytes(row[0]) if row else None

    def head(self) -> tuple[int, bytes]:
        """The last link: its position and hash (0 and the genesis hash for an empty log)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT position, hash FROM {self.chain_table} ORDER BY position DESC LIMIT 1")
            row = c.fetchone()
            return (int(row[0]), bytes(row[1])) if row else (0, GENESIS)
