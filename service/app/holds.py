"""Alerts that hold play (issue 19, item 2; R-HOLD-1, R-DECK-3, R-AUD-1): what holds each table, by the log
position the pit acknowledges it by, and the alerts the service raises itself.

The table decides what holds it (:mod:`domain.holds`): its own alerts (a device's fault, a deck check that counted
wrong, a shuffler that failed the integrity monitor) and the casino's tampering found by the audit that concerns it
(a finding of the table, or of no table: every table).  :class:`Holds` (the application's ``app.holds``) gives
the table the casino's findings when a hand starts, names each hold by the log position of the event that raised it
(what ``AcknowledgeAlert`` takes), and lets the service raise an alert at a table (:meth:`Holds.raise_alert`, e.g.
the shuffler integrity monitor).

:meth:`Holds.alert_figures` counts, for Prometheus (issue 29; docs/ops/monitoring.md), the tables held now, the
holding alerts not acknowledged yet and the tampering the audit found, from what the application keeps — the list of
its tables and each table's cached record, the casino's record of findings — never from the log: a scrape costs a
look at each table, whatever the number of events stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from uuid import UUID

from domain.audit_findings import FINDING_KINDS, FINDINGS_ID, AuditFindings, Finding
from domain.banked.table import BankedTable
from domain.circle.table import Table
from domain.holds import HOLD_KINDS, Hold
from service.app.access import NotFoundError
from service.app.results import Result
from service.store.chain import TamperedLogError

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate
    from eventsourcing.persistence import ApplicationRecorder

    from service.app.reads import Reads
    from service.app.tampering import LogAudit
    from service.app.unit import UnitOfWork

SERVICE = "service"
"""Who raised an alert the service raised itself (the station recorded with it)."""
_PAGE = 500


def _by_kind(kinds: Sequence[str]) -> dict[str, int]:
    return dict.fromkeys(kinds, 0)


@dataclass(frozen=True)
class RaisedAlert:
    """An alert the service raised at a table (R-HOLD-1): the table, its version after the alert, and the log
    position the pit acknowledges it by."""

    table: str
    version: int
    position: int


@dataclass
class AlertFigures:
    """The alerts of the floor now, as Prometheus shows them (docs/ops/monitoring.md; R-HOLD-1, R-AUD-1).  Every kind
    of :data:`domain.holds.HOLD_KINDS` and :data:`domain.audit_findings.FINDING_KINDS` is there, at 0 when none."""

    tables_held: int = 0
    """Open tables held now: no hand starts until the pit acknowledges every alert holding each (R-HOLD-1)."""
    holds: dict[str, int] = field(default_factory=lambda: _by_kind(list(HOLD_KINDS)))
    """The alerts holding the open tables now, by kind; tampering of no table holds every open table, once each."""
    unacknowledged: dict[str, int] = field(default_factory=lambda: _by_kind(list(HOLD_KINDS)))
    """Alerts that hold play and that nobody acknowledged yet, by kind, each alert once: every table's own (an open
    table's or a closed one's) and the audit's findings (``audit``)."""
    findings: dict[str, int] = field(default_factory=lambda: _by_kind(FINDING_KINDS))
    """Tampering the audit found and recorded, acknowledged or not, by what was found (R-AUD-1)."""
    findings_unacknowledged: dict[str, int] = field(default_factory=lambda: _by_kind(FINDING_KINDS))
    """Tampering the audit found that the pit has not acknowledged yet, by what was found (R-AUD-1)."""
    tables_unreadable: int = 0
    """Tables whose record cannot be loaded: an event of theirs that the hash chain does not vouch for (R-AUD-1; the
    service answers their commands ``DATA_LOSS``)."""


