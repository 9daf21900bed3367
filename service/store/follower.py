"""One reader of the event log per service instance (issue 18, item 1): the Watch streams wait without polling.

Several instances of the service share one PostgreSQL database. A Watch stream must see the commands stored by any
of them; it used to poll the log every 50 ms, each stream on its own (500 idle streams: 98 % of a core, and every
command of the casino slowed from 3.9 to 401 ms). Now each instance has one :class:`LogFollower`:

- it is woken when this instance stores a command of a watched table, and by PostgreSQL's ``NOTIFY`` on the events
  table's channel (every insert sends one, whichever instance makes it, with the last position inserted), on a
  connection of its own that ``LISTEN``\\ s — except for this instance's own inserts, which it knows by the name
  of its recorder in their payload (:meth:`LogFollower.note_stored` keeps them as they are stored): their watched
  tables woke it already, and a read for each of them cost every command of the casino a quarter of its time while
  streams were open (an instance once told them by their positions, waiting 5 ms for the storing thread to say;
  under load it said later, and the follower read); and at least every
  :data:`SAFETY_POLL` seconds, for a notification lost with a dropped connection;
- woken, it reads the notifications stored since the last it read (only their ids and originators matter here),
  finds the tables they belong to, and wakes the streams of those tables (and the floors' streams) once;
- each woken stream reads its own table's changes from its own position, as before: a stream that falls behind
  resumes from its position, never skips, never repeats.

An idle casino costs one small query a second per instance, whatever the number of streams. The sole writer of an
SQLite file needs none of this: only its own commands can change the file, and they wake their streams directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.persistence import ApplicationRecorder, Notification

from domain.hole_card_views import TOPICS as VIEW_TOPICS
from service.store.chain import TamperedLogError
from service.waiting import woken

SAFETY_POLL = 1.0
"""Seconds between two reads of the log when nothing woke the follower (a NOTIFY lost with its connection)."""
PAGE = 500
"""Notifications read at a time."""
KEPT = 20_000
"""The notifications the follower keeps, newest last: a woken stream takes its table's from them without a query."""
LISTEN_RETRY = 1.0
"""Seconds before the listening connection is made again after it broke (the database restarted, a network cut)."""
_log = logging.getLogger(__name__)


