"""The pit's acknowledgement of an alert (R-AUD-1), shared by every record that raises alerts: both kinds of table
(a device fault, a void) and the casino's record of tampering found by the audit.

An alert is named by the log position of the event that raised it; the pit boss or the games director clears it once,
with a reason and the station it was made at.  The event that says so is each aggregate's own (its stored topic
names the aggregate); :class:`AlertBook` holds the checks and the bookkeeping they share.

>>> book = AlertBook()
>>> book.acknowledged_alerts = {12}
>>> book.verify_acknowledge_alert(13, "shuffler cleared by the technician", "pit-1")
>>> try:
...     book.verify_acknowledge_alert(12, "again", "pit-1")
... except RuleError as error:
...     print(error.rule, error.message)
R-AUD-1 the alert at log position 12 was already acknowledged
"""

from __future__ import annotations

from typing import ClassVar

from domain.errors import RuleError

MAX_ALERT_REASON = 200
"""The longest reason an acknowledgement of an alert records (R-AUD-1)."""


class AlertBook:
    """The alerts acknowledged at a record (mixed into an aggregate, before ``Aggregate``)."""

    ERROR: ClassVar[type[RuleError]] = RuleError
    """The error the aggregate raises for a command its rules refuse."""

    acknowledged_alerts: set[int]
    """R-AUD-1: the log positions of the alerts the pit acknowledged here."""

    def verify_acknowledge_alert(self, position: int, reason: str, by: str) -> None:
        """An alert named by the log position of the event that raised it (from 1), not acknowledged yet, a stated
        reason (1–200 characters, not blank) and the station acknowledging it (R-AUD-1).  A closed table still takes
        acknowledgements: the pit clears its alerts after it closes."""
        if isinstance(position, bool) or not isinstance(position, int) or position < 1:
            raise self.ERROR("an alert is named by the log position of its event, from 1", rule="R-AUD-1")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_ALERT_REASON:
            raise self.ERROR(f"an acknowledgement states its reason (1–{MAX_ALERT_REASON} characters)", rule="R-AUD-1")
        if not isinstance(by, str) or not by.strip():
            raise self.ERROR("an acknowledgement names the station it was made at", rule="R-AUD-1")
        if position in self.acknowledged_alerts:
            raise self.ERROR(f"the alert at log position {position} was already acknowledged", rule="R-AUD-1")

    def acknowledge_alert(self, position: int, reason: str, by: str) -> None:
        """R-AUD-1: the pit boss or the games director (``by``, the station) acknowledges the alert raised at log
        ``position``, with a reason; who, why and which alert are the record's event."""
        self.verify_acknowledge_alert(position, reason, by)
        self._alert_acknowledged(position=position, reason=reason, by=by)

    def _alert_acknowledged(self, *, position: int, reason: str, by: str) -> None:
        raise NotImplementedError  # the aggregate's own ``AlertAcknowledged`` event

    def note_alert_acknowledged(self, position: int) -> None:
        """Bookkeeping of an acknowledgement (from the aggregate's ``AlertAcknowledged`` event)."""
        self.acknowledged_alerts.add(position)
