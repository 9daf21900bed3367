"""The floor's projection at work (issue 30, item 1): :mod:`domain.floor_log` followed over the log into the store's
own tables (:mod:`service.store.floor_store`), so that the pit's floor starts from the present and a search of a
table's hands reads the index, not every hand.

The projection is a **tracked follower**, not a write in the command's transaction (docs/architecture.md says why):
:meth:`FloorLog.catch_up` reads the log's events it follows (selected by topic) from the last position it wrote up to
the log's head, and writes what they change with the new position, a page at a time, in one transaction each. The
service catches up every second (:func:`follow_floor`) and before every read of the projection, so a read answers as
of the log's head and costs what happened since the last catch-up, never the log's length. A store written before
the projection, or in another of its formats, or restored to a log shorter than its position, is rebuilt from the
log once, at its first catch-up.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any
from uuid import UUID

from domain.errors import RuleError
from domain.floor_log import EVENTS, Change, HandEnded, HandStarted, TableOpened, changes
from domain.games import Game, game_of
from service.app.access import NotFoundError
from service.app.log_entries import log_entry, stored_topics
from service.app.table_views import HandSummary
from service.store.floor_store import FORMAT, AlertRow, FloorStore, PositionMovedError
from service.store.persistence import READ_ONLY

__all__ = ["AlertRow", "FloorLog", "hand_summary"]  # AlertRow: the floor's alerts as the edges read them

PAGE = 1000
"""Events of the log read, and written with their position, at a time."""
NO = ("n", "no", "f", "false", "off", "0")
"""What eventsourcing's ``CREATE_TABLE`` setting says for "do not make the tables"."""
FOLLOW_EVERY = 1.0
"""Seconds between the service's catch-ups (reads catch up first too)."""
_log = logging.getLogger(__name__)


def hand_summary(app: Any, dealt: Game, hand_id: UUID) -> HandSummary:
    """What a search lists of a hand (its game's ``summarise``), from the hand's events read once."""
    return hand_record(app, dealt, hand_id)[0]


def hand_record(app: Any, dealt: Game, hand_id: UUID) -> tuple[HandSummary, list[dict[str, int]] | None]:
    """A hand's summary and, for a banked hand, each settled box's stakes by spot in box order (what a shift's
    theoretical win adds up, R-ACC-6), from the hand's events read once."""
    events: list[Any] = list(app.events.get(hand_id))
    hand: Any = None
    for stored in events:  # the events just read make the hand: no second read of the store
        hand = stored.mutate(hand)
    summary = HandSummary.of(dealt.summarise(hand, events))
    if dealt.family != "banked" or summary.outcome != "settled":
        return summary, None
    snapshot = hand.snapshot()
    return summary, [dict(snapshot["bets"][box]) for box in snapshot["results"]]


