"""The casino's staff and who is signed in at each station (issue 32; R-AUD-1: every action names the person who did
it).

A **person** (:class:`StaffMember`) is known by the casino's employee number (his badge carries it), has a name, the
roles the casino gives him (:data:`STAFF_ROLES`, several where the casino allows) and a credential: a PIN or password
kept only as a memory-hard hash, made by the service (:mod:`service.app.credentials`); the domain stores the hash it
is given and never sees the secret.  An administrator enrols, changes, suspends, reinstates, resets and removes him,
and each of those is an event of his record naming the reason where the practice asks for one; the service stamps
every event with the administrator and the station (:mod:`domain.attribution`).  Wrong PINs are counted on his
record: :data:`LOCK_AFTER` in a row lock the badge (``LockedOut``) until an administrator resets his PIN.

The **register** (:class:`StaffRegister`, one per log) lists every person ever enrolled; once it exists the staff
are in force and every command needs a signed-in person (docs/staff.md).

A **station** (:class:`StationSessions`) is a device: the croupier's terminal, a pit terminal, the dashboard.  A
person signs in at it (``PersonSignedIn``: who, in which role, and the digest of the session the service gave him),
and out (``PersonSignedOut``: at his request, replaced by the next, or locked after the station's idle time); at a
shared station (the dashboard) several persons are signed in at once, each in his own session.  Refused sign-ins are
recorded there too (``SignInRefused``), without the PIN tried.

>>> member = StaffMember("1042", "Ana Gómez", ("croupier",), "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA")
>>> member.active, member.roles, member.holds("croupier"), member.holds("pit-boss")
(True, ('croupier',), True, False)
>>> [member.sign_in_failed("mesa-1") for _ in range(LOCK_AFTER)][-1], member.locked
(True, True)
>>> member.verify_may_sign_in()
Traceback (most recent call last):
    ...
domain.staff.StaffError: badge 1042 is locked after 10 wrong PINs in a row: an administrator resets the PIN (R-AUD-1)
"""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.errors import RuleError
from domain.ids import TABLES_NAMESPACE
from domain.names import name_problem

STAFF_NAMESPACE = uuid5(TABLES_NAMESPACE, "staff")
"""Namespace of the ids of the staff's records and the stations'."""
REGISTER_ID = uuid5(STAFF_NAMESPACE, "register")
"""The id of the casino's staff register (one per log)."""
STAFF_ROLES = ("croupier", "pit-boss", "games-director", "administrator", "auditor", "observer")
"""What a person may be (several where the casino allows): the croupier deals at a table; the pit boss runs the
floor; the games director approves; the administrator keeps the staff and the stations; the auditor and the
observer read (the auditor also the authentication log)."""
LOCK_AFTER = 10
"""Wrong PINs in a row that lock a badge (PCI DSS 4.0, requirement 8.3.4: "not more than 10"); the service's
``lock_after`` setting may lower it."""
PERSON_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
"""An employee number as the badge carries it: 1 to 32 letters, digits, dots, dashes or underscores."""
MAX_REASON = 200
SIGN_OUT_WHY = ("signed-out", "replaced", "idle", "suspended", "removed", "station-locked")
"""Why a person's session at a station ended: he signed out, the next person signed in there, the station's idle
time ran out, or an administrator suspended or removed him, or locked the station."""
REFUSALS = ("unknown-badge", "wrong-pin", "locked", "suspended", "removed", "role", "station")
"""Why a sign-in was refused: no such badge, a wrong PIN, a locked badge, a suspended or removed person, a role he
does not hold (or the station does not take), a station where no one signs in (a device)."""


class StaffError(RuleError):
    """A change of the staff or a sign-in the rules refuse (R-AUD-1)."""


def person_id_problem(person_id: object) -> str | None:
    """What is wrong with an employee number, or ``None``."""
    if not isinstance(person_id, str) or not PERSON_ID.fullmatch(person_id):
        return "an employee number has 1 to 32 letters, digits, dots, dashes or underscores, from a letter or digit"
    return None


def verify_person_id(person_id: object) -> str:
    """``person_id`` if it is an employee number, else :class:`StaffError`."""
    if problem := person_id_problem(person_id):
        raise StaffError(problem, rule="R-AUD-1")
    assert isinstance(person_id, str)
    return person_id


