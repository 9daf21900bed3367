"""Which station may ever call which method (issue 32): the role matrix (:data:`service.app.access.PERMISSIONS`)
read per method, so that the gate (:class:`service.grpc.hardening.StationGate`) can refuse, unparsed, a large request
of a method its station may never call, whoever signs in there.

A station acts in the roles of the persons its kind takes (:data:`service.app.access.STATION_KINDS`) and, before
the staff are in force, in its own; a method is the permissions its commands need.  A method not listed here (the
reads, SignIn, SignOut) is every station's.

>>> from service.app.access import Role, Viewer
>>> entitled(Viewer("tv", Role.OBSERVER), "Act"), entitled(Viewer("tv", Role.OBSERVER), "GetTable")
(False, True)
>>> entitled(Viewer("floor", Role.OBSERVER, kind="pit"), "Act")  # a pit boss may sign in there
True
"""

from __future__ import annotations

from collections.abc import Mapping

from service.app.access import PERMISSIONS, STATION_KINDS, Role, Viewer
from service.grpc.act import CASES

_ACT = frozenset(kind.permission for kinds in CASES.values() for kind in kinds)
METHOD_PERMISSIONS: Mapping[str, frozenset[str]] = {
    "OpenTable": frozenset({"open-table"}), "SeatPlayer": frozenset({"seat"}), "LeaveSeat": frozenset({"seat"}),
    "AddChips": frozenset({"seat"}), "ConfigureTable": frozenset({"configure"}),
    "CorrectStack": frozenset({"correct"}), "CloseTable": frozenset({"close"}),
    "StartHand": frozenset({"start-hand"}), "RecordDeviceReport": frozenset({"device-report"}),
    "RecordCutExposure": frozenset({"cut-exposure"}), "Act": _ACT,
    "AcknowledgeAlert": frozenset({"acknowledge-alert"}), "ReconstructHand": frozenset({"reconstruct"}),
    "EnrolPerson": frozenset({"staff"}), "ChangePerson": frozenset({"staff"}), "ListStaff": frozenset({"access-log"}),
    "ListAccess": frozenset({"access-log"}),
    "OpenShift": frozenset({"accounts-count"}), "CloseShift": frozenset({"accounts-count"}),
    "RequestTransfer": frozenset({"accounts-transfer"}), "SignTransfer": frozenset({"accounts-transfer"}),
    "WithdrawTransfer": frozenset({"accounts-transfer"}), "RecordDrop": frozenset({"accounts-drop"}),
    "GetShiftAccounts": frozenset({"accounts-read"}), "ListShufflers": frozenset({"shufflers"}),
    "ListDealerFigures": frozenset({"dealers"}), "GetFloor": frozenset({"floor"}), "ListAlerts": frozenset({"floor"}),
    "GetShiftReport": frozenset({"floor"}),
}
"""The permissions each method's commands need (one of them suffices)."""
_ROLES = {method: frozenset(role for permission in permissions for role in PERMISSIONS[permission][0])
          for method, permissions in METHOD_PERMISSIONS.items()}


def roles_at(station: Viewer) -> frozenset[Role]:
    """Every role a call from ``station`` may act in: its persons' (by its kind), and its own."""
    return STATION_KINDS.get(station.station_kind, frozenset()) | {station.role}


def entitled(station: Viewer, method: str) -> bool:
    """Whether any call of ``method`` from ``station`` could pass the role matrix."""
    needed = _ROLES.get(method)
    return needed is None or bool(needed & roles_at(station))
