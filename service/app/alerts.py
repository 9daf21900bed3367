"""Alerts acknowledged (issue 16, item 4; R-AUD-1): the pit boss or the games director acknowledges an alert of a
table — a device fault, a void — named by the log position of the event that raised it, with a reason; the
acknowledgement is an event of the table (``AlertAcknowledged``), and an alert is acknowledged once.  An alert that
holds the table (issue 19, R-HOLD-1: :mod:`domain.holds`) is released by its acknowledgement.

:class:`AlertAcknowledgements` is a part of :class:`service.app.application.PokerTables`: the acknowledgement is a
table command like the others (executed once per command id, with its record, under the table's lock).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.app.access import NotFoundError, Viewer, authorize

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate
    from eventsourcing.persistence import ApplicationRecorder

    from domain.banked.table import BankedTable
    from domain.circle.table import Table


class AlertAcknowledgements:
    """The acknowledgement of a table's alerts by the pit."""

    if TYPE_CHECKING:  # provided by service.app.application.PokerTables
        recorder: ApplicationRecorder

        def any_table(self, table: str) -> Table | BankedTable: ...
        def acknowledge_finding(self, command_id: str, position: int, reason: str,
                                viewer: Viewer) -> dict[str, Any]: ...
        def _execute(self, command_id: str, table: str,
                     change: Callable[[], tuple[dict[str, Any], list[Aggregate]]],
                     what: tuple[object, ...]) -> dict[str, Any]: ...

    def acknowledge_alert(self, command_id: str, table: str, position: int, reason: str,
                          viewer: Viewer) -> dict[str, Any]:
        """R-AUD-1: the pit boss or the games director acknowledges the alert raised at log ``position`` — an event
        of this table or of one of its hands — with a reason; recorded as the table's event (who, why, which), at a
        closed table too.  :class:`NotFoundError` when no event of the table is at that position; the table refuses
        an alert acknowledged already.  No table (``""``): the alert is tampering the audit found in the casino's log
        (:mod:`service.app.tampering`)."""
        if not table:  # the casino's log's own alerts: tampering found by the audit (service.app.tampering)
            return self.acknowledge_finding(command_id, position, reason, viewer)
        authorize(viewer, table, "acknowledge-alert")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.any_table(table)
            record.verify_acknowledge_alert(position, reason, viewer.station)
            version = self._verify_event_of(record, position)
            record.acknowledge_alert(position, reason, viewer.station, version)  # R-HOLD-1: releases its hold
            return {"table": table, "version": record.version}, [record]

        return self._execute(command_id, table, change, ("acknowledge_alert", position, reason))

    def _verify_event_of(self, record: Table | BankedTable, position: int) -> int:
        """The event at log ``position`` is the table's own or one of its hands' (R-AUD-1): an alert of another
        table, or of no event at all, is not this table's to acknowledge.  Returns the table's version of that event
        (0 for a hand's event): the hold it releases, if it holds the table (R-HOLD-1)."""
        found = self.recorder.select_notifications(start=position, limit=1, stop=position)
        if found and found[0].id == position:
            originator = found[0].originator_id
            if originator == record.id:
                return int(found[0].originator_version)
            if any(originator == record.hand_id(number) for number in range(record.hands_started, 0, -1)):
                return 0
        raise NotFoundError(f"no event of the table {record.name!r} is at log position {position}", rule="R-AUD-1")
