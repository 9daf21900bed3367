"""The staff and the authentication log on the dashboard (issue 32; docs/staff.md): ``/staff`` lists the casino's
people (the administrator enrols, suspends, reinstates, resets a PIN and removes from it; the auditor reads it) and
``/access`` shows the authentication log over a range (sign-ins, refusals, wrong PINs, lockouts, the staff's
changes). Translation only: ``ListStaff``, ``EnrolPerson``, ``ChangePerson`` and ``ListAccess``, as the signed-in
person; the service's role matrix decides (an observer's request is refused there, and the page says so)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from service.api import table_service_pb2 as svc
from service.web.api import RefusedError, ranged
from service.web.app import Dashboard, range_asked
from service.web.sessions import Session

ROLES = ("croupier", "pit-boss", "games-director", "administrator", "auditor", "observer")
CHANGES = ("suspend", "reinstate", "reset_pin", "remove")


def _back(done: str = "", error: str = "") -> Response:
    return RedirectResponse(f"/staff?{urlencode({'done': done, 'error': error})}", status_code=303)


def routes(dashboard: Dashboard) -> list[Route]:
    """The staff's page, its two forms, and the authentication log's page."""

    async def staff_page(request: Request, session: Session) -> Response:
        try:
            reply: svc.ListStaffResponse = await dashboard.api.call("ListStaff", svc.ListStaffRequest(), session.token)
        except RefusedError as refusal:
            return dashboard.page("error.html", session, refusal=refusal)
        return dashboard.page("staff.html", session, people=list(reply.people), roles=ROLES,
                              administers=session.role == "administrator",
                              done=request.query_params.get("done", ""), error=request.query_params.get("error", ""))

    async def enrol(request: Request, session: Session) -> Response:
        form = await request.form()
        person, name = str(form.get("person") or "").strip(), str(form.get("name") or "").strip()
        roles = [str(role) for role in form.getlist("roles") if str(role) in ROLES]
        enrolment = svc.EnrolPersonRequest(command_id=dashboard.api.command_id(), person_id=person, name=name,
                                           roles=roles, pin=str(form.get("pin") or ""))
        try:
            await dashboard.api.call("EnrolPerson", enrolment, session.token)
        except RefusedError as refusal:
            return _back(error=f"{person}: {refusal}")
        return _back(done=f"{person} ({name}) enrolled as {', '.join(roles)}")

    async def change(request: Request, session: Session) -> Response:
        form = await request.form()
        person, kind, value = str(form.get("person") or ""), str(form.get("change") or ""), str(form.get("value") or "")
        if kind not in CHANGES:
            return Response("no such change", status_code=400)
        asked: dict[str, Any] = {kind: value}
        try:
            await dashboard.api.call("ChangePerson", svc.ChangePersonRequest(
                command_id=dashboard.api.command_id(), person_id=person, **asked), session.token)
        except RefusedError as refusal:
            return _back(error=f"{person}: {refusal}")
        return _back(done=f"{person}: {kind.replace('_', ' ')} done")

    async def access_page(request: Request, session: Session) -> Response:
        try:
            since, until = range_asked(request, dashboard.clock)
        except ValueError:
            return Response("from and to are ISO 8601 times (2026-11-25T21:00)", status_code=400)
        try:
            reply: svc.ListAccessResponse = await dashboard.api.call(
                "ListAccess", ranged(svc.ListAccessRequest(), since, until), session.token)
        except RefusedError as refusal:
            return dashboard.page("error.html", session, refusal=refusal)
        entries = [{"time": dashboard.clock.local(e.time), "kind": e.kind,
                    "person": e.person_id, "name": e.name, "station": e.station, "by": e.by_person_id,
                    "detail": e.detail} for e in reply.entries]
        return dashboard.page("access.html", session, entries=entries, since=request.query_params.get("from", ""),
                              until=request.query_params.get("to", ""))

    signed_in = dashboard.signed_in
    return [Route("/staff", signed_in(staff_page)),
            Route("/staff/enrol", signed_in(enrol, changes=True), methods=["POST"]),
            Route("/staff/change", signed_in(change, changes=True), methods=["POST"]),
            Route("/access", signed_in(access_page))]
