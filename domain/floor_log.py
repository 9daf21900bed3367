"""What the pit's floor keeps of the log (issue 30, item 1), event by event: the alerts and their acknowledgements,
each table's last shuffler report and the correction waiting for the pit, the tables' names and each hand's table,
start and end. Pure: :func:`changes` says what one event of the log changes; the service keeps the result in the
store's own tables, with the last position it followed (``service.app.projections``), so that a dashboard starts
from the present and a search reads the hands it finds, not the log.

An **alert** is raised by the event at its log position (R-AUD-1, R-HOLD-1): a device fault or a report that holds
play, an alert the service raised at a table, a void of a hand or of a box (R-CIRC-14, R-THB-11), tampering the
service's audit found in the log (of no table: ``""``). It is acknowledged by an event naming that position.

>>> from datetime import UTC, datetime
>>> t0 = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)
>>> opened = LogEntry(1, t0, "t1", "Table.Opened", {"name": "Mesa 1"})
>>> fault = LogEntry(7, t0, "t1", "Table.DeviceReported",
...                  {"device": "shoe", "serial": "S-1", "kind": "fault", "colour": "", "result": "jam", "hold": ""})
>>> names = {"t1": "Mesa 1"}
>>> changes(opened, names.get, lambda hand: None)
[TableOpened(table_id='t1', name='Mesa 1', position=1)]
>>> [(alert.position, alert.table, alert.kind, alert.text) for alert in changes(fault, names.get, lambda hand: None)]
[(7, 'Mesa 1', 'device', 'shoe S-1: jam')]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.dealer_figures import LogEntry

__all__ = [
    "LEGACY_ALERTS",
    "Accessed",
    "AlertAcknowledged",
    "AlertRaised",
    "Change",
    "HandEnded",
    "HandStarted",
    "LogEntry",
    "Noted",
    "TableOpened",
    "changes",
    "void_text",
]

TABLE_EVENTS = ("Table", "BankedTable")
HAND_EVENTS = ("Hand", "ThbHand", "CdpHand")
VOIDS = ("Table.HandVoided", "Hand.Voided", "ThbHand.Voided", "CdpHand.Voided", "ThbHand.BoxVoided")
"""The events that void a hand or a box (R-CIRC-14, R-THB-11): the hand's (or the box's) own is the pit's alert, with
its rule and its reason; a circle table's ``HandVoided``, which follows its hand's ``Voided``, ends the hand on the
floor and raises no alert of its own (one void, one alert: issue 34)."""
LEGACY_ALERTS = ("Table.HandVoided",)
"""Events that raised an alert under an earlier version (a void raised two): an open one of a store written then is
still the pit's to acknowledge."""
SHUFFLER_KINDS = ("shuffle", "deck-check", "delivery")
"""The device reports that say how the table's decks stand (the floor's shuffler column)."""
EVENTS = (*(f"{table}.{name}" for table in TABLE_EVENTS
            for name in ("Opened", "HandStarted", "HandFinished", "DeviceReported", "AlertRaised",
                         "AlertAcknowledged")),
          *VOIDS, "Hand.CorrectionRequested", "Hand.CorrectionApproved", "Hand.CorrectionRefused",
          "AuditFindings.TamperingFound", "AuditFindings.AlertAcknowledged")
ACCESS_KINDS = {
    "StaffMember.Enrolled": "enrolled", "StaffMember.Changed": "changed", "StaffMember.Suspended": "suspended",
    "StaffMember.Reinstated": "reinstated", "StaffMember.CredentialReset": "pin-reset",
    "StaffMember.Removed": "removed", "StaffMember.SignInFailed": "wrong-pin", "StaffMember.LockedOut": "locked-out",
    "StationSessions.PersonSignedIn": "sign-in", "StationSessions.PersonSignedOut": "sign-out",
    "StationSessions.SignInRefused": "refused",
}
"""The authentication log (issue 32): the staff's changes and the sign-ins, their failures and lockouts, by the
event that records each, and the kind the access report names it."""
EVENTS = (*EVENTS, *ACCESS_KINDS)


@dataclass(frozen=True)
class TableOpened:
    """A table's name, from its first event (one name space for circle and banked tables, R-AUD-1)."""

    table_id: str
    name: str
    position: int


@dataclass(frozen=True)
class HandStarted:
    """A hand of ``table`` began (its number, its time, the log position of its table's event)."""

    hand_id: str
    table: str
    number: int
    started: datetime
    position: int


@dataclass(frozen=True)
class HandEnded:
    """A hand finished, or was voided (or a box of it was): its summary is to be made (again)."""

    hand_id: str
    table: str


@dataclass(frozen=True)
class AlertRaised:
    """Something the pit must see and acknowledge, raised by the event at ``position``."""

    position: int
    table: str
    at: datetime
    kind: str
    text: str


@dataclass(frozen=True)
class AlertAcknowledged:
    """The alert raised at ``position`` of ``table`` was acknowledged (who, and why)."""

    table: str
    position: int
    by: str


@dataclass(frozen=True)
class Noted:
    """What the floor says of a table beyond its summary: its shuffler's last report, or the correction waiting."""

    table: str
    shuffler: str | None = None
    correction: str | None = None


@dataclass(frozen=True)
class Accessed:
    """An entry of the authentication log (issue 32): what (:data:`ACCESS_KINDS`), whose (the person's employee
    number, or the badge a refused sign-in gave), at which station, by whom (the administrator of a change), and
    in words (never a PIN or its hash)."""

    position: int
    at: datetime
    kind: str
    person: str
    station: str
    by: str
    detail: str


