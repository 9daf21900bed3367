"""The gRPC table service (``grpc.aio``): translates requests into application commands, and nothing more.

Stations authenticate with a per-station token in the ``authorization`` metadata (``Bearer TOKEN``), from a TOML file::

    [stations.mesa-1]
    token = "…"
    role = "dealer"        # dealer, pit-boss, games-director, observer
    table = "Mesa 1"       # a dealer's own table

Errors carry the rule id (``R-…``) as the reason of a ``google.rpc.ErrorInfo`` detail.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import sqlite3
import threading
import time
import tomllib
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar
from uuid import UUID

import grpc
import psycopg
from eventsourcing.persistence import PersistenceError
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from domain.cards import Card
from domain.cdp import CdpSettings
from domain.decks import DECK_SIZES, BackColour, DeckIdentity
from domain.device_reports import DeviceReport, DeviceReportError
from domain.errors import InvalidCardError, RuleError
from domain.games import GAMES, game_of
from domain.hand_classes import Category
from domain.names import InvalidNameError, name_problem
from domain.ranking import hand_ranking
from domain.reconstruction import describe, event_data, render
from domain.table_settings import (
    AntePot,
    BettingStructure,
    InvalidSettingsError,
    MinRaise,
    ShowdownOrder,
    TableSettings,
)
from domain.thb import STANDARD_LIMITS, ThbSettings
from domain.variants import VARIANTS
from service.api import pokertable_pb2 as pb
from service.api import pokertable_pb2_grpc as pb_grpc
from service.application import (
    BANKED_TABLE_ACTIONS,
    CDP_ACTIONS,
    HAND_ACTIONS,
    MAX_CHIPS,
    THB_ACTIONS,
    AccessDeniedError,
    BankedCommand,
    ConflictError,
    DuplicateCommandError,
    HandCommand,
    NotFoundError,
    PokerTables,
    PreconditionError,
    Role,
    ServiceError,
    Viewer,
    parse_moment,
)
from service.chain_store import TamperedLogError
from service.hardening import HARDENED, Hardening, StationGate, bearer_token
from service.visibility import event_payload

SERVICE_NAME = "pokertable.v1.TableService"
MAX_TEXT = 256
MAX_POSITION = 2**62
"""The highest ``after_position`` a Watch takes: far past any log, and its scan stays within int64."""
STATION_SOURCES = ("shoe", "croupier")
"""The card sources a station names; ``replay`` and ``test`` are the domain's own (PHH replays, tests)."""
HIDDEN_IN_TEXT = frozenset({*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), "\u061c", "\u200e",
                            "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}) \
    - {"\t", "\n"}
"""Characters no free text of a request may have: controls (tab and newline aside) and bidi controls."""
UNAUTHENTICATED_MESSAGE = "unknown or missing station token (authorization: Bearer TOKEN)"
WATCH_PAGE = 200
WATCH_POLL_SECONDS = 0.05  # for other instances' commands on a shared PostgreSQL
WATCH_SAFETY_POLL_SECONDS = 30.0  # the sole writer of an SQLite file: every command wakes its table's streams
T = TypeVar("T")
E = TypeVar("E", bound=Enum)


class ListenError(OSError):
    """The server cannot listen on its address (taken, not this machine's, or TLS credentials gRPC refuses)."""


class StationConfigError(ValueError):
    """A stations file that cannot be used."""


@dataclass(frozen=True)
class Stations:
    """Station tokens and what each station is."""

    by_token: dict[str, Viewer]

    @classmethod
    def load(cls, path: Path) -> Stations:
        """Read the stations file."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise StationConfigError(f"cannot read {path}: {error}") from error
        return cls.from_mapping(data.get("stations", {}))

    @classmethod
    def from_mapping(cls, stations: dict[str, Any]) -> Stations:
        """Stations from ``{name: {token, role, table}}``."""
        by_token: dict[str, Viewer] = {}
        for name, entry in stations.items():
            token, role = entry.get("token", ""), entry.get("role", "")
            if len(token) < 16:
                raise StationConfigError(f"station {name}: a token of at least 16 characters")
            if token in by_token:
                raise StationConfigError(f"station {name}: its token is another station's")
            try:
                viewer = Viewer(name, Role(role), entry.get("table"))
            except ValueError:
                raise StationConfigError(f"station {name}: unknown role {role!r}") from None
            if viewer.role in (Role.DEALER, Role.DEVICE) and not viewer.table:
                raise StationConfigError(f"station {name}: a {viewer.role.value} station names its table")
            by_token[token] = viewer
        return cls(by_token)


class _StatusError(Exception):
    """Raised inside handlers; turned into a rich status by :func:`_guarded`."""

    def __init__(self, code: grpc.StatusCode, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.rule = code, message, rule


def _status(code: grpc.StatusCode, message: str, rule: str) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=rule or "NONE", domain="pokertable", metadata={"rule": rule})
    detail = any_pb2.Any()
    detail.Pack(info)
    return rpc_status.to_status(status_pb2.Status(code=getattr(code_pb2, code.name), message=message,
                                                  details=[detail]))


def _translate(error: Exception) -> _StatusError:  # noqa: PLR0911  (one case a kind of error)
    """One place maps domain and application errors to gRPC status codes."""
    match error:
        case _StatusError():
            return error
        case InvalidCardError() | InvalidSettingsError() | DeviceReportError() | InvalidNameError():
            return _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule)
        case RuleError():
            return _StatusError(grpc.StatusCode.FAILED_PRECONDITION, str(error), error.rule)
        case NotFoundError():
            return _StatusError(grpc.StatusCode.NOT_FOUND, str(error), error.rule)
        case ConflictError():
            return _StatusError(grpc.StatusCode.ABORTED, str(error), error.rule)
        case AccessDeniedError():
            return _StatusError(grpc.StatusCode.PERMISSION_DENIED, str(error), error.rule)
        case DuplicateCommandError():
            return _StatusError(grpc.StatusCode.ALREADY_EXISTS, str(error), error.rule)
        case PreconditionError():  # no hand in progress, a stack at the cap: the state refuses it now
            return _StatusError(grpc.StatusCode.FAILED_PRECONDITION, str(error), error.rule)
        case TamperedLogError():  # an event its chain link does not vouch for: not loaded (R-AUD-1)
            return _StatusError(grpc.StatusCode.DATA_LOSS, str(error), error.rule)
        case ServiceError():
            return _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule)
        case PersistenceError() | sqlite3.Error() | psycopg.Error():  # a full disk, a lost connection: retryable
            return _StatusError(grpc.StatusCode.UNAVAILABLE, f"the event store failed ({type(error).__name__}: "
                                f"{error}); the command is not acknowledged: retry it with the same command id",
                                "R-AUD-1")
    raise error


Handler = TypeVar("Handler", bound=Callable[..., Awaitable[Any]])


def _guarded(handler: Handler) -> Handler:
    """Every error of a unary handler becomes a status with the rule in its details; nothing else escapes."""

    @functools.wraps(handler)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        try:
            return await handler(self, request, context)
        except Exception as error:
            abort = _translate(error)
        await context.abort_with_status(_status(abort.code, abort.message, abort.rule))
        raise AssertionError("unreachable")

    return wrapper  # type: ignore[return-value]


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


def _payload(event: Any, sees_down_cards: bool) -> dict[str, Any]:
    """An event as the station may see it: through the one visibility policy (service/visibility.py)."""
    data = event_payload(type(event).__qualname__, event_data(event), sees_down_cards=sees_down_cards)
    data["timestamp"] = str(event.timestamp)
    return data


# -- request checks (INVALID_ARGUMENT, nothing changes) ------------------------------------------------


def _text(value: str, name: str, *, required: bool = True) -> str:
    if required and not value:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name} is required")
    if len(value) > MAX_TEXT:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name} is longer than {MAX_TEXT} characters")
    hidden = next((c for c in value if c in HIDDEN_IN_TEXT), None)
    if hidden is not None:  # NUL, controls, bidi overrides: text that shows other than it is (issue 13)
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name} has a control or bidi character "
                           f"(U+{ord(hidden):04X})", "R-AUD-1")
    return value


def _table(value: str) -> str:
    """A table's name, as :mod:`domain.names` allows it (no table has another: INVALID_ARGUMENT)."""
    problem = name_problem(_text(value, "table"))
    if problem is not None:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, problem, "R-AUD-1")
    return value


