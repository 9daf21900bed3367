"""The authentication log (issue 32; N.J.A.C. 13:69Q keeps one 90 days): the staff's changes and every sign-in,
sign-out, refusal, wrong PIN and lockout, read by time from the floor's projection (its ``access`` table, indexed by
time) and, past the position the projection was followed to (a store opened read-only by ``pokertable report``),
from the log's own events of those kinds after it: a range costs its own entries, never the whole log.

The events are the record (each is in the chained, signed log); the projection is a cache of them, compared with
the log by ``pokertable floor check`` like the rest of the floor.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from domain.floor_log import ACCESS_KINDS, Accessed, changes
from service.app.floor_log import FloorLog
from service.app.log_entries import log_entry, stored_topics

MAX_ENTRIES = 10_000
"""The most entries one read returns (a report pages by time beyond it)."""
PAGE = 1000


def access_between(floor: FloorLog, since: datetime, until: datetime, limit: int = MAX_ENTRIES) -> list[Accessed]:
    """The authentication log's entries in ``[since, until]``, oldest first, at most ``limit``."""
    position = floor.catch_up()
    found = floor.store.access_between(since, until, limit) if floor.store.ready else []
    app: Any = floor.app
    head = int(app.recorder.max_notification_id() or 0)
    if position < head:  # what the projection has not followed yet (a read-only store): the log's own, by kind
        topics = stored_topics(ACCESS_KINDS)
        while position < head and len(found) < limit:
            page = app.recorder.select_notifications(position + 1, PAGE, stop=head, topics=topics)
            for notification in page:
                for change in changes(log_entry(app.mapper, notification), lambda _: None, lambda _: None):
                    if isinstance(change, Accessed) and since <= change.at <= until:
                        found.append(change)
            position = page[-1].id if len(page) == PAGE else head
    return sorted(found, key=lambda entry: (entry.at, entry.position))[:limit]
