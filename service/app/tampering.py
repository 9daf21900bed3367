"""The service audits its own log (issue 16, item 4; R-AUD-1): tampering found becomes an alert of the pit.

:meth:`LogAudit.audit_log` runs the check ``pokertable audit verify`` runs (:func:`service.store.audit.verify`: the
hash chain, and with the service's public key every signed head) and records what it found, once, on the casino's
record of findings (:class:`domain.audit_findings.AuditFindings`): the kind, the log position, the audit's words and
the table the tampered event belongs to when that can be told.  The record's event is on every floor's Watch stream
(``WatchResponse.table`` empty: the casino's log, not a table's), where the pit sees it and acknowledges it with
``AcknowledgeAlert`` naming no table.

Recording is a command like the others (:meth:`service.app.unit.UnitOfWork.execute`), with an id made of
the finding (``audit:<kind>:<position>``): several instances, or the same instance at every interval, finding the
same tampering record it once.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventsourcing.application import AggregateNotFoundError

from domain.audit_findings import FINDINGS_ID, AuditFindings
from domain.banked.table import BankedTable
from domain.circle.table import Table
from service.app import significant
from service.app.access import NotFoundError, Viewer
from service.app.commands import AcknowledgeAlert
from service.app.results import Result
from service.store.audit import Finding, Verdict, Walk, verify

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate
    from eventsourcing.persistence import ApplicationRecorder, Mapper

    from service.app.reads import Reads
    from service.app.unit import UnitOfWork

LOG = ""
"""The "table" of the casino's log's own alerts (tampering found): none."""
FINDER = "service audit"
"""Who ran the check, when the service did."""
_log = logging.getLogger("pokertable.audit")


class LogAudit:
    """The service's check of its own log, and the findings' acknowledgement (the application's ``app.audit``)."""

    def __init__(self, recorder: ApplicationRecorder, mapper: Mapper[UUID], reads: Reads, unit: UnitOfWork,
                 names: Callable[[], list[str]]) -> None:
        """``names``: the name of every table (:class:`service.app.floor.TableNames`)."""
        self.recorder, self.mapper, self.reads, self.unit, self.names = recorder, mapper, reads, unit, names
        self._walk: Walk | None = None
        """Where the last clean check stopped (a periodic check continues from there)."""

    def audit_log(self, public_key: Ed25519PublicKey | Sequence[Ed25519PublicKey] | None = None,
                  by: str = FINDER, *, full: bool = True, pause: float = 0.0,
                  stopping: threading.Event | None = None) -> Verdict:
        """R-AUD-1: check the log (and with ``public_key`` its signed records and what they vouch for); what is
        found is recorded once as an alert of the pit. The verdict is returned and logged (``pokertable.audit``).

        ``full=False``: continue from where the last clean check stopped, once the chain is found to still hold the
        link checked there (a periodic audit: its cost is the events stored since, in memory bounded by what is not
        yet vouched for); ``full``: from the lowest position (``pause``: seconds slept between pages, so that it
        yields to the commands). ``stopping`` set: the check ends at its next page
        (:class:`service.store.audit.AuditStoppedError`), and the next one starts from the lowest position again."""
        resume = None if full else self._walk
        walk = resume if resume is not None else Walk(self.recorder, public_key, self.mapper)  # type: ignore[arg-type]
        self._walk = None  # a check cut short (stopping) leaves nothing to resume
        verdict = verify(self.recorder, public_key=public_key, mapper=self.mapper, resume=walk, pause=pause,
                         stopping=stopping)
        self._walk = walk if verdict.finding is None else None
        if verdict.finding is None:
            _log.info("audit: the log is intact: %d events up to position %d%s", verdict.events, verdict.head[0],
                      "" if verdict.tail is None else f"; {verdict.tail[1]} not yet vouched for by a signed head")
            return verdict
        finding = verdict.finding
        _log.error("audit: TAMPERING found (%s) at log position %d: %s", finding.kind, finding.position,
                   finding.message)
        try:
            self.record_finding(finding, by)
        except Exception as error:  # the record could not be written (the store refuses): the log line stays
            _log.error("audit: the finding could not be recorded as an alert: %s", error)
        return verdict

    def record_finding(self, finding: Finding, by: str = FINDER) -> bool:
        """Record ``finding`` on the casino's record of findings, once; True when it is new."""
        table = self.table_of_position(finding.position)
        message = finding.message[:500]

        def change() -> tuple[Result, list[Aggregate]]:
            record = self.audit_findings() or AuditFindings()
            new = record.record_finding(finding.kind, finding.position, message, table, by)
            return Result(table=LOG, recorded=new, version=record.version), [record] if new else []

        result = self.unit.execute(f"audit:{finding.kind}:{finding.position}", LOG, change,
                                       ("tampering_found", finding.kind, finding.position))
        return bool(result.recorded)

    def audit_findings(self) -> AuditFindings | None:
        """The casino's record of findings (None: the audit never found anything)."""
        try:
            record = self.reads.fetch(FINDINGS_ID)
        except AggregateNotFoundError:
            return None
        assert isinstance(record, AuditFindings)
        return record

    def table_of_position(self, position: int) -> str:
        """The table whose event (its own or one of its hands') is stored at log ``position``; "" when that cannot be
        told (the row is gone, or its originator is no table's)."""
        unchecked = getattr(self.recorder, "unchecked_notifications", None)
        found = unchecked(position, 1) if unchecked is not None else []
        if not found or found[0].id != position:
            return LOG
        originator = found[0].originator_id
        for name in self.names():
            try:
                record = self.reads.any_table(name)
            except Exception:  # a table whose own events do not check: named by its id alone
                if originator in (Table.create_id(name), BankedTable.create_id(name)):
                    return name
                continue
            if originator == record.id or any(originator == record.hand_id(number)
                                              for number in range(record.hands_started, 0, -1)):
                return name
        return LOG

    def acknowledge_finding(self, command: AcknowledgeAlert, viewer: Viewer) -> Result:
        """R-AUD-1: the pit boss or the games director acknowledges the tampering recorded at log ``position``,
        with a reason (an :class:`AcknowledgeAlert` naming no table); :class:`NotFoundError` when no finding was
        recorded there."""
        position = command.position

        def change() -> tuple[Result, list[Aggregate]]:
            record = self.audit_findings()
            if record is None or not self._is_finding(position):
                raise NotFoundError(f"no tampering found by the audit is recorded at log position {position}",
                                    rule="R-AUD-1")
            record.acknowledge_alert(position, command.reason, viewer.station)
            return Result(table=LOG, version=record.version), [record]

        return self.unit.execute(command.command_id, LOG, change, command.what(None))

    def _is_finding(self, position: int) -> bool:
        found = self.recorder.select_notifications(start=position, limit=1, stop=position)
        return bool(found) and found[0].id == position and found[0].originator_id == FINDINGS_ID \
            and found[0].topic.endswith("AuditFindings.TamperingFound")


def _said(verdict: Verdict, full: bool) -> str:
    """An audit's run as a significant event says it."""
    scope = "full" if full else "since the last"
    if verdict.finding is not None:
        return (f"{scope}: TAMPERING found ({verdict.finding.kind}) at position {verdict.finding.position}; "
                f"{verdict.events} events checked")
    return f"{scope}: intact, {verdict.events} events checked up to position {verdict.head[0]}"


DEFAULT_AUDIT_EVERY = 3600.0
"""Seconds between two audits the service runs of its own log (``pokertable serve --audit-every``)."""


FULL_EVERY = 86_400.0
"""Seconds between two full checks of the log by the service (the others continue from the last one)."""
FULL_PAUSE = 0.005
"""Seconds a full check sleeps after each page of the log read (it yields to the commands)."""


async def audit_periodically(audit: LogAudit, every: float,
                             public_key: Ed25519PublicKey | Sequence[Ed25519PublicKey] | None = None, *,
                             full_every: float = FULL_EVERY, instance: str = "") -> None:
    """Audit the log at once, then every ``every`` seconds, until cancelled; each check runs on a thread of its own
    and what it finds is recorded by :meth:`LogAudit.audit_log`. The first check, and one every ``full_every``
    seconds, reads the whole log (throttled); the others continue from where the last clean one stopped. A check
    that fails (the store does not answer) is logged and tried again at the next interval. With ``instance``, each
    run and its verdict is a significant event (:mod:`service.app.significant`)."""
    loop = asyncio.get_running_loop()
    full_at = loop.time()
    stopping = threading.Event()  # set when the service stops: the check on its thread ends at its next page
    while True:
        full = loop.time() >= full_at
        try:
            verdict = await asyncio.to_thread(audit.audit_log, public_key, full=full,
                                              pause=FULL_PAUSE if full else 0.0, stopping=stopping)
            if instance:
                await asyncio.to_thread(significant.record, audit, "audit", _said(verdict, full),
                                        instance=instance)
            if full:
                full_at = loop.time() + full_every
        except asyncio.CancelledError:  # the service stops: its shutdown does not wait for the whole check
            stopping.set()
            raise
        except Exception as error:
            _log.error("audit: the log could not be checked: %s", error)
        await asyncio.sleep(every)
