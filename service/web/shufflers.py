"""The shufflers' integrity on the pit's dashboard (issue 19, items 1 and 5; docs/integrity.md): ``/shufflers``.

One row per shuffler deck (serial number, model, colour, deck size, the tables it served): the shuffles seen, the
cards compared, each test's statistic against what a fair shuffler gives and its p-value, the verdict, and where it
alarmed (which shuffle, which test, which table and hand, when).  Failed decks come first, marked.  The figures come
from the service's ``ListShufflers`` (the work is the service's, with its own monitor settings), called with the
session's token: the pit boss and the games director see them, an observer is refused by the service (R-DECK-2).

The range is the current shift (from 00:00, 08:00 or 16:00 in the casino's time zone, as the service counts shifts)
unless the page's form names one (times typed without a zone are UTC).  The page keeps itself
current as the table page does: a server-sent events stream (``/events/shufflers``) sends the deck table drawn
again when a hand started or ended on the floor (the floor's stream says so), at most every
:data:`REFRESH_PAUSE` seconds — ``ListShufflers`` reads every hand of the range, which is not free on a busy floor.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.web.api import RefusedError, ranged
from service.web.app import KEEPALIVE, Dashboard, panel_event, range_asked, stream
from service.web.clock import UTC_CLOCK, CasinoClock
from service.web.i18n import words
from service.web.sessions import Session

REFRESH_PAUSE = 15.0
"""The least time between two reads of the shufflers by one page's stream (benchmarks/shuffler_view.py: a full
floor's shift, 6,400 hands, costs the service about a second of one core a read once its finished hands are kept)."""
TEST_NAMES = {pb.SHUFFLER_TEST_ADJACENT_PAIRS: "adjacent pairs", pb.SHUFFLER_TEST_POSITIONS: "positions",
              pb.SHUFFLER_TEST_RISING_SEQUENCES: "rising sequences"}
VERDICTS = {pb.SHUFFLER_VERDICT_PASS: "pass", pb.SHUFFLER_VERDICT_FAIL: "fail",
            pb.SHUFFLER_VERDICT_NOT_ENOUGH_DATA: "not enough data"}
GATHERINGS = {pb.SHUFFLER_GATHERING_READ_THEN_STUB: "read-then-stub",
              pb.SHUFFLER_GATHERING_STUB_THEN_READ: "stub-then-read", pb.SHUFFLER_GATHERING_UNKNOWN: "unknown"}
COLOURS = {pb.DECK_COLOUR_RED: "red", pb.DECK_COLOUR_BLUE: "blue"}


def deck_row(deck: pb.ShufflerDeck, clock: CasinoClock = UTC_CLOCK) -> dict[str, Any]:
    """A shuffler deck as the page shows it: words and figures, each test as "statistic (expected) p".

    >>> deck = pb.ShufflerDeck(serial="SN-1", colour=pb.DECK_COLOUR_RED, deck_size=52, shuffles=3,
    ...                        verdict=pb.SHUFFLER_VERDICT_FAIL, tests=[pb.ShufflerTestResult(
    ...                            test=pb.SHUFFLER_TEST_ADJACENT_PAIRS, statistic=33, expected=3, p_value=1e-40)])
    >>> row = deck_row(deck)
    >>> row["verdict"], row["failed"], row["tests"]["adjacent pairs"]
    ('fail', True, {'statistic': '33', 'expected': '3.0', 'p': '1e-40'})
    """
    tests: dict[str, dict[str, str]] = {}
    for test in deck.tests:  # a test without a p-value yet has no figures to show (not enough data)
        if test.HasField("p_value"):
            shown = f"{test.statistic:.1f}" if test.test == pb.SHUFFLER_TEST_POSITIONS else f"{test.statistic:.0f}"
            tests[TEST_NAMES[test.test]] = {"statistic": shown, "expected": f"{test.expected:.1f}",
                                            "p": f"{test.p_value:.2g}"}
    alarm = ""
    if deck.HasField("alarm"):
        where = deck.alarm
        alarm = (f"shuffle {where.shuffle}: {TEST_NAMES.get(where.test, '?')} — {where.table} hand "
                 f"{where.hand_number}, {clock.local(where.time, seconds=False)}")
    return {"serial": deck.serial, "device": deck.device, "colour": COLOURS.get(deck.colour, ""),
            "deck_size": deck.deck_size, "tables": ", ".join(deck.tables), "shuffles": deck.shuffles,
            "compared": deck.cards_compared, "verdict": VERDICTS.get(deck.verdict, ""),
            "failed": deck.verdict == pb.SHUFFLER_VERDICT_FAIL, "alarm": alarm, "tests": tests}


