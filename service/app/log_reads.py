"""The log as the service's live readers read it (issue 31): the Watch streams and the readiness probe ask the
application, not the recorder and the mapper behind it.  Every notification read here is one its chain link vouches
for (R-AUD-1; :mod:`service.store.chain`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Mapper, Notification

from service.store.follower import vouched_page


class LogReads:
    """The application's log, page by page (``app.log_reads``)."""

    def __init__(self, recorder: ApplicationRecorder, mapper: Mapper[UUID]) -> None:
        self.recorder, self.mapper = recorder, mapper

    def head(self) -> int:
        """The log's last position now (0: an empty log)."""
        return int(self.recorder.max_notification_id() or 0)

    def page(self, after: int, limit: int) -> Sequence[Notification]:
        """The next page of the log after position ``after`` (:class:`service.store.chain.TamperedLogError` when an
        event of it is not vouched for)."""
        return self.recorder.select_notifications(start=after + 1, limit=limit)

    def vouched_page(self, after: int, limit: int) -> tuple[Sequence[Notification], int]:
        """The next page of the log after ``after``, every notification its chain link vouches for (a tampered one
        is left out, never sent), and the position the page reached (:func:`service.store.follower.vouched_page`)."""
        return vouched_page(self.recorder, after, limit)

    def event(self, notification: Notification) -> Any:
        """A notification's domain event."""
        return self.mapper.to_domain_event(notification)