def _source(value: str) -> str:
    """Where a dealt card comes from, as a station says: the shoe's reader or the croupier (the default)."""
    source = value or "croupier"
    if source not in STATION_SOURCES:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"a card comes from {' or '.join(STATION_SOURCES)}, "
                           f"not {value!r}", "R-AUD-1")
    return source


def _command_id(value: str) -> str:
    text = _text(value, "command_id")
    if len(text) > 128:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "command_id is longer than 128 characters")
    return text


def _chips(value: int) -> int:
    if value <= 0 or value > MAX_CHIPS:
        message = f"chips are a positive whole number, not {value}"
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, message, "R-CIRC-6")
    return value


def _settings(message: pb.Settings) -> TableSettings:
    if message.variant not in VARIANTS:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown variant {message.variant!r}", "R-CIRC-5")
    try:
        structure = BettingStructure(message.structure)
    except ValueError:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown structure {message.structure!r}", "R-CIRC-5") \
            from None
    amounts = (message.ante, *message.blinds, message.bring_in, message.small_bet, message.big_bet, message.min_bet)
    if any(a < 0 or a > MAX_CHIPS for a in amounts):
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "stakes are whole, non-negative chips", "R-CIRC-5")
    try:
        return TableSettings.create(
            message.variant, structure, antes=message.ante, blinds=tuple(message.blinds), bring_in=message.bring_in,
            small_bet=message.small_bet, big_bet=message.big_bet, min_bet=message.min_bet or None,
            deck_size=message.deck_size or None, burn_cards=not message.no_burns,
            min_raise=_choice(MinRaise, message.min_raise, "min_raise", "R-CIRC-3b"),
            showdown_order=_choice(ShowdownOrder, message.showdown_order, "showdown_order", "R-CIRC-13"),
            ante_pot=_choice(AntePot, message.ante_pot, "ante_pot", "R-CIRC-6"),
            mano_speaks_first=message.mano_speaks_first if message.HasField("mano_speaks_first") else True)
    except RuleError as error:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule) from None


