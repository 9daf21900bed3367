"""The read RPCs of the servicer: ListTables (the floor: every table, summed up), GetTable (now, or at a past
position or time), GetLegalActions, ListHands, SearchHands and ExportHand, for tables of every game: the
application's typed views (:mod:`service.app.table_views`) as messages."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from domain.actions import Legal
from domain.games import Game
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import Viewer
from service.app.exports import export_hand
from service.grpc.act import action_kind
from service.grpc.base import ServicerBase
from service.grpc.errors import _guarded, invalid
from service.grpc.replies import detail, hand_summary, holds, table_summary, table_view
from service.grpc.requests import _code, _table, moment


def _legal(legal: Legal) -> svc.GetLegalActionsResponse:
    """What the hand takes now (its game's answer) as GetLegalActions says it."""
    out = svc.GetLegalActionsResponse(allowed=[action_kind(kind) for kind in legal.allowed])
    for name in ("seat", "call", "bring_in", "raise_min", "raise_max", "bet"):
        if getattr(legal, name) is not None:
            setattr(out, name, getattr(legal, name))
    return out


class QueryRpcs(ServicerBase):
    """ListTables, GetTable, GetLegalActions, ListHands, SearchHands, ExportHand."""

    def _position(self) -> int:
        """The log's last position now (read before a view: a Watch resumed after it misses nothing of the view)."""
        return self.app.log_reads.head()

    def _current(self, table: str, game: Game, viewer: Viewer, *, hand_start: bool = False) -> pb.TableView:
        shows = self.app.hole_cards.shows_down_cards(viewer, table, hand_live=True)
        record = self.app.any_table(table)
        if shows and record.hand_in_progress is not None:  # R-AUD-1: the look at the hand in progress recorded
            self._record_views([(table, record.hands_started)], "GetTable", viewer)  # first: the position covers it
        position = self._position()
        view = self.app.views.view(table, viewer)
        number = view.hands_started if view.hand is not None else 0
        if number and shows:  # a hand started meanwhile: recorded before it is shown (else remembered: nothing)
            self._record_views([(table, number)], "GetTable", viewer)
        hand_id = str(record.hand_id(number)) if number else ""
        current = table_view(game, table, hands_started=view.hands_started, hand_id=hand_id, hand_number=number,
                             position=position, time=None, detail=detail(view.detail), dealer=view.dealer,
                             language=view.language, held=holds(view.holds, view.decks_out),
                             last_deck=view.deck_colour, next_deck_size=record.deck_size_for_next_hand())
        if hand_start:
            current.hand_started_position = self._hand_started(hand_id)
        return current

    def _hand_started(self, hand_id: str) -> int:
        """The log position where the hand in progress starts, as the hands index keeps it (caught up once if it
        has not seen the start yet: what was stored since the last catch-up, a second's worth); 0 if unknown."""
        floor = self.app.floor_log
        if not hand_id or not floor.usable:
            return 0
        mark = floor.store.hands_index.mark_of(hand_id)
        if mark is None:
            floor.catch_up()
            mark = floor.store.hands_index.mark_of(hand_id)
        return mark.position if mark is not None else 0

    def _history(self, table: str, game: Game, viewer: Viewer, position: int | None,
                 at: datetime | None) -> pb.TableView:
        past = self.app.views.table_at(table, position=position, moment=at)
        number = past.hands_started if past.hand is not None else 0
        record = self.app.any_table(table)  # its hands' namespace (the cached copy: no read of the store)
        sees = False
        if number:
            # a hand of the past that is still in progress is live: the delay policy, and its view is recorded
            live = record.hand_id(number) in self.app.hole_cards.live_hands(table)
            sees = self.app.hole_cards.shows_down_cards(viewer, table, hand_live=live)
            if live and sees:
                self._record_views([(table, number)], "GetTable", viewer)  # R-AUD-1: before the cards are shown
        hand_id = str(record.hand_id(number)) if number else ""
        return table_view(game, table, hands_started=past.hands_started, hand_id=hand_id, hand_number=number,
                          position=past.position, time=past.time,
                          detail=detail(self.app.views.past_view(past, sees_down_cards=sees)),
                          dealer=past.dealer, language=past.language)

    @_guarded
    async def ListTables(self, request: svc.ListTablesRequest, context: Any) -> svc.ListTablesResponse:  # noqa: N802
        wanted = _code(pb.Game, request.game, "game", "R-CIRC-5", default="") or None
        only = {_table(name) for name in request.tables}

        def work(viewer: Viewer) -> svc.ListTablesResponse:
            # every station lists every table (docs/service.md: reads are for every role); a summary shows no card
            position = self._position()  # read before the views, as GetTable's: a Watch after it misses nothing
            listed = []
            for table in self.app.table_names():
                if only and table not in only:
                    continue
                game = self._game(table)
                if wanted is None or game.code == wanted:
                    listed.append((table, game))
            summaries = []
            # one question to the store for every table listed, not a read of each (PostgreSQL: the pit's floor)
            with self.app.reads.current_as_of_now([game.table_class.create_id(table) for table, game in listed]):
                for table, game in listed:
                    view = self.app.views.view(table, viewer)
                    if view.closed and not request.include_closed:
                        continue
                    summaries.append(table_summary(game, view, position,
                                                   self.app.staff.name_of(view.dealer) if view.dealer else ""))
            return svc.ListTablesResponse(tables=summaries)

        return await self._run(context, work, offload=True)

    @_guarded
    async def GetTable(self, request: svc.GetTableRequest, context: Any) -> svc.GetTableResponse:  # noqa: N802
        table = _table(request.table)
        which = request.WhichOneof("moment")
        if which == "position" and request.position < 0:
            raise invalid("position is a log position, 0 or more", "position", "R-AUD-1")
        at = moment(request, "at") if which == "at" else None

        def work(viewer: Viewer) -> svc.GetTableResponse:
            game = self._game(table)
            if which is None:
                return svc.GetTableResponse(view=self._current(table, game, viewer,
                                                               hand_start=request.with_hand_start))
            position = request.position if which == "position" else None
            return svc.GetTableResponse(view=self._history(table, game, viewer, position, at))

        return await self._run(context, work, offload=which is not None or request.with_hand_start)

    @_guarded
    async def GetLegalActions(  # noqa: N802
        self, request: svc.GetLegalActionsRequest, context: Any
    ) -> svc.GetLegalActionsResponse:
        table = _table(request.table)

        def work(viewer: Viewer) -> svc.GetLegalActionsResponse:
            del viewer  # every station may read it (docs/service.md): it shows no card
            return _legal(self.app.views.legal(table))

        return await self._run(context, work)

    @_guarded
    async def ListHands(self, request: svc.ListHandsRequest, context: Any) -> svc.ListHandsResponse:  # noqa: N802
        table = _table(request.table)

        def work(viewer: Viewer) -> svc.ListHandsResponse:
            del viewer
            return svc.ListHandsResponse(hands=[pb.HandRef(hand_id=str(hand_id), number=number) for number, hand_id
                                                in enumerate(self.app.hands_of(table), start=1)])

        return await self._run(context, work, offload=True)

    @_guarded
    async def SearchHands(self, request: svc.SearchHandsRequest, context: Any) -> svc.SearchHandsResponse:  # noqa: N802
        table = _table(request.table)
        since, until = moment(request, "since"), moment(request, "until")
        outcome = _code(pb.HandOutcome, request.outcome, "outcome", "R-AUD-1", default="") or None
        game = _code(pb.Game, request.game, "game", "R-CIRC-5", default="") or None
        seat = request.seat if request.HasField("seat") else None

        def work(viewer: Viewer) -> svc.SearchHandsResponse:
            del viewer  # every station reads every table's hands (docs/service.md); a summary shows no card
            found = self.app.views.search_hands(table, since=since, until=until, seat=seat, outcome=outcome, game=game)
            return svc.SearchHandsResponse(hands=[hand_summary(summary) for summary in found])

        return await self._run(context, work, offload=True)

    @_guarded
    async def ExportHand(self, request: svc.ExportHandRequest, context: Any) -> svc.ExportHandResponse:  # noqa: N802
        table = _table(request.table)
        if request.hand_number <= 0:
            raise invalid("hand_number is required: 1 = the table's first hand", "hand_number", "R-AUD-1")
        fmt = _code(pb.ExportFormat, request.format, "format", "R-AUD-1", default="json")

        def work(viewer: Viewer) -> svc.ExportHandResponse:
            number = request.hand_number
            record = self.app.any_table(table)
            if record.hand_in_progress is not None and record.hand_in_progress == record.hand_id(number) \
                    and self.app.hole_cards.shows_down_cards(viewer, table, hand_live=True):
                self._record_views([(table, number)], "ExportHand", viewer)  # the hand in progress, live (R-AUD-1)
            content, media_type = export_hand(self.app, table, number, fmt, viewer, zone=self.zone or UTC)
            return svc.ExportHandResponse(content=content, media_type=media_type)

        return await self._run(context, work, offload=True)

