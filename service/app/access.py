"""Who may do what (issue 6): the stations' roles, the role matrix, and the application's errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum


class ServiceError(Exception):
    """An application error, with the rule it concerns when there is one."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{message} ({rule})" if rule else message)
        self.message, self.rule = message, rule


class NotFoundError(ServiceError):
    """No such table or hand."""


class ConflictError(ServiceError):
    """Another command changed the table first; nothing was applied: retry (optimistic concurrency)."""


class DuplicateCommandError(ServiceError):
    """A command id already used for a different command or table (only an identical retry is answered)."""


class AccessDeniedError(ServiceError):
    """The station's role does not allow this command, or not at this table."""


class SignInRefusedError(AccessDeniedError):
    """A sign-in refused (a wrong badge or PIN, a locked badge, a suspended person, a role not held; issue 32)."""


class SessionError(AccessDeniedError):
    """A call with no person signed in at its station, or with a session that has ended (issue 32)."""


class PreconditionError(ServiceError):
    """A well-formed command the state of the table refuses now (no hand in progress, a stack at the chip cap)."""


class Role(Enum):
    """What the one who asks may do (issue 6; issue 32: a person's role, acting at a station): the dealer (a
    croupier) runs his own table; the pit boss voids and corrects; the games director approves; the administrator
    keeps the staff; an auditor and an observer only read (the auditor also the authentication log); a device deals
    from the shoe and reports."""

    DEALER = "dealer"
    PIT_BOSS = "pit-boss"
    GAMES_DIRECTOR = "games-director"
    OBSERVER = "observer"
    DEVICE = "device"
    ADMINISTRATOR = "administrator"
    AUDITOR = "auditor"


PERSON_ROLES: Mapping[str, Role] = {
    "croupier": Role.DEALER, "pit-boss": Role.PIT_BOSS, "games-director": Role.GAMES_DIRECTOR,
    "administrator": Role.ADMINISTRATOR, "auditor": Role.AUDITOR, "observer": Role.OBSERVER}
"""A person's roles (:data:`domain.staff.STAFF_ROLES`) as the role matrix names them: a croupier acts as ``dealer``."""
STAFF_ROLE_OF: Mapping[Role, str] = {role: name for name, role in PERSON_ROLES.items()}
"""The staff role of each role a person may act in."""
STATION_KINDS: Mapping[str, frozenset[Role]] = {
    "dealer": frozenset({Role.DEALER}),
    "device": frozenset(),
    "pit-boss": frozenset({Role.PIT_BOSS}),
    "games-director": frozenset({Role.GAMES_DIRECTOR}),
    "observer": frozenset({Role.OBSERVER, Role.AUDITOR}),
    "administrator": frozenset({Role.ADMINISTRATOR}),
    "pit": frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR, Role.OBSERVER, Role.AUDITOR, Role.ADMINISTRATOR}),
}
"""What kind of station a station is (its ``role`` in the configuration file) and the roles a person may act in
there (issue 32): a croupier's terminal takes a croupier; a pit terminal (``pit``, the dashboard's station) any of
the pit's roles; a device no one (it deals for the croupier signed in at its table)."""


@dataclass(frozen=True)
class Viewer:
    """Who asks: a station's name, the role it acts in and, for a croupier's station or a device, its table; and
    (issue 32) the person signed in there (his employee number; "" when no person is: before the staff are in force,
    and the house's own tools) and the kind of station it is (:data:`STATION_KINDS`; "" the role's own)."""

    station: str
    role: Role
    table: str | None = None
    person: str = ""
    kind: str = ""
    session: str = field(default="", repr=False)
    """The digest of the person's session at the station (:mod:`service.app.sessions`): which of the sessions signed
    in there this is (several persons sign in at once at the dashboard)."""

    @property
    def station_kind(self) -> str:
        """The kind of station this is (:data:`STATION_KINDS`)."""
        return self.kind or self.role.value

    def sees_down_cards(self, table: str) -> bool:
        """Face-down cards are shown to the pit and surveillance (the pit boss, the games director), at every table;
        never to a croupier's station, even at its own table (issue 15, item 5: he deals them, he does not read
        them), nor to devices or observers."""
        return self.role in (Role.PIT_BOSS, Role.GAMES_DIRECTOR)