def verify_roles(roles: object) -> tuple[str, ...]:
    """The roles given, each once, in :data:`STAFF_ROLES`' order; at least one."""
    if isinstance(roles, str) or not isinstance(roles, (list, tuple, set, frozenset)) or not roles:
        raise StaffError(f"a person holds one or more of the roles {', '.join(STAFF_ROLES)}", rule="R-AUD-1")
    unknown = sorted(str(role) for role in roles if role not in STAFF_ROLES)
    if unknown:
        raise StaffError(f"no such role {unknown[0]!r} (one of {', '.join(STAFF_ROLES)})", rule="R-AUD-1")
    return tuple(role for role in STAFF_ROLES if role in roles)


def verify_reason(reason: object, what: str) -> str:
    """A stated reason: 1 to :data:`MAX_REASON` characters, not blank."""
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON or not reason.isprintable():
        raise StaffError(f"{what} states a reason (1 to {MAX_REASON} printable characters)", rule="R-AUD-1")
    return reason


def _verify_name(name: object) -> str:
    if not isinstance(name, str) or (problem := name_problem(name, "a person's name")):
        raise StaffError(problem if isinstance(name, str) and problem else "a person has a name", rule="R-AUD-1")
    return name


def _verify_credential(credential: object) -> str:
    """A credential is the hash the service made (a PHC string, ``$argon2id$…``), never the secret itself."""
    if not isinstance(credential, str) or not credential.startswith("$argon2") or len(credential) > 256:
        raise StaffError("a person's PIN is kept only as its Argon2 hash", rule="R-AUD-1")
    return credential


def person_record_id(person_id: str) -> UUID:
    """The id of a person's record, from his employee number."""
    return uuid5(STAFF_NAMESPACE, f"person/{person_id}")


def station_record_id(station: str) -> UUID:
    """The id of a station's sign-in record, from the station's name."""
    return uuid5(STAFF_NAMESPACE, f"station/{station}")


