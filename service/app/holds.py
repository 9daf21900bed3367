"""Alerts that hold play (issue 19, item 2; R-HOLD-1, R-DECK-3, R-AUD-1): what holds each table, by the log
position the pit acknowledges it by, and the alerts the service raises itself.

The table decides what holds it (:mod:`domain.holds`): its own alerts (a device's fault, a deck check that counted
wrong, a shuffler that failed the integrity monitor) and the casino's tampering found by the audit that concerns it
(a finding of the table, or of no table: every table).  This part of :class:`service.app.application.PokerTables`
gives the table the casino's findings when a hand starts, names each hold by the log position of the event that
raised it (what ``AcknowledgeAlert`` takes), and lets the service raise an alert at a table
(:meth:`AlertHolds.raise_alert`, e.g. the shuffler integrity monitor).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from uuid import UUID

from domain.audit_findings import FINDINGS_ID, AuditFindings
from domain.holds import Hold

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate
    from eventsourcing.persistence import ApplicationRecorder

    from domain.banked.table import BankedTable
    from domain.circle.table import Table

SERVICE = "service"
"""Who raised an alert the service raised itself (the station recorded with it)."""
_PAGE = 500


class AlertHolds:
    """The holds of the tables, named by log position, and the alerts the service raises."""

    if TYPE_CHECKING:  # provided by service.app.application.PokerTables
        recorder: ApplicationRecorder

        def any_table(self, table: str) -> Table | BankedTable: ...
        def audit_findings(self) -> AuditFindings | None: ...
        def _execute(self, command_id: str, table: str,
                     change: Callable[[], tuple[dict[str, Any], list[Aggregate]]],
                     what: tuple[object, ...]) -> dict[str, Any]: ...

    def raise_alert(self, table: str, kind: str = "shuffler-integrity", detail: str = "", *, by: str = SERVICE,
                    command_id: str = "") -> dict[str, Any]:
        """R-HOLD-1: the service raises an alert of ``kind`` at ``table`` (circle or banked), described by
        ``detail`` (1–200 characters): an event of the table (``AlertRaised``) that holds it until the pit boss or
        the games director acknowledges it (``acknowledge_alert`` with the log position in the result).

        The command id defaults to one made of the table, the kind and the detail: the same alert raised again (by
        another instance, or at the next check) is recorded once.  Returns ``{"table", "version", "position"}``."""
        digest = hashlib.sha256(f"{table}\x00{kind}\x00{detail}".encode()).hexdigest()[:40]

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.any_table(table)
            record.raise_alert(kind, detail, by)
            return {"table": table, "version": record.version}, [record]

        result = self._execute(command_id or f"alert-{digest}", table, change, ("raise_alert", kind, detail, by))
        return {**result, "position": self.position_of(self.any_table(table).id, int(result["version"]))}

    def casino_holds(self, table: str) -> list[Hold]:
        """R-AUD-1: the tampering found by the audit, not acknowledged yet, that holds ``table``: a finding of that
        table, or of no table (every table: the log itself cannot be vouched for)."""
        findings = self.audit_findings()
        if findings is None:
            return []
        holds = []
        for finding in findings.findings:
            if finding.table not in ("", table):
                continue
            position = self.position_of(FINDINGS_ID, finding.version) if finding.version else None
            if position is None or position in findings.acknowledged_alerts:
                continue
            holds.append(Hold(0, "audit", f"{finding.kind} at log position {finding.position}", position))
        return holds

    def holds_of(self, record: Table | BankedTable) -> list[dict[str, Any]]:
        """What holds a table now (R-HOLD-1), oldest first: each alert's log position (what ``AcknowledgeAlert``
        takes), kind, rule and words."""
        own = [Hold(hold.version, hold.kind, hold.detail, self.position_of(record.id, hold.version) or 0)
               for hold in record.current_holds()]
        return [{"position": hold.position, "kind": hold.kind, "rule": hold.rule, "detail": hold.detail}
                for hold in [*own, *self.casino_holds(record.name)]]

    def position_of(self, originator_id: UUID, version: int) -> int | None:
        """The log position of an aggregate's event of ``version`` (the store's index; the in-memory store is
        read through)."""
        lookup = getattr(self.recorder, "position_of", None)
        if lookup is not None:
            found: int | None = lookup(originator_id, version)
            return found
        start = 1
        while page := self.recorder.select_notifications(start, _PAGE):
            for notification in page:
                if notification.originator_id == originator_id and notification.originator_version == version:
                    return notification.id
            start = page[-1].id + 1
        return None
