"""The handlers of what the people at a table do besides the play: a dealer signs in and out (R-AUD-1), and the pit
acknowledges an alert (R-AUD-1, R-HOLD-1: the acknowledgement releases the hold it is)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from domain.floor_log import LEGACY_ALERTS, AlertRaised, changes
from service.app.access import NotFoundError, PreconditionError, Viewer
from service.app.commands import AcknowledgeAlert, Command, SignIn, SignOut
from service.app.handlers.tables import table_change
from service.app.log_entries import log_entry
from service.app.results import Result

if TYPE_CHECKING:

    from domain.banked.table import BankedTable
    from domain.circle.table import Table
    from service.app.handlers.context import Tables


def sign_in(app: Tables, command: SignIn, viewer: Viewer) -> Result:
    """R-AUD-1: the dealer now dealing at a table (of any game), signed in at its croupier's station (or by the pit
    boss); his id is recorded with every later command of the table's stations, until another signs in."""
    return table_change(app, command, lambda record: record.sign_in(command.dealer_id, viewer.station))


def sign_out(app: Tables, command: SignOut, viewer: Viewer) -> Result:
    """R-AUD-1: the dealer signed in at a table leaves it (a rotation, a break, the end of his shift), signed out
    at its croupier's station or by the pit boss; the table has no dealer until the next sign-in."""
    return table_change(app, command, lambda record: record.sign_out(viewer.station))


def acknowledge_alert(app: Tables, command: AcknowledgeAlert, viewer: Viewer) -> Result:
    """R-AUD-1: the pit boss or the games director acknowledges the alert raised at log ``position`` — an event of
    this table or of one of its hands — with a reason; recorded as the table's event (who, why, which), at a closed
    table too.  :class:`NotFoundError` when no event of the table is at that position; the table refuses an alert
    acknowledged already.  No table (``""``): the alert is tampering the audit found in the casino's log
    (:meth:`service.app.tampering.LogAudit.acknowledge_finding`)."""
    if not command.table:  # the casino's log's own alerts: tampering found by the audit (service.app.tampering)
        return app.audit.acknowledge_finding(command, viewer)

    def apply(record: Table | BankedTable) -> None:
        record.verify_acknowledge_alert(command.position, command.reason, viewer.station)
        version = _verify_event_of(app, record, command.position)
        record.acknowledge_alert(command.position, command.reason, viewer.station, version)  # R-HOLD-1: released

    return table_change(app, command, apply)


def _verify_event_of(app: Tables, record: Table | BankedTable, position: int) -> int:
    """The event at log ``position`` is the table's own or one of its hands' (R-AUD-1): an alert of another table,
    or of no event at all, is not this table's to acknowledge; and it raised an alert (issue 33: a deal or a bet
    acknowledged as if it had was recorded as an acknowledgement of nothing).  What raises an alert is what the
    floor shows as one (:func:`domain.floor_log.changes`: a device fault or a report that holds play, an alert the
    service raised, a void).  Returns the table's version of that event (0 for a hand's event): the hold it
    releases, if it holds the table (R-HOLD-1)."""
    found = app.recorder.select_notifications(start=position, limit=1, stop=position)
    if found and found[0].id == position:
        originator = found[0].originator_id
        if originator == record.id:
            version = int(found[0].originator_version)
        elif any(originator == record.hand_id(number) for number in range(record.hands_started, 0, -1)):
            version = 0
        else:
            version = -1
        if version >= 0:
            entry = log_entry(app.mapper, found[0])
            if entry.event not in LEGACY_ALERTS and not any(
                    isinstance(change, AlertRaised)
                    for change in changes(entry, lambda _: record.name, lambda _: record.name)):
                raise PreconditionError(f"the event at log position {position} ({entry.event}) raised no alert: "
                                        "there is nothing to acknowledge", rule="R-AUD-1")
            return version
    raise NotFoundError(f"no event of the table {record.name!r} is at log position {position}", rule="R-AUD-1")


HANDLERS: Mapping[type[Command], Callable[[Tables, Any, Viewer], Result]] = {
    SignIn: sign_in, SignOut: sign_out, AcknowledgeAlert: acknowledge_alert}
"""The people's handlers."""
