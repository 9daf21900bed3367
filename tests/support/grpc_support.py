"""Shared helpers of the gRPC tests (issue 14): the stations and their tokens, a real server on a free port on each
kind of store (the ``port`` fixture), a station's client, the error details (rule id, field violations) and typed
shortcuts for the pokertable.v1 messages; a service instance on a shared PostgreSQL schema (``instance``) and one
whose health waits on an event (``health_service``).

Use the fixture as ``from tests.support import grpc_support`` then ``port = grpc_support.port`` at module level."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import uuid
from collections.abc import Coroutine, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.bootstrap import open_store
from service.grpc.server import _READINESS, Stations, create_server, stop
from service.store.persistence import environment
from tests.support.stores import postgres_store

T = TypeVar("T")

__all__ = [
    "STATIONS", "TOKENS", "Client", "act", "deal", "get_table", "health_service", "instance", "open_banked",
    "open_circle", "open_table", "port", "rule_of", "seat", "serving", "start", "violations",
]

TOKENS = {"pit": "pit-boss-token-0123456789", "dealer": "dealer-token-0123456789", "tv": "observer-token-0123456789",
          "other": "other-dealer-token-012345", "director": "games-director-token-012345",
          "thb": "thb-dealer-token-0123456789", "shoe": "mesa-1-shoe-token-0123456789"}
STATIONS = Stations.from_mapping({
    "pit": {"token": TOKENS["pit"], "role": "pit-boss"},
    "mesa-1": {"token": TOKENS["dealer"], "role": "dealer", "table": "Mesa 1"},
    "tv": {"token": TOKENS["tv"], "role": "observer"},
    "mesa-2": {"token": TOKENS["other"], "role": "dealer", "table": "Mesa 2"},
    "dj": {"token": TOKENS["director"], "role": "games-director"},
    "thb-1": {"token": TOKENS["thb"], "role": "dealer", "table": "THB 1"},
    "shoe-1": {"token": TOKENS["shoe"], "role": "device", "table": "Mesa 1"},
})


@pytest.fixture(params=["sqlite", "postgres"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    """A server on a free port, in its own event loop thread, on each kind of store: on SQLite as ``pokertable
    serve`` runs it (``service.bootstrap.open_store(url, writer=True)``: the file's sole writer, commands applied on
    the event loop), on PostgreSQL a fresh schema (not a sole writer)."""
    if request.param == "sqlite":
        store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
        app = store.app
        assert app.sole_writer
    else:
        store = None
        app = PokerTables(env=postgres_store())
        assert not app.sole_writer
    try:
        with serving(app, STATIONS) as bound:
            yield bound
    finally:
        if store is not None:
            store.close()
        else:
            app.close()


@contextlib.contextmanager
def serving(app: PokerTables, stations: Stations, **options: Any) -> Iterator[int]:
    """A real server of ``app`` for ``stations`` on a free port (its port), in its own event loop thread, stopped
    on exit; ``options``: :func:`create_server`'s (the shuffler monitor's settings, say)."""
    with served(app, stations, **options) as server:
        yield server.port


@dataclass
class Served:
    """A server started by :func:`served`: its port, the server itself and the event loop it runs on."""

    port: int
    server: grpc.aio.Server
    loop: asyncio.AbstractEventLoop
    stopped: bool = False

    @property
    def servicer(self) -> Any:
        """The server's servicer (the application's edge: its stations, its follower)."""
        return _READINESS[self.server].servicer

    def call(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``coroutine`` on the server's event loop."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def stop(self, grace: float = 0) -> concurrent.futures.Future[None]:
        """Stop the server (``grace``: seconds the calls in flight have), once; the harness then only closes its
        loop."""
        self.stopped = True
        return self.call(stop(self.server, grace))


@contextmanager
def served(app: PokerTables, stations: Stations = STATIONS, address: str = "127.0.0.1:0",
           **options: Any) -> Iterator[Served]:
    """The one harness of the suite's in-process servers: a real server of ``app`` for ``stations`` on a free port
    (or ``address``: a server started again where the last one was), in its own event loop thread, stopped on exit
    (unless the test stopped it); ``options``: :func:`create_server`'s (the shuffler monitor's settings, a readiness
    check, TLS credentials)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        server, bound = asyncio.run_coroutine_threadsafe(create_server(app, stations, address, **options),
                                                         loop).result(timeout=30)
        running = Served(bound, server, loop)
        try:
            yield running
        finally:
            if not running.stopped:
                running.stop().result(timeout=20)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)


