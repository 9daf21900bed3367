"""The gRPC servicer of pokertable.v1's TableService: each RPC checks its request, runs the application command for
the calling station, and replies; nothing more.  The command RPCs are here; the reads are in
:mod:`service.grpc.queries` (the shufflers' integrity in :mod:`service.grpc.shufflers`, the dealers' figures in
:mod:`service.grpc.dealers`), the streams in :mod:`service.grpc.streams`, the machinery in :mod:`service.grpc.base`.

Each command RPC is request → command (:mod:`service.app.commands`) → ``app.handle`` → reply: the application checks
the role matrix and the rules; a table of any game takes the same commands, and no game or family is named here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.device_reports import DeviceReport
from domain.tables import NextDeck
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.app.access import authorize
from service.app.application import MAX_CHIPS, ServiceError, Viewer
from service.app.commands import (
    AcknowledgeAlert,
    Act,
    AddChips,
    CloseTable,
    Command,
    ConfigureTable,
    CorrectStack,
    Leave,
    RecordCutExposure,
    RecordDeviceReport,
    Sit,
    StartHand,
)
from service.grpc.accounts import AccountsRpcs
from service.grpc.act import parse_command
from service.grpc.base import ServicerBase
from service.grpc.dealers import DealerRpcs
from service.grpc.errors import _guarded, invalid
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
from service.grpc.staff import StaffRpcs
from service.grpc.streams import WATCH_PAGE, StreamRpcs

__all__ = ["WATCH_PAGE", "TableServicer"]


class TableServicer(AccountsRpcs, QueryRpcs, ShufflerRpcs, DealerRpcs, FloorRpcs, StreamRpcs, StaffRpcs, ServicerBase,
                    svc_grpc.TableServiceServicer):
    """Thin translation between pokertable.v1 and :class:`PokerTables`."""

    # -- administration -----------------------------------------------------------------------------

    @_guarded
    async def OpenTable(self, request: svc.OpenTableRequest, context: Any) -> svc.OpenTableResponse:  # noqa: N802
        command = open_table(request, _command_id(request.command_id), _table(request.table))

        def work(viewer: Viewer) -> svc.OpenTableResponse:
            try:
                result = self.app.handle(command, viewer)
            except ServiceError as error:
                if type(error) is not ServiceError:  # not found, denied, a conflict: mapped as they are
                    raise
                raise invalid(str(error), "table", error.rule) from None  # the name is taken (R-AUD-1)
            return svc.OpenTableResponse(result=command_result(result))

        return await self._run(context, work)

    @_guarded
    async def SeatPlayer(self, request: svc.SeatPlayerRequest, context: Any) -> svc.SeatPlayerResponse:  # noqa: N802
        seat, chips = _seat(request.seat, "seat"), _chips(request.chips)
        result = await self._handled(context, Sit(_command_id(request.command_id), _table(request.table), seat, chips))
        return svc.SeatPlayerResponse(result=result)

    @_guarded
    async def AddChips(self, request: svc.AddChipsRequest, context: Any) -> svc.AddChipsResponse:  # noqa: N802
        seat, chips = _seat(request.seat, "seat"), _chips(request.chips)
        result = await self._handled(context, AddChips(_command_id(request.command_id), _table(request.table), seat,
                                                       chips))
        return svc.AddChipsResponse(result=result)

    @_guarded
    async def LeaveSeat(self, request: svc.LeaveSeatRequest, context: Any) -> svc.LeaveSeatResponse:  # noqa: N802
        seat = _seat(request.seat, "seat")
        result = await self._handled(context, Leave(_command_id(request.command_id), _table(request.table), seat))
        return svc.LeaveSeatResponse(result=result)

    async def _handled(self, context: Any, command: Command | Callable[[Viewer], Command]) -> pb.CommandResult:
        """The command (or the command made for the calling station, once its table is known to it) handled for
        the calling station, as a CommandResult."""
        def work(viewer: Viewer) -> pb.CommandResult:
            made = command if isinstance(command, Command) else command(viewer)
            return command_result(self.app.handle(made, viewer))

        return await self._run(context, work)

    @_guarded
    async def ConfigureTable(  # noqa: N802
        self, request: svc.ConfigureTableRequest, context: Any
    ) -> svc.ConfigureTableResponse:
        command_id, table = _command_id(request.command_id), _table(request.table)

        def command(viewer: Viewer) -> ConfigureTable:
            authorize(viewer, table, ConfigureTable.permission)  # before the table's game is read
            variant = self.app.reads.table(table, "R-CIRC-5").settings.variant  # a banked table has none (R-CIRC-5)
            return ConfigureTable(command_id, table, circle_settings(request.settings, variant, "settings"))

        return svc.ConfigureTableResponse(result=await self._handled(context, command))

    @_guarded
    async def CorrectStack(self, request: svc.CorrectStackRequest, context: Any) -> svc.CorrectStackResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        seat, reason = _seat(request.seat, "seat"), _text(request.reason, "reason")
        if request.chips < 0 or request.chips > MAX_CHIPS:
            raise invalid("chips are a whole, non-negative number", "chips", "R-CIRC-6")
        result = await self._handled(context, CorrectStack(command_id, table, seat, request.chips, reason))
        return svc.CorrectStackResponse(result=result)

    @_guarded
    async def CloseTable(self, request: svc.CloseTableRequest, context: Any) -> svc.CloseTableResponse:  # noqa: N802
        result = await self._handled(context, CloseTable(_command_id(request.command_id), _table(request.table)))
        return svc.CloseTableResponse(result=result)

    # -- hands --------------------------------------------------------------------------------------

    @_guarded
    async def StartHand(self, request: svc.StartHandRequest, context: Any) -> svc.StartHandResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        wanted = deck(request)  # no size named: the size the table's next hand needs (R-DRAW-8)
        command = StartHand(command_id, table, wanted.identity() if wanted.size
                            else NextDeck(wanted.colour, wanted.label))

        def work(viewer: Viewer) -> svc.StartHandResponse:
            result = self.app.handle(command, viewer)
            assert result.hand_id is not None and result.number is not None
            self._started(table, result.hand_id, result.number)
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
        return svc.RecordDeviceReportResponse(result=await self._handled(
            context, RecordDeviceReport(command_id, table, report)))

    @_guarded
    async def RecordCutExposure(  # noqa: N802
        self, request: svc.RecordCutExposureRequest, context: Any
    ) -> svc.RecordCutExposureResponse:
        command_id, table = _command_id(request.command_id), _table(request.table)
        card, deck_colour = _card(request.card, "card"), colour(request.colour, "colour")
        return svc.RecordCutExposureResponse(result=await self._handled(
            context, RecordCutExposure(command_id, table, card, deck_colour)))

    @_guarded
    async def AcknowledgeAlert(  # noqa: N802
        self, request: svc.AcknowledgeAlertRequest, context: Any
    ) -> svc.AcknowledgeAlertResponse:
        """R-AUD-1: the pit boss or the games director acknowledges an alert of a table (of any game), named by the
        log position of the event that raised it, with a reason; recorded as the table's event (no table:
        tampering found by the audit, recorded on the casino's record of findings)."""
        checked = alert_acknowledgement(request)
        command = AcknowledgeAlert(checked.command_id, checked.table, checked.position, checked.reason)
        return svc.AcknowledgeAlertResponse(result=await self._handled(context, command))

    @_guarded
    async def Act(self, request: svc.ActRequest, context: Any) -> svc.ActResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        parsed = parse_command(request.command)

        def work(viewer: Viewer) -> svc.ActResponse:
            action = parsed.action(self._game(table))  # the case's action at this table's game
            result = self.app.handle(Act(command_id, table, action), viewer)
            number = self._hand_number(table, result.hand_id) if result.hand_id else 0
            return svc.ActResponse(result=command_result(result, number))

        return await self._run(context, work)
