"""The tables' accounts worked from the dashboard (issue 34, item 3; docs/accounts.md, R-ACC-1 … R-ACC-6): each
table's open or last shift — its opener, the fills and credits with who asked and who signed, the drop, the result of
its hands so far against the band of their theoretical win — and the pit's side of it: a slip the croupier asked for
signed (or withdrawn, with the reason), a fill or credit asked for, a drop recorded, a shift opened or closed with
the tray's count.

Everything is read in one question for the whole floor (``GetShiftReport``, the casino's current shift) and every
change is the service's own command, made with the session's token: the service records who and when and refuses
what the role may not do (R-ACC-3: the side that asked never signs its own slip; R-ACC-4: the drop is the pit's;
R-ACC-5: an observer reads no accounts). The floor's page asks ``/accounts/floor.json`` every few seconds for the
tables whose slips wait for the pit or whose open shift already left its band.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from domain.accounts import typed_count
from service.api import accounts_pb2 as acc
from service.api import table_service_pb2 as svc
from service.web.api import RefusedError, timestamp
from service.web.app import Dashboard, back
from service.web.i18n import Words, words
from service.web.sessions import Session

MAX_TEXT = 200
"""The longest slip id or reason the service records (R-ACC-3)."""
KINDS = {"fill": acc.TRANSFER_KIND_FILL, "credit": acc.TRANSFER_KIND_CREDIT}


def waiting_slips(accounts: acc.ShiftAccounts) -> list[acc.TransferSlip]:
    """The slips of a shift neither signed off nor withdrawn (R-ACC-3: they do not count until the other side signs).

    >>> shift = acc.ShiftAccounts(transfers=[acc.TransferSlip(slip="F-1", side="croupier"),
    ...     acc.TransferSlip(slip="F-2", signed_by="P1"), acc.TransferSlip(slip="C-1", withdrawn=True)])
    >>> [slip.slip for slip in waiting_slips(shift)]
    ['F-1']
    """
    return [slip for slip in accounts.transfers if not slip.signed_by and not slip.withdrawn]


def kind_name(kind: int) -> str:
    return "fill" if kind == acc.TRANSFER_KIND_FILL else "credit"


def _text(value: object) -> str:
    return str(value or "").strip()[:MAX_TEXT]


def routes(dashboard: Dashboard) -> list[Route]:
    """The accounts' page, its forms and the floor's overlay."""

    async def shifts(session: Session) -> list[svc.TableShiftFigures]:
        """Every table's line of the casino's current shift, with its accounts as this session may read them."""
        now = datetime.now(UTC)
        request = svc.GetShiftReportRequest(since=timestamp(dashboard.clock.shift_start(now)), until=timestamp(now))
        reply: svc.GetShiftReportResponse = await dashboard.api.call("GetShiftReport", request, session.token)
        return list(reply.tables)

    async def page(request: Request, session: Session) -> Response:
        lines = await shifts(session)
        readable = [line for line in lines if line.HasField("accounts")]
        return dashboard.page("accounts.html", session, lines=lines, readable=readable, waiting=waiting_slips,
                              kind=kind_name, opened=_opened(lines), done=request.query_params.get("done", ""),
                              error=request.query_params.get("error", ""))

    async def overlay(request: Request, session: Session) -> Response:
        """For the floor's page: each table whose accounts need the pit (slips waiting, a live band flag), with the
        result of its open shift's hands so far; nothing for a session that reads no accounts (R-ACC-5)."""
        found: dict[str, dict[str, Any]] = {}
        t = words(session.lang)
        for line in await shifts(session):
            if not line.HasField("accounts"):
                continue
            a = line.accounts
            found[line.table] = {
                "result": a.result, "drop": a.drop, "open": a.open,
                "band": "outside" if a.outside_band_now or a.flagged or a.outside_band else "",
                "slips": [t("{kind} {slip} ({value}) asked by the {side}", kind=t(kind_name(slip.kind)),
                            slip=slip.slip, value=slip.value, side=t(slip.side) if session.lang == "es" else slip.side)
                          for slip in waiting_slips(a)],
                "pit_signs": sum(1 for slip in waiting_slips(a) if slip.side == "croupier")}
        return JSONResponse({"tables": found}, headers={"Cache-Control": "no-store"})

    async def change(request: Request, session: Session) -> Response:
        """One of the pit's forms: sign, withdraw, transfer, drop, open, close."""
        table, action = request.path_params["table"], request.path_params["action"]
        form = await request.form()
        if not session.decides:
            return Response("refused: an observer only reads (R-ACC-5)", status_code=403)
        t = words(session.lang)
        try:
            message = await _command(dashboard, session, table, action, form, t=t)
        except _FormError as refused:
            return back("/accounts", error=f"{table}: {t(str(refused))}")
        except RefusedError as refusal:
            return back("/accounts", error=f"{table}: {refusal}")
        return back("/accounts", done=f"{table}: {message}")

    signed_in = dashboard.signed_in
    return [
        Route("/accounts", signed_in(page)),
        Route("/accounts/floor.json", signed_in(overlay)),
        Route("/accounts/{table}/{action}", signed_in(change, changes=True), methods=["POST"]),
    ]