class LogFollower:
    """The instance's reader of the log: wakes the streams of the tables whose events were stored, here or at any
    other instance. ``owner`` names the table an event's originator belongs to (None: no table's), ``wake`` wakes a
    table's streams (on the event loop)."""

    def __init__(self, recorder: ApplicationRecorder, owner: Callable[[UUID, int], str | None],
                 wake: Callable[[str], None], watched: Callable[[], bool], *,
                 safety_poll: float | None = None) -> None:
        self.recorder, self.owner, self.wake_table, self.watched = recorder, owner, wake, watched
        self.safety_poll = SAFETY_POLL if safety_poll is None else safety_poll
        self.position = 0
        self.reads = 0
        """Reads of the log made (for tests and benchmarks: an idle casino makes one a second)."""
        self.recent: deque[Notification] = deque()
        """The notifications read since :attr:`start`, every one the chain vouches for, oldest first."""
        self.start = 0
        """The log position the kept notifications follow (the position of the newest forgotten one)."""
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._stopped = threading.Event()
        self._stop_channel = f"pokertable_stop_{uuid4().hex[:16]}"
        """This follower's own channel: its stop NOTIFYs it, so that the listener ends at once, not at its next
        half-second timeout (every stop of a service on PostgreSQL waited for it)."""
        self._writer: str | None = getattr(recorder, "writer", None)
        """The name the recorder gives its inserts in their NOTIFY's payload (PostgreSQL)."""
        self._keep_lock = threading.Lock()
        """Held while the kept notifications change: by a read (a thread of the pool) and by note_stored (the storing
        threads)."""

    def wake(self) -> None:
        """Read the log now (from any thread): this instance stored a command, or another one did."""
        with contextlib.suppress(RuntimeError):  # the loop is closed: the service has stopped
            self._loop.call_soon_threadsafe(self._wake.set)

    def note_stored(self, recordings: Sequence[Any]) -> bool:
        """This instance stored these events (from the storing thread, once committed): the NOTIFY of their insert
        is its own, and when they follow what the follower kept they are kept at once, with no read. False when
        they do not (another instance's events came between, or a failed insert left a gap in the positions): the
        next read takes them."""
        if not recordings:
            return True
        notifications = sorted((recording.notification for recording in recordings), key=lambda n: int(n.id))
        last = int(notifications[-1].id)
        with self._keep_lock:
            if int(notifications[0].id) != self.position + 1 or last - self.position != len(notifications):
                return False
            if not self.watched():  # nobody to hand them to: move past them, keeping nothing (as a read does)
                self.recent.clear()
                self.position = self.start = last
                return True
            self._keep(notifications, last)
            return True

    def _keep(self, notifications: Sequence[Notification], reached: int) -> None:
        """Keep notifications that follow :attr:`position` (under the keeping lock), and move to ``reached``."""
        self.recent.extend(notification for notification in notifications if notification.id > self.position)
        while len(self.recent) > KEPT:
            self.start = self.recent.popleft().id
        self.position = max(self.position, reached)

    def _is_own(self, payload: str) -> bool:
        """Whether a notification's payload names this instance's recorder ("<last position> <writer>"): anything
        else — another instance's, an earlier version's (the position alone), another program's — is read."""
        _, _, writer = payload.partition(" ")
        return self._writer is not None and writer == self._writer

    async def run(self, executor: Executor | None) -> None:
        """Follow the log until cancelled, from its head as it is now (each stream reads its own history)."""
        loop = asyncio.get_running_loop()
        head: int | None = await loop.run_in_executor(executor, self.recorder.max_notification_id)
        self.position = self.start = head or 0
        listener = self._start_listening()
        try:
            while True:
                await woken(self._wake, self.safety_poll)
                self._wake.clear()
                try:
                    tables = await loop.run_in_executor(executor, self._read)
                except Exception as error:  # the store does not answer: the next wake or poll tries again
                    _log.warning("the log could not be read for the live streams: %s", error)
                    continue
                for table in tables:
                    self.wake_table(table)
        finally:
            self._stopped.set()
            if listener is not None:
                await loop.run_in_executor(None, self._stop_listening, listener)

    def _read(self) -> set[str]:
        """The tables with events stored since the last read (the position moves past them all)."""
        self.reads += 1
        if not self.watched():  # nobody to wake: move to the head without reading what is there
            head = int(self.recorder.max_notification_id() or 0)
            with self._keep_lock:
                # Asked again under the lock: a stream registers before it asks what is kept after its position, so
                # one that came during the head's query may have been told "nothing after" the old position and
                # waits to be woken; moving past what it never saw, waking nobody, left it waiting (a test's stream
                # at another instance waited past 30 s for a table's opening). It is read for, below.
                if not self.watched():
                    self.position = self.start = max(self.position, head)
                    self.recent.clear()
                    return set()
        tables: set[str] = set()
        while True:
            page, reached = vouched_page(self.recorder, self.position, PAGE)
            for notification in page:
                if isinstance(notification.originator_id, UUID) and notification.topic.startswith("domain.") \
                        and not notification.topic.startswith(VIEW_TOPICS):  # a view recorded is no table's
                    table = self.owner(notification.originator_id, notification.id)
                    if table is not None:
                        tables.add(table)
            with self._keep_lock:  # this instance's own may have been kept meanwhile (note_stored)
                self._keep(page, reached)
            if len(page) < PAGE:  # the head (or a page with tampered events left out: the next wake goes on)
                return tables

    def after(self, position: int) -> tuple[list[Notification], int] | None:
        """The kept notifications after ``position`` and the position they reach, taken together (on the loop: no
        query; the storing threads and a read may be keeping more meanwhile: a stream that read the reach apart
        from the notifications could move past some it never saw), or None when some after ``position`` are no
        longer kept (the stream reads them from the store)."""
        with self._keep_lock:
            if position < self.start:
                return None
            recent, reached = self.recent, self.position
            if not recent or recent[-1].id <= position:
                return [], reached
            at = _index_after(recent, position)
            return [recent[index] for index in range(at, len(recent))], reached

    # -- PostgreSQL's LISTEN -------------------------------------------------------------------------

    def _start_listening(self) -> threading.Thread | None:
        """A thread that LISTENs on the events table's channel (PostgreSQL only) and wakes the follower."""
        datastore: Any = getattr(self.recorder, "datastore", None)
        channel: str | None = getattr(self.recorder, "channel_name", None)
        pool = getattr(datastore, "pool", None)
        if channel is None or pool is None:
            return None
        kwargs = {key: value for key, value in dict(pool.kwargs).items() if key != "row_factory"}
        thread = threading.Thread(target=self._listen, args=(channel, kwargs), name="pokertable-listen",
                                  daemon=True)
        thread.start()
        return thread

    def _listen(self, channel: str, kwargs: dict[str, Any]) -> None:
        import psycopg
        from psycopg import sql

        while not self._stopped.is_set():
            try:
                with psycopg.connect(autocommit=True, connect_timeout=3, **kwargs) as conn:
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._stop_channel)))
                    self.wake()  # (re)connected: whatever was stored meanwhile is read now
                    while not self._stopped.is_set():
                        for notification in conn.notifies(timeout=0.5, stop_after=1):
                            if notification.channel == self._stop_channel:
                                break
                            if not self._is_own(notification.payload):
                                self.wake()
            except psycopg.Error as error:
                if not self._stopped.is_set():
                    _log.warning("listening for other instances' events: %s; again in %g s", error, LISTEN_RETRY)
                    self._stopped.wait(LISTEN_RETRY)

    def _stop_listening(self, listener: threading.Thread) -> None:
        """End the listener (``_stopped`` is set): a NOTIFY on its own channel wakes it now; if that cannot be sent
        (the server is gone) it ends at its next timeout, waited for at most twice the reconnection's pause."""
        datastore: Any = getattr(self.recorder, "datastore", None)
        if datastore is not None:
            from psycopg import Error, sql

            try:
                with datastore.get_connection() as conn:
                    conn.execute(sql.SQL("NOTIFY {}").format(sql.Identifier(self._stop_channel)))
            except Error as error:
                _log.debug("the listener is not woken at the stop (%s): it ends at its next timeout", error)
        listener.join(2 * LISTEN_RETRY)