def _choice(setting: type[E], text: str, name: str, rule: str) -> E:
    """A decision's setting by its value; empty: the first value, the default (INVALID_ARGUMENT if unknown)."""
    values = [member.value for member in setting]
    try:
        return setting(text or values[0])
    except ValueError:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name} is one of {', '.join(values)}, not {text!r}",
                           rule) from None


@dataclass(frozen=True)
class _Deck:
    size: int
    colour: BackColour
    label: str

    def identity(self, size: int | None = None) -> DeckIdentity:
        return DeckIdentity(size or self.size, self.colour, self.label)


def _deck(request: pb.StartHandRequest, default_size: int) -> _Deck:
    try:
        colour = BackColour(request.deck_colour or "red")
    except ValueError:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown deck colour {request.deck_colour!r}",
                           "R-DECK-2") from None
    return _Deck(request.deck_size or default_size, colour, _text(request.deck_label, "deck_label", required=False))


def _thb_settings(request: pb.OpenBankedTableRequest) -> ThbSettings:
    if request.ante_min not in STANDARD_LIMITS:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "ante_min selects a standard table: 5, 10 or 20",
                           "R-THB-2")
    pays_from = Category.FLUSH if request.ante_pays_from == "flush" else Category.STRAIGHT
    if request.ante_pays_from not in ("", "straight", "flush"):
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "the ante pays from a straight or a flush",
                           "R-THB-8")
    turn = request.turn_dealer_cards_for_aces if request.HasField("turn_dealer_cards_for_aces") else True
    return ThbSettings(STANDARD_LIMITS[request.ante_min], ante_pays_from=pays_from,
                       refused_bonus=request.refused_bonus or "returned", turn_dealer_cards_for_aces=turn)