class Holds:
    """The holds of the tables, named by log position, and the alerts the service raises."""

    def __init__(self, recorder: ApplicationRecorder, reads: Reads, unit: UnitOfWork, audit: LogAudit,
                 names: Callable[[], list[str]]) -> None:
        """``audit``: the casino's record of findings (R-AUD-1); ``names``: the name of every table."""
        self.recorder, self.reads, self.unit, self.audit, self.names = recorder, reads, unit, audit, names

    def raise_alert(self, table: str, kind: str = "shuffler-integrity", detail: str = "", *, by: str = SERVICE,
                    command_id: str = "") -> RaisedAlert:
        """R-HOLD-1: the service raises an alert of ``kind`` at ``table`` (circle or banked), described by
        ``detail`` (1–200 characters): an event of the table (``AlertRaised``) that holds it until the pit boss or
        the games director acknowledges it (``acknowledge_alert`` with the log position in the result).

        The command id defaults to one made of the table, the kind and the detail: the same alert raised again (by
        another instance, or at the next check) is recorded once.  The result names the alert's log position."""
        digest = hashlib.sha256(f"{table}\x00{kind}\x00{detail}".encode()).hexdigest()[:40]

        def change() -> tuple[Result, list[Aggregate]]:
            record = self.reads.any_table(table)
            record.raise_alert(kind, detail, by)
            return Result(table=table, version=record.version), [record]

        result = self.unit.execute(command_id or f"alert-{digest}", table, change,
                                       ("raise_alert", kind, detail, by))
        assert result.version is not None
        position = self.position_of(self.reads.any_table(table).id, result.version)
        assert position is not None  # the event was stored: the log has it
        return RaisedAlert(table, result.version, position)

    def casino_holds(self, table: str) -> list[Hold]:
        """R-AUD-1: the tampering found by the audit, not acknowledged yet, that holds ``table``: a finding of that
        table, or of no table (every table: the log itself cannot be vouched for)."""
        findings = self.audit.audit_findings()
        return [hold for finding, hold in self._open_findings(findings) if finding.table in ("", table)]

    def _open_findings(self, findings: AuditFindings | None) -> Iterator[tuple[Finding, Hold]]:
        """R-AUD-1: each finding recorded and not acknowledged yet, with the hold it is (named by its log position)."""
        if findings is None:
            return
        for finding in findings.findings:
            position = self.position_of(FINDINGS_ID, finding.version) if finding.version else None
            if position is None or position in findings.acknowledged_alerts:
                continue
            yield finding, Hold(0, "audit", f"{finding.kind} at log position {finding.position}", position)

    def alert_figures(self) -> AlertFigures:
        """R-HOLD-1, R-AUD-1: the tables held now, the holding alerts not acknowledged yet and the tampering found,
        for Prometheus. Read from what the application keeps, never from the log: the names of the tables (read on
        from where the last call stopped), each table's record as cached (on PostgreSQL one question to the store for
        all of them: which changed since; only those are read again) and the casino's record of findings; the cost
        grows with the tables, not with the events stored. A table whose events the chain does not vouch for is
        counted apart (``tables_unreadable``); a store that does not answer raises."""
        figures = AlertFigures()
        names = self.names()
        with self.reads.current_as_of_now([key for name in names for key in (Table.create_id(name),
                                                                         BankedTable.create_id(name))]):
            casino: list[Finding] = []
            findings = self.audit.audit_findings()
            for finding in findings.findings if findings is not None else ():
                figures.findings[finding.kind] = figures.findings.get(finding.kind, 0) + 1
            for finding, _ in self._open_findings(findings):
                figures.findings_unacknowledged[finding.kind] = figures.findings_unacknowledged.get(finding.kind, 0) + 1
                figures.unacknowledged["audit"] = figures.unacknowledged.get("audit", 0) + 1
                casino.append(finding)
            for name in names:
                try:
                    with self.reads.peeking(name):  # the cached record itself, under the table's lock: no copy
                        record = self.reads.any_table(name)
                        kinds = [hold.kind for hold in record.current_holds()]
                        closed = bool(getattr(record, "closed", False))
                except NotFoundError:  # a name whose table is not there (a creation event of another store's)
                    continue
                except TamperedLogError:
                    figures.tables_unreadable += 1
                    continue
                for kind in kinds:
                    figures.unacknowledged[kind] = figures.unacknowledged.get(kind, 0) + 1
                if closed:
                    continue  # a closed table deals no more: its alerts wait for the pit, it is held no longer
                kinds += ["audit" for finding in casino if finding.table in ("", name)]
                for kind in kinds:
                    figures.holds[kind] = figures.holds.get(kind, 0) + 1
                figures.tables_held += bool(kinds)
        return figures

    def holds_of(self, record: Table | BankedTable) -> list[Hold]:
        """What holds a table now (R-HOLD-1), oldest first: each alert named by its log position (what
        ``AcknowledgeAlert`` takes), with its kind, rule and words."""
        own = [Hold(hold.version, hold.kind, hold.detail, self.position_of(record.id, hold.version) or 0)
               for hold in record.current_holds()]
        return [*own, *self.casino_holds(record.name)]

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
