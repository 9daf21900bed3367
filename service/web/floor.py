"""The live floor (issue 16, item 1): every table of the casino, kept current from one Watch stream of every table.

The floor starts from the present (issue 30): the open alerts and each table's notes as of a log position
(``GetFloor``, from the floor's projection of the log), then follows the log from there (``Watch`` naming no table,
as an observer: the floor shows no card; what a change means is :func:`domain.floor_log.changes`'s) and, while
anything changes, reads the tables' summaries again (one ``ListTables``) at most ten times a second; a Texas
Hold'em Bonus table that changed is asked whether its 1000:1 waits for the games director.  Each table's row says
its game, status, hand, chips in play, hands in the last hour, the deck in play and the shuffler's last report, open
alerts and the decision that waits for the pit.  Dashboards are told when rows moved; twenty cost what one does.

The floor's alerts are what the tables' logs say (docs/pit.md): a device fault (a shuffler jam, a refused or
irregular shoe read: ``RecordDeviceReport`` of kind ``fault``) and a void; and tampering the service's audit found in
the log (R-AUD-1: an alert of no table, the casino's log itself).  Each alert is identified by the log
position of the event that raised it; it stays open until an authorised role acknowledges it, which is itself an
event of the table (``AcknowledgeAlert``) that the floor reads back from the stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from domain.floor_log import EVENTS, AlertAcknowledged, AlertRaised, HandStarted, LogEntry, Noted, changes
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.waiting import woken
from service.web.api import Api, RefusedError, timestamp
from service.web.clock import CasinoClock
from service.web.floor_rows import DEFAULT_THRESHOLDS, HOUR, Alert, Row, Thresholds, by_table

REFRESH_PAUSE = 0.1
"""The least time between two reads of the tables' summaries (a busy floor is read at most ten times a second)."""
REFRESH_SHARE = 0.1
"""The most of the time the floor spends reading the tables' summaries: after a read that took ``t`` seconds the next
waits at least ``t / REFRESH_SHARE`` (a large busy floor is read less often rather than slow the tables' commands),
but never more than :data:`MAX_PAUSE`."""
MAX_PAUSE = 1.0
IDLE_AFTER = 120.0
"""Seconds after the last dashboard request (a page, or a live stream still open) that the floor stops reading the
tables' summaries (its Watch stream goes on: the alerts and the devices are never missed); the next request has them
read again before its page is drawn."""
THRESHOLDS_EVERY = 15.0
"""Seconds between two looks at the thresholds time alone crosses (:meth:`Floor._tick`)."""
CATCH_UP_WAIT = 2.0
"""The most a page waits for the tables' summaries of a floor nobody looked at (then it shows what it has)."""
LOG = ""
"""The table of an alert of the casino's log itself (tampering found by the service's audit, R-AUD-1)."""


def _when(stamp: Timestamp) -> float:
    return stamp.seconds + stamp.nanos / 1e9


ONEOF_EVENTS = {re.sub(r"(?<!^)(?=[A-Z])", "_", name.replace(".", "")).lower(): name for name in EVENTS}
"""Each Watch event's case the floor follows (``table_device_reported``, as events.proto names the case of
``Table.DeviceReported``) → its event."""


def watched_entry(change: svc.WatchResponse) -> LogEntry | None:
    """A change of the Watch stream as the log's entry it is (its event's fields, an unset optional one None)."""
    kind = change.event.WhichOneof("event") or ""
    name = ONEOF_EVENTS.get(kind)
    if name is None:
        return None
    body = getattr(change.event, kind)
    data = {field.name: (getattr(body, field.name) if not field.has_presence or body.HasField(field.name) else None)
            for field in body.DESCRIPTOR.fields}
    return LogEntry(change.position, change.timestamp.ToDatetime(tzinfo=UTC), change.aggregate_id, name, data)


STATUS = {pb.TABLE_STATUS_BETWEEN_HANDS: "between-hands", pb.TABLE_STATUS_HAND_IN_PROGRESS: "hand-in-progress",
          pb.TABLE_STATUS_CLOSED: "closed"}
COLOURS = {pb.DECK_COLOUR_RED: "red", pb.DECK_COLOUR_BLUE: "blue"}


