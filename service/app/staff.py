"""People, not stations (issue 32; docs/staff.md): the casino's staff register, and whether it is in force.

Until the casino enrols its first person the service works as it always did: a station's token is enough, and its
commands are recorded with the station and no person.  The first enrolment opens the staff register
(:class:`domain.staff.StaffRegister`), and from then on every call needs a person signed in at its station
(:mod:`service.app.sessions`).  :class:`Staff` reads the register and the persons' records for the sign-ins, the
listings and the names shown beside each action, and keeps the hasher of their PINs
(:mod:`service.app.credentials`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from domain.staff import REGISTER_ID, StaffMember, StaffRegister, person_id_problem, person_record_id
from service.app.access import PreconditionError
from service.app.credentials import Credentials

if TYPE_CHECKING:
    from service.app.reads import Reads

HOUSE_STATION = "house"
"""The station name of the house's own tools (never a configured station's)."""
SERVICE_KIND = "service"
"""The kind of the service's own stations, made for one run with a token that never leaves its memory (the pit
dashboard's floor, an observer): they read without a person; no configuration file can declare one."""
FRESH_FOR = 1.0
"""Seconds an answer of the store is taken as still valid by a read (several instances on one PostgreSQL; the sole
writer's memory is the truth, and a command checks it in its unit of work)."""


@dataclass(frozen=True)
class Person:
    """A person of the staff as the administrator lists him (no credential)."""

    person_id: str
    name: str
    roles: tuple[str, ...]
    status: str
    failures: int


class Staff:
    """The staff register and the persons' records."""

    def __init__(self, reads: Reads, credentials: Credentials | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.reads, self.clock = reads, clock
        self.credentials = credentials or Credentials()
        self._names: dict[str, str] = {}
        self._nobody: dict[str, float] = {}
        """Ids found to be nobody's (a station's name, before the staff), and when: asked again after
        :data:`FRESH_FOR` seconds (another instance may enrol one; the sole writer's memory is the truth) or at once
        after an enrolment here (the shift report named 200 tables' openers, a read of the store each)."""
        self._in_force = False  # once true, true for good (a register is never removed)
        self._absent_since: float | None = None

    # -- the register ---------------------------------------------------------------------------------------------

    def in_force(self) -> bool:
        """Whether the staff are in force: a person was ever enrolled (then every call needs a person).  Once true,
        true for good; while false, asked of the store once (the sole writer, which enrols itself) or at most every
        :data:`FRESH_FOR` seconds (another instance may enrol: a command checks it again in its unit of work)."""
        if self._in_force:
            return True
        now = self.clock()
        if self._absent_since is not None and (self.reads.sole_writer or now - self._absent_since < FRESH_FOR):
            return False
        try:
            self.reads.repository.get(REGISTER_ID)
        except AggregateNotFoundError:
            self._absent_since = now
            return False
        self._in_force = True
        return True

    def enrolled(self) -> None:
        """A person was enrolled here: the staff are in force (and an id found to be nobody's may be his now)."""
        self._in_force = True
        self._nobody.clear()

    def person(self, person_id: str) -> StaffMember:
        """A person's record (:class:`PreconditionError` for no such person)."""
        if person_id_problem(person_id) is None:
            try:
                member: Any = self.reads.repository.get(person_record_id(person_id))
            except AggregateNotFoundError:
                pass
            else:
                assert isinstance(member, StaffMember)
                return member
        raise PreconditionError(f"no person with employee number {person_id!r} is enrolled", rule="R-AUD-1")

    def people(self) -> list[Person]:
        """Everyone ever enrolled, in enrolment order (the removed too, so marked)."""
        try:
            register: Any = self.reads.repository.get(REGISTER_ID)
        except AggregateNotFoundError:
            return []
        assert isinstance(register, StaffRegister)
        listed = []
        for person_id in register.people:
            member = self.person(person_id)
            listed.append(Person(member.person_id, member.name, tuple(member.roles), member.status, member.failures))
        return listed

    def name_of(self, person_id: str) -> str:
        """A person's name ("" for no such person), remembered once read (names change rarely: a change of one
        forgets it)."""
        if not person_id:
            return ""
        name = self._names.get(person_id)
        if name is None:
            found = self._nobody.get(person_id)
            if found is not None and (self.reads.sole_writer or self.clock() - found < FRESH_FOR):
                return ""
            try:
                name = self.person(person_id).name
            except PreconditionError:
                if len(self._nobody) > 10_000:
                    self._nobody.clear()
                self._nobody[person_id] = self.clock()
                return ""
            if len(self._names) > 10_000:
                self._names.clear()
            self._names[person_id] = name
        return name

    def forget_name(self, person_id: str) -> None:
        """A person's name changed: read it again next time."""
        self._names.pop(person_id, None)
