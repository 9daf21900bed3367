"""The pit's web dashboard (issue 16): a Starlette application served by the table service beside gRPC, in the same
process and event loop (``pokertable serve --http HOST:PORT``).

Pages are drawn on the server (Jinja2, autoescaped) and kept live by server-sent events; every asset (the style, the
script, the cards, drawn as SVG by :mod:`service.web.cards`) is served by the service itself: no CDN, no network.
Every page and stream needs a session (:mod:`service.web.sessions`); every state-changing request its CSRF token.

Routes: ``/signin`` and ``/signout``; ``/`` the floor and ``/events/floor`` its stream; ``/tables/{table}`` a table
live (the pit sees every card) and ``/events/tables/{table}``; the decisions (:mod:`service.web.decisions`): the
approvals queue and the alerts; the disputes and the shift report (:mod:`service.web.disputes`,
:mod:`service.web.reports`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.web import cards
from service.web.api import Api, Caller, RefusedError
from service.web.clock import CasinoClock
from service.web.floor import Floor
from service.web.hand_actions import said, starts_a_hand
from service.web.i18n import chosen, row_word, script_words, status_of, words
from service.web.sessions import COOKIE, Session, Sessions
from service.web.table_layout import seat_slots, stage_words

HERE = Path(__file__).parent
STREAM_PAUSE = 0.1
"""The least time between two updates of one stream (a busy floor is sent at most ten times a second)."""
KEEPALIVE = 15.0
LAST_ACTIONS = 12
"""The last actions of the hand a table's page lists."""
"""A comment line on a quiet stream this often, so proxies keep it open."""

Handler = Callable[[Request, Session], Awaitable[Response]]


def templates() -> Environment:
    """The page templates, autoescaped; ``card`` draws a card as SVG."""
    environment = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    environment.globals["card"] = lambda code, width=48: Markup(cards.card_svg(code, width=width))
    environment.globals["back"] = lambda colour, width=48: Markup(cards.back_svg(colour, width=width))
    environment.filters["word"] = lambda value, enum: _word(enum, value)
    environment.globals["t"] = words("en")  # a page or a panel drawn for a session is given its own
    environment.globals["lang"] = "en"
    environment.globals["script_words"] = {}
    environment.globals["w"] = row_word("en")
    return environment


def _word(enum: str, value: int) -> str:
    """An enum value's short name, as the pages print it (``BANKED_STAGE_PREFLOP`` → ``preflop``)."""
    descriptor = pb.DESCRIPTOR.enum_types_by_name[enum]
    prefix = "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(enum)).upper() + "_"
    name = descriptor.values_by_number[value].name.removeprefix(prefix)
    return "" if name == "UNSPECIFIED" else name.lower().replace("_", "-")


_log = logging.getLogger("pokertable.access")


