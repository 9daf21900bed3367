"""The handlers of the staff's commands (issue 32; docs/staff.md): an administrator enrols, changes, suspends,
reinstates, resets and removes persons, each an event of the person's record in the casino's log (R-AUD-1)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from domain.staff import REGISTER_ID, StaffError, StaffMember, StaffRegister, person_record_id, verify_person_id
from service.app.access import NotFoundError, Viewer
from service.app.commands import Command
from service.app.results import Result
from service.app.staff_commands import (
    ChangePerson,
    EnrolPerson,
    ReinstatePerson,
    RemovePerson,
    ResetPin,
    SuspendPerson,
)

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from service.app.handlers.context import Tables


def enrol_person(app: Tables, command: EnrolPerson, viewer: Viewer) -> Result:
    """R-AUD-1: a person enrolled (his PIN hashed first, off every lock); the first enrolment opens the register and
    puts the staff in force, so it must be an administrator's, or no one could keep the staff afterwards."""
    person_id = verify_person_id(command.person_id)
    hashed = app.staff.credentials.hash(command.pin, person_id)

    def change() -> tuple[Result, list[Aggregate]]:
        try:
            register: Any = app.reads.fetch(REGISTER_ID)
        except AggregateNotFoundError:
            if "administrator" not in command.roles:
                raise StaffError("the first person enrolled is an administrator: he enrols the others",
                                 rule="R-AUD-1") from None
            register = StaffRegister()
        register.enlist(person_id)
        try:
            app.reads.fetch(person_record_id(person_id))
        except AggregateNotFoundError:
            pass
        else:
            raise StaffError(f"employee number {person_id} is already enrolled", rule="R-AUD-1")
        member = StaffMember(person_id, command.name, tuple(command.roles), hashed)
        return Result(table="", version=member.version), [register, member]

    result = app.unit.execute(command.command_id, "", change, command.what(None))
    app.staff.enrolled()
    return result


def _member_change(app: Tables, command: Command, person_id: str, apply: Callable[[StaffMember], None]) -> Result:
    """A change of one person's record."""
    def change() -> tuple[Result, list[Aggregate]]:
        try:
            member: Any = app.reads.fetch(person_record_id(verify_person_id(person_id)))
        except AggregateNotFoundError:
            raise NotFoundError(f"no person with employee number {person_id!r} is enrolled",
                                rule="R-AUD-1") from None
        apply(member)
        return Result(table="", version=member.version), [member]

    result = app.unit.execute(command.command_id, "", change, command.what(None))
    app.sessions.drop_sessions_of(person_id)  # each of his sessions is checked again at its next call
    return result


def change_person(app: Tables, command: ChangePerson, viewer: Viewer) -> Result:
    """R-AUD-1: a person's name or roles changed; a session in a role he no longer holds ends at its next call."""
    return _member_change(app, command, command.person_id, lambda m: m.change(command.name, tuple(command.roles)))


def suspend_person(app: Tables, command: SuspendPerson, viewer: Viewer) -> Result:
    """R-AUD-1: a person suspended: his sign-ins are refused, his sessions end at their next call."""
    return _member_change(app, command, command.person_id, lambda m: m.suspend(command.reason))


def reinstate_person(app: Tables, command: ReinstatePerson, viewer: Viewer) -> Result:
    """R-AUD-1: a person's suspension lifted."""
    return _member_change(app, command, command.person_id, lambda m: m.reinstate(command.reason))


def reset_pin(app: Tables, command: ResetPin, viewer: Viewer) -> Result:
    """R-AUD-1: a person's new PIN (hashed first), which also unlocks his badge."""
    hashed = app.staff.credentials.hash(command.pin, verify_person_id(command.person_id))
    return _member_change(app, command, command.person_id, lambda m: m.reset(hashed))


def remove_person(app: Tables, command: RemovePerson, viewer: Viewer) -> Result:
    """R-AUD-1: a person removed from the staff: his sessions end at their next call."""
    return _member_change(app, command, command.person_id, lambda m: m.remove(command.reason))


HANDLERS: Mapping[type[Command], Callable[[Tables, Any, Viewer], Result]] = {
    EnrolPerson: enrol_person, ChangePerson: change_person, SuspendPerson: suspend_person,
    ReinstatePerson: reinstate_person, ResetPin: reset_pin, RemovePerson: remove_person}
"""The staff's handlers."""
