"""Persons signed in at the stations (issue 32; docs/staff.md), and the check that every call comes from one whose
role allows it (R-AUD-1), once the staff are in force (:class:`service.app.staff.Staff`):

- a person signs in at a station with his badge (employee number) and PIN (:meth:`Sessions.sign_in`); the station's
  record (:class:`domain.staff.StationSessions`) keeps the SHA-256 digest of the session he is given, and the
  session itself goes back to the station, which presents it with every call beside its own token;
- a call's station and session make the :class:`Viewer` the role matrix checks (:meth:`Sessions.resolve`): the role
  the person signed in with, his employee number, his station; a device acts for the croupier signed in at its table;
- a command checks it again within its unit of work (:meth:`Sessions.verify_actor`), on the records as the store has
  them: a session ended, or a person suspended, at another instance meanwhile is refused there too;
- a station unused for its idle time locks: the next call signs its person out (``idle``) and is refused;
- wrong PINs are counted on the person's record and lock the badge after ``lock_after`` in a row; an unknown badge,
  a suspended or removed person, a locked badge and a role the person does not hold are refused and recorded at the
  station; an unknown badge takes as long to refuse as a wrong PIN.

The house's own tools (the console, a fixture: :data:`service.app.application.HOUSE`) and the service's own stations
act as before.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from domain.staff import (
    LOCK_AFTER,
    REGISTER_ID,
    STAFF_ROLES,
    StaffError,
    StaffMember,
    person_record_id,
    station_record_id,
)
from service.app.access import (
    PERSON_ROLES,
    STAFF_ROLE_OF,
    STATION_KINDS,
    PreconditionError,
    Role,
    SessionError,
    SignInRefusedError,
    Viewer,
)
from service.app.sign_in_records import SignInFailures, StationRecords, station_lock
from service.app.staff import FRESH_FOR, HOUSE_STATION, SERVICE_KIND, Staff

if TYPE_CHECKING:
    from service.app.reads import Reads
    from service.app.unit import UnitOfWork

IDLE_SECONDS = 15 * 60
"""A station unused this long locks (its person is signed out); the service's ``station_idle_minutes`` setting."""
_log = logging.getLogger("pokertable.access")


def session_digest(session: str) -> str:
    """The digest the station's record keeps of a session (hex SHA-256)."""
    return hashlib.sha256(session.encode()).hexdigest()


@dataclass(frozen=True)
class SignedIn:
    """A person signed in at a station: the session to present with every call (never stored), who and how."""

    session: str
    person: str
    name: str
    role: str
    station: str
    idle_seconds: int

    def __repr__(self) -> str:  # the session is a secret: never in a log line or a traceback
        return f"SignedIn(person={self.person!r}, role={self.role!r}, station={self.station!r})"


@dataclass
class _Session:
    person: str
    role: str
    checked: float
    used: float