def stored_changes(client: Client, table: str) -> list[svc.WatchResponse]:
    """Every change of ``table`` stored so far, as ``client`` may see them: its Watch stream read until it waits for
    more (a one-second deadline ends it: what is stored comes at once), or left as soon as it reaches the position
    its view of the table names (the view also counts events the stream does not carry, a hand's shoe reads say:
    then the deadline ends it)."""
    head = client.GetTable(svc.GetTableRequest(table=table)).view.position
    changes: list[svc.WatchResponse] = []
    stream = client.Watch(svc.WatchRequest(table=table), timeout=1)
    try:
        for change in stream:
            changes.append(change)
            if change.position >= head:
                break
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED, error
    finally:
        stream.cancel()
    return changes


class Client:
    """A station's stub with its token: ``client.OpenTable(request)`` calls with the token and a 10 s deadline."""

    def __init__(self, port: int, token: str | None, *, target: str = "",
                 options: Sequence[tuple[str, Any]] = ()) -> None:
        self.channel = grpc.insecure_channel(target or f"127.0.0.1:{port}", options=list(options))
        self.stub = svc_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.metadata = [("authorization", f"Bearer {token}")] if token else []
        self.prefix = uuid.uuid4().hex[:12]  # unique per client (an id() is reused once a client is collected)
        self.counter = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.stub, name)
        return lambda request, **kw: method(request, metadata=self.metadata, timeout=kw.pop("timeout", 10), **kw)

    def sign_in(self, badge: str, pin: str, role: str = "") -> svc.SignInResponse:
        """A person signs in at this client's station (issue 32): his session goes with every later call."""
        reply: svc.SignInResponse = self.stub.SignIn(svc.SignInRequest(badge=badge, pin=pin, role=role),
                                                     metadata=self.metadata, timeout=10)
        self.metadata = [m for m in self.metadata if m[0] != "pokertable-session"] + [
            ("pokertable-session", reply.session)]
        return reply

    def next_id(self) -> str:
        """A fresh command id of this client."""
        self.counter += 1
        return f"{self.prefix}-{self.counter}"


def _status_details(error: grpc.RpcError) -> list[Any]:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, f"no google.rpc.Status on {error}"
    return list(status.details)


def rule_of(error: grpc.RpcError) -> str:
    """The rule id of an error: its ErrorInfo's reason ("NONE" when no rule applies)."""
    for detail in _status_details(error):
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            assert info.domain == "pokertable", info
            return str(info.reason)
    raise AssertionError(f"no ErrorInfo on {error}")


def violations(error: grpc.RpcError) -> list[str]:
    """The field paths of an error's BadRequest field violations (empty without a BadRequest)."""
    for detail in _status_details(error):
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            return [str(v.field) for v in bad.field_violations]
    return []


_FLOP_GAMES = (pb.GAME_HOLDEM, pb.GAME_OMAHA, pb.GAME_PINEAPPLE)


def open_circle(pit: Client, table: str, game: pb.Game = pb.GAME_HOLDEM, *, seat_count: int = 0,
                **settings: Any) -> svc.OpenTableResponse:
    """Open a circle table; ``settings`` are CircleSettings fields (default: no-limit; blinds 1/2 for the flop games
    when neither blinds nor an ante are given)."""
    settings.setdefault("structure", pb.BETTING_STRUCTURE_NO_LIMIT)
    if game in _FLOP_GAMES and "blinds" not in settings and "ante" not in settings:
        settings["blinds"] = [1, 2]
    reply: svc.OpenTableResponse = pit.OpenTable(svc.OpenTableRequest(
        command_id=pit.next_id(), table=table, game=game, seat_count=seat_count,
        circle=pb.CircleSettings(**settings)))
    return reply