def _cdp_settings(request: pb.OpenBankedTableRequest) -> CdpSettings:
    return CdpSettings(_chips(request.ante_min), _chips(request.ante_max), house_way=request.house_way or "regulation",
                       unqualified_play_bet=request.unqualified_play_bet or "returned")


_BANKED_SETTINGS: dict[type[Any], Callable[[pb.OpenBankedTableRequest], ThbSettings | CdpSettings]] = {
    ThbSettings: _thb_settings, CdpSettings: _cdp_settings}
"""A banked game's settings from the request, by the game's settings class (``domain.games``)."""


def _banked_settings(request: pb.OpenBankedTableRequest) -> ThbSettings | CdpSettings:
    game = GAMES.get(request.game)
    if game is None or game.settings_class not in _BANKED_SETTINGS:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown game {request.game!r}", "R-AUD-1")
    try:
        return _BANKED_SETTINGS[game.settings_class](request)
    except RuleError as error:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule) from None


def _banked_view(view: dict[str, Any]) -> pb.BankedTableView:
    out = pb.BankedTableView(table=view["table"], game=view["game"], hands_started=view["hands_started"],
                             bank_result=view["bank_result"], hand_in_progress=view["hand"] is not None,
                             reshuffle_required=view["reshuffle_required"])
    hand = view["hand"]
    if hand is not None:
        out.stage = hand["stage"]
        out.dealer.extend(hand["dealer"])
        out.board.extend(hand["board"])
        out.to_decide = hand["to_decide"] or 0
        out.next_card = hand["next_card"]
        for box, bets in sorted(hand["bets"].items()):
            out.boxes.append(pb.BankedBox(box=box, bets=bets, cards=hand["cards"].get(box, []),
                                          result=hand["results"].get(box, {})))
    return out


def _reply(result: dict[str, Any]) -> pb.CommandReply:
    return pb.CommandReply(table=result.get("table", ""), hand_id=result.get("hand_id", ""),
                           hand_number=result.get("number", 0), version=result.get("version", 0),
                           hand_complete=result.get("complete", False))


def _table_view(view: dict[str, Any]) -> pb.TableView:
    out = pb.TableView(table=view["table"], variant=view["variant"], button_seat=view["button_seat"] or 0,
                       hands_started=view["hands_started"], hand_in_progress=view["hand"] is not None,
                       reshuffle_required=view["reshuffle_required"])
    for seat, stack in view["stacks"].items():
        out.stacks[int(seat)] = stack
    hand = view["hand"]
    if hand is not None:
        out.hand_id = str(hand["number"])
        out.phase, out.street = hand["phase"], hand["street"]
        out.board.extend(hand["board"])
        out.actor_seat = hand["actor"] or 0
        out.next_card = hand["next_card"][0] if hand["next_card"] else ""
        out.pot = sum(hand["contributed"]) + hand["carried_in"]  # a pot carried from blank hands is in the middle
        out.drawer_seat = hand["drawer"] or 0
        out.next_to_show_seat = hand["next_to_show"] or 0
        for i, seat in enumerate(hand["seats"]):
            cards = hand["hole"][i]
            out.players.append(pb.Player(seat=seat, stack=hand["stacks"][i], bet=hand["bets"][i],
                                         put_in=hand["contributed"][i], folded=hand["folded"][i],
                                         cards=[c for c, _ in cards], face_up=[u for _, u in cards]))
    return out


