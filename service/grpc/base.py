"""What every RPC of the servicer shares: the calling station, where its work runs (on the event loop for the sole
writer of an SQLite file, else on the thread pool), the wake-up of Watch streams when a command is stored, and each
table's game (a table deals one game for its whole life, R-CIRC-5, and a name is never reused)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from uuid import UUID
from zoneinfo import ZoneInfo

import grpc
from eventsourcing.persistence import Recording

from domain.games import Game, game_of
from domain.integrity.monitor import MonitorSettings
from service.app.application import PokerTables, Viewer
from service.app.hole_card_views import SeenViews
from service.grpc.errors import UNAUTHENTICATED_MESSAGE, _StatusError
from service.grpc.hardening import bearer_token, session_of
from service.grpc.stations import Stations

WATCH_SAFETY_POLL_SECONDS = 30.0
"""A Watch stream looks at its table now and then even when nothing woke it (a safety net): its own instance's
commands wake it, and on PostgreSQL the instance's follower wakes it for every other instance's."""
T = TypeVar("T")


EVERY_TABLE = ""
"""The Watch stream of every table (the pit's floor): the request names no table."""


class ServicerBase:
    """The application, the stations, and the machinery of the RPCs."""

    def __init__(self, app: PokerTables, stations: Stations, executor: ThreadPoolExecutor, *,
                 shufflers: MonitorSettings | None = None, zone: ZoneInfo | None = None) -> None:
        self.app, self.stations, self.executor = app, stations, executor
        self.shufflers = shufflers or MonitorSettings()
        """The shuffler integrity monitor's settings (``pokertable serve``'s ``shuffler_*``; ListShufflers)."""
        self.zone = zone
        """The casino's time zone: ListShufflers' and ListDealerFigures' default range is its current shift (UTC's
        when None)."""
        self._stored: dict[str, asyncio.Event] = {}  # by table: set (and replaced) when a command of it is stored
        self._games: dict[str, Game] = {}  # by table name: its game never changes
        self._latest: dict[str, tuple[str, int]] = {}  # by table name: its newest hand's id and number
        self._owners: dict[UUID, str] = {}  # the floor's stream: each table's and hand's id -> the table's name
        self._owners_next: dict[str, tuple[UUID, int]] = {}  # by table name: its next hand's id and number
        self._owners_position = 0  # the log position the owners were last learnt at
        self._namespaces: dict[str, UUID] = {}  # by table name: its hands' namespace (domain.tables.TableRecord)
        self._owners_lock = threading.Lock()
        self._loop, self._loop_thread = asyncio.get_running_loop(), threading.get_ident()
        app.on_stored = self._stored_now
        # Watch streams wake when this instance stores a command of their table. Other instances' commands (several
        # services on one PostgreSQL) are found by polling; the sole writer of an SQLite file has no others, so its
        # streams only look now and then, as a safety net: 200 idle streams polling every 50 ms kept a core busy.
        # On PostgreSQL one reader of the log per instance wakes them for other instances' commands (LISTEN/NOTIFY,
        # service.store.follower): 500 idle streams polling every 50 ms had kept a core busy.
        self.poll = WATCH_SAFETY_POLL_SECONDS
        self.follower = app.follower(self._owner_of, self._wake, lambda: bool(self._stored))
        self._following = None if self.follower is None else asyncio.ensure_future(self.follower.run(executor))
        self._after_save = app.after_save  # the head signer's, if any: still told first
        if self.follower is not None:
            app.after_save = self._saved
        # The sole writer of an SQLite file applies a command on the event loop itself: the work is a fraction of a
        # millisecond of Python plus one fsync'd commit, and SQLite writes one transaction at a time anyway, while
        # the hop to a worker thread and back costs two thread wake-ups (≈ 0.5 ms a command on a 2-core machine;
        # in one A/B of benchmarks/service.py's client, 200 tables flat out ran at 296/s on worker threads and
        # 542/s on the loop). On PostgreSQL a commit waits on the network and commits of different tables overlap,
        # so the work goes to the thread pool (on the loop it measured 232 against 290 commands/s, 16 tables).
        self.inline = app.sole_writer
        self.draining = False
        """The service is stopping: Watch streams end UNAVAILABLE (the station resumes at this or another instance)."""
        self.seen_views = SeenViews()
        """The live views of face-down cards recorded (issue 29, item 7): a page polled every second, or a stream's
        every message, records nothing more, and asks nothing of the store."""

    def drain(self) -> None:
        """The service stops: every Watch stream wakes and ends with UNAVAILABLE, naming its position."""
        self.draining = True
        for stored in list(self._stored.values()):
            stored.set()

    async def _run(self, context: grpc.aio.ServicerContext[Any, Any], work: Callable[[Viewer], T], *,
                   offload: bool = False) -> T:
        """``work`` for who calls: the calling station, and (once the staff are in force) the person signed in there
        whose session the call presents (:meth:`service.app.sessions.Sessions.resolve`; issue 32); ``offload``: a long
        read, always on the thread pool."""
        station = self._viewer(context)
        session = session_of(context.invocation_metadata())  # type: ignore[arg-type]
        sessions = self.app.sessions

        def attributed() -> T:
            return work(sessions.resolve(station, session))

        if self.inline and not offload:
            return attributed()  # a command's record names the dealer of its station's table: PokerTables.handle
        return await asyncio.get_running_loop().run_in_executor(self.executor, attributed)

    async def _offloaded(self, work: Callable[[], T]) -> T:
        """``work`` on the thread pool (a PIN's check: ≈ 0.1 s of Argon2id, never on the event loop)."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, work)

    def _unrecorded(self, viewer: Viewer, shown: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
        """Of the hands (table, number) whose face-down cards ``viewer`` is shown live, those this service has not
        recorded yet (R-AUD-1)."""
        return sorted({(table, number) for table, number in shown if (viewer.station, table, number)
                       not in self.seen_views})

    def _record_views(self, shown: Iterable[tuple[str, int]], via: str, viewer: Viewer) -> None:
        """R-AUD-1: record (once per viewer, table and hand) that ``viewer`` is shown, through the call ``via``, the
        face-down cards of the live hands ``shown`` (table, number), before they are sent (issue 29, item 7): a
        record that fails fails the call, and nothing is shown unrecorded."""
        for table, number in self._unrecorded(viewer, shown):
            self.app.hole_cards.record_view(viewer, table, number, via)
            self.seen_views.add((viewer.station, table, number))

    def _game(self, table: str) -> Game:
        """The game a table deals (:class:`NotFoundError` for no such table), remembered after the first read."""
        game = self._games.get(table)
        if game is None:
            game = self._games[table] = game_of(self.app.any_table(table))
        return game

    def _started(self, table: str, hand_id: str, number: int) -> None:
        """A hand was started (or found): the table's newest, whose commands come next."""
        self._latest[table] = (hand_id, number)

    def _hand_number(self, table: str, hand_id: str) -> int:
        """The number of one of a table's hands by its id: the newest hand's from memory, else from the table."""
        latest = self._latest.get(table)
        if latest is not None and latest[0] == hand_id:
            return latest[1]
        record = self.app.any_table(table)
        wanted = UUID(hand_id)
        for number in range(record.hands_started, 0, -1):
            if record.hand_id(number) == wanted:
                if number == record.hands_started:
                    self._started(table, hand_id, number)
                return number
        return 0

    def _stored_event(self, table: str) -> asyncio.Event:
        """What a watch stream of ``table`` waits on: set when a command of the table is stored here."""
        return self._stored.setdefault(table, asyncio.Event())

    def _stored_now(self, table: str) -> None:
        """The application stored a command of ``table`` (on whichever thread): its streams look, on the loop.

        Nothing to do when no stream waits on the table: a stream registers before it scans, and the command was
        committed before this call, so a stream that registers meanwhile finds the command in its scan. A command
        applied on the loop itself wakes the streams directly, without writing to the loop's wake-up pipe."""
        if table not in self._stored and EVERY_TABLE not in self._stored:
            return
        # Several instances: the follower kept this instance's own events when they were stored (or reads them, when
        # another instance's came between), so the table's streams find them in what it kept.
        if threading.get_ident() == self._loop_thread:
            self._wake(table)
        else:
            self._loop.call_soon_threadsafe(self._wake, table)

    def _saved(self, recordings: list[Recording[UUID]]) -> None:
        """The application stored events (on the storing thread): the signer counts them, the follower keeps them
        as this instance's own (or reads them, when they do not follow what it kept)."""
        if self._after_save is not None:
            self._after_save(recordings)
        if self.follower is not None and not self.follower.note_stored(recordings):
            self.follower.wake()

    async def stop_following(self) -> None:
        """Stop the instance's follower of the log (and its LISTEN connection), once the calls are done."""
        if self.app.after_save == self._saved:
            self.app.after_save = self._after_save
        if self._following is not None:
            self._following.cancel()
            await asyncio.wait((self._following,))

    def _owner_of(self, originator: UUID, position: int) -> str | None:
        """The table an event's originator belongs to (None: no table's); :mod:`service.grpc.streams` knows."""
        raise NotImplementedError

    def _wake(self, table: str) -> None:
        for watched in (table, EVERY_TABLE):  # a floor's stream (every table) wakes with each table's
            stored = self._stored.pop(watched, None)
            if stored is not None:
                stored.set()

    def _viewer(self, context: grpc.aio.ServicerContext[Any, Any]) -> Viewer:
        token = bearer_token(context.invocation_metadata())  # type: ignore[arg-type]
        viewer = self.stations.by_token.get(token) if token is not None else None
        if viewer is None:  # StationGate refused the call already; this holds without it too
            raise _StatusError(grpc.StatusCode.UNAUTHENTICATED, UNAUTHENTICATED_MESSAGE, "R-AUD-1")
        return viewer
