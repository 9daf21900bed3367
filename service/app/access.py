"""Who may do what (issue 6): the stations' roles, the role matrix, and the application's errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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


class PreconditionError(ServiceError):
    """A well-formed command the state of the table refuses now (no hand in progress, a stack at the chip cap)."""


class Role(Enum):
    """What a station may do (issue 6): the dealer runs his own table; the pit boss voids and corrects; the games
    director approves; an observer only reads."""

    DEALER = "dealer"
    PIT_BOSS = "pit-boss"
    GAMES_DIRECTOR = "games-director"
    OBSERVER = "observer"
    DEVICE = "device"


@dataclass(frozen=True)
class Viewer:
    """Who asks: a station's name, role and, for a dealer, its table."""

    station: str
    role: Role
    table: str | None = None

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
    "reconstruct": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-THB-13"),
    "sign-in": (frozenset({Role.DEALER, Role.PIT_BOSS}), "R-AUD-1"),
    "request-correction": (frozenset({Role.DEALER, Role.PIT_BOSS}), "R-AUD-1"),
    "decide-correction": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-AUD-1"),
    "acknowledge-alert": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-AUD-1"),
    "accounts-count": (frozenset({Role.DEALER, Role.PIT_BOSS}), "R-ACC-1"),
    "accounts-transfer": (frozenset({Role.DEALER, Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-ACC-3"),
    "accounts-drop": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-ACC-4"),
    "accounts-read": (frozenset({Role.DEALER, Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-ACC-5"),
    "shufflers": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-DECK-2"),
    "dealers": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-AUD-1"),
    "floor": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR, Role.OBSERVER}), "R-AUD-1"),
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
observer's (the pit dashboard's floor follows as an observer), not a croupier's or a device's."""


def authorize(viewer: Viewer, table: str, action: str) -> None:
    """:class:`AccessDeniedError` unless the viewer's role may do ``action`` (a key of :data:`PERMISSIONS`) here."""
    roles, rule = PERMISSIONS[action]
    if viewer.role not in roles:
        raise AccessDeniedError(f"{viewer.station} ({viewer.role.value}) may not {action} here", rule=rule)
    if viewer.role in (Role.DEALER, Role.DEVICE) and viewer.table != table:
        raise AccessDeniedError(f"{viewer.station} works at {viewer.table!r}, not {table!r}", rule=rule)