# -- the server ----------------------------------------------------------------------------------------


async def create_server(app: PokerTables, stations: Stations, address: str = "127.0.0.1:0",
                        credentials: grpc.ServerCredentials | None = None, *,
                        hardening: Hardening = HARDENED) -> tuple[grpc.aio.Server, int]:
    """A started server on ``address`` (port 0: a free port), with health checking and reflection; calls without a
    station token are refused before they are parsed, and requests and connections are limited
    (:mod:`service.hardening`)."""
    gate = StationGate(SERVICE_NAME, stations.by_token.__contains__,
                       _status(grpc.StatusCode.UNAUTHENTICATED, UNAUTHENTICATED_MESSAGE, "R-AUD-1"),
                       _status(grpc.StatusCode.INVALID_ARGUMENT, "the request is not a message of its method", ""),
                       hardening.refusal_delay_s)
    server = grpc.aio.server(interceptors=[gate] if hardening.authenticate_first else [],
                             options=hardening.options())
    # Commands wait in these threads for their group's commit (service.group_commit): enough of them that the
    # tables of a busy floor share transactions. The sole writer of an SQLite file applies commands on the event
    # loop and only sends long reads here.
    executor = ThreadPoolExecutor(max_workers=2 if app.sole_writer else 16, thread_name_prefix="pokertable")
    pb_grpc.add_TableServiceServicer_to_server(  # type: ignore[no-untyped-call]
        TableServicer(app, stations, executor), server)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection(
        (pb.DESCRIPTOR.services_by_name["TableService"].full_name, reflection.SERVICE_NAME, "grpc.health.v1.Health"),
        server)
    try:
        port = server.add_secure_port(address, credentials) if credentials else server.add_insecure_port(address)
    except RuntimeError as error:  # gRPC's "Failed to bind": no more said than that
        raise ListenError(f"cannot listen on {address}{' over TLS' if credentials else ''}: the port is taken, the "
                          "address is not this machine's, or the TLS certificate and key are refused") from error
    await server.start()
    for service in ("", SERVICE_NAME):
        await health.set(service, health_pb2.HealthCheckResponse.SERVING)
    return server, port


def _warm_up() -> None:
    """Build the hand-ranking tables of every deck now, once for the process, not during the first hands; with the
    split tables of Omaha (52 cards) and sintético (28), so that their first showdown does not pay for them either."""
    for size in DECK_SIZES:
        hand_ranking(size)
    for size in (52, 28):
        hand_ranking(size).split_tables  # noqa: B018 (built on first use: the property is the build)


async def serve(app: PokerTables, stations: Stations, address: str,
                ready: Callable[[int], Awaitable[None] | None] | None = None,
                credentials: grpc.ServerCredentials | None = None, *,
                warm: Callable[[float], None] | None = None, hardening: Hardening = HARDENED) -> None:
    """Serve until cancelled; ``warm`` is told how long building the hand-ranking tables took (a few seconds of one
    core). They are built before the server listens and says it is serving: every command loads a hand, which needs
    them, and built meanwhile they held back the first commands after a restart (issue 13: 6 s on PostgreSQL)."""
    started = time.perf_counter()
    await asyncio.get_running_loop().run_in_executor(None, _warm_up)
    built = time.perf_counter() - started
    server, port = await create_server(app, stations, address, credentials, hardening=hardening)
    if ready is not None:
        outcome = ready(port)
        if outcome is not None:
            await outcome
    try:
        if warm is not None:
            warm(built)
        await server.wait_for_termination()
    finally:
        await server.stop(grace=1)



def _moment(text: str, name: str) -> datetime | None:
    """An ISO 8601 time with its offset, or nothing; INVALID_ARGUMENT otherwise."""
    try:
        return parse_moment(text)
    except ValueError as error:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name}: {error}", "R-AUD-1") from None
