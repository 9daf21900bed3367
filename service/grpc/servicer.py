"""The gRPC servicer of pokertable.v1's TableService: each RPC checks its request, runs the application command for
the calling station, and replies; nothing more.  The command RPCs are here; the reads are in
:mod:`service.grpc.queries` (the shufflers' integrity in :mod:`service.grpc.shufflers`, the dealers' figures in
:mod:`service.grpc.dealers`), the streams in :mod:`service.grpc.streams`, the machinery in :mod:`service.grpc.base`.

A table's family (circle or banked, ``domain.games.GAMES``) picks the application command: a hand's commands, a
start or an open of either family go to the same RPC, and no game is named here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import grpc

from domain.device_reports import DeviceReport
from domain.games import Game
from domain.tables import MAX_DEALER_ID
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.app.application import (
    BANKED_ACTIONS,
    BANKED_TABLE_ACTIONS,
    CORRECTION_ACTIONS,
    HAND_ACTIONS,
    MAX_CHIPS,
    NextDeck,
    PokerTables,
    ServiceError,
    Viewer,
)
from service.grpc.accounts import AccountsRpcs
from service.grpc.act import Parsed, parse_command
from service.grpc.base import ServicerBase
from service.grpc.dealers import DealerRpcs
from service.grpc.errors import _guarded, _StatusError, invalid
from service.grpc.floor import FloorRpcs
from service.grpc.queries import QueryRpcs
from service.grpc.replies import command_result
from service.grpc.requests import (
    _card,
    _chips,
    _code,
    _command_id,
    _seat,
    _table,
    _text,
    alert_acknowledgement,
    circle_settings,
    colour,
    deck,
    open_table,
)
from service.grpc.shufflers import ShufflerRpcs
from service.grpc.streams import WATCH_PAGE, StreamRpcs

__all__ = ["WATCH_PAGE", "TableServicer"]


def _refused(message: str, rule: str) -> _StatusError:
    return _StatusError(grpc.StatusCode.FAILED_PRECONDITION, message, rule)


def _circle_command(app: PokerTables, game: Game, command_id: str, table: str, parsed: Parsed,  # noqa: PLR0917
                    viewer: Viewer) -> dict[str, Any]:
    if parsed.action not in HAND_ACTIONS and parsed.action not in CORRECTION_ACTIONS:
        raise _refused(f"{parsed.case} is not a command of {game.code} (a circle game)", "R-CIRC-3")
    return app.hand_command(command_id, table, parsed.circle(), viewer)


def _banked_command(app: PokerTables, game: Game, command_id: str, table: str, parsed: Parsed,  # noqa: PLR0917
                    viewer: Viewer) -> dict[str, Any]:
    if parsed.action not in BANKED_ACTIONS[game.hand_class] and parsed.action not in BANKED_TABLE_ACTIONS:
        raise _refused(f"{parsed.case} is not a command of {game.code}", "R-AUD-1")
    return app.banked_command(command_id, table, parsed.banked(), viewer)


FamilyCommand = Callable[[PokerTables, Game, str, str, Parsed, Viewer], dict[str, Any]]
FAMILY_COMMANDS: Mapping[str, FamilyCommand] = {"circle": _circle_command, "banked": _banked_command}
"""Act, by the table's family: the application's hand command or banked command."""


class TableServicer(AccountsRpcs, QueryRpcs, ShufflerRpcs, DealerRpcs, FloorRpcs, StreamRpcs, ServicerBase,
                    svc_grpc.TableServiceServicer):
    """Thin translation between pokertable.v1 and :class:`PokerTables`."""

    # -- administration -----------------------------------------------------------------------------

    @_guarded
    async def OpenTable(self, request: svc.OpenTableRequest, context: Any) -> svc.OpenTableResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        opened = open_table(request)

        def work(viewer: Viewer) -> svc.OpenTableResponse:
            self.app.authorize(viewer, table, "open-table")
            try:
                if opened.game.family == "circle":
                    result = self.app.open_table(command_id, table, opened.settings, opened.seat_count,
                                                 opened.language)
                else:
                    result = self.app.open_banked_table(command_id, table, opened.game.code, opened.settings,
                                                        opened.language)
            except ServiceError as error:
                if type(error) is not ServiceError:  # not found, denied, a conflict: mapped as they are
                    raise
                raise invalid(str(error), "table", error.rule) from None  # the name is taken (R-AUD-1)
            return svc.OpenTableResponse(result=command_result(result))

        return await self._run(context, work)

    def _circle_table(self, table: str, rule: str = "R-CIRC-2") -> Game:
        """The table's game, which must be a circle game (seats, stacks, settings): FAILED_PRECONDITION otherwise,
        naming ``rule``."""
        game = self._game(table)
        if game.family != "circle":
            raise _refused(f"{table!r} deals {game.code}: its boxes take bets hand by hand, no seats, stacks or "
                           "circle settings", rule)
        return game

    @_guarded
    async def SeatPlayer(self, request: svc.SeatPlayerRequest, context: Any) -> svc.SeatPlayerResponse:  # noqa: N802
        seat, chips = _seat(request.seat, "seat"), _chips(request.chips)
        result = await self._seat_change(request, context, lambda c, t: self.app.sit(c, t, seat, chips))
        return svc.SeatPlayerResponse(result=result)

    @_guarded
    async def AddChips(self, request: svc.AddChipsRequest, context: Any) -> svc.AddChipsResponse:  # noqa: N802
        seat, chips = _seat(request.seat, "seat"), _chips(request.chips)
        result = await self._seat_change(request, context, lambda c, t: self.app.add_chips(c, t, seat, chips))
        return svc.AddChipsResponse(result=result)

    @_guarded
    async def LeaveSeat(self, request: svc.LeaveSeatRequest, context: Any) -> svc.LeaveSeatResponse:  # noqa: N802
        seat = _seat(request.seat, "seat")
        result = await self._seat_change(request, context, lambda c, t: self.app.leave(c, t, seat))
        return svc.LeaveSeatResponse(result=result)

    async def _seat_change(self, request: Any, context: Any,
                           change: Callable[[str, str], dict[str, Any]]) -> pb.CommandResult:
        command_id, table = _command_id(request.command_id), _table(request.table)

        def work(viewer: Viewer) -> pb.CommandResult:
            self.app.authorize(viewer, table, "seat")
            self._circle_table(table)
            return command_result(change(command_id, table))

        return await self._run(context, work)

    @_guarded
    async def ConfigureTable(  # noqa: N802
        self, request: svc.ConfigureTableRequest, context: Any
    ) -> svc.ConfigureTableResponse:
        command_id, table = _command_id(request.command_id), _table(request.table)

        def work(viewer: Viewer) -> svc.ConfigureTableResponse:
            self.app.authorize(viewer, table, "configure")
            settings = circle_settings(request.settings, self._circle_table(table, "R-CIRC-5").code, "settings")
            return svc.ConfigureTableResponse(result=command_result(self.app.configure_table(
                command_id, table, settings, viewer)))

        return await self._run(context, work)

    @_guarded
    async def CorrectStack(self, request: svc.CorrectStackRequest, context: Any) -> svc.CorrectStackResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        seat, reason = _seat(request.seat, "seat"), _text(request.reason, "reason")
        if request.chips < 0 or request.chips > MAX_CHIPS:
            raise invalid("chips are a whole, non-negative number", "chips", "R-CIRC-6")

        def work(viewer: Viewer) -> svc.CorrectStackResponse:
            self.app.authorize(viewer, table, "correct")
            self._circle_table(table)
            return svc.CorrectStackResponse(result=command_result(self.app.correct_stack(
                command_id, table, seat, request.chips, reason=reason, viewer=viewer)))

        return await self._run(context, work)

    @_guarded
    async def CloseTable(self, request: svc.CloseTableRequest, context: Any) -> svc.CloseTableResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)

        def work(viewer: Viewer) -> svc.CloseTableResponse:
            self.app.authorize(viewer, table, "close")
            self._circle_table(table)
            return svc.CloseTableResponse(result=command_result(self.app.close_table(command_id, table, viewer)))

        return await self._run(context, work)

    # -- hands --------------------------------------------------------------------------------------

    @_guarded
    async def StartHand(self, request: svc.StartHandRequest, context: Any) -> svc.StartHandResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        wanted = deck(request)

        def work(viewer: Viewer) -> svc.StartHandResponse:
            self.app.authorize(viewer, table, "start-hand")
            if self._game(table).family == "circle":  # no size named: the size the next hand needs (R-DRAW-8)
                result = self.app.start_hand(command_id, table, wanted.identity() if wanted.size
                                             else NextDeck(wanted.colour, wanted.label))
            else:
                result = self.app.start_banked_hand(command_id, table, wanted.identity(52))
            self._started(table, result["hand_id"], result["number"])
            return svc.StartHandResponse(result=command_result(result))

        return await self._run(context, work)

    @_guarded
    async def RecordDeviceReport(  # noqa: N802
        self, request: svc.RecordDeviceReportRequest, context: Any
    ) -> svc.RecordDeviceReportResponse:
        command_id, table = _command_id(request.command_id), _table(request.table)
        report = DeviceReport(_text(request.device, "device"), _text(request.serial, "serial"),
                              _code(pb.DeviceReportKind, request.kind, "kind", "R-DECK-3"),
                              colour(request.colour, "colour"), _text(request.result, "result"))
        return await self._run(context, lambda v: svc.RecordDeviceReportResponse(result=command_result(
            self.app.record_device_report(command_id, table, report, v))))

    @_guarded
    async def RecordCutExposure(  # noqa: N802
        self, request: svc.RecordCutExposureRequest, context: Any
    ) -> svc.RecordCutExposureResponse:
        command_id, table = _command_id(request.command_id), _table(request.table)
        card, deck_colour = _card(request.card, "card"), colour(request.colour, "colour")
        return await self._run(context, lambda v: svc.RecordCutExposureResponse(result=command_result(
            self.app.record_cut_exposure(command_id, table, card, deck_colour, v))))

    @_guarded
    async def SignIn(self, request: svc.SignInRequest, context: Any) -> svc.SignInResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        dealer_id = _text(request.dealer_id, "dealer_id")
        if len(dealer_id) > MAX_DEALER_ID:
            raise invalid(f"a dealer's id has 1 to {MAX_DEALER_ID} characters", "dealer_id", "R-AUD-1")

        def work(viewer: Viewer) -> svc.SignInResponse:
            self.app.authorize(viewer, table, "sign-in")
            return svc.SignInResponse(result=command_result(self.app.sign_in(command_id, table, dealer_id, viewer)))

        return await self._run(context, work)

    @_guarded
    async def SignOut(self, request: svc.SignOutRequest, context: Any) -> svc.SignOutResponse:  # noqa: N802
        """R-AUD-1: the dealer signed in at the table leaves it (a rotation); the same stations as SignIn."""
        command_id, table = _command_id(request.command_id), _table(request.table)

        def work(viewer: Viewer) -> svc.SignOutResponse:
            self.app.authorize(viewer, table, "sign-in")
            return svc.SignOutResponse(result=command_result(self.app.sign_out(command_id, table, viewer)))

        return await self._run(context, work)

    @_guarded
    async def AcknowledgeAlert(  # noqa: N802
        self, request: svc.AcknowledgeAlertRequest, context: Any
    ) -> svc.AcknowledgeAlertResponse:
        """R-AUD-1: the pit boss or the games director acknowledges an alert of a table (circle or banked), named
        by the log position of the event that raised it, with a reason; recorded as the table's event (no table:
        tampering found by the audit, recorded on the casino's record of findings)."""
        checked = alert_acknowledgement(request)

        def work(viewer: Viewer) -> svc.AcknowledgeAlertResponse:
            self.app.authorize(viewer, checked.table, "acknowledge-alert")
            return svc.AcknowledgeAlertResponse(result=command_result(self.app.acknowledge_alert(
                checked.command_id, checked.table, checked.position, checked.reason, viewer)))

        return await self._run(context, work)

    @_guarded
    async def Act(self, request: svc.ActRequest, context: Any) -> svc.ActResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        parsed = parse_command(request.command)

        def work(viewer: Viewer) -> svc.ActResponse:
            game = self._game(table)
            result = FAMILY_COMMANDS[game.family](self.app, game, command_id, table, parsed, viewer)
            number = self._hand_number(table, result["hand_id"]) if result.get("hand_id") else 0
            return svc.ActResponse(result=command_result(result, number))

        return await self._run(context, work)