def open_banked(pit: Client, table: str, game: pb.Game, **settings: Any) -> svc.OpenTableResponse:
    """Open a banked table: Texas Hold'em Bonus (default ante_min 5) or Casino Draw Poker (default 5 to 100)."""
    if game == pb.GAME_HOLDEM_BONUS:
        settings.setdefault("ante_min", 5)
        request = svc.OpenTableRequest(command_id=pit.next_id(), table=table, game=game,
                                       holdem_bonus=pb.HoldemBonusSettings(**settings))
    else:
        settings.setdefault("ante_min", 5)
        settings.setdefault("ante_max", 100)
        request = svc.OpenTableRequest(command_id=pit.next_id(), table=table, game=game,
                                       casino_draw=pb.CasinoDrawSettings(**settings))
    reply: svc.OpenTableResponse = pit.OpenTable(request)
    return reply


def seat(dealer: Client, table: str, seat_number: int, chips: int = 100) -> svc.SeatPlayerResponse:
    """Seat a player with chips."""
    reply: svc.SeatPlayerResponse = dealer.SeatPlayer(svc.SeatPlayerRequest(
        command_id=dealer.next_id(), table=table, seat=seat_number, chips=chips))
    return reply


def start(dealer: Client, table: str, colour: pb.DeckColour = pb.DECK_COLOUR_UNSPECIFIED,
          **fields: Any) -> svc.StartHandResponse:
    """Start the next hand (any game); ``fields``: deck_size, deck_label."""
    reply: svc.StartHandResponse = dealer.StartHand(svc.StartHandRequest(
        command_id=dealer.next_id(), table=table, deck_colour=colour, **fields))
    return reply


def act(client: Client, table: str, *, command_id: str | None = None, **one_command: Any) -> svc.ActResponse:
    """One Act command: ``act(dealer, "Mesa 1", deal=cmd.Deal(card="As"))``."""
    assert len(one_command) == 1, "exactly one command case"
    reply: svc.ActResponse = client.Act(svc.ActRequest(
        command_id=command_id or client.next_id(), table=table, command=cmd.Command(**one_command)))
    return reply


def deal(dealer: Client, table: str, cards: str) -> svc.ActResponse | None:
    """Deal these cards (space-separated) by the croupier, in order; the last answer."""
    reply = None
    for card in cards.split():
        reply = act(dealer, table, deal=cmd.Deal(card=card, source=pb.CARD_SOURCE_CROUPIER))
    return reply


@contextlib.contextmanager
def health_service(ready: threading.Event, credentials: grpc.ServerCredentials | None = None,
                   stations: Stations = STATIONS) -> Iterator[int]:
    """A real server on a free port that says SERVING only once ``ready`` is set (its readiness check waits on it)."""
    app = PokerTables(env=environment("memory:"))
    try:
        with serving(app, stations, credentials=credentials, ready_check=ready.wait) as port:
            try:
                yield port
            finally:
                ready.set()
    finally:
        app.close()


@contextmanager
def instance(env: dict[str, str], app: PokerTables | None = None) -> Iterator[tuple[int, Any]]:
    """A service instance on the shared schema (of ``app`` if given): its port and its servicer."""
    app = app or PokerTables(env=env)
    try:
        with served(app, STATIONS) as server:
            yield server.port, server.servicer
    finally:
        app.close()


def open_table(pit: Client, dealer: Client) -> None:
    open_circle(pit, "Mesa 1", blinds=[1, 2], no_burns=True)
    for number in (1, 2, 3):
        seat(dealer, "Mesa 1", number)


def get_table(client: Client, table: str = "Mesa 1", **moment: Any) -> pb.TableView:
    view: pb.TableView = client.GetTable(svc.GetTableRequest(table=table, **moment)).view
    return view


def _log(client: Client) -> list[str]:
    """The table's Watch stream as the cases of its events, with a bet's amount (``hand_bet_or_raised:60``)."""
    names: list[str] = []
    for change in stored_changes(client, "Mesa 1"):
        case = change.event.WhichOneof("event")
        if case == "hand_bet_or_raised":
            case += f":{change.event.hand_bet_or_raised.to}"
        names.append(case)
    return names