class FloorLog:
    """The floor's projection of ``app``'s log: followed by :meth:`catch_up`, read through :attr:`store`."""

    def __init__(self, app: Any, store: FloorStore | None = None) -> None:
        """``app``: the :class:`service.app.application.PokerTables` whose log it follows (its recorder, mapper,
        events and tables); ``store``: where it keeps the projection (default: the log's own database)."""
        self.app = app
        read_only = bool(app.env.get(READ_ONLY)) or str(app.env.get("CREATE_TABLE", "y")).lower() in NO
        # a store opened only to read (an inspection; the group's follower at a casino, whose role may only read)
        self.store = store or FloorStore(getattr(app.recorder, "datastore", None), writable=not read_only)
        self.usable = self.store.writable
        """The projection can answer: it is written as the log grows (a store opened read-only for an inspection
        is not; its reads take the log's own path)."""
        self._lock = threading.Lock()  # one catch-up at a time in a process (instances: the store's position)
        self.stopping = threading.Event()
        """Set when the service stops: a catch-up ends after its page (a first one on a year's log is long)."""
        self._names: dict[str, str] = {}  # table id → name (bounded by the floor's tables)
        self._names_as_of = -1
        """The projection's position the names were current at (read at it, or followed to it here): another
        instance may have followed the log further since, and named tables these names lack."""
        self._topics = stored_topics(EVENTS)

    def catch_up(self, until: int | None = None) -> int:
        """Follow the log to its head; the position followed to. Cost: the events stored since the last catch-up
        (once, for a store written before the projection or restored behind it: the whole log); ``until``: up to
        that position, not the head. A store opened read-only is not followed: the position its projection was
        left at."""
        if not self.usable:
            return self.store.position()[0] if self.store.ready else 0
        with self._lock:
            head = int(self.app.recorder.max_notification_id() or 0) if until is None else until
            position, written_as = self.store.position()
            if written_as != FORMAT or position > head:  # another format; or a log restored to before the position
                _log.warning("the floor's projection (format %s, at %s) is rebuilt from the log (format %s, %s "
                             "events)", written_as, position, FORMAT, head)
                self.store.clear()
                self._names.clear()
                position = 0
            if position != self._names_as_of:  # read after the position: every table opened up to it is there
                self._names, self._names_as_of = {row.table_id: row.name for row in self.store.tables()}, position
            while position < head and not self.stopping.is_set():
                try:
                    position = self._names_as_of = self._page(position, head)
                except PositionMovedError:  # another instance wrote it: on from where it left the projection
                    # the position first, then the tables: those opened up to it are all there (a table named
                    # after it is harmless; one missing would drop its events from the pages read on from it)
                    position = self.store.position()[0]
                    self._names, self._names_as_of = {row.table_id: row.name for row in self.store.tables()}, position
            return position

    def _page(self, position: int, head: int) -> int:
        """Follow one page of the log after ``position`` (up to ``head``); the position it ends at."""
        found = self.app.recorder.select_notifications(position + 1, PAGE, stop=head, topics=self._topics)
        end = found[-1].id if len(found) == PAGE else head
        started: dict[str, str] = {}  # hands started in this page: hand id → table
        made: list[Change] = []
        for entry in (log_entry(self.app.mapper, notification) for notification in found):
            for change in changes(entry, self._table_name, lambda hand: started.get(hand) or
                                  self.store.hands_index.table_of(hand)):
                if isinstance(change, TableOpened):
                    self._names[change.table_id] = change.name
                elif isinstance(change, HandStarted):
                    started[change.hand_id] = change.table
                made.append(change)
        records = {change.hand_id: self._summary(change) for change in made if isinstance(change, HandEnded)}
        self.store.commit(position, end, made, {hand: record[0].stored() for hand, record in records.items()
                                                if record is not None},
                          {hand: record[1] for hand, record in records.items() if record is not None
                           and record[1] is not None})
        return end

    def _table_name(self, table_id: str) -> str | None:
        return self._names.get(table_id)

    def _summary(self, ended: HandEnded) -> tuple[HandSummary, list[dict[str, int]] | None] | None:
        """An ended hand's summary, as a search lists it, and its stakes (:func:`hand_record`); None: its table is
        not there to say its game."""
        try:
            dealt = game_of(self.app.any_table(ended.table))
            return hand_record(self.app, dealt, UUID(ended.hand_id))
        except (NotFoundError, RuleError, KeyError, ValueError) as error:  # left to the search's own path
            _log.warning("the floor's projection: hand %s of %s not summed up: %s", ended.hand_id, ended.table, error)
            return None

    def check(self) -> list[str]:
        """Compare the projection with a recomputation from the log up to the position it was left at (in memory;
        nothing is written): the differences, each in words (none: it is what the log says)."""
        position, kept = self.store.everything()
        again = FloorLog(self.app, FloorStore(None))
        again.catch_up(until=position)
        _, made = again.store.everything()
        # a hand whose stakes an earlier version did not keep is read from the log when they are wanted: not kept
        # is no difference (a stake written wrong is one)
        unkept = {row[0] for row in kept["hands"] if row[9] is None}
        made["hands"] = [(*row[:9], None) if row[0] in unkept else row for row in made["hands"]]
        found = []
        for key in kept:
            extra, missing = set(kept[key]) - set(made[key]), set(made[key]) - set(kept[key])
            found += [f"{key}: not what the log says: {row}" for row in sorted(extra, key=str)[:20]]
            found += [f"{key}: missing: {row}" for row in sorted(missing, key=str)[:20]]
        return found

    def rebuild(self) -> int:
        """Forget the projection and follow the whole log again; the position followed to."""
        with self._lock:
            self.store.clear()
            self._names.clear()
            self._names_as_of = -1
        return self.catch_up()


async def follow_floor(floor: FloorLog, every: float = FOLLOW_EVERY) -> None:
    """Catch the floor's projection up every ``every`` seconds until cancelled (on a thread: the store's reads
    block); a catch-up that fails (the store does not answer) is logged and tried again at the next interval."""
    failed = False
    while True:
        try:
            await asyncio.to_thread(floor.catch_up)
            failed = False
        except asyncio.CancelledError:  # the service stops: the catch-up on its thread ends after its page
            floor.stopping.set()
            raise
        except Exception as error:
            if not failed:
                _log.error("the floor's projection could not follow the log: %s", error)
            failed = True
        await asyncio.sleep(every)