class _FormError(ValueError):
    """A form the dashboard refuses before asking the service (what was typed is not a count, a slip, a reason)."""


async def _command(dashboard: Dashboard, session: Session, table: str, action: str, form: Any, *, t: Words) -> str:
    """Send the form's command as the session; what was done, in words (``t``: the session's)."""
    api, token, command_id = dashboard.api, session.token, dashboard.api.command_id()
    slip = _text(form.get("slip"))
    if action in ("sign", "withdraw", "transfer") and not slip:
        raise _FormError("a slip is named by its id, as written on it (R-ACC-3)")
    if action == "sign":
        await api.call("SignTransfer", acc.SignTransferRequest(command_id=command_id, table=table, slip=slip), token)
        return t("slip {slip} signed", slip=slip)
    if action == "withdraw":
        reason = _text(form.get("reason"))
        if not reason:
            raise _FormError("a slip withdrawn needs its reason (R-ACC-3)")
        await api.call("WithdrawTransfer", acc.WithdrawTransferRequest(command_id=command_id, table=table, slip=slip,
                                                                       reason=reason), token)
        return t("slip {slip} withdrawn", slip=slip)
    if action == "drop":
        typed = str(form.get("amount") or "").strip()
        if not (typed.isascii() and typed.isdigit()) or int(typed) < 1 or int(typed) >= 2**62:
            raise _FormError("the drop is a whole number of chips, 1 or more (R-ACC-4)")
        await api.call("RecordDrop", acc.RecordDropRequest(command_id=command_id, table=table, amount=int(typed)),
                       token)
        return t("drop of {n} recorded", n=int(typed))
    chips = typed_count(str(form.get("chips") or ""))
    if action not in ("transfer", "open", "close"):
        raise _FormError(t("no such operation: {action}", action=action))
    if chips is None:
        raise _FormError("chips by value: 100x20 25x40, each value once (R-ACC-2)")
    counts = [acc.ChipCount(denomination=denomination, chips=number) for denomination, number in chips]
    if action == "transfer":
        kind = str(form.get("kind") or "")
        if kind not in KINDS:
            raise _FormError("a slip is a fill or a credit (R-ACC-3)")
        await api.call("RequestTransfer", acc.RequestTransferRequest(
            command_id=command_id, table=table, slip=slip, kind=KINDS[kind], chips=counts), token)
        return t("{kind} {slip} asked for: the croupier signs it at the station", kind=t(kind), slip=slip)
    if action == "open":
        opened: acc.OpenShiftResponse = await api.call("OpenShift", acc.OpenShiftRequest(
            command_id=command_id, table=table, opener=counts), token)
        return t("shift {n} opened", n=opened.shift)
    closed: acc.CloseShiftResponse = await api.call("CloseShift", acc.CloseShiftRequest(
        command_id=command_id, table=table, closer=counts), token)
    flag = t(" — outside the band of its theoretical win (R-ACC-6)") if closed.flagged else ""
    return t("shift {n} closed, win {win}", n=closed.shift, win=closed.win) + flag


def _opened(lines: list[svc.TableShiftFigures]) -> set[str]:
    """The tables whose shift is open now."""
    return {line.table for line in lines if line.HasField("accounts") and line.accounts.open}