Change = TableOpened | HandStarted | HandEnded | AlertRaised | AlertAcknowledged | Noted | Accessed


def void_text(event: str) -> str:
    """What a void's alert says: its event's name in words (``ThbHand.BoxVoided`` → ``thb hand box voided``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", event.replace(".", "")).lower()


def changes(entry: LogEntry, table_name: Callable[[str], str | None],
            hand_table: Callable[[str], str | None]) -> list[Change]:
    """What ``entry`` changes on the floor. ``table_name`` names a table by its aggregate id, ``hand_table`` a hand's
    table by the hand's id (None: not known, an event of no table the floor follows)."""
    aggregate, _, name = entry.event.partition(".")
    data = entry.data
    if entry.event in ACCESS_KINDS:
        return [_accessed(entry)]
    if aggregate == "AuditFindings":
        return _findings(entry, name)
    if aggregate in TABLE_EVENTS:
        if name == "Opened":
            return [TableOpened(entry.originator, str(data["name"]), entry.position)]
        table = table_name(entry.originator)
    elif aggregate in HAND_EVENTS:
        table = hand_table(entry.originator)
    else:
        return []
    if table is None:
        return []
    if aggregate in TABLE_EVENTS:
        return _table_event(entry, table, name, data)
    return _hand_event(entry, table, data)


def _table_event(entry: LogEntry, table: str, name: str, data: Any) -> list[Change]:
    found: list[Change] = []
    if name == "HandStarted":
        found.append(HandStarted(str(data["hand_id"]), table, int(data["number"]), entry.time, entry.position))
    elif name in {"HandFinished", "HandVoided"}:  # a void's alert is its hand's own Voided, just before
        found.append(HandEnded(str(data["hand_id"]), table))
    elif name == "DeviceReported":
        kind, hold = str(data["kind"]), str(data.get("hold") or "")
        if kind == "fault" or hold:  # R-HOLD-1: a deck check that counted wrong is an alert too
            found.append(AlertRaised(entry.position, table, entry.time, hold or "device",
                                     f"{data['device']} {data['serial']}: {data['result']}"))
        if kind in SHUFFLER_KINDS:
            found.append(Noted(table, shuffler=f"{kind} {data['colour']}: {data['result']}"))
    elif name == "AlertRaised":  # R-HOLD-1
        found.append(AlertRaised(entry.position, table, entry.time, str(data["kind"]), str(data["detail"])))
    elif name == "AlertAcknowledged":
        found.append(AlertAcknowledged(table, int(data["position"]), f"{data['by']}: {data['reason']}"))
    return found


def _hand_event(entry: LogEntry, table: str, data: Any) -> list[Change]:
    if entry.event in VOIDS:  # R-CIRC-14, R-THB-11
        said = void_text(entry.event)
        if data.get("rule"):
            said += f" ({data['rule']})" + (f": {data['reason']}" if data.get("reason") else "")
        return [AlertRaised(entry.position, table, entry.time, "void", said), HandEnded(entry.originator, table)]
    if entry.event == "Hand.CorrectionRequested":  # R-AUD-1: waits for the pit
        amount = f" {data['amount']}" if data.get("amount") is not None else ""
        return [Noted(table, correction=f"seat {data['seat']}: {data['corrects']} to be replaced by "
                                        f"{data['action']}{amount} (\"{data['reason']}\", asked by {data['by']})")]
    if entry.event in ("Hand.CorrectionApproved", "Hand.CorrectionRefused"):
        return [Noted(table, correction="")]
    return []


def _findings(entry: LogEntry, name: str) -> list[Change]:
    """The casino's log's own alerts: tampering the service's audit found (R-AUD-1), and their acknowledgement."""
    data = entry.data
    if name == "TamperingFound":
        where = f" ({data['table']})" if data.get("table") else ""
        return [AlertRaised(entry.position, "", entry.time, "tampering",
                            f"{data['kind']} at log position {data['position']}{where}: {data['message']}")]
    if name == "AlertAcknowledged":
        return [AlertAcknowledged("", int(data["position"]), f"{data['by']}: {data['reason']}")]
    return []


def _accessed(entry: LogEntry) -> Accessed:
    """An entry of the authentication log, from the staff's or a station's event (its data names the person and,
    for a sign-in, the station; the administrator of a change is the person its command was attributed to)."""
    data, kind = entry.data, ACCESS_KINDS[entry.event]
    if kind in ("enrolled", "changed"):
        detail = f"{data['name']} ({', '.join(data['roles'])})"
    elif kind in ("suspended", "reinstated", "removed"):
        detail = str(data["reason"])
    elif kind == "wrong-pin":
        detail = f"{data['failures']} in a row"
    elif kind == "locked-out":
        detail = f"after {data['failures']} wrong PINs in a row"
    elif kind == "sign-in":
        detail = f"as {data['role']}"
    elif kind in ("sign-out", "refused"):
        detail = str(data["why"])
    else:  # a PIN reset: its hash is never said
        detail = ""
    station = str(data.get("station") or data.get("by_station") or "")
    by = str(data.get("by_person") or "") if kind in ("enrolled", "changed", "suspended", "reinstated", "pin-reset",
                                                      "removed") else ""
    return Accessed(entry.position, entry.time, kind, str(data.get("person_id", "")), station, by, detail)
