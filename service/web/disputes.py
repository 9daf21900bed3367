"""Disputes on the dashboard (issue 16, item 5): search the hands (of one table or of every table, by game, time,
seat and outcome), open one and step through its reconstruction
event by event with the cards drawn as pictures, and export it as PHH or JSON.

The reconstruction is the service's ``ReconstructHand`` with the session's token: the pit boss's request, with its
reason, is recorded at the table before anything is shown (R-THB-13), and a role that may not reconstruct is refused
by the service with that rule.  Each step shows the event's description and the cards as they lay after it (the
hand's state as the service rebuilt it from the stored events).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from typing import Any

from google.protobuf.json_format import MessageToDict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.export import PHH_VARIANTS
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.web.api import RefusedError, timestamp
from service.web.app import Dashboard
from service.web.clock import CasinoClock
from service.web.sessions import Session

FORMATS = {"phh": pb.EXPORT_FORMAT_PHH, "json": pb.EXPORT_FORMAT_JSON}


def cards_laid(state: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """The cards of a hand's state, by place: each seat's or box's, the house's, the board, the burns.

    >>> cards_laid({"seats": [2, 3], "hole": [[["As", False]], [["Kd", True]]], "board": ["Qh"], "burned": []})
    [('seat 2', ['As']), ('seat 3', ['Kd']), ('board', ['Qh'])]
    >>> cards_laid({"cards": {"1": ["As", "Ad"]}, "dealer": ["??", "??"], "board": []})
    [('box 1', ['As', 'Ad']), ('house', ['??', '??'])]
    """
    places: list[tuple[str, list[str]]] = []
    if "hole" in state:
        for seat, hole in zip(state.get("seats", []), state["hole"], strict=False):
            places.append((f"seat {int(seat)}", [str(card[0]) for card in hole]))
    for box, held in sorted(dict(state.get("cards", {})).items(), key=lambda item: int(item[0])):
        places.append((f"box {int(box)}", [str(card) for card in held]))
    for house in ("dealer", "bank"):
        if state.get(house):
            places.append(("house", [str(card) for card in state[house]]))
    for pile in ("board", "burned"):
        if state.get(pile):
            places.append((pile, [str(card) for card in state[pile]]))
    return [(place, held) for place, held in places if held]


def _choice(enum: Any, prefix: str, text: str) -> Any:
    """An enum's value from its short name typed in a search (``showdown``); unspecified when empty."""
    return enum.Value(prefix + text.upper().replace("-", "_")) if text else 0


HTTP_STATUS = {"FAILED_PRECONDITION": 409, "PERMISSION_DENIED": 403, "NOT_FOUND": 404, "INVALID_ARGUMENT": 400,
               "UNAUTHENTICATED": 401}
"""The HTTP status of a page that says the service refused (its gRPC code's name): never a 200 that says no."""
PHH_GAMES = frozenset(variant for variant, _ in PHH_VARIANTS)
"""The games PHH has a form for (some of their structures only: the service says when it has none)."""
PHH_OUTCOMES = frozenset({pb.HAND_OUTCOME_SHOWDOWN, pb.HAND_OUTCOME_UNCONTESTED})
"""A finished hand that was played: a voided, blank or unfinished one has no PHH form."""


OUTCOME_WORDS = {pb.HAND_OUTCOME_SHOWDOWN: "won at the showdown", pb.HAND_OUTCOME_UNCONTESTED: "won uncontested",
                 pb.HAND_OUTCOME_VOIDED: "voided", pb.HAND_OUTCOME_BLANK: "blank: nobody opened (R-DRAW-3)",
                 pb.HAND_OUTCOME_IN_PROGRESS: "in progress", pb.HAND_OUTCOME_SETTLED: "settled"}
"""How a hand ended, in the pit's words (the API's ``HAND_OUTCOME_BLANK`` is no word for a page)."""


def _game_code(game: int) -> str:
    """A game's code from its enum (``GAME_STUD7`` → ``stud7``; an underscore read as a hyphen)."""
    return pb.Game.Name(game).removeprefix("GAME_").lower().replace("_", "-")


def _hand(table: str, hand: pb.HandSummary, clock: CasinoClock, game: int = 0) -> dict[str, Any]:
    """A hand found, as the search page lists it (its start in the casino's time; ``phh``: whether PHH can express
    it, so that the page offers only the exports there are)."""
    return {"table": table, "number": hand.number, "started": clock.local(hand.started, offset=True),
            "phh": _game_code(game) in PHH_GAMES and hand.outcome in PHH_OUTCOMES,
            "at": hand.started.ToDatetime(tzinfo=UTC),
            "outcome": OUTCOME_WORDS.get(hand.outcome, ""), "pot": hand.pot,
            "seats": list(hand.seats), "winners": list(hand.winners)}