def report_of(reply: svc.ListShufflersResponse, clock: CasinoClock = UTC_CLOCK) -> dict[str, Any]:
    """The page's view of ListShufflers' answer: the range, the settings and the rows (the failed ones first, as
    the service sends them)."""
    settings = reply.settings
    rows = [deck_row(deck, clock) for deck in reply.shufflers]
    return {"since": clock.local(reply.since, seconds=False), "until": clock.local(reply.until, seconds=False),
            "rows": rows,
            "failed": sum(row["failed"] for row in rows), "tests": list(TEST_NAMES.values()),
            "settings": {"level": f"{settings.level:g}", "looks": settings.looks,
                         "gathering": GATHERINGS.get(settings.gathering, ""), "decks": settings.decks,
                         "test_level": f"{settings.test_level:.3g}", "min_shuffles": settings.min_shuffles}}


def routes(dashboard: Dashboard) -> list[Route]:
    """The shufflers' page and its stream."""

    async def read(session: Session, since: datetime | None, until: datetime | None) -> dict[str, Any]:
        asked = ranged(svc.ListShufflersRequest(), since, until)
        reply: svc.ListShufflersResponse = await dashboard.api.call("ListShufflers", asked, session.token)
        return report_of(reply, dashboard.clock)

    async def page(request: Request, session: Session) -> Response:
        try:
            since, until = range_asked(request, dashboard.clock)
        except ValueError:
            return Response("from and to are ISO 8601 times (2026-11-25T21:00)", status_code=400)
        try:
            report = await read(session, since, until)
        except RefusedError as refusal:
            return dashboard.page("error.html", session, refusal=refusal)
        query = {key: value for key, value in request.query_params.items() if key in ("from", "to") and value}
        return dashboard.page("shufflers.html", session, report=report,
                              panel=dashboard.pages.get_template("shufflers_panel.html").render(report=report,
                                                                                        t=words(session.lang)),
                              stream="/events/shufflers" + (f"?{urlencode(query)}" if query else ""),
                              since=request.query_params.get("from", ""), until=request.query_params.get("to", ""))

    async def events(request: Request, session: Session) -> Response:
        """The deck table drawn again once hands started or ended on the floor, at most every
        :data:`REFRESH_PAUSE` seconds, sent only when it changed."""
        try:
            since, until = range_asked(request, dashboard.clock)
        except ValueError:
            return Response("from and to are ISO 8601 times", status_code=400)
        template = dashboard.pages.get_template("shufflers_panel.html")

        def hands() -> tuple[tuple[str, int, str], ...]:
            return tuple((row["table"], row["hands"], row["status"]) for row in dashboard.floor.snapshot())

        async def panels() -> AsyncIterator[str]:
            version, seen, sent, last = -1, hands(), "", 0.0
            while not dashboard.closing.is_set():
                version = await dashboard.floor.wait_change(version, KEEPALIVE)
                if dashboard.closing.is_set():
                    return
                now = hands()
                if now == seen:
                    yield ": quiet\n\n"
                    continue
                await asyncio.sleep(max(0.0, last + REFRESH_PAUSE - time.monotonic()))
                seen, last = hands(), time.monotonic()
                try:
                    html = template.render(report=await read(session, since, until), t=words(session.lang))
                except RefusedError:
                    return
                if html != sent:
                    sent = html
                    yield panel_event(html)

        return stream(request, panels())

    signed_in = dashboard.signed_in
    return [Route("/shufflers", signed_in(page)), Route("/events/shufflers", signed_in(events))]