class Dashboard:
    """The application's state: the service's API, the sessions, the floor, the templates."""

    def __init__(self, api: Api, sessions: Sessions, floor: Floor, *, secure: bool,
                 station: tuple[str, str] | None = None, zone: tzinfo = UTC) -> None:
        self.api, self.sessions, self.floor, self.secure = api, sessions, floor, secure
        self.clock = CasinoClock(zone)
        """The casino's clock: every time shown, typed or downloaded is in its zone (issue 34, item 1)."""
        self.station = station
        """The dashboard's own station (its name and token; issue 32), a shared one (kind ``pit``) where every
        person of the pit signs in with his own session; None: only stations sign in, as before the staff."""
        sessions.ended = self._ended
        self._releasing: set[asyncio.Future[None]] = set()
        self.closing = asyncio.Event()
        """The service stops: every live stream ends (a browser's EventSource reconnects, to this service once it
        is back or to another)."""
        self.pages = templates()
        self.pages.globals.update(local=self.clock.local, zone=self.clock.label, time_field=self.clock.field)

    def page(self, name: str, session: Session | None, **context: Any) -> HTMLResponse:
        """A page for a session (its role and CSRF token in the page for the forms and the script), in its language
        (before a sign-in: ``lang`` in ``context``)."""
        lang = session.lang if session is not None else str(context.pop("lang", "en"))
        html = self.pages.get_template(name).render(session=session, lang=lang, t=words(lang), w=row_word(lang),
                                                    status_words=status_of(lang), script_words=script_words(lang),
                                                    **context)
        return HTMLResponse(html, status_code=int(context.get("status", 200)), headers={"Cache-Control": "no-store",
                                           "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                                                                      "style-src 'self'; frame-ancestors 'none'",
                                           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"})

    def signed_in(self, handler: Handler, *, changes: bool = False) -> Callable[[Request], Awaitable[Response]]:
        """A route for signed-in sessions only; ``changes``: a state-changing request, its CSRF token checked."""

        async def endpoint(request: Request) -> Response:
            session = self.sessions.get(request.cookies.get(COOKIE))
            if session is not None:
                await self.floor.want()  # the floor reads the tables while the pit looks (service.web.floor)
            if session is None:
                if request.method == "GET" and not request.url.path.startswith("/events/"):
                    return RedirectResponse("/signin", status_code=303)
                return Response("sign in first", status_code=401)
            if changes:
                form = await request.form()
                presented = request.headers.get("x-csrf-token") or str(form.get("csrf") or "")
                if not (same_origin(request) and session.csrf_ok(presented)):
                    return Response("refused: the request did not come from this dashboard (CSRF)",
                                    status_code=403)
            return await handler(request, session)

        return endpoint

    # -- signing in -------------------------------------------------------------------------------

    async def signin_page(self, request: Request) -> Response:
        lang = chosen(request.headers.get("accept-language", ""), request.query_params.get("lang", ""))
        return self.page("signin.html", None, error="", lang=lang)

    async def language(self, request: Request, session: Session) -> Response:
        """The session's pages from now on in the language chosen, back to the page it was chosen on."""
        form = await request.form()
        session.lang = chosen("", str(form.get("lang") or ""))
        came = urlsplit(request.headers.get("referer", ""))  # this dashboard's own page (same origin, checked)
        back = came.path + (f"?{came.query}" if came.query else "")
        return RedirectResponse(back if back.startswith("/") and not back.startswith("//") else "/", status_code=303)

    async def signin(self, request: Request) -> Response:
        if not same_origin(request):
            return Response("refused: cross-site sign-in", status_code=403)
        address = request.client.host if request.client else "?"
        wait = self.sessions.throttled(address)
        if wait:
            _log.warning("dashboard sign-in refused unread from %s: too many failures", address,
                         extra={"fields": {"event": "dashboard-sign-in-throttled", "address": address}})
            lang = chosen(request.headers.get("accept-language", ""))
            page = self.page("signin.html", None, lang=lang,
                             error=words(lang)("Too many failed sign-ins from here: try again in {wait} s.", wait=wait))
            page.status_code = 429
            return page
        form = await request.form()
        user, secret = str(form.get("station") or "").strip(), str(form.get("token") or "")
        lang = chosen(request.headers.get("accept-language", ""), str(form.get("lang") or ""))
        t = words(lang)
        session, refusal = await self._person(user, secret)
        if session is None and refusal is None:  # the staff are not in force: a station signs in, as before
            session = self.sessions.sign_in(user, secret)
            refusal = None if session is not None else t("Unknown station or token, or not a pit station.")
        if session is None:
            self.sessions.failed(address)
            _log.warning("dashboard sign-in refused for %r from %s", user[:64], address,
                         extra={"fields": {"event": "dashboard-sign-in-refused", "user": user[:64],
                                           "address": address}})
            return self.page("signin.html", None, error=refusal or t("Sign-in refused."), lang=lang)
        session.lang = lang
        _log.info("dashboard sign-in of %s from %s as %s", session.person or session.station, address, session.role,
                  extra={"fields": {"event": "dashboard-sign-in", "user": session.person or session.station,
                                    "address": address, "role": session.role}})
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, session.id, httponly=True, samesite="strict", secure=self.secure, path="/",
                            max_age=None)
        return response

    async def _person(self, user: str, secret: str) -> tuple[Session | None, str | None]:
        """A person's sign-in at the dashboard's station (issue 32): his session, or why not; ``(None, None)`` when
        the staff are not in force (a station signs in instead)."""
        if self.station is None or not user or not secret:
            return None, None if self.station is None else "Your employee number and password."
        name, token = self.station
        try:
            reply: svc.SignInResponse = await self.api.call("SignIn", svc.SignInRequest(badge=user, pin=secret), token)
        except RefusedError as refusal:
            if refusal.code == "FAILED_PRECONDITION":  # no staff enrolled yet
                return None, None
            return None, refusal.message
        session = self.sessions.open(name, reply.role, Caller(token, reply.session), person=reply.person_id,
                                     name=reply.name)
        if session is None:  # a role of the tables (a croupier): not the pit's dashboard
            await self._release(Caller(token, reply.session))
            return None, f"{reply.role} is not a role of the pit's dashboard."
        return session, None

    def _ended(self, session: Session) -> None:
        """A session ended (signed out, or idle): its person signs out at the service."""
        if isinstance(session.token, Caller) and session.token.session:
            releasing = asyncio.ensure_future(self._release(session.token))
            self._releasing.add(releasing)
            releasing.add_done_callback(self._releasing.discard)

    async def _release(self, caller: Caller) -> None:
        with contextlib.suppress(RefusedError):
            await self.api.call("SignOut", svc.SignOutRequest(command_id=self.api.command_id()), caller)

    async def signout(self, request: Request, session: Session) -> Response:
        self.sessions.sign_out(session.id)
        response = RedirectResponse("/signin", status_code=303)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict", secure=self.secure)
        return response

    # -- the floor ------------------------------------------------------------------------------

    async def floor_page(self, request: Request, session: Session) -> Response:
        """The floor, what needs the pit first (held, an open alert, a decision waiting: the longest waiting first
        within each), then the tables dealing, between hands, closed; the floor's totals."""
        rows = self.floor.snapshot()
        ordered = sorted(rows, key=lambda row: (row["priority"], row["since"] or 0.0, row["order"]))
        return self.page("floor.html", session, rows=ordered, alerts=len(self.floor.open_alerts()),
                         totals=floor_totals(rows), games=sorted({row["game"] for row in rows if row["game"]}))

    async def floor_events(self, request: Request, session: Session) -> Response:
        """The floor's rows as they change: the whole floor first, then only the rows that moved."""

        async def rows() -> AsyncIterator[str]:
            sent: dict[str, dict[str, Any]] = {}
            version, log_sent = -1, 0
            while not self.closing.is_set():
                version = await self.floor.wait_change(version, KEEPALIVE)
                if self.closing.is_set():
                    return
                drawn = self.floor.snapshot()  # once a wake: the rows changed and the totals
                changed = [row for row in drawn if sent.get(row["table"]) is not row]
                log = len(self.floor.open_alerts(""))  # the casino log's own alerts (tampering found): no row
                if changed or log != log_sent:
                    sent.update((row["table"], row) for row in changed)
                    log_sent = log
                    payload = {"rows": changed, "alerts": len(self.floor.open_alerts()), "log_alerts": log,
                               "totals": floor_totals(drawn)}
                    yield f"event: rows\ndata: {json.dumps(payload)}\n\n"
                else:
                    yield ": quiet\n\n"
                await asyncio.sleep(STREAM_PAUSE)

        return stream(request, rows())

    # -- a table --------------------------------------------------------------------------------

    async def table_page(self, request: Request, session: Session) -> Response:
        table = request.path_params["table"]
        try:
            view = await self.api.table(session.token, table)
        except RefusedError as refusal:
            return self.page("error.html", session, refusal=refusal, status=404)
        return self.page("table.html", session, view=view, table=table, panel=self.table_panel(view, session.lang),
                         done=request.query_params.get("done", ""), error=request.query_params.get("error", ""),
                         alerts=self.floor.open_alerts(table))

    def table_panel(self, view: pb.TableView, lang: str = "en", actions: list[str] | None = None) -> str:
        """The table's live panel (the table drawn with its seats or boxes, cards, pots, markers, who acts, the
        hand's stage and its last ``actions``) as HTML, in ``lang``."""
        return self.pages.get_template("table_panel.html").render(view=view, t=words(lang), w=row_word(lang),
                                                                  actions=actions or [], slots=seat_slots(view),
                                                                  stage=stage_words(view, lang))

    async def table_events(self, request: Request, session: Session) -> Response:
        """The table's panel redrawn after each change of its log (a burst is one redraw), with the station's
        own token: the pit sees every card, an observer what an observer may."""
        table = request.path_params["table"]
        language = 1 if session.lang == "es" else 0
        actions: deque[tuple[str, str]] = deque(maxlen=LAST_ACTIONS)

        async def panels() -> AsyncIterator[str]:
            wake = asyncio.Event()

            async def follow() -> None:
                """The table's changes from its hand's start (its last actions; the panel is read again after each),
                or from now: never its whole log."""
                with contextlib.suppress(RefusedError):
                    first = await self.api.table(session.token, table, hand_start=True)
                    start = first.position
                    if first.hand_in_progress and first.hand_started_position:
                        start = first.hand_started_position - 1
                    wake.set()
                    async for change in self.api.watch(session.token, table, start):
                        if starts_a_hand(change.event):
                            actions.clear()
                        words_of = said(change.event)
                        if words_of is not None:
                            actions.append(words_of)
                        wake.set()

            follower = asyncio.ensure_future(follow())
            closing = asyncio.ensure_future(self.closing.wait())
            try:
                while True:
                    woken = asyncio.ensure_future(wake.wait())
                    await asyncio.wait((woken, closing), timeout=KEEPALIVE, return_when=asyncio.FIRST_COMPLETED)
                    woken.cancel()
                    if self.closing.is_set():
                        return
                    if not wake.is_set():
                        yield ": quiet\n\n"
                        continue
                    wake.clear()
                    view = await self.api.table(session.token, table)
                    html = self.table_panel(view, session.lang, [pair[language] for pair in actions])
                    yield panel_event(html)
                    await asyncio.sleep(STREAM_PAUSE)
            finally:
                follower.cancel()
                closing.cancel()

        return stream(request, panels())

    def close(self) -> None:
        """End every live stream now (the service stops): each returns, its response ends as a response does."""
        self.closing.set()
        self.floor.close()


def floor_totals(rows: list[dict[str, Any]]) -> dict[str, int]:
    """The floor in a line: its open tables, those dealing, held, waiting for the pit, and the chips in play.

    >>> floor_totals([{"status": "hand-in-progress", "attention": "held", "chips": 40},
    ...               {"status": "closed", "attention": "", "chips": 0}])
    {'tables': 1, 'dealing': 1, 'held': 1, 'waiting': 0, 'chips': 40}
    """
    open_rows = [row for row in rows if not str(row["status"]).startswith("closed")]
    return {"tables": len(open_rows),
            "dealing": sum(1 for row in open_rows if str(row["status"]).startswith("hand-in-progress")),
            "held": sum(1 for row in open_rows if row["attention"] == "held"),
            "waiting": sum(1 for row in open_rows if row["attention"] == "waiting"),
            "chips": sum(int(row["chips"]) for row in open_rows)}


def same_origin(request: Request) -> bool:
    """The browser's ``Origin`` (or, without it, ``Referer``) is this dashboard: a cross-site form is refused."""
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin:
        return True  # not a browser's cross-site request (browsers send Origin with every POST)
    parts = urlsplit(origin)
    return parts.netloc == request.headers.get("host") and parts.scheme in ("http", "https")


def panel_event(html: str) -> str:
    """A panel drawn again, as the server-sent event the pages' script swaps in (``event: panel``)."""
    return "event: panel\n" + "".join(f"data: {line}\n" for line in html.splitlines()) + "\n"


def range_asked(request: Request, clock: CasinoClock) -> tuple[datetime | None, datetime | None]:
    """The range a report page asks for (its ``from`` and ``to``, typed in the casino's time unless they name a
    zone; ``ValueError`` for a text that is no time); unset: the service's default (the casino's current shift)."""
    return clock.typed(request.query_params.get("from", "")), clock.typed(request.query_params.get("to", ""))


def stream(request: Request, events: AsyncIterator[str]) -> StreamingResponse:
    """A server-sent events stream, ended when the browser goes away."""

    async def until_gone() -> AsyncIterator[str]:
        async for event in events:
            if await request.is_disconnected():
                return
            yield event

    return StreamingResponse(until_gone(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def back(path: str, **message: str) -> RedirectResponse:
    """Back to a page with what happened (shown once; the page reads it from the query)."""
    return RedirectResponse(f"{path}?{urlencode(message)}", status_code=303)


def create_app(dashboard: Dashboard, extra: list[Route] | None = None) -> Starlette:
    """The dashboard's routes (``extra``: those of the decisions, disputes and reports)."""
    signed_in = dashboard.signed_in
    routes: list[Route | Mount] = [
        Route("/signin", dashboard.signin_page, methods=["GET"]),
        Route("/signin", dashboard.signin, methods=["POST"]),
        Route("/signout", signed_in(dashboard.signout, changes=True), methods=["POST"]),
        Route("/language", signed_in(dashboard.language, changes=True), methods=["POST"]),
        Route("/", signed_in(dashboard.floor_page)),
        Route("/events/floor", signed_in(dashboard.floor_events)),
        Route("/tables/{table}", signed_in(dashboard.table_page)),
        Route("/events/tables/{table}", signed_in(dashboard.table_events)),
        *(extra or []),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return Starlette(routes=routes)