PERMISSIONS: Mapping[str, tuple[frozenset[Role], str]] = {
    "read": (frozenset(Role), ""),
    "open-table": (frozenset({Role.PIT_BOSS}), ""),
    "seat": (frozenset({Role.DEALER, Role.PIT_BOSS}), ""),
    "configure": (frozenset({Role.PIT_BOSS}), ""),
    "correct": (frozenset({Role.PIT_BOSS}), ""),
    "close": (frozenset({Role.PIT_BOSS}), ""),
    "start-hand": (frozenset({Role.DEALER, Role.PIT_BOSS}), ""),
    "play": (frozenset({Role.DEALER, Role.PIT_BOSS}), ""),
    "deal": (frozenset({Role.DEALER, Role.PIT_BOSS, Role.DEVICE}), ""),
    "device-report": (frozenset({Role.DEALER, Role.PIT_BOSS, Role.DEVICE}), ""),
    "cut-exposure": (frozenset({Role.DEALER, Role.PIT_BOSS}), ""),
    "void": (frozenset({Role.PIT_BOSS}), ""),
    "approve": (frozenset({Role.GAMES_DIRECTOR}), "R-THB-10"),
    "staff": (frozenset({Role.ADMINISTRATOR}), "R-AUD-1"),
    "access-log": (frozenset({Role.ADMINISTRATOR, Role.AUDITOR}), "R-AUD-1"),
    "reconstruct": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-THB-13"),
    "sign-in": (frozenset({Role.DEALER, Role.PIT_BOSS}), "R-AUD-1"),
    "request-correction": (frozenset({Role.DEALER, Role.PIT_BOSS}), "R-AUD-1"),
    "decide-correction": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-AUD-1"),
    "acknowledge-alert": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-AUD-1"),
    "accounts-count": (frozenset({Role.DEALER, Role.PIT_BOSS}), "R-ACC-1"),
    "accounts-transfer": (frozenset({Role.DEALER, Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-ACC-3"),
    "accounts-drop": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-ACC-4"),
    "accounts-read": (frozenset({Role.DEALER, Role.PIT_BOSS, Role.GAMES_DIRECTOR, Role.AUDITOR}), "R-ACC-5"),
    "shufflers": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR, Role.AUDITOR}), "R-DECK-2"),
    "dealers": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR, Role.AUDITOR}), "R-AUD-1"),
    "floor": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR, Role.OBSERVER, Role.AUDITOR}), "R-AUD-1"),
}
"""The role matrix (docs/service.md): what each role may do, and the rule a refusal names.  A croupier's station
(``dealer``) and a device's act only at their own table; a device only deals from the shoe and reports; the pit boss
runs the floor (voids, corrections); the games director approves, refuses and reconstructs, and never deals; an
observer only reads, and never sees a face-down card.  A dealer signs in at the table's croupier station (or the pit
boss signs him in); the croupier asks for a correction of a keyed action, the pit boss or games director decides
it, and acknowledges a table's alerts (device faults, voids; R-AUD-1).  A shift's accounts (docs/accounts.md): the
croupier or the pit boss counts the tray; a fill or credit is asked by one side (the croupier's station, or the pit
boss or games director) and signed off by the other; the pit records the drop; the accounts are read by the
table's croupier and the pit (never by an observer or a device).  The shufflers' integrity over
the floor (``shufflers``: every shuffler's verdict, docs/integrity.md) is the pit's: the pit boss and the games
director; so are the dealers' figures (``dealers``: each dealer's hands per hour and irregularities and the rotations,
docs/alerts.md; R-AUD-1). The floor's alerts of every table (``floor``: GetFloor, ListAlerts) are the pit's and an
observer's (the pit dashboard's floor follows as an observer), not a croupier's or a device's.  The staff (issue
32: enrolling, changing, suspending, reinstating, resetting and removing a person) are the administrator's; the
authentication log (``access-log``) is the administrator's and the auditor's, who also reads the pit's reports."""


def authorize(viewer: Viewer, table: str, action: str) -> None:
    """:class:`AccessDeniedError` unless the viewer's role may do ``action`` (a key of :data:`PERMISSIONS`) here."""
    roles, rule = PERMISSIONS[action]
    if viewer.role not in roles:
        who = f"{viewer.person} at {viewer.station}" if viewer.person else viewer.station
        raise AccessDeniedError(f"{who} ({viewer.role.value}) may not {action} here", rule=rule)
    if viewer.role in (Role.DEALER, Role.DEVICE) and viewer.table != table:
        raise AccessDeniedError(f"{viewer.station} works at {viewer.table!r}, not {table!r}", rule=rule)