def routes(dashboard: Dashboard) -> list[Route]:
    """The disputes' pages."""

    async def search(request: Request, session: Session) -> Response:
        query = request.query_params
        rows = list(dashboard.floor.rows.values())
        tables = [row.table for row in rows]
        games = sorted({pb.Game.Name(row.game).removeprefix("GAME_").lower() for row in rows if row.game})
        table, game = query.get("table", ""), query.get("game", "")
        hands: list[dict[str, Any]] = []
        error = ""
        if query:  # the form was sent: one table, or every table (of one game)
            try:
                game_code = _choice(pb.Game, "GAME_", game)
                searched = [table] if table else [row.table for row in rows  # a table just opened: game not known yet
                                                  if not game_code or row.game in (game_code, 0)]
                request_ = svc.SearchHandsRequest(outcome=_choice(pb.HandOutcome, "HAND_OUTCOME_",
                                                                  query.get("outcome", "")), game=game_code)
                for field, text in (("since", query.get("since", "")), ("until", query.get("until", ""))):
                    if (moment := dashboard.clock.typed(text)) is not None:
                        getattr(request_, field).CopyFrom(timestamp(moment))
                if query.get("seat", "").isdigit():
                    request_.seat = int(query["seat"])
                for name in searched:
                    request_.table = name
                    reply: svc.SearchHandsResponse = await dashboard.api.call("SearchHands", request_, session.token)
                    game_of = dashboard.floor.rows[name].game if name in dashboard.floor.rows else 0
                    hands.extend(_hand(name, hand, dashboard.clock, game_of) for hand in reply.hands)
            except (ValueError, RefusedError) as problem:
                error = str(problem)
        hands.sort(key=lambda hand: (hand["at"], hand["table"], hand["number"]))
        return dashboard.page("disputes.html", session, tables=tables, games=games, hands=hands, query=dict(query),
                              error=error, outcomes=[name.removeprefix("HAND_OUTCOME_").lower()
                                                     for name in pb.HandOutcome.keys()[1:]])

    async def reconstruct(request: Request, session: Session) -> Response:
        table, number = request.path_params["table"], int(request.path_params["number"])
        form = await request.form()
        reason = str(form.get("reason") or "").strip()[:200]
        if not reason:
            return dashboard.page("error.html", session, refusal="a reconstruction needs its reason (R-THB-13)")
        steps: list[dict[str, Any]] = []
        try:
            async for step in dashboard.api.reconstruct(session.token, table, number, reason):
                steps.append({"version": step.version, "description": step.description,
                              "at": dashboard.clock.local(step.timestamp, offset=True),
                              "cards": cards_laid(MessageToDict(step.state)), "rendered": step.rendered})
        except RefusedError as refusal:
            return _refused(session, refusal)
        return dashboard.page("reconstruction.html", session, table=table, number=number, reason=reason,
                              steps=steps)

    async def export(request: Request, session: Session) -> Response:
        table, number, kind = (request.path_params["table"], int(request.path_params["number"]),
                               request.path_params["format"])
        if kind not in FORMATS:
            return Response("PHH or JSON", status_code=404)
        try:
            reply: svc.ExportHandResponse = await dashboard.api.call(
                "ExportHand", svc.ExportHandRequest(table=table, hand_number=number, format=FORMATS[kind]),
                session.token)
        except RefusedError as refusal:  # a hand PHH cannot express, one the station may not see: said, not a 200
            return _refused(session, refusal)
        name = f"{table}-hand-{number}.{'phh' if kind == 'phh' else 'json'}".replace(" ", "_")
        return Response(reply.content, media_type=reply.media_type,
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    def _refused(session: Session, refusal: RefusedError) -> Response:
        """The service's refusal as a page, with the HTTP status it means (never a 200 that says no)."""
        return dashboard.page("error.html", session, refusal=refusal, status=HTTP_STATUS.get(refusal.code, 409))

    signed_in = dashboard.signed_in
    return [
        Route("/disputes", signed_in(search)),
        Route("/disputes/{table}/{number:int}", signed_in(reconstruct, changes=True), methods=["POST"]),
        Route("/export/{table}/{number:int}.{format}", signed_in(export)),
    ]
