"""The staff's commands (issue 32; docs/staff.md): what an administrator asks of the application about the casino's
people, handled by :mod:`service.app.handlers.staff`, each one of the casino's log (table ``""``) and recorded once
per command id like any command (:mod:`service.app.commands`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from domain.tables import TableRecord
from service.app.commands import Command


@dataclass(frozen=True)
class EnrolPerson(Command):
    """R-AUD-1: an administrator enrols a person (his employee number, name, roles and first PIN); the first
    enrolment puts the staff in force and is an administrator's own.  The PIN is hashed before anything is stored,
    and is never part of what the command's record digests (a retry is told by the rest)."""

    person_id: str
    name: str
    roles: tuple[str, ...]
    pin: str = field(repr=False)
    permission: ClassVar[str] = "staff"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "enrol_person", self.person_id, self.name, tuple(self.roles)


@dataclass(frozen=True)
class ChangePerson(Command):
    """R-AUD-1: an administrator changes a person's name or roles."""

    person_id: str
    name: str
    roles: tuple[str, ...]
    permission: ClassVar[str] = "staff"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "change_person", self.person_id, self.name, tuple(self.roles)


@dataclass(frozen=True)
class SuspendPerson(Command):
    """R-AUD-1: an administrator suspends a person, with the reason: he may not sign in, and his sessions end."""

    person_id: str
    reason: str
    permission: ClassVar[str] = "staff"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "suspend_person", self.person_id, self.reason


@dataclass(frozen=True)
class ReinstatePerson(Command):
    """R-AUD-1: an administrator lifts a person's suspension, with the reason."""

    person_id: str
    reason: str
    permission: ClassVar[str] = "staff"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "reinstate_person", self.person_id, self.reason


@dataclass(frozen=True)
class ResetPin(Command):
    """R-AUD-1: an administrator gives a person a new PIN (hashed), which also unlocks his badge."""

    person_id: str
    pin: str = field(repr=False)
    permission: ClassVar[str] = "staff"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "reset_pin", self.person_id


@dataclass(frozen=True)
class RemovePerson(Command):
    """R-AUD-1: an administrator removes a person from the staff, with the reason (his number is never reused)."""

    person_id: str
    reason: str
    permission: ClassVar[str] = "staff"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "remove_person", self.person_id, self.reason