class Sessions:
    """The stations' sign-ins, and the check of who gives each call and each command."""

    def __init__(self, reads: Reads, unit: UnitOfWork, staff: Staff, *, lock_after: int = LOCK_AFTER,
                 idle_seconds: int = IDLE_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.reads, self.unit, self.staff = reads, unit, staff
        self.lock_after, self.idle_seconds, self.clock = lock_after, idle_seconds, clock
        self._sessions: dict[tuple[str, str], _Session] = {}  # by (station, session digest)
        self.records = StationRecords(reads, unit)
        self.failures = SignInFailures(self.records, staff, self._now)
        self._guard = threading.Lock()

    def _now(self) -> float:
        return self.clock()  # a test sets the clock after the throttle is made

    # -- sign-in and sign-out --------------------------------------------------------------------------------------

    def sign_in(self, station: Viewer, person_id: str, pin: str, role: str = "") -> SignedIn:
        """Sign ``person_id`` in at ``station`` with his PIN, in ``role`` (or, none named, the first of his roles the
        station takes); whoever was signed in there is signed out (``replaced``).  At a croupier's station the
        person also becomes the table's dealer (R-AUD-1).  :class:`SignInRefusedError` for any refusal (recorded);
        the PIN is checked once, off every lock."""
        accepted = STATION_KINDS.get(station.station_kind, frozenset())
        if not accepted:
            raise SignInRefusedError(f"no one signs in at {station.station} (a {station.station_kind}): it acts for "
                                     "the croupier signed in at its table", rule="R-AUD-1")
        if not self.staff.in_force():
            raise PreconditionError("no staff are enrolled yet: an administrator enrols the first person "
                                    "(pokertable staff add, docs/staff.md)", rule="R-AUD-1")
        self.failures.verify_not_throttled(station.station)
        try:
            member: StaffMember | None = self.staff.person(person_id)
        except PreconditionError:
            member = None
        if member is None:
            self.staff.credentials.waste(pin)
            self.failures.refused(station, person_id, "unknown-badge")
            raise SignInRefusedError("wrong badge or PIN", rule="R-AUD-1")
        try:
            member.verify_may_sign_in()
        except StaffError as error:
            self.failures.refused(station, person_id, member.status)
            raise SignInRefusedError(error.message, rule=error.rule) from None
        if not self.staff.credentials.verify(member.credential, pin):
            self.failures.wrong_pin(station, person_id, self.lock_after)
            raise SignInRefusedError("wrong badge or PIN", rule="R-AUD-1")
        acting = self._role_for(member, accepted, role)
        if acting is None:
            self.failures.refused(station, person_id, "role")
            taken = sorted(STAFF_ROLE_OF[r] for r in accepted)
            raise SignInRefusedError(f"{person_id} may not sign in at {station.station} as {role or 'any role'}: it "
                                     f"takes {', '.join(taken)}", rule="R-AUD-1")
        return self._signed_in(station, person_id, acting)

    def _role_for(self, member: StaffMember, accepted: frozenset[Role], asked: str) -> str | None:
        held = [name for name in STAFF_ROLES if member.holds(name) and PERSON_ROLES[name] in accepted]
        if asked:
            return asked if asked in held else None
        return held[0] if held else None

    def _signed_in(self, station: Viewer, person_id: str, role: str) -> SignedIn:
        session = secrets.token_urlsafe(32)
        digest = session_digest(session)
        shared = station.station_kind == "pit"  # the dashboard: each browser is a person of its own
        person = Viewer(station.station, PERSON_ROLES[role], station.table, person_id, station.station_kind, digest)
        table = station.table if station.station_kind == "dealer" else None
        replaced: list[str] = []
        with self.unit.acting(person), self.reads.locks(station_lock(station.station)), \
                self.reads.locks(table or station_lock(station.station)):

            def change() -> list[Any]:
                nonlocal replaced
                record = self.records.station(station.station)
                replaced = [] if shared else list(record.sessions)
                record.sign_in(person_id, role, digest, shared=shared)
                member = self.staff.person(person_id)
                member.signed_in(station.station)
                changed: list[Any] = [record, member]
                if table is not None:
                    tabled = self.reads.any_table(table)
                    tabled.sign_in(person_id, station.station)  # R-AUD-1: he deals here from now on
                    changed.append(tabled)
                return changed

            self.records.saved(change, station_record_id(station.station), person_record_id(person_id))
            now = self.clock()
            with self._guard:
                for ended in replaced:
                    self._sessions.pop((station.station, ended), None)
                self._sessions[(station.station, digest)] = _Session(person_id, role, now, now)
            self.failures.throttle.forgive(station.station)
        _log.info("%s signed in at %s as %s", person_id, station.station, role,
                  extra={"fields": {"event": "sign-in", "person": person_id, "station": station.station,
                                    "role": role, "replaced": len(replaced)}})
        return SignedIn(session, person_id, self.staff.name_of(person_id), role, station.station, self.idle_seconds)

    def sign_out(self, viewer: Viewer, why: str = "signed-out") -> None:
        """The person of ``viewer``'s session leaves its station (at a croupier's station, the table too)."""
        if not viewer.person or not viewer.session or viewer.role is Role.DEVICE:
            raise SessionError(f"no person is signed in at {viewer.station}", rule="R-AUD-1")
        self._end(viewer, viewer.session, why, by=viewer.person)

    def _end(self, station: Viewer, digest: str, why: str, *, by: str = "") -> None:
        """End the session ``digest`` at ``station`` (``why``: :data:`domain.staff.SIGN_OUT_WHY`), recorded as
        ``by``'s (the person himself; "" when the service ends it: the idle time, a suspension).  At a croupier's
        station he also leaves the table, unless the station only locked (he is still dealing there)."""
        table = station.table if station.station_kind == "dealer" and why != "idle" else None
        name = station.station
        acting = Viewer(name, station.role, station.table, by, station.station_kind, digest if by else "")
        person = ""
        with self.unit.acting(acting), self.reads.locks(station_lock(name)), \
                self.reads.locks(table or station_lock(name)):

            def change() -> list[Any]:
                nonlocal person
                record = self.records.station(name)
                found = record.signed_in_as(digest)
                if found is None:
                    return []  # signed out already (or replaced)
                person = found[0]
                record.sign_out(digest, why)
                changed: list[Any] = [record]
                if table is not None:
                    tabled = self.reads.any_table(table)
                    if tabled.dealer_id == person:
                        tabled.sign_out(name)
                        changed.append(tabled)
                return changed

            self.records.saved(change, station_record_id(name))
        self._drop_session(name, digest)
        if person:
            _log.info("%s signed out at %s (%s)", person, name, why,
                      extra={"fields": {"event": "sign-out", "person": person, "station": name, "why": why}})

    # -- every call ------------------------------------------------------------------------------------------------

    def resolve(self, station: Viewer, session: str | None) -> Viewer:
        """Who gives a call: the station alone before the staff are in force; then the person signed in there with
        this session (a device: the croupier signed in at its table).  :class:`SessionError` when there is none."""
        if station.kind == SERVICE_KIND or not self.staff.in_force():
            return station
        if station.role is Role.DEVICE:
            dealer = self.reads.any_table(station.table or "").dealer_id
            if not dealer:
                raise SessionError(f"no croupier is signed in at {station.table!r}: its devices deal for him",
                                   rule="R-AUD-1")
            return Viewer(station.station, Role.DEVICE, station.table, dealer, station.station_kind)
        if not session:
            raise SessionError(f"no person is signed in at {station.station}: sign in with badge and PIN",
                               rule="R-AUD-1")
        digest = session_digest(session)
        key = (station.station, digest)
        now = self.clock()
        with self._guard:
            known = self._sessions.get(key)
        if known is None or (not self.reads.sole_writer and now - known.checked > FRESH_FOR):
            known = self._checked(station, digest, known, now)
        if now - known.used > self.idle_seconds:
            self._end(station, digest, "idle")
            raise SessionError(f"{station.station} locked after {self.idle_seconds // 60} minutes unused: sign in "
                               "again", rule="R-AUD-1")
        known.used = now
        return Viewer(station.station, PERSON_ROLES[known.role], station.table, known.person, station.station_kind,
                      digest)

    def _checked(self, at: Viewer, digest: str, known: _Session | None, now: float) -> _Session:
        station = at.station
        try:
            record: Any = self.reads.repository.get(station_record_id(station))
        except AggregateNotFoundError:
            record = None
        found = record.signed_in_as(digest) if record is not None else None
        if found is None:
            self._drop_session(station, digest)
            raise SessionError(f"this session at {station} has ended (signed out, replaced or locked): sign in "
                               "again", rule="R-AUD-1")
        person, role = found
        member = self.staff.person(person)
        if not member.active or not member.holds(role):
            self._end(at, digest, "removed" if member.removed else "suspended")
            raise SessionError(f"{person} may no longer act ({member.status}): his session at {station} ended",
                               rule="R-AUD-1")
        fresh = _Session(person, role, now, known.used if known is not None else now)
        with self._guard:
            self._sessions[(station, digest)] = fresh
        return fresh

    def verify_actor(self, viewer: Viewer) -> None:
        """Within a command's unit of work (R-AUD-1): the person who gives it is still signed in at its station
        with the role it acts in, and on the staff; read as the command reads its table (on PostgreSQL the store
        checks, as it inserts, that none of these records changed since).  The house's own tools pass."""
        if (viewer.station == HOUSE_STATION or viewer.kind == SERVICE_KIND) and not viewer.person:
            return
        try:
            self.reads.fetch(REGISTER_ID)
        except AggregateNotFoundError:
            return  # the staff are not in force: the station acts alone
        if not viewer.person:
            raise SessionError(f"no person is signed in at {viewer.station}", rule="R-AUD-1")
        if viewer.role is not Role.DEVICE:
            try:
                record: Any = self.reads.fetch(station_record_id(viewer.station))
            except AggregateNotFoundError:
                record = None
            found = record.signed_in_as(viewer.session) if record is not None else None
            if found is None or found[0] != viewer.person or PERSON_ROLES.get(found[1]) is not viewer.role:
                raise SessionError(f"{viewer.person} is no longer signed in at {viewer.station}", rule="R-AUD-1")
        try:
            member: Any = self.reads.fetch(person_record_id(viewer.person))
        except AggregateNotFoundError:
            raise SessionError(f"{viewer.person} is not on the staff", rule="R-AUD-1") from None
        if not member.active:
            raise SessionError(f"{viewer.person} may not act ({member.status})", rule="R-AUD-1")
        if viewer.role is Role.DEVICE:
            if not member.holds("croupier"):
                raise SessionError(f"{viewer.person} is not a croupier: the devices deal for one", rule="R-AUD-1")
        elif not member.holds(STAFF_ROLE_OF[viewer.role]):
            raise SessionError(f"{viewer.person} no longer holds the role {STAFF_ROLE_OF[viewer.role]}",
                               rule="R-AUD-1")

    # -- within --------------------------------------------------------------------------------------------------

    def _drop_session(self, station: str, digest: str) -> None:
        with self._guard:
            self._sessions.pop((station, digest), None)

    def drop_sessions_of(self, person_id: str) -> None:
        """Forget every session of a person this instance knows (suspended or removed: each is checked again)."""
        with self._guard:
            for key in [key for key, known in self._sessions.items() if known.person == person_id]:
                del self._sessions[key]
        self.staff.forget_name(person_id)