class StaffMember(Aggregate):
    """A person of the casino's staff: who he is, what he may be, his credential's hash, and whether he may sign in."""

    @staticmethod
    def create_id(person_id: str, **_: Any) -> UUID:
        """One record per employee number (never reused: a removed person's number stays his)."""
        return person_record_id(person_id)

    @event("Enrolled")
    def __init__(self, person_id: str, name: str, roles: tuple[str, ...], credential: str) -> None:
        """R-AUD-1: an administrator enrolled the person (his number, name, roles and his PIN's hash)."""
        self.person_id = verify_person_id(person_id)
        self.name = _verify_name(name)
        self.roles = verify_roles(roles)
        self.credential = _verify_credential(credential)
        self.suspended = ""
        """Why an administrator suspended him ("": he is not suspended)."""
        self.removed = ""
        """Why an administrator removed him ("": he is on the staff)."""
        self.failures = 0
        """Wrong PINs in a row since his last sign-in or reset."""
        self.locked = False
        """His badge is locked after :data:`LOCK_AFTER` wrong PINs in a row, until an administrator resets his PIN."""

    @property
    def active(self) -> bool:
        """On the staff, not suspended, not locked: he may sign in."""
        return not (self.suspended or self.removed or self.locked)

    @property
    def status(self) -> str:
        """``active``, ``locked``, ``suspended`` or ``removed``."""
        return "removed" if self.removed else "suspended" if self.suspended else "locked" if self.locked else "active"

    def holds(self, role: str) -> bool:
        """Whether the casino gave him ``role``."""
        return role in self.roles

    def verify_may_sign_in(self) -> None:
        """:class:`StaffError` naming why he may not sign in now (removed, suspended, locked)."""
        if self.removed:
            raise StaffError(f"{self.person_id} is no longer on the staff", rule="R-AUD-1")
        if self.suspended:
            raise StaffError(f"{self.person_id} is suspended: an administrator reinstates him", rule="R-AUD-1")
        if self.locked:
            raise StaffError(f"badge {self.person_id} is locked after {self.failures} wrong PINs in a row: an "
                             "administrator resets the PIN", rule="R-AUD-1")

    def _verify_on_staff(self) -> None:
        if self.removed:
            raise StaffError(f"{self.person_id} is no longer on the staff", rule="R-AUD-1")

    # -- an administrator's changes --------------------------------------------------------------------------------

    def change(self, name: str, roles: tuple[str, ...]) -> None:
        """R-AUD-1: his name or roles changed (a promotion, a correction)."""
        self._verify_on_staff()
        name, roles = _verify_name(name), verify_roles(roles)
        if (name, roles) == (self.name, self.roles):
            raise StaffError(f"{self.person_id} is already {name} ({', '.join(roles)}): nothing to change",
                             rule="R-AUD-1")
        self._changed(person_id=self.person_id, name=name, roles=roles)

    @event("Changed")
    def _changed(self, *, person_id: str, name: str, roles: tuple[str, ...]) -> None:
        """R-AUD-1: an administrator changed the person's name or roles."""
        self.name, self.roles = name, tuple(roles)

    def suspend(self, reason: str) -> None:
        """R-AUD-1: he may not sign in until reinstated; his sessions end (the service signs him out)."""
        self._verify_on_staff()
        reason = verify_reason(reason, "a suspension")
        if self.suspended:
            raise StaffError(f"{self.person_id} is already suspended", rule="R-AUD-1")
        self._suspended(person_id=self.person_id, reason=reason)

    @event("Suspended")
    def _suspended(self, *, person_id: str, reason: str) -> None:
        """R-AUD-1: an administrator suspended the person, and why."""
        self.suspended = reason

    def reinstate(self, reason: str) -> None:
        """R-AUD-1: a suspended person may sign in again."""
        self._verify_on_staff()
        reason = verify_reason(reason, "a reinstatement")
        if not self.suspended:
            raise StaffError(f"{self.person_id} is not suspended", rule="R-AUD-1")
        self._reinstated(person_id=self.person_id, reason=reason)

    @event("Reinstated")
    def _reinstated(self, *, person_id: str, reason: str) -> None:
        """R-AUD-1: an administrator lifted the person's suspension, and why."""
        self.suspended = ""

    def reset(self, credential: str) -> None:
        """R-AUD-1: a new PIN (its hash), which also unlocks a locked badge."""
        self._verify_on_staff()
        self._credential_reset(person_id=self.person_id, credential=_verify_credential(credential))

    @event("CredentialReset")
    def _credential_reset(self, *, person_id: str, credential: str) -> None:
        """R-AUD-1: the person's PIN or password was set anew (its hash only); a locked badge is unlocked."""
        self.credential, self.failures, self.locked = credential, 0, False

    def remove(self, reason: str) -> None:
        """R-AUD-1: he leaves the staff; his number stays his, in the log."""
        self._verify_on_staff()
        self._removed(person_id=self.person_id, reason=verify_reason(reason, "a removal"))

    @event("Removed")
    def _removed(self, *, person_id: str, reason: str) -> None:
        """R-AUD-1: an administrator removed the person from the staff, and why."""
        self.removed = reason

    # -- sign-in attempts -----------------------------------------------------------------------------------------

    def sign_in_failed(self, station: str, lock_after: int = LOCK_AFTER) -> bool:
        """R-AUD-1: a wrong PIN for his badge at ``station``; True when it locked the badge."""
        self._sign_in_failed(person_id=self.person_id, station=station, failures=self.failures + 1)
        if self.failures >= lock_after and not self.locked:
            self._locked_out(person_id=self.person_id, station=station, failures=self.failures)
            return True
        return False

    @event("SignInFailed")
    def _sign_in_failed(self, *, person_id: str, station: str, failures: int) -> None:
        """R-AUD-1: a wrong PIN for the person's badge at the station (the PIN tried is not recorded); the count of
        wrong PINs in a row."""
        self.failures = failures

    @event("LockedOut")
    def _locked_out(self, *, person_id: str, station: str, failures: int) -> None:
        """R-AUD-1: the person's badge locked after so many wrong PINs in a row, until an administrator resets it."""
        self.locked = True

    def signed_in(self, station: str) -> None:
        """A sign-in that succeeded clears the count of wrong PINs (recorded only when there were some)."""
        if self.failures:
            self._failures_cleared(person_id=self.person_id, station=station)

    @event("FailuresCleared")
    def _failures_cleared(self, *, person_id: str, station: str) -> None:
        """R-AUD-1: the person signed in at the station with his PIN: the wrong PINs before it are forgiven."""
        self.failures = 0


