"""Tampering found by the audit, as the casino's own record (R-AUD-1; issue 16, item 4).

The service checks the whole event log against its hash chain and its signed heads (``pokertable audit verify``,
:mod:`service.store.audit`) when it starts and at intervals; the first disagreement it finds is recorded here, once,
as an event of the casino's log (``AuditFindings.TamperingFound``): what was found (``altered``, ``removed``,
``inserted``, ``reordered``, ``head``, ``signature``, ``rewritten``), at which log position, the audit's own words,
the table the tampered event belonged to when that is known, and who ran the check.  The finding is an alert of the
pit until the pit boss or the games director acknowledges it (``AlertAcknowledged``, as a table's alerts are).

The record is one aggregate for the casino, with a fixed id: several instances of the service on one database find
the same tampering and record it once.  It is written after the tampered event, and links to the chain like every
event, so a finding cannot be removed unseen either.

>>> findings = AuditFindings()
>>> findings.id == FINDINGS_ID
True
>>> findings.record_finding("altered", 41, "the event at position 41 was altered", "Mesa 1", "service audit")
True
>>> findings.record_finding("altered", 41, "the event at position 41 was altered", "Mesa 1", "service audit")
False
>>> [(finding.kind, finding.position, finding.table) for finding in findings.findings]
[('altered', 41, 'Mesa 1')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.alerts import AlertBook
from domain.errors import RuleError
from domain.ids import TABLES_NAMESPACE

FINDINGS_ID = uuid5(TABLES_NAMESPACE, "audit/findings")
"""The id of the casino's record of tampering found (one per event log)."""
FINDING_KINDS = ("altered", "removed", "inserted", "reordered", "head", "signature", "rewritten", "forged")
"""What the audit can find (:class:`service.store.audit.Finding`)."""
MAX_FINDING_TEXT = 500
"""The longest description of a finding the record keeps."""
MAX_FINDER = 64
"""The longest name of who ran the check."""


@dataclass(frozen=True)
class Finding:
    """Tampering found in the log: what, at which log position, described, the table it concerns ("": unknown)."""

    kind: str
    position: int
    message: str
    table: str
    by: str
    version: int = 0
    """The record's version of the event that recorded the finding (its alert is named by that event's position)."""


class AuditFindings(AlertBook, Aggregate):
    """The casino's record of the tampering its audits found, and of their acknowledgement by the pit."""

    @staticmethod
    def create_id(**_: Any) -> UUID:
        """One record per event log."""
        return FINDINGS_ID

    @event("Opened")
    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.acknowledged_alerts = set()

    def has_finding(self, kind: str, position: int) -> bool:
        """Whether this finding (the same thing at the same place) is recorded already."""
        return any(finding.kind == kind and finding.position == position for finding in self.findings)

    def record_finding(self, kind: str, position: int, message: str, table: str, by: str) -> bool:
        """R-AUD-1: record what an audit found, once (False: recorded already, nothing new)."""
        if kind not in FINDING_KINDS:
            raise RuleError(f"an audit finds one of {', '.join(FINDING_KINDS)}, not {kind!r}", rule="R-AUD-1")
        if isinstance(position, bool) or not isinstance(position, int):
            raise RuleError("a finding names a log position", rule="R-AUD-1")
        if not isinstance(message, str) or not message.strip() or len(message) > MAX_FINDING_TEXT:
            raise RuleError(f"a finding is described (1–{MAX_FINDING_TEXT} characters)", rule="R-AUD-1")
        if not isinstance(by, str) or not by.strip() or len(by) > MAX_FINDER:
            raise RuleError(f"a finding names who ran the check (1–{MAX_FINDER} characters)", rule="R-AUD-1")
        if self.has_finding(kind, position):
            return False
        self._tampering_found(kind=kind, position=position, message=message, table=table, by=by)
        return True

    @event("TamperingFound")
    def _tampering_found(self, *, kind: str, position: int, message: str, table: str, by: str) -> None:
        """R-AUD-1: the audit run by ``by`` found ``kind`` at log ``position`` (of ``table``, "" when unknown)."""
        self.findings.append(Finding(kind, position, message, table, by, self.version + 1))

    @event("AlertAcknowledged")
    def _alert_acknowledged(self, *, position: int, reason: str, by: str) -> None:
        """R-AUD-1: the finding recorded at log ``position`` acknowledged by the station ``by`` (the pit boss's or
        the games director's), and why."""
        del reason, by
        self.note_alert_acknowledged(position)
