"""Live hole-card views are recorded (issue 29, item 7; R-AUD-1): who watched which hand's face-down cards, and when.

A station that may see face-down cards (the pit boss, the games director) and is shown those of a hand in progress
(the dashboard's table page, the pit's station: ``GetTable``, ``Watch``; ``ExportHand`` of the hand in progress) has
that first look recorded on the casino's record of views of the day (:class:`domain.hole_card_views.HoleCardViews`):
who (the station the service authenticated, and its role), which table, which hand, through which call, and when.

Recording is a command like the others (:meth:`service.app.unit.UnitOfWork.execute`) with an id made of the viewer,
the table and the hand: retries, the same person's other calls, and several instances of the service record it once.
The service keeps in memory the views it recorded (:class:`SeenViews`, bounded), so that a page polled every second
or a stream's every message asks nothing more of the store.

The casino's delay policy, ``hole_cards_live`` (:func:`service.app.visibility.shows_down_cards`), is read here too:
with it false the pit sees a hand's face-down cards only once the hand has ended, and no live view is recorded.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from domain.hole_card_views import HoleCardView, HoleCardViews
from service.app.access import Viewer
from service.app.results import Result
from service.app.visibility import shows_down_cards

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from domain.banked.table import BankedTable
    from domain.circle.table import Table
    from service.app.reads import Reads
    from service.app.unit import UnitOfWork

LOG = ""
"""The "table" whose lock a view is recorded under: none (the casino's own record, not a table's command)."""
SEEN_KEPT = 4096
"""How many recorded views (viewer, table, hand) a service remembers, the most recent: past that the oldest is
forgotten, and a look at its hand asks the store again (which answers it recorded already: nothing more is stored)."""


def day_of(moment: datetime) -> str:
    """The UTC day a moment belongs to (a record's day).

    >>> from zoneinfo import ZoneInfo
    >>> day_of(datetime(2026, 11, 28, 0, 30, tzinfo=ZoneInfo("Europe/Madrid")))
    '2026-11-27'
    """
    return moment.astimezone(UTC).date().isoformat()


def view_command_id(station: str, table: str, hand_id: str) -> str:
    """The command id of a view: one per viewer, table and hand, whichever call or instance records it.

    >>> view_command_id("pit", "Mesa 1", "h") == view_command_id("pit", "Mesa 1", "h")
    True
    >>> len(view_command_id("pit", "Mesa 1", "h")) <= 128
    True
    """
    digest = hashlib.sha256(f"{station}\x00{table}\x00{hand_id}".encode()).hexdigest()[:48]
    return f"hole-view:{digest}"


class SeenViews:
    """The views a service has recorded (or found recorded), the most recent :data:`SEEN_KEPT`; thread-safe.

    >>> seen = SeenViews(2)
    >>> seen.add(("pit", "Mesa 1", 1)); seen.add(("pit", "Mesa 1", 2)); seen.add(("dj", "Mesa 1", 2))
    >>> ("pit", "Mesa 1", 1) in seen, ("pit", "Mesa 1", 2) in seen, len(seen)
    (False, True, 2)
    """

    def __init__(self, size: int = SEEN_KEPT) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[str, str, int], None] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: object) -> bool:
        with self._lock:
            if key not in self._kept:
                return False
            self._kept.move_to_end(key)  # type: ignore[arg-type]
            return True

    def __len__(self) -> int:
        return len(self._kept)

    def add(self, key: tuple[str, str, int]) -> None:
        """Remember a view (forgetting the oldest past the bound)."""
        with self._lock:
            self._kept[key] = None
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


class _Host(Protocol):
    """What the watch needs of the application (:class:`service.app.application.PokerTables`): its tables, its
    reads and its command path, and the casino's delay policy."""

    hole_cards_live: bool
    reads: Reads
    unit: UnitOfWork


class HoleCardWatch:
    """The delay policy and the record of live views of face-down cards: the application's ``hole_cards``."""

    def __init__(self, host: _Host) -> None:
        self.host = host

    def shows_down_cards(self, viewer: Viewer, table: str, *, hand_live: bool) -> bool:
        """Whether ``viewer`` is shown the face-down cards of a hand of ``table`` now (``hand_live``: the hand is in
        progress, or about to start): the role matrix, then the casino's delay policy (``hole_cards_live``)."""
        return shows_down_cards(viewer.sees_down_cards(table), hand_live=hand_live,
                                hole_cards_live=self.host.hole_cards_live)

    def live_hands(self, table: str) -> dict[UUID, int]:
        """The ids of ``table``'s live hands and their numbers: the hand in progress, if any, and the next one (it may
        start while a reader looks; a reader that does not know yet takes it as live)."""
        return live_hands_of(self.host.reads.any_table(table))

    def record_view(self, viewer: Viewer, table: str, number: int, via: str) -> None:
        """R-AUD-1: record that ``viewer`` was shown, through ``via``, the face-down cards of ``table``'s hand
        ``number``, once: a retry, another call (``via``) or another instance recording the same look (the same
        viewer, table and hand) is answered as the first was, and stores nothing more."""
        hand_id = str(self.host.reads.any_table(table).hand_id(number))
        day = day_of(datetime.now(UTC))

        def change() -> tuple[Result, list[Aggregate]]:
            views = self._day_of_views(day) or HoleCardViews(day=day)
            new = views.record_view(viewer=viewer.station, role=viewer.role.value, table=table, hand_number=number,
                                    hand_id=hand_id, via=via)
            return Result(table=LOG, recorded=new, version=views.version), [views] if new else []

        self.host.unit.execute(view_command_id(viewer.station, table, hand_id), LOG, change,
                      ("hole_card_view", viewer.station, table, hand_id))

    def views(self, since: datetime, until: datetime, table: str | None = None) -> list[HoleCardView]:
        """The views recorded from ``since`` to ``until`` (of ``table`` only, when named), in time order: only the
        day records of the range are read, never the rest of the log."""
        return list(self._views_between(since, until, table))

    def _views_between(self, since: datetime, until: datetime, table: str | None) -> Iterator[HoleCardView]:
        day: date = since.astimezone(UTC).date()
        while day <= until.astimezone(UTC).date():
            views = self._day_of_views(day.isoformat())
            if views is not None:
                yield from (view for view in views.views
                            if since <= view.at <= until and (table is None or view.table == table))
            day += timedelta(days=1)

    def _day_of_views(self, day: str) -> HoleCardViews | None:
        try:
            record = self.host.reads.fetch(HoleCardViews.create_id(day))
        except AggregateNotFoundError:
            return None
        assert isinstance(record, HoleCardViews)
        return record


def live_hands_of(record: Table | BankedTable) -> dict[UUID, int]:
    """A table's live hands (:meth:`HoleCardWatch.live_hands`) from its record as read."""
    live = {record.hand_id(record.hands_started + 1): record.hands_started + 1}
    if record.hand_in_progress is not None:
        live[record.hand_in_progress] = record.hands_started
    return live