def _index_after(recent: deque[Notification], position: int) -> int:
    """The index of the first kept notification after ``position`` (binary search over the deque)."""
    low, high = 0, len(recent)
    while low < high:
        middle = (low + high) // 2
        if recent[middle].id <= position:
            low = middle + 1
        else:
            high = middle
    return low


def vouched_page(recorder: ApplicationRecorder, after: int, limit: int) -> tuple[Sequence[Notification], int]:
    """The next page of the log after ``after``, every notification its chain link vouches for, and the position the
    page reached.  An event the chain does not vouch for is never sent (R-AUD-1), but it does not stop a reader
    either: the page is read again one event at a time and the tampered ones are left out (the service's audit
    raises the alert the pit sees)."""
    try:
        page = recorder.select_notifications(start=after + 1, limit=limit)
        return page, page[-1].id if page else after
    except TamperedLogError:
        stored: Sequence[Notification] = recorder.unchecked_notifications(  # type: ignore[attr-defined]
            after + 1, limit)
    vouched: list[Notification] = []
    for notification in stored:
        try:
            vouched.extend(recorder.select_notifications(start=notification.id, limit=1, stop=notification.id))
        except TamperedLogError as refused:
            _log.warning("a live stream left out the event at log position %d: %s", notification.id, refused)
    return vouched, stored[-1].id if stored else after
