"""The pit's decisions on the dashboard (issue 16, items 3 and 4): the approvals queue and the alerts.

- **Approvals**: a Texas Hold'em Bonus 1000:1 bonus waits for the games director (R-THB-10); a croupier's correction
  of a mis-keyed action waits for the pit boss or the games director (R-AUD-1). Each is approved or refused with a
  reason, sent to the service as the table's own command (``approve_bonus`` / ``refuse_bonus``,
  ``decide_correction``) with the session's token: the service records who and when, and refuses what the role may
  not do (an observer's session is refused here already, and by the service if it tried).
- **Alerts**: device faults and voids (:mod:`service.web.floor`); acknowledged by the pit boss or the games director
  with a reason, recorded as an event of the table (``AcknowledgeAlert``); tampering the service's audit found in
  the log is an alert of no table (the casino's log), acknowledged alike (``AcknowledgeAlert`` naming no table).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.games import GAMES
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.web.api import RefusedError, timestamp
from service.web.app import Dashboard, back
from service.web.i18n import words
from service.web.sessions import Session

LOG_NAME = "casino log"
"""How the pages name the "table" of an alert of the log itself (tampering found by the audit)."""
MAX_BOX = max(game.boxes for game in GAMES.values())
"""The highest box of a banked table (Texas Hold'em Bonus has seven, R-THB-1)."""
MAX_REASON = 200
"""The longest reason the service records (R-AUD-1)."""


def _reason(text: object) -> str:
    return str(text or "").strip()[:MAX_REASON]


def routes(dashboard: Dashboard) -> list[Route]:
    """The approvals' and the alerts' pages and forms."""

    async def approvals(request: Request, session: Session) -> Response:
        waiting = dashboard.floor.waiting()
        bonuses = {row.table: await _bonus(dashboard, session, row.table, row.bonus_box)
                   for row in waiting if row.bonus_box}
        return dashboard.page("approvals.html", session, waiting=waiting, bonuses=bonuses,
                              digest=dashboard.floor.digest("waiting"),
                              done=request.query_params.get("done", ""), error=request.query_params.get("error", ""))

    async def decide(request: Request, session: Session) -> Response:
        table = request.path_params["table"]
        form = await request.form()
        approve, kind, reason = form.get("decision") == "approve", str(form.get("kind") or ""), _reason(
            form.get("reason"))
        t = words(session.lang)
        if not session.decides:
            return Response("refused: an observer only reads (R-THB-10, R-AUD-1)", status_code=403)
        if kind in ("bonus", "correction") and not session.may_decide(kind):
            return back("/approvals",
                         error=f"{table}: " + t("the games director alone decides a 1000:1 bonus (R-THB-10)"))
        if not reason:
            return back("/approvals", error=f"{table}: " + t("a decision needs its reason (R-AUD-1)"))
        if kind == "bonus":
            typed = str(form.get("seat") or "").strip()
            if not (typed.isascii() and typed.isdigit()) or not 1 <= int(typed) <= MAX_BOX:  # forged: no traceback
                return back("/approvals", error=f"{table}: the bonus's box is a number, 1 to {MAX_BOX} (R-THB-10)")
            seat = int(typed)
            command = (cmd.Command(approve_bonus=cmd.ApproveBonus(seat=seat, reason=reason)) if approve
                       else cmd.Command(refuse_bonus=cmd.RefuseBonus(seat=seat, reason=reason)))
        elif kind == "correction":
            command = cmd.Command(decide_correction=cmd.DecideCorrection(approve=approve, reason=reason))
        else:
            return Response("no such decision", status_code=400)
        try:
            await dashboard.api.act(session.token, table, command)
        except RefusedError as refusal:
            return back("/approvals", error=f"{table}: {refusal}")
        await dashboard.floor.decided(table, kind)  # off the queue at once, on every open dashboard
        return back("/approvals", done=f"{table}: {t(kind)} {t('approved') if approve else t('refused')}")

    async def alerts(request: Request, session: Session) -> Response:
        """The open alerts (those waiting past the casino's time marked escalated to the games director), then the
        shift's alerts acknowledged, newest first, with who acknowledged each and why (issue 34, item 5)."""
        now, floor = datetime.now(UTC), dashboard.floor
        found: svc.ListAlertsResponse = await dashboard.api.call("ListAlerts", svc.ListAlertsRequest(
            every_table=True, since=timestamp(dashboard.clock.shift_start(now)), until=timestamp(now)), session.token)
        history = [(dashboard.clock.local(alert.at), alert) for alert in found.alerts if alert.acknowledged]
        return dashboard.page("alerts.html", session, alerts=floor.open_alerts(), digest=floor.digest("alerts"),
                              escalated=lambda alert: floor.thresholds.escalated(alert, floor.clock()),
                              escalate_after=floor.thresholds.escalate_after_minutes, history=history,
                              done=request.query_params.get("done", ""), error=request.query_params.get("error", ""))

    async def acknowledge(request: Request, session: Session) -> Response:
        table, position = request.path_params.get("table", ""), int(request.path_params["position"])
        form = await request.form()
        reason = _reason(form.get("reason"))
        t = words(session.lang)
        if not session.decides:
            return Response("refused: an observer only reads (R-AUD-1)", status_code=403)
        if not reason:
            return back("/alerts", error=f"{table or t(LOG_NAME)}: "
                         + t("an acknowledgement needs its reason (R-AUD-1)"))
        try:
            await dashboard.api.call("AcknowledgeAlert", svc.AcknowledgeAlertRequest(
                command_id=dashboard.api.command_id(), table=table, position=position, reason=reason), session.token)
        except RefusedError as refusal:
            return back("/alerts", error=f"{table or LOG_NAME}: {refusal}")
        return back("/alerts", done=f"{table or t(LOG_NAME)}: {t('alert at {n} acknowledged', n=position)}")

    signed_in = dashboard.signed_in
    return [
        Route("/approvals", signed_in(approvals)),
        Route("/approvals/{table}", signed_in(decide, changes=True), methods=["POST"]),
        Route("/alerts", signed_in(alerts)),
        Route("/alerts/{table}/{position:int}", signed_in(acknowledge, changes=True), methods=["POST"]),
        # tampering found by the service's audit: an alert of the casino's log, of no table (R-AUD-1)
        Route("/log-alerts/{position:int}", signed_in(acknowledge, changes=True), methods=["POST"]),
    ]


THOUSAND_TO_ONE = 1000
"""The bonus's odds that wait for the games director (R-THB-9, R-THB-10: A-A against the croupier's A-A)."""


async def _bonus(dashboard: Dashboard, session: Session, table: str, box: int) -> dict[str, Any]:
    """What the games director judges a 1000:1 by (issue 34): the box's cards, the croupier's, the board, the bonus
    bet and what it pays, as this session may see them (the pit sees every card)."""
    try:
        view = await dashboard.api.table(session.token, table)
    except RefusedError:
        return {}
    banked = view.banked
    boxes = [seen for seen in banked.boxes if seen.seat == box]
    if not boxes:
        return {}
    bet = boxes[0].bets.bonus if boxes[0].bets.HasField("bonus") else 0
    return {"box": box, "cards": list(boxes[0].cards), "house": list(banked.dealer_cards), "board": list(banked.board),
            "bet": bet, "pays": bet * THOUSAND_TO_ONE}