class StaffRegister(Aggregate):
    """Everyone ever enrolled, by employee number: its existence puts the staff in force (docs/staff.md)."""

    @staticmethod
    def create_id(**_: Any) -> UUID:
        """One register per log."""
        return REGISTER_ID

    @event("Opened")
    def __init__(self) -> None:
        """R-AUD-1: the casino's staff register was opened (by its first enrolment): from now on every command
        needs a signed-in person."""
        self.people: list[str] = []

    def enlist(self, person_id: str) -> None:
        """A person enrolled (his number is never listed twice, nor reused)."""
        if person_id in self.people:
            raise StaffError(f"employee number {person_id} is already enrolled", rule="R-AUD-1")
        self._listed(person_id=verify_person_id(person_id))

    @event("Listed")
    def _listed(self, *, person_id: str) -> None:
        """R-AUD-1: a person was enrolled under this employee number."""
        self.people.append(person_id)


class StationSessions(Aggregate):
    """Who is signed in at a station (a device: a croupier's terminal, a pit terminal, the dashboard): one person at
    a croupier's or a pit boss's terminal (the next replaces him), several at once at a shared station (the
    dashboard, where each browser is a person of the pit)."""

    @staticmethod
    def create_id(station: str, **_: Any) -> UUID:
        """One record per station name."""
        return station_record_id(station)

    @event("Registered")
    def __init__(self, station: str) -> None:
        """R-AUD-1: the station's first sign-in (or refusal) opened its record."""
        self.station = station
        self.sessions: dict[str, list[str]] = {}
        """Each session signed in here, by its SHA-256 digest (hex; the session itself is never stored): the
        person's employee number and the role he acts in."""

    def signed_in_as(self, session: str) -> tuple[str, str] | None:
        """The person and the role of the session with this digest, if it is signed in here."""
        found = self.sessions.get(session)
        return (found[0], found[1]) if found else None

    @property
    def people(self) -> list[str]:
        """The persons signed in here."""
        return [person for person, _ in self.sessions.values()]

    def sign_in(self, person_id: str, role: str, session: str, *, shared: bool = False) -> None:
        """R-AUD-1: ``person_id`` works at this station from now on, in ``role``; at a station that is not
        ``shared`` whoever was signed in is replaced (his session ends)."""
        verify_person_id(person_id)
        if role not in STAFF_ROLES:
            raise StaffError(f"no such role {role!r}", rule="R-AUD-1")
        if not re.fullmatch(r"[0-9a-f]{64}", session) or session in self.sessions:
            raise StaffError("a new session is recorded by its SHA-256 digest only", rule="R-AUD-1")
        if not shared:
            for replaced, (person, _) in list(self.sessions.items()):
                self._signed_out(station=self.station, person_id=person, why="replaced", session=replaced)
        self._signed_in(station=self.station, person_id=person_id, role=role, session=session)

    @event("PersonSignedIn")
    def _signed_in(self, *, station: str, person_id: str, role: str, session: str) -> None:
        """R-AUD-1: the person signed in at the station with his badge and PIN, in the role; the digest of the
        session he was given (never the session itself)."""
        self.sessions[session] = [person_id, role]

    def sign_out(self, session: str, why: str) -> None:
        """R-AUD-1: the person of the session with this digest leaves (``why``: :data:`SIGN_OUT_WHY`)."""
        if why not in SIGN_OUT_WHY:
            raise StaffError(f"a session ends for one of {', '.join(SIGN_OUT_WHY)}", rule="R-AUD-1")
        found = self.sessions.get(session)
        if found is None:
            raise StaffError(f"that session is not signed in at station {self.station}", rule="R-AUD-1")
        self._signed_out(station=self.station, person_id=found[0], why=why, session=session)

    @event("PersonSignedOut")
    def _signed_out(self, *, station: str, person_id: str, why: str, session: str) -> None:
        """R-AUD-1: the person's session at the station ended, and why (he signed out, was replaced, the station
        locked after its idle time, he was suspended or removed)."""
        self.sessions.pop(session, None)

    def refuse(self, person_id: str, why: str) -> None:
        """R-AUD-1: a sign-in refused here (``why``: :data:`REFUSALS`), for the badge given (the PIN tried is never
        recorded); an unknown badge is recorded as given, cut to 32 characters."""
        if why not in REFUSALS:
            raise StaffError(f"a refusal is one of {', '.join(REFUSALS)}", rule="R-AUD-1")
        badge = "".join(c for c in person_id if c.isprintable())[:32] if isinstance(person_id, str) else ""
        self._sign_in_refused(station=self.station, person_id=badge, why=why)

    @event("SignInRefused")
    def _sign_in_refused(self, *, station: str, person_id: str, why: str) -> None:
        """R-AUD-1: a sign-in at the station refused, for the badge given, and why (the PIN tried is not recorded)."""
