"""The floor of the casino (issue 16): the name of every table of any game, in the order the tables were opened, for
the pit's dashboard, a station choosing its table and a regulator's tool.

The store keeps no list of tables: a table is its aggregate, and the aggregate's first event names it. The names are
read from the notification log, selecting by topic only the tables' creation events (``Table.Opened``,
``BankedTable.Opened``), under their topics of now and of before issue 14's move (:func:`service.store.topics.
old_topics`, as the signed heads are selected), and kept with the last position read: a later call reads only what
was stored since. A table's name is never reused (R-AUD-1, one name space for circle and banked tables), so a name
found stays found; a closed table keeps its name too.

>>> from service.app.application import PokerTables
>>> from domain.circle.settings import BettingStructure, TableSettings
>>> app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
>>> from service.app.commands import OpenTable
>>> for name, game in (("Mesa 2", "omaha"), ("Mesa 1", "holdem")):
...     _ = app.handle(OpenTable(name, name, TableSettings.create(game, BettingStructure.POT_LIMIT, blinds=(1, 2))))
>>> app.table_names()
['Mesa 2', 'Mesa 1']
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.utils import get_topic

from domain.banked.table import BankedTable
from domain.circle.table import Table
from service.store.topics import old_topics

if TYPE_CHECKING:
    from eventsourcing.persistence import ApplicationRecorder, Mapper

    from service.app.floor_log import FloorLog

OPENED_TOPICS: tuple[str, ...] = (*old_topics(get_topic(Table.Opened)),  # type: ignore[attr-defined]
                                  *old_topics(get_topic(BankedTable.Opened)))  # type: ignore[attr-defined]
"""The topics of a table's creation event, circle and banked, as stored now and before issue 14's move."""
PAGE = 1000
"""Creation events read at a time."""


@dataclass
class _Found:
    """The names found so far, in opening order, and the last log position read for them."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    names: list[str] = field(default_factory=list)
    position: int = 0


class TableNames:
    """The list of every table (the application's ``app.names``; ``app.table_names()`` asks it)."""

    def __init__(self, recorder: ApplicationRecorder, mapper: Mapper[UUID], floor_log: FloorLog) -> None:
        self.recorder, self.mapper, self.floor_log = recorder, mapper, floor_log
        self._found = _Found()

    def __call__(self) -> list[str]:
        """The name of every table of any game, open or closed, in the order the tables were opened.

        Reads only the creation events stored since the last call (one call at a time: callers come from a thread
        pool); the log is read up to its last position as of the call, so a table opened meanwhile is found by the
        next call, never half-way."""
        found = self._found
        with found.lock:
            if not found.position:  # the first call: from the floor's projection, if there is one (issue 30)
                self._from_projection(found)
            head = int(self.recorder.max_notification_id() or 0)
            start = found.position + 1
            while start <= head:
                page = self.recorder.select_notifications(start, PAGE, stop=head, topics=OPENED_TOPICS)
                for notification in page:
                    opened: Any = self.mapper.to_domain_event(notification)
                    found.names.append(str(opened.name))
                if len(page) < PAGE:
                    break
                start = page[-1].id + 1
            found.position = max(found.position, head)
            return list(found.names)

    def _from_projection(self, found: _Found) -> None:
        """The names the floor's projection holds and the position it holds them as of (:mod:`service.app.
        floor_log`, kept by the service about every second): the log is then read from there, not from its start
        (a service's start on a year's log). Nothing on a store with no projection of this format (the log is read
        from its start, as before)."""
        floor_log = self.floor_log
        if not floor_log.store.ready:
            return
        kept = floor_log.store.tables_as_of()
        if kept is not None and kept[0] <= int(self.recorder.max_notification_id() or 0):
            found.position, found.names = kept[0], [row.name for row in kept[1]]