class Floor:
    """Every table, live; ``wait_change`` tells subscribers when rows moved."""

    def __init__(self, api: Api, token: str, *, pause: float = REFRESH_PAUSE,
                 clock: Callable[[], float] = time.time, idle_after: float | None = IDLE_AFTER,
                 zone: tzinfo = UTC, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> None:
        self.api, self.token, self.pause, self.clock, self.idle_after = api, token, pause, clock, idle_after
        self.thresholds = thresholds
        """What the casino wants flagged (the service's settings): an alert escalated, a long hand, a slow or fast
        table; looked at again every :data:`THRESHOLDS_EVERY` seconds, as time alone crosses them."""
        self.casino = CasinoClock(zone)
        """The casino's clock: an alert's time as the pit reads it (issue 34, item 1)."""
        self.position = 0
        """The log position the floor has followed to (its Watch stream resumes after it when it breaks)."""
        self._wanted_until = 0.0  # the tables are read once a dashboard asks (want), and while dashboards look
        self._asked = asyncio.Event()  # a dashboard asked for the floor while it slept
        self._fresh = asyncio.Event()  # the tables' summaries were read since the floor last woke (cleared asleep)
        self.rows: dict[str, Row] = {}
        self.alerts: list[Alert] = []
        self.version = 0
        self._moved = asyncio.Event()  # set (and replaced) each time the floor moves
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._drawn: dict[str, dict[str, Any]] = {}  # each table's row as last drawn
        self._drawn_version = -1
        self._touched: set[str] = set()  # the tables whose rows are to be drawn again

    # -- reading the tables -------------------------------------------------------------------------

    async def run(self) -> None:
        """Follow every table until cancelled: one Watch stream of the whole floor (its alerts, devices, hands
        started), and, while dashboards look at the floor (:meth:`want`), the tables' summaries read again (one
        ``ListTables``) at most every ``pause`` seconds while anything changes, and at most
        :data:`REFRESH_SHARE` of the time. Nobody looking for ``idle_after`` seconds, the summaries are not read;
        the next request has them read again first."""
        follower = asyncio.ensure_future(self._watch())
        ticker = asyncio.ensure_future(self._tick())
        self._tasks.add(ticker)
        try:
            while True:
                self._asked.clear()
                if not self._wanted():
                    await self._asked.wait()
                await self._follow()
        finally:
            follower.cancel()
            for task in self._tasks:
                task.cancel()

    async def _tick(self) -> None:
        """Time alone crosses a threshold (a hand goes on, an alert waits): every :data:`THRESHOLDS_EVERY` seconds
        the rows whose flags changed are drawn again, and the dashboards told."""
        while True:
            await asyncio.sleep(THRESHOLDS_EVERY)
            now = self.clock()
            open_alerts = by_table(self.open_alerts())
            for row in self.rows.values():
                drawn = self._drawn.get(row.table)
                flags = ("; ".join(english for english, _ in row.crossed(now, self.thresholds)),
                         any(self.thresholds.escalated(alert, now) for alert in open_alerts.get(row.table, [])))
                if drawn is not None and (drawn["thresholds"], drawn["escalated"]) != flags:
                    self._touched.add(row.table)
            if self._touched:
                await self._touch()

    async def _follow(self) -> None:
        """Read the tables' summaries as they change while the floor is wanted."""
        self._wake.set()
        try:
            while self._wanted():
                await woken(self._wake, self._wanted_until - time.monotonic() if self.idle_after else None)
                if not self._wake.is_set():
                    continue  # no change, and nobody looked meanwhile: the loop asks whether the floor is wanted
                self._wake.clear()
                started = time.monotonic()
                try:
                    await self._refresh()
                    self._fresh.set()
                except RefusedError:
                    self._wake.set()
                await asyncio.sleep(min(MAX_PAUSE, max(self.pause, (time.monotonic() - started) / REFRESH_SHARE)))
        finally:
            self._fresh.clear()

    def _wanted(self) -> bool:
        return self.idle_after is None or time.monotonic() < self._wanted_until

    async def want(self) -> None:
        """A dashboard looks at the floor: it reads the tables' summaries for ``idle_after`` seconds more; woken
        from sleep, it is given up to :data:`CATCH_UP_WAIT` seconds to read them again."""
        if self.idle_after is None:
            return
        self._wanted_until = time.monotonic() + self.idle_after
        if self._fresh.is_set():
            return
        self._asked.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._fresh.wait()), CATCH_UP_WAIT)

    async def _start(self) -> None:
        """The floor as of the present (issue 30): the open alerts and each table's notes, from the floor's
        projection, and the log position they are as of, which the Watch stream follows from (not the log's start:
        a dashboard's start costs what is open, not a year of the log)."""
        while True:
            try:
                floor: svc.GetFloorResponse = await self.api.call("GetFloor", svc.GetFloorRequest(), self.token)
                break
            except RefusedError:
                await asyncio.sleep(1.0)
        self.alerts = [Alert(alert.table, alert.position, self.casino.local(alert.at), alert.kind, alert.text,
                             _when(alert.at)) for alert in floor.alerts]
        for noted in floor.tables:
            row = self._row(noted.table)
            row.shuffler, row.correction = noted.shuffler, noted.correction
            self._touched.add(noted.table)
        self.position = max(self.position, floor.position)
        self._wake.set()

    async def _watch(self) -> None:
        """Every table's changes from the present (its alerts and devices), resumed where it broke."""
        if not self.position:
            await self._start()
        while True:
            try:
                async for change in self.api.watch(self.token, "", self.position):
                    self.position = change.position
                    self._note(change)
                    if change.table:  # not the casino's log itself (tampering the service's audit found)
                        self._row(change.table)
                        self._dirty.add(change.table)
                        self._touched.add(change.table)
                    self._wake.set()
            except RefusedError:
                await asyncio.sleep(1.0)

    async def _refresh(self) -> None:
        """The tables' summaries; the decision a Texas Hold'em Bonus table that changed may wait for."""
        dirty, self._dirty = self._dirty, set()
        first = not self.rows or any(not row.game for row in self.rows.values())  # a table not summed up yet
        for summary in await self.api.tables(self.token, None if first else dirty):
            row = self.rows.get(summary.table)
            if row is None or not row.game:
                row = self.rows[summary.table] = Row(summary.table, summary.game, summary.family,
                                                     started=row.started if row else deque())
                task = asyncio.ensure_future(self._recent_hands(row))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            row.status, row.hand_number = STATUS.get(summary.status, ""), summary.hand_number
            if summary.holds:  # R-HOLD-1: no hand starts until the pit acknowledges each alert holding it
                row.status += f", HELD by {len(summary.holds)} alert{'s' if len(summary.holds) > 1 else ''}"
            row.hands_started, row.chips_in_play = summary.hands_started, summary.chips_in_play
            row.holds, row.dealer = len(summary.holds), summary.dealer_name or summary.dealer_id
            row.seats, row.seat_count = summary.seats, summary.seat_count
            row.opened = _when(summary.opened) if summary.HasField("opened") else 0.0
            row.deck = COLOURS.get(summary.deck_colour, "") if summary.HasField("deck_colour") else ""
            row.position = max(row.position, summary.position)
            self._touched.add(row.table)
        for table in dirty & {row.table for row in self.rows.values() if row.game == pb.GAME_HOLDEM_BONUS}:
            legal = await self.api.legal(self.token, table)
            row = self.rows[table]
            row.bonus_box = legal.seat if pb.ACTION_KIND_APPROVE_BONUS in legal.allowed else 0
            self._touched.add(table)
        now = self.clock()
        for row in self.rows.values():
            row.note_waiting(now)
        await self._touch()

    async def _recent_hands(self, row: Row) -> None:
        """The hands started in the last hour, for hands per hour."""
        since = timestamp(datetime.now(UTC) - timedelta(seconds=HOUR))
        with contextlib.suppress(RefusedError):
            found: svc.SearchHandsResponse = await self.api.call(
                "SearchHands", svc.SearchHandsRequest(table=row.table, since=since), self.token)
            known = set(row.started)
            row.started.extend(sorted(set(_when(hand.started) for hand in found.hands) - known))
            row.started = deque(sorted(row.started))
            self._touched.add(row.table)
            await self._touch()

    def _note(self, change: svc.WatchResponse) -> None:
        """What a change says beyond the table's summary (:func:`domain.floor_log.changes`, as the floor's
        projection reads the log): hands started, the shuffler's reports, alerts and their acknowledgements, a
        correction asked and decided."""
        entry = watched_entry(change)
        if entry is None:
            return
        for found in changes(entry, lambda _: change.table, lambda _: change.table):
            if isinstance(found, AlertRaised):
                self.alerts.append(Alert(found.table, found.position, self.casino.local(found.at), found.kind,
                                         found.text, found.at.timestamp()))
            elif isinstance(found, AlertAcknowledged):
                self._acknowledged(found.table, found.position)
            elif isinstance(found, Noted):
                row = self._row(found.table)
                row.shuffler = found.shuffler if found.shuffler is not None else row.shuffler
                row.correction = found.correction if found.correction is not None else row.correction
            elif isinstance(found, HandStarted):
                row = self._row(found.table)
                when = found.started.timestamp()
                if not row.started or when > row.started[-1]:
                    row.started.append(when)

    def _row(self, table: str) -> Row:
        return self.rows.get(table) or self.rows.setdefault(table, Row(table))

    def _acknowledged(self, table: str, position: int) -> None:
        """An alert acknowledged leaves the floor (the floor keeps what is open: a table's alerts of a shift,
        acknowledged or not, are ``ListAlerts``')."""
        self.alerts = [alert for alert in self.alerts if (alert.table, alert.position) != (table, position)]

    async def _touch(self) -> None:
        self.version += 1
        moved, self._moved = self._moved, asyncio.Event()
        moved.set()

    def close(self) -> None:
        """Wake every waiting stream for the last time (the service stops)."""
        self._moved.set()

    async def wait_change(self, version: int, timeout: float) -> int:
        """Wait until the floor moved past ``version`` (or ``timeout`` seconds); the version now. A live stream
        waiting keeps the floor's summaries read (:meth:`want`). No lock is held while waiting: an asyncio.Condition
        waited on with a timeout could not be cancelled cleanly at the service's stop (Python 3.11: its lock re-taken
        in a loop that swallowed the cancellation, the process never exited)."""
        await self.want()
        if self.version <= version:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._moved.wait(), timeout)
        return self.version

    # -- what the dashboards show ---------------------------------------------------------------------

    def open_alerts(self, table: str | None = None) -> list[Alert]:
        """The alerts nobody acknowledged yet (of one table, or every table)."""
        return [alert for alert in self.alerts if table is None or alert.table == table]

    async def decided(self, table: str, kind: str) -> None:
        """A decision the service took from a dashboard (``bonus``, ``correction``) leaves the queue at once, on every
        open dashboard (their streams are told); the next reading of the tables confirms it."""
        row = self.rows.get(table)
        if row is None:
            return
        if kind == "bonus":
            row.bonus_box = 0
        elif kind == "correction":
            row.correction = ""
        row.note_waiting(self.clock())
        self._touched.add(table)
        self._dirty.add(table)
        self._wake.set()
        await self._touch()

    def waiting(self) -> list[Row]:
        """The tables where a decision waits for the pit (a 1000:1 bonus, a correction)."""
        return [row for row in self.rows.values() if row.waiting]

    def digest(self, key: str) -> str:
        """What the queue pages show of the floor, as a string the page's script compares with the stream's rows to
        know when to redraw (``waiting``: the decisions waiting; ``alerts``: the open alerts by table)."""
        rows = sorted((row["table"], row[key]) for row in self.snapshot() if row[key])
        log = len(self.open_alerts(LOG)) if key == "alerts" else 0  # the casino log's own alerts (no row)
        return "|".join([f"{table}:{value}" for table, value in rows] + ([f"log:{log}"] if log else []))

    def snapshot(self) -> list[dict[str, Any]]:
        """Every row as the floor page shows it, in opening order. A row is drawn again only when its table
        changed (the same object otherwise: a dashboard's stream sends the rows that are not what it sent)."""
        if self._drawn_version != self.version or len(self._drawn) != len(self.rows):
            now = self.clock()
            open_alerts = by_table(self.open_alerts())
            for order, row in enumerate(self.rows.values()):
                if row.table in self._touched or row.table not in self._drawn:
                    self._drawn[row.table] = row.drawn(order, now, open_alerts.get(row.table, []), self.thresholds)
            self._touched.clear()
            self._drawn_version = self.version
        return [self._drawn[table] for table in self.rows]

