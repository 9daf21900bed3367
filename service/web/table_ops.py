"""A table run from its page (issue 34, item 3): the pit boss voids the hand in progress with the rule it breaks and
the reason (R-CIRC-14 at a circle table, R-THB-11 at a banked one; recorded with who and when), and closes a table
between hands. Each is the service's own command with the session's token: what the role may not do is refused
with its rule (R-AUD-1), and nothing is recorded.

Signing a dealer in stays at his station: once the casino's staff are in force a sign-in is the dealer's own badge
and PIN (docs/staff.md), never typed by the pit for him.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.web.api import RefusedError
from service.web.app import Dashboard, back
from service.web.i18n import words
from service.web.sessions import Session

MAX_REASON = 200
VOID_RULES = ("R-CIRC-14", "R-THB-11", "R-AUD-1")
"""The rules a void names: a circle hand's irregularity, a banked hand's, the pit's own decision."""


def routes(dashboard: Dashboard) -> list[Route]:
    """The table page's forms."""

    async def operate(request: Request, session: Session) -> Response:
        table, action = request.path_params["table"], request.path_params["action"]
        page = f"/tables/{quote(table)}"
        form = await request.form()
        t = words(session.lang)
        if not session.decides:
            return Response("refused: an observer only reads (R-AUD-1)", status_code=403)
        try:
            if action == "void":
                rule, reason = str(form.get("rule") or ""), str(form.get("reason") or "").strip()[:MAX_REASON]
                if rule not in VOID_RULES or not reason:
                    return back(page, error=t("a void names its rule and its reason (R-AUD-1)"))
                await dashboard.api.act(session.token, table, cmd.Command(void=cmd.Void(rule=rule, reason=reason)))
                return back(page, done=t("the hand is voided ({rule})", rule=rule))
            if action == "close":
                await dashboard.api.call("CloseTable", svc.CloseTableRequest(
                    command_id=dashboard.api.command_id(), table=table), session.token)
                return back(page, done=t("the table is closed"))
        except RefusedError as refusal:
            return back(page, error=str(refusal))
        return Response("no such operation", status_code=404)

    return [Route("/tables/{table}/{action}", dashboard.signed_in(operate, changes=True), methods=["POST"])]
