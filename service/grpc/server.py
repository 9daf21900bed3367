"""The gRPC table service (``grpc.aio``): translates requests into application commands, and nothing more.

Stations authenticate with a per-station token in the ``authorization`` metadata (``Bearer TOKEN``), from a TOML file::

    [stations.mesa-1]
    token = "…"
    role = "dealer"        # dealer, pit-boss, games-director, observer
    table = "Mesa 1"       # a dealer's own table

Errors carry the rule id (``R-…``) as the reason of a ``google.rpc.ErrorInfo`` detail.

The servicer is in :mod:`service.grpc.servicer`, its request checks in :mod:`service.grpc.requests`, its replies in
:mod:`service.grpc.replies`, the error mapping in :mod:`service.grpc.errors` and the stations file in
:mod:`service.grpc.stations`; this module starts and serves.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from domain.cards.decks import DECK_SIZES
from domain.cards.ranking import hand_ranking
from service.api import pokertable_pb2 as pb
from service.api import pokertable_pb2_grpc as pb_grpc
from service.app.application import PokerTables
from service.grpc.errors import UNAUTHENTICATED_MESSAGE, _status
from service.grpc.hardening import HARDENED, Hardening, StationGate
from service.grpc.replies import _payload
from service.grpc.requests import MAX_TEXT
from service.grpc.servicer import WATCH_PAGE, TableServicer
from service.grpc.stations import StationConfigError, Stations

__all__ = [  # what is imported from here, as before the split into the grpc_ modules and station_tokens
    "MAX_TEXT", "SERVICE_NAME", "WATCH_PAGE", "ListenError", "StationConfigError", "Stations", "TableServicer",
    "_payload", "create_server", "serve",
]

SERVICE_NAME = "pokertable.v1.TableService"


class ListenError(OSError):
    """The server cannot listen on its address (taken, not this machine's, or TLS credentials gRPC refuses)."""


async def create_server(app: PokerTables, stations: Stations, address: str = "127.0.0.1:0",
                        credentials: grpc.ServerCredentials | None = None, *,
                        hardening: Hardening = HARDENED) -> tuple[grpc.aio.Server, int]:
    """A started server on ``address`` (port 0: a free port), with health checking and reflection; calls without a
    station token are refused before they are parsed, and requests and connections are limited
    (:mod:`service.grpc.hardening`)."""
    gate = StationGate(SERVICE_NAME, stations.by_token.__contains__,
                       _status(grpc.StatusCode.UNAUTHENTICATED, UNAUTHENTICATED_MESSAGE, "R-AUD-1"),
                       _status(grpc.StatusCode.INVALID_ARGUMENT, "the request is not a message of its method", ""),
                       hardening.refusal_delay_s)
    server = grpc.aio.server(interceptors=[gate] if hardening.authenticate_first else [],
                             options=hardening.options())
    # Commands wait in these threads for their group's commit (service.store.group_commit): enough of them that the
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


