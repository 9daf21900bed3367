"""The gRPC servicer: each RPC checks its request, runs the application command for the calling station, and
replies; nothing more."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from uuid import UUID

import grpc

from domain.cards.cards import Card
from domain.device_reports import DeviceReport
from domain.games import game_of
from service.api import pokertable_pb2 as pb
from service.api import pokertable_pb2_grpc as pb_grpc
from service.app.application import (
    BANKED_TABLE_ACTIONS,
    CDP_ACTIONS,
    HAND_ACTIONS,
    MAX_CHIPS,
    THB_ACTIONS,
    BankedCommand,
    HandCommand,
    PokerTables,
    Viewer,
)
from service.formats.render import describe, render
from service.grpc.errors import UNAUTHENTICATED_MESSAGE, _guarded, _status, _StatusError, _translate
from service.grpc.hardening import bearer_token
from service.grpc.replies import _banked_view, _payload, _reply, _table_view
from service.grpc.requests import (
    MAX_POSITION,
    _banked_settings,
    _chips,
    _command_id,
    _deck,
    _moment,
    _settings,
    _source,
    _table,
    _text,
)
from service.grpc.stations import Stations

WATCH_PAGE = 200
WATCH_POLL_SECONDS = 0.05  # for other instances' commands on a shared PostgreSQL
WATCH_SAFETY_POLL_SECONDS = 30.0  # the sole writer of an SQLite file: every command wakes its table's streams
T = TypeVar("T")


class TableServicer(pb_grpc.TableServiceServicer):
    """Thin translation between protobuf and :class:`PokerTables`."""

    def __init__(self, app: PokerTables, stations: Stations, executor: ThreadPoolExecutor) -> None:
        self.app, self.stations, self.executor = app, stations, executor
        self._stored: dict[str, asyncio.Event] = {}  # by table: set (and replaced) when a command of it is stored
        self._loop, self._loop_thread = asyncio.get_running_loop(), threading.get_ident()
        app.on_stored = self._stored_now
        # Watch streams wake when this instance stores a command of their table. Other instances' commands (several
        # services on one PostgreSQL) are found by polling; the sole writer of an SQLite file has no others, so its
        # streams only look now and then, as a safety net: 200 idle streams polling every 50 ms kept a core busy.
        self.poll = WATCH_SAFETY_POLL_SECONDS if app.sole_writer else WATCH_POLL_SECONDS
        # The sole writer of an SQLite file applies a command on the event loop itself: the work is a fraction of a
        # millisecond of Python plus one fsync'd commit, and SQLite writes one transaction at a time anyway, while
        # the hop to a worker thread and back costs two thread wake-ups (≈ 0.5 ms a command on a 2-core machine;
        # in one A/B of benchmarks/service.py's client, 200 tables flat out ran at 296/s on worker threads and
        # 542/s on the loop). On PostgreSQL a commit waits on the network and commits of different tables overlap,
        # so the work goes to the thread pool (on the loop it measured 232 against 290 commands/s, 16 tables).
        self.inline = app.sole_writer

    async def _run(self, context: grpc.aio.ServicerContext[Any, Any], work: Callable[[Viewer], T], *,
                   offload: bool = False) -> T:
        """``work`` for the calling station; ``offload``: a long read, always on the thread pool."""
        viewer = self._viewer(context)
        if self.inline and not offload:
            return work(viewer)
        return await asyncio.get_running_loop().run_in_executor(self.executor, work, viewer)

    def _stored_event(self, table: str) -> asyncio.Event:
        """What a watch stream of ``table`` waits on: set when a command of the table is stored here."""
        return self._stored.setdefault(table, asyncio.Event())

    def _stored_now(self, table: str) -> None:
        """The application stored a command of ``table`` (on whichever thread): its streams look, on the loop.

        Nothing to do when no stream waits on the table: a stream registers before it scans, and the command was
        committed before this call, so a stream that registers meanwhile finds the command in its scan. A command
        applied on the loop itself wakes the streams directly, without writing to the loop's wake-up pipe."""
        if table not in self._stored:
            return
        if threading.get_ident() == self._loop_thread:
            self._wake(table)
        else:
            self._loop.call_soon_threadsafe(self._wake, table)

    def _wake(self, table: str) -> None:
        stored = self._stored.pop(table, None)
        if stored is not None:
            stored.set()

    def _viewer(self, context: grpc.aio.ServicerContext[Any, Any]) -> Viewer:
        token = bearer_token(context.invocation_metadata())  # type: ignore[arg-type]
        viewer = self.stations.by_token.get(token) if token is not None else None
        if viewer is None:  # StationGate refused the call already; this holds without it too
            raise _StatusError(grpc.StatusCode.UNAUTHENTICATED, UNAUTHENTICATED_MESSAGE, "R-AUD-1")
        return viewer

    # -- administration -----------------------------------------------------------------------------

    @_guarded
    async def OpenTable(self, request: pb.OpenTableRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        settings = _settings(request.settings)
        command_id, table = _command_id(request.command_id), _table(request.table)
        seat_count = request.seat_count or 10

        def work(viewer: Viewer) -> pb.CommandReply:
            self.app.authorize(viewer, table, "open-table")
            return _reply(self.app.open_table(command_id, table, settings, seat_count))

        return await self._run(context, work)

    @_guarded
    async def SeatPlayer(self, request: pb.SeatPlayerRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        return await self._seat_change(request, context, lambda c, t: self.app.sit(
            c, t, request.seat, _chips(request.chips)))

    @_guarded
    async def AddChips(self, request: pb.SeatPlayerRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        return await self._seat_change(request, context, lambda c, t: self.app.add_chips(
            c, t, request.seat, _chips(request.chips)))

    @_guarded
    async def LeaveSeat(self, request: pb.SeatRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        return await self._seat_change(request, context, lambda c, t: self.app.leave(c, t, request.seat))

    @_guarded
    async def ConfigureTable(self, request: pb.ConfigureTableRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table, settings = _command_id(request.command_id), _table(request.table), \
            _settings(request.settings)
        return await self._run(context, lambda v: _reply(self.app.configure_table(command_id, table, settings, v)))

    @_guarded
    async def CorrectStack(self, request: pb.CorrectStackRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        reason = _text(request.reason, "reason")
        if request.chips < 0 or request.chips > MAX_CHIPS:
            raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "chips are a whole, non-negative number", "R-CIRC-6")
        return await self._run(context, lambda v: _reply(self.app.correct_stack(
            command_id, table, request.seat, request.chips, reason=reason, viewer=v)))

    @_guarded
    async def CloseTable(self, request: pb.CloseTableRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        return await self._run(context, lambda v: _reply(self.app.close_table(command_id, table, v)))

    async def _seat_change(self, request: Any, context: Any,
                           change: Callable[[str, str], dict[str, Any]]) -> pb.CommandReply:
        command_id, table = _command_id(request.command_id), _table(request.table)

        def work(viewer: Viewer) -> pb.CommandReply:
            self.app.authorize(viewer, table, "seat")
            return _reply(change(command_id, table))

        return await self._run(context, work)

    # -- hands --------------------------------------------------------------------------------------

    @_guarded
    async def StartHand(self, request: pb.StartHandRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        deck = _deck(request, 0)

        def work(viewer: Viewer) -> pb.CommandReply:
            self.app.authorize(viewer, table, "start-hand")
            size = deck.size or self.app.table(table).deck_size_for_next_hand()
            return _reply(self.app.start_hand(command_id, table, deck.identity(size)))

        return await self._run(context, work)

    @_guarded
    async def RecordDeviceReport(self, request: pb.DeviceReportRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        report = DeviceReport(_text(request.device, "device"), _text(request.serial, "serial"),
                              _text(request.kind, "kind"), _text(request.colour, "colour"),
                              _text(request.result, "result"))
        return await self._run(context, lambda v: _reply(self.app.record_device_report(command_id, table, report, v)))

    @_guarded
    async def RecordCutExposure(self, request: pb.CutExposureRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        card = Card.parse(_text(request.card, "card"))
        colour = _text(request.colour, "colour")
        return await self._run(context, lambda v: _reply(self.app.record_cut_exposure(command_id, table, card, colour,
                                                                                      v)))

    @_guarded
    async def HandCommand(self, request: pb.HandCommandRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        if request.action not in HAND_ACTIONS:
            raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown action {request.action!r}", "R-CIRC-3")
        command = HandCommand(
            action=request.action,
            seat=request.seat if request.HasField("seat") else None,
            amount=_chips(request.amount) if request.HasField("amount") else None,
            card=Card.parse(_text(request.card, "card")) if request.card else None,
            cards=tuple(Card.parse(_text(c, "cards")) for c in request.cards),
            source=_source(request.source),
            sequence=request.sequence if request.HasField("sequence") else None,
            rule=_text(request.rule, "rule", required=False),
            reason=_text(request.reason, "reason", required=False),
        )

        def work(viewer: Viewer) -> pb.CommandReply:
            return _reply(self.app.hand_command(command_id, table, command, viewer))

        return await self._run(context, work)

    # -- queries ------------------------------------------------------------------------------------

    @_guarded
    async def GetTable(self, request: pb.TableRequest, context: Any) -> pb.TableView:  # noqa: N802
        table = _table(request.table)
        return await self._run(context, lambda viewer: _table_view(self.app.view(table, viewer)))

    @_guarded
    async def GetLegalActions(self, request: pb.TableRequest, context: Any) -> pb.LegalActions:  # noqa: N802
        table = _table(request.table)

        def work(viewer: Viewer) -> pb.LegalActions:
            del viewer
            legal = self.app.legal_actions(table)
            if legal is None:
                return pb.LegalActions(anyone_to_act=False)
            return pb.LegalActions(anyone_to_act=True, seat=legal.seat, fold=legal.fold, check=legal.check,
                                   call=legal.call, bring_in=legal.bring_in, raise_min=legal.raise_min,
                                   raise_max=legal.raise_max)

        return await self._run(context, work)

    @_guarded
    async def ListHands(self, request: pb.TableRequest, context: Any) -> pb.HandList:  # noqa: N802
        table = _table(request.table)
        return await self._run(context, lambda viewer: pb.HandList(hand_ids=[str(h) for h in self.app.hands_of(table)]),
                               offload=True)

    @_guarded
    async def SearchHands(self, request: pb.SearchHandsRequest, context: Any) -> pb.HandSummaries:  # noqa: N802
        table = _table(request.table)
        since, until = _moment(request.since, "since"), _moment(request.until, "until")

        def work(viewer: Viewer) -> pb.HandSummaries:
            self.app.authorize(viewer, table)
            found = self.app.search_hands(table, since=since, until=until, seat=request.seat or None,
                                          outcome=request.outcome or None, game=request.game or None)
            return pb.HandSummaries(hands=[pb.HandSummary(**summary) for summary in found])

        return await self._run(context, work, offload=True)

    # -- banked tables ------------------------------------------------------------------------------

    @_guarded
    async def OpenBankedTable(self, request: pb.OpenBankedTableRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        settings = _banked_settings(request)

        def work(viewer: Viewer) -> pb.CommandReply:
            self.app.authorize(viewer, table, "open-table")
            return _reply(self.app.open_banked_table(command_id, table, request.game, settings))

        return await self._run(context, work)

    @_guarded
    async def StartBankedHand(self, request: pb.StartHandRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        deck = _deck(request, 52)

        def work(viewer: Viewer) -> pb.CommandReply:
            self.app.authorize(viewer, table, "start-hand")
            return _reply(self.app.start_banked_hand(command_id, table, deck.identity()))

        return await self._run(context, work)

    @_guarded
    async def BankedCommand(self, request: pb.BankedCommandRequest, context: Any) -> pb.CommandReply:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        if all(request.action not in actions for actions in (THB_ACTIONS, CDP_ACTIONS, BANKED_TABLE_ACTIONS)):
            raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown action {request.action!r}", "R-AUD-1")
        command = BankedCommand(
            action=request.action,
            box=request.box if request.HasField("box") else None,
            amount=_chips(request.amount) if request.HasField("amount") else None,
            card=Card.parse(_text(request.card, "card")) if request.card else None,
            cards=tuple(Card.parse(_text(c, "cards")) for c in request.cards),
            source=_source(request.source),
            sequence=request.sequence if request.HasField("sequence") else None,
            reason=_text(request.reason, "reason", required=False),
            rule=_text(request.rule, "rule", required=False),
            director=_text(request.director, "director", required=False),
            correctable=request.correctable,
        )
        return await self._run(context, lambda viewer: _reply(self.app.banked_command(command_id, table, command,
                                                                                     viewer)))

    @_guarded
    async def GetBankedTable(self, request: pb.TableRequest, context: Any) -> pb.BankedTableView:  # noqa: N802
        table = _table(request.table)
        return await self._run(context, lambda viewer: _banked_view(self.app.banked_view(table, viewer)))

    async def Watch(self, request: pb.WatchRequest, context: Any) -> AsyncIterator[pb.TableChange]:  # noqa: N802
        """Every change of the table after ``after_position``, then new ones as they are stored."""
        try:
            table = _table(request.table)
            position = max(request.after_position, 0)
            if position > MAX_POSITION:  # the store's positions are int64: the scan would overflow (issue 13)
                raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"after_position is past any log: at most "
                                   f"{MAX_POSITION}", "R-AUD-1")
            viewer = await self._run(context, lambda viewer: (self.app.any_table(table), viewer)[1])
        except Exception as error:
            abort = _translate(error)
            await context.abort_with_status(_status(abort.code, abort.message, abort.rule))
            return
        while True:
            stored = self._stored_event(table)  # taken before the scan, so a command stored during it is not missed
            changes, scanned = await self._run(context, functools.partial(self._changes_after, table, viewer,
                                                                           position), offload=True)
            for change in changes:
                yield change
            # The scan moves on past other tables' events too: a busy casino's store must not stall this table's
            # stream behind a page of notifications none of which are its own.
            moved, position = scanned > position, max(position, scanned)
            if not moved:
                # Commands through this instance wake the stream at once; other instances' (several services
                # on one PostgreSQL) are found by the poll.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stored.wait(), self.poll)

    async def ReconstructHand(  # noqa: N802
        self, request: pb.ReconstructRequest, context: Any
    ) -> AsyncIterator[pb.ReconstructionStep]:
        """A hand event by event for a dispute: the pit boss only; the request is recorded first (R-THB-13)."""
        try:
            command_id, table = _command_id(request.command_id), _table(request.table)
            reason = _text(request.reason, "reason")
            steps = await self._run(context, lambda viewer: self.app.reconstruct_hand(
                command_id, table, request.hand_number, viewer, reason), offload=True)
        except Exception as error:
            abort = _translate(error)
            await context.abort_with_status(_status(abort.code, abort.message, abort.rule))
            return
        for step in steps:
            yield pb.ReconstructionStep(version=step.version, event=step.event, timestamp=step.timestamp,
                                        description=describe(step),
                                        event_json=json.dumps(step.data, default=str),
                                        state_json=json.dumps(step.state, default=str), rendered=render(step))

    def _changes_after(self, table: str, viewer: Viewer, after: int, _: Viewer) -> tuple[list[pb.TableChange], int]:
        """This table's changes in the next page of notifications, and the position the page reached (a table of any
        game: its hands' ids follow from the table's by the game's rule, ``domain.games``)."""
        record = self.app.any_table(table)
        next_hand = game_of(record).hand_id(record.id, record.hands_started + 1)
        ours = {record.id, *self.app.hands_of(table)}
        notifications = self.app.recorder.select_notifications(start=after + 1, limit=WATCH_PAGE)
        changes = []
        for notification in notifications:
            originator = notification.originator_id
            if not isinstance(originator, UUID):
                continue
            if originator not in ours:
                if originator == next_hand:  # a hand started after the table was read
                    ours.add(originator)
                else:
                    continue
            event = self.app.mapper.to_domain_event(notification)
            changes.append(pb.TableChange(position=notification.id, aggregate_id=str(notification.originator_id),
                                          version=notification.originator_version, event=type(event).__qualname__,
                                          payload_json=json.dumps(_payload(event, viewer.sees_down_cards(table)),
                                                                  default=str)))
        return changes, notifications[-1].id if notifications else after

