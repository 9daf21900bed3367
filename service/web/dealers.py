"""The dealers' figures on the pit's dashboard (issue 19, items 4 and 5; docs/alerts.md): ``/dealers``.

One row per dealer (by the id he signed in with; hands started with nobody signed in under "(none)"): the tables he
dealt at, his time at them, the hands he dealt and hands per hour, his voids, corrections and exposed cards; then the
rotations of the range (each sign-in, naming whom it replaced, and each sign-out, with its time and table).  The
figures come from the service's ``ListDealerFigures`` (projected from the log alone), called with the session's
token: the pit boss and the games director see them, an observer is refused by the service (R-AUD-1).

The range is the current shift (from 00:00, 08:00 or 16:00 in the casino's time zone, as the service counts shifts)
unless the page's form names one (times typed without a zone are UTC).  The page keeps itself current as the
shufflers' page does: a server-sent events stream (``/events/dealers``) sends the tables drawn again when the floor
moved (a hand, an irregularity, a rotation: the floor's stream says so), at most every :data:`REFRESH_PAUSE`
seconds, and every :data:`IDLE_REFRESH` seconds even when nothing moved (the time of a dealer still signed in grows);
only when they changed.  A range that has ended is not followed: its figures no longer change.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.web.api import RefusedError, ranged
from service.web.app import KEEPALIVE, Dashboard, panel_event, range_asked, stream
from service.web.clock import CasinoClock
from service.web.i18n import words
from service.web.sessions import Session

REFRESH_PAUSE = 15.0
"""The least time between two reads of the dealers' figures by one page's stream (``ListDealerFigures`` reads the
log's rotation, hand and irregularity events of the whole floor)."""
IDLE_REFRESH = 60.0
"""Seconds after which the page's stream reads the figures again though nothing moved on the floor."""
NOBODY = "(none)"
"""How the page names hands started with no dealer signed in (as ``pokertable report dealers`` does)."""
KINDS = {pb.DEALER_ROTATION_KIND_SIGN_IN: "sign-in", pb.DEALER_ROTATION_KIND_SIGN_OUT: "sign-out"}


def _named(dealer_id: str, name: str) -> str:
    """A dealer as the page names him: his name and number (issue 32), or his id alone."""
    return f"{name} ({dealer_id})" if name else dealer_id


def clock_time(seconds: float) -> str:
    """A time at the tables as hours, minutes and seconds.

    >>> clock_time(5025.4), clock_time(0.2)
    ('1:23:45', '0:00:00')
    """
    whole = int(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def dealer_row(figures: pb.DealerFigures) -> dict[str, Any]:
    """A dealer's figures as the page shows them.

    >>> from google.protobuf.duration_pb2 import Duration
    >>> row = dealer_row(pb.DealerFigures(dealer_id="D-7", tables=["Mesa 1", "Mesa 3"], hands=45,
    ...                                   time_dealt=Duration(seconds=5400), hands_per_hour=30.0, voids=1,
    ...                                   exposed_cards=2))
    >>> row["dealer"], row["tables"], row["time"], row["per_hour"], row["irregularities"]
    ('D-7', 'Mesa 1, Mesa 3', '1:30:00', '30.00', 3)
    """
    dealt = figures.time_dealt
    return {"dealer": _named(figures.dealer_id, figures.dealer_name) or NOBODY, "tables": ", ".join(figures.tables),
            "time": clock_time(dealt.seconds + dealt.nanos / 1e9), "hands": figures.hands,
            "per_hour": f"{figures.hands_per_hour:.2f}", "voids": figures.voids, "corrections": figures.corrections,
            "exposed": figures.exposed_cards,
            "irregularities": figures.voids + figures.corrections + figures.exposed_cards}


def rotation_row(rotation: pb.DealerRotation, clock: CasinoClock) -> dict[str, Any]:
    """A sign-in or sign-out as the page shows it (its time the casino's)."""
    return {"time": clock.local(rotation.time), "table": rotation.table,
            "dealer": _named(rotation.dealer_id, rotation.dealer_name),
            "previous": rotation.previous_dealer_id, "kind": KINDS.get(rotation.kind, "")}


def report_of(reply: svc.ListDealerFiguresResponse, clock: CasinoClock) -> dict[str, Any]:
    """The page's view of ListDealerFigures' answer: the range (in the casino's time), the dealers' rows and the
    rotations."""
    return {"since": clock.local(reply.since), "until": clock.local(reply.until),
            "rows": [dealer_row(figures) for figures in reply.dealers],
            "rotations": [rotation_row(rotation, clock) for rotation in reply.rotations]}


def routes(dashboard: Dashboard) -> list[Route]:
    """The dealers' page and its stream."""

    async def read(session: Session, since: datetime | None, until: datetime | None) -> dict[str, Any]:
        asked = ranged(svc.ListDealerFiguresRequest(), since, until)
        reply: svc.ListDealerFiguresResponse = await dashboard.api.call("ListDealerFigures", asked, session.token)
        return report_of(reply, dashboard.clock)

    async def page(request: Request, session: Session) -> Response:
        try:
            since, until = range_asked(request, dashboard.clock)
        except ValueError:
            return Response("from and to are ISO 8601 times (2026-11-25T21:00)", status_code=400)
        seen = dashboard.floor.version
        try:
            report = await read(session, since, until)
        except RefusedError as refusal:
            return dashboard.page("error.html", session, refusal=refusal)
        query = {key: value for key, value in request.query_params.items() if key in ("from", "to") and value}
        query["seen"] = str(seen)  # the stream starts from the floor the page was drawn from: nothing missed between
        ended = until is not None and until <= datetime.now(UTC)  # its figures no longer change: not followed
        return dashboard.page("dealers.html", session, report=report,
                              panel=dashboard.pages.get_template("dealers_panel.html").render(report=report,
                                                                                        t=words(session.lang)),
                              stream="" if ended else f"/events/dealers?{urlencode(query)}",
                              since=request.query_params.get("from", ""), until=request.query_params.get("to", ""))

    async def events(request: Request, session: Session) -> Response:
        """The dealers' tables drawn again once the floor moved past the version the page was drawn from (``seen``;
        at most every :data:`REFRESH_PAUSE` seconds) or :data:`IDLE_REFRESH` seconds went by, sent only when they
        changed."""
        try:
            since, until = range_asked(request, dashboard.clock)
            seen = int(request.query_params.get("seen", "-1"))
        except ValueError:
            return Response("from and to are ISO 8601 times, seen a number", status_code=400)
        template = dashboard.pages.get_template("dealers_panel.html")

        async def panels() -> AsyncIterator[str]:
            floor = dashboard.floor
            version, sent, last = seen, "", time.monotonic() - REFRESH_PAUSE
            while not dashboard.closing.is_set():
                moved = await floor.wait_change(version, min(KEEPALIVE, IDLE_REFRESH))
                if dashboard.closing.is_set():
                    return
                if moved == version and time.monotonic() - last < IDLE_REFRESH:
                    yield ": quiet\n\n"
                    continue
                await asyncio.sleep(max(0.0, last + REFRESH_PAUSE - time.monotonic()))
                version, last = floor.version, time.monotonic()
                try:
                    html = template.render(report=await read(session, since, until), t=words(session.lang))
                except RefusedError:
                    return
                if html != sent:
                    sent = html
                    yield panel_event(html)

        return stream(request, panels())

    signed_in = dashboard.signed_in
    return [Route("/dealers", signed_in(page)), Route("/events/dealers", signed_in(events))]
