"""The staff over gRPC (issue 32; docs/staff.md): a person signs in and out at the calling station (``SignIn`` with
badge and PIN, ``SignOut``), and the administrator keeps the staff (``EnrolPerson``, ``ChangePerson``,
``ListStaff``).  Translation only: :class:`service.app.sessions.Sessions` and the staff's command handlers decide.

A PIN is read from the request, handed to the application and never logged, echoed or put in an error (the request
log names the call, not its fields).  Checking one costs ≈ 0.1 s of Argon2id, so a sign-in always runs on the thread
pool, never on the event loop.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from domain.staff import STAFF_ROLES
from domain.tables import MAX_DEALER_ID
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.access import Viewer, authorize
from service.app.access_log import MAX_ENTRIES, access_between
from service.app.commands import Command, SignIn, SignOut
from service.app.credentials import MAX_PIN
from service.app.staff_commands import (
    ChangePerson,
    EnrolPerson,
    ReinstatePerson,
    RemovePerson,
    ResetPin,
    SuspendPerson,
)
from service.grpc.base import ServicerBase
from service.grpc.errors import _guarded, invalid
from service.grpc.event_messages import timestamp
from service.grpc.replies import command_result
from service.grpc.requests import _command_id, _table, _text, moment


def _roles(values: Any, field: str) -> tuple[str, ...]:
    roles = tuple(_text(value, field) for value in values)
    if not roles:
        raise invalid(f"a person holds one or more of the roles {', '.join(STAFF_ROLES)}", field, "R-AUD-1")
    return roles


def _pin(value: str, field: str) -> str:
    if not value:
        raise invalid("a PIN is required", field, "R-AUD-1")
    if len(value) > MAX_PIN:
        raise invalid(f"a PIN has at most {MAX_PIN} characters", field, "R-AUD-1")
    return value


class StaffRpcs(ServicerBase):
    """SignIn, SignOut, EnrolPerson, ChangePerson, ListStaff."""

    @_guarded
    async def SignIn(self, request: svc.SignInRequest, context: Any) -> svc.SignInResponse:  # noqa: N802
        """A person at the calling station (badge and PIN); before the staff are in force, a dealer's id at a
        table (R-AUD-1)."""
        if not request.badge:
            command_id, table = _command_id(request.command_id), _table(request.table)
            dealer_id = _text(request.dealer_id, "dealer_id")
            if len(dealer_id) > MAX_DEALER_ID:
                raise invalid(f"a dealer's id has 1 to {MAX_DEALER_ID} characters", "dealer_id", "R-AUD-1")
            return svc.SignInResponse(result=await self._attributed(context, SignIn(command_id, table, dealer_id)))
        badge, pin = _text(request.badge, "badge"), _pin(request.pin, "pin")
        role = _text(request.role, "role", required=False)
        if role and role not in STAFF_ROLES:
            raise invalid(f"a role is one of {', '.join(STAFF_ROLES)}", "role", "R-AUD-1")
        station = self._viewer(context)

        def work() -> svc.SignInResponse:
            signed = self.app.sessions.sign_in(station, badge, pin, role)
            return svc.SignInResponse(result=pb.CommandResult(table=station.table or ""), session=signed.session,
                                      person_id=signed.person, name=signed.name, role=signed.role,
                                      idle_seconds=signed.idle_seconds)

        return await self._offloaded(work)

    @_guarded
    async def SignOut(self, request: svc.SignOutRequest, context: Any) -> svc.SignOutResponse:  # noqa: N802
        """No table: the person of the call's session leaves his station.  A table: its dealer leaves it (R-AUD-1);
        from a croupier's station with a person signed in, that is the person leaving the station and the table."""
        command_id = _command_id(request.command_id)
        table = _table(request.table) if request.table else ""

        def work(viewer: Viewer) -> pb.CommandResult:
            if not table or (viewer.person and viewer.station_kind == "dealer"):
                self.app.sessions.sign_out(viewer)
                return pb.CommandResult(table=table)
            return command_result(self.app.handle(SignOut(command_id, table), viewer))

        return svc.SignOutResponse(result=await self._run(context, work, offload=True))

    @_guarded
    async def EnrolPerson(self, request: svc.EnrolPersonRequest, context: Any) -> svc.EnrolPersonResponse:  # noqa: N802
        """An administrator enrols a person (R-AUD-1)."""
        command = EnrolPerson(_command_id(request.command_id), "", _text(request.person_id, "person_id"),
                              _text(request.name, "name"), _roles(request.roles, "roles"), _pin(request.pin, "pin"))
        return svc.EnrolPersonResponse(result=await self._attributed(context, command, offload=True))

    @_guarded
    async def ChangePerson(self, request: svc.ChangePersonRequest, context: Any) -> svc.ChangePersonResponse:  # noqa: N802
        """An administrator changes a person (R-AUD-1)."""
        command_id, person = _command_id(request.command_id), _text(request.person_id, "person_id")
        case = request.WhichOneof("change")
        command: Command
        if case == "details":
            command = ChangePerson(command_id, "", person, _text(request.details.name, "details.name"),
                                   _roles(request.details.roles, "details.roles"))
        elif case == "suspend":
            command = SuspendPerson(command_id, "", person, _text(request.suspend, "suspend"))
        elif case == "reinstate":
            command = ReinstatePerson(command_id, "", person, _text(request.reinstate, "reinstate"))
        elif case == "reset_pin":
            command = ResetPin(command_id, "", person, _pin(request.reset_pin, "reset_pin"))
        elif case == "remove":
            command = RemovePerson(command_id, "", person, _text(request.remove, "remove"))
        else:
            raise invalid("a change is one of details, suspend, reinstate, reset_pin, remove", "change", "R-AUD-1")
        return svc.ChangePersonResponse(result=await self._attributed(context, command, offload=True))

    @_guarded
    async def ListStaff(self, request: svc.ListStaffRequest, context: Any) -> svc.ListStaffResponse:  # noqa: N802
        """The staff, for the administrator and the auditor (never a credential)."""
        def work(viewer: Viewer) -> svc.ListStaffResponse:
            authorize(viewer, "", "access-log")
            return svc.ListStaffResponse(people=[
                svc.StaffPerson(person_id=p.person_id, name=p.name, roles=list(p.roles), status=p.status,
                                failures=p.failures) for p in self.app.staff.people()])

        return await self._run(context, work, offload=True)

    @_guarded
    async def ListAccess(self, request: svc.ListAccessRequest, context: Any) -> svc.ListAccessResponse:  # noqa: N802
        """The authentication log in a range, for the administrator and the auditor (R-AUD-1)."""
        until = moment(request, "until") or datetime.now(UTC)
        earliest = datetime.min.replace(tzinfo=UTC)
        day = timedelta(hours=24)
        since = moment(request, "since") or (until - day if until - earliest > day else earliest)
        if since > until:
            raise invalid("since is after until", "since", "R-AUD-1")
        if request.limit < 0:
            raise invalid("limit is 0 (the most) or more", "limit")
        limit = min(request.limit or MAX_ENTRIES, MAX_ENTRIES)

        def work(viewer: Viewer) -> svc.ListAccessResponse:
            authorize(viewer, "", "access-log")
            names = self.app.staff.name_of
            return svc.ListAccessResponse(entries=[
                svc.AccessEntry(position=e.position, time=timestamp(e.at), kind=e.kind, person_id=e.person,
                                name=names(e.person) if e.kind != "refused" else "", station=e.station,
                                by_person_id=e.by, detail=e.detail)
                for e in access_between(self.app.floor_log, since, until, limit)])

        return await self._run(context, work, offload=True)

    async def _attributed(self, context: Any, command: Command, *, offload: bool = False) -> pb.CommandResult:
        def work(viewer: Viewer) -> pb.CommandResult:
            return command_result(self.app.handle(command, viewer))

        return await self._run(context, work, offload=offload)
