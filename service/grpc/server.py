"""The gRPC table service (``grpc.aio``): translates pokertable.v1 requests into application commands, and nothing
more.

Stations authenticate with a per-station token in the ``authorization`` metadata (``Bearer TOKEN``), from a TOML file::

    [stations.mesa-1]
    token = "…"
    role = "dealer"        # dealer, pit-boss, games-director, observer
    table = "Mesa 1"       # a dealer's own table

Errors are a ``google.rpc.Status``: an ErrorInfo with the rule id (``R-…``) as its reason and, for INVALID_ARGUMENT,
a BadRequest naming the request field (:mod:`service.grpc.errors`).  ``grpc.health.v1`` says NOT_SERVING until the
hand-ranking tables are built and the store answered a read, SERVING then, NOT_SERVING again while stopping
(:func:`stop`); server reflection answers as ``grpc.reflection.v1`` and ``v1alpha``.

The servicer is in :mod:`service.grpc.servicer` (commands), :mod:`service.grpc.queries` (reads) and
:mod:`service.grpc.streams` (Watch, ReconstructHand) on :mod:`service.grpc.base`; its request checks in
:mod:`service.grpc.requests` and :mod:`service.grpc.act`, its replies in :mod:`service.grpc.replies`, the enum
mapping in :mod:`service.grpc.enums`, the error mapping in :mod:`service.grpc.errors`, reflection in
:mod:`service.grpc.reflection_v1` and the stations file in :mod:`service.grpc.stations`; the request log and the
metrics in :mod:`service.grpc.observe` and :mod:`service.grpc.metrics` (issue 17); this module starts, serves and
stops.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import time
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from zoneinfo import ZoneInfo

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio

from domain.integrity.monitor import MonitorSettings
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.app.application import PokerTables
from service.app.warm_up import warm_up
from service.grpc.entitlements import entitled
from service.grpc.errors import UNAUTHENTICATED_MESSAGE, _status
from service.grpc.gateway import Gateway, Handlers
from service.grpc.hardening import HARDENED, MAX_UNENTITLED_BYTES, Hardening, StationGate
from service.grpc.metrics import ServiceMetrics
from service.grpc.observe import RequestObserver
from service.grpc.reflection_v1 import enable_reflection
from service.grpc.replies import _payload
from service.grpc.requests import MAX_TEXT
from service.grpc.servicer import WATCH_PAGE, TableServicer
from service.grpc.stations import StationConfigError, Stations

__all__ = [
    "MAX_TEXT", "SERVICE_NAME", "WATCH_PAGE", "ListenError", "StationConfigError", "Stations", "TableServicer",
    "_payload", "create_server", "metrics_of", "serve", "stop",
]

SERVICE_NAME = svc.DESCRIPTOR.services_by_name["TableService"].full_name
READY_RETRY_SECONDS = 1.0
STOP_GRACE_S = 1.0
"""Seconds the calls in flight get when the service stops (``pokertable serve --grace``)."""
STORE_PROBE_SECONDS = 1.0
"""How often a ready service asks its store whether it answers (health: NOT_SERVING while it does not)."""
STORE_PROBE_TIMEOUT = 2.0
_log = logging.getLogger(__name__)


class ListenError(OSError):
    """The server cannot listen on its address (taken, not this machine's, or TLS credentials gRPC refuses)."""


class _Readiness:
    """A server's health service, the task that makes it SERVING, the threads its RPCs' work runs on, and its
    metrics."""

    def __init__(self, health: health_aio.HealthServicer, executor: ThreadPoolExecutor,
                 metrics: ServiceMetrics, servicer: TableServicer) -> None:
        self.health, self.executor, self.metrics, self.servicer = health, executor, metrics, servicer
        self.task: asyncio.Task[None] | None = None
        self.stopping = False
        """Set by :func:`stop`: the probes end (a cancellation alone may be lost: Python 3.11's ``wait_for``
        returns the result of a probe that ended as it was cancelled)."""
        self.probe: asyncio.Future[object] | None = None
        """The store probe in flight on the loop's default threads (:func:`_watch_store`): waited for at the stop,
        before the store may be closed under it."""


_READINESS: weakref.WeakKeyDictionary[grpc.aio.Server, _Readiness] = weakref.WeakKeyDictionary()


async def _become_ready(app: PokerTables, readiness: _Readiness, executor: ThreadPoolExecutor,
                        check: Callable[[], object] | None) -> None:
    """SERVING once the hand-ranking tables are built (at once if they are) and the store answered a read (and
    ``check`` returned); until then, and while the store does not answer, NOT_SERVING."""
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, warm_up, app)
    while True:
        try:
            await loop.run_in_executor(executor, app.recorder.max_notification_id)
            if check is not None:
                await loop.run_in_executor(executor, check)
            break
        except Exception as error:
            _log.warning("not ready: the store did not answer (%s); trying again", error)
            await asyncio.sleep(READY_RETRY_SECONDS)
    await _set_health(readiness, serving=True)
    _log.info("ready: health says SERVING", extra={"fields": {"event": "ready"}})
    await _watch_store(app, readiness)


async def _set_health(readiness: _Readiness, *, serving: bool) -> None:
    status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
    for service in ("", SERVICE_NAME):
        await readiness.health.set(service, status)


async def _watch_store(app: PokerTables, readiness: _Readiness) -> None:
    """Once ready: every :data:`STORE_PROBE_SECONDS` the store is asked for its last position (on a thread of its
    own, never one a command waits for); no answer within :data:`STORE_PROBE_TIMEOUT` and health says NOT_SERVING
    (a load balancer sends no new calls, the stations wait), until it answers again."""
    loop = asyncio.get_running_loop()
    serving = True
    while not readiness.stopping:
        await asyncio.sleep(STORE_PROBE_SECONDS)
        probe = readiness.probe
        if probe is None or probe.done():  # a probe still hanging (a connection timing out) is not doubled
            probe = readiness.probe = loop.run_in_executor(None, app.recorder.max_notification_id)
        try:
            await asyncio.wait_for(asyncio.shield(probe), STORE_PROBE_TIMEOUT)
            answered, cause = True, ""
        except Exception as error:
            answered, cause = False, str(error) or type(error).__name__
        if answered != serving:
            serving = answered
            await _set_health(readiness, serving=serving)
            if serving:
                _log.info("the store answers again: health says SERVING", extra={"fields": {"event": "store-up"}})
            else:
                _log.error("the store does not answer (%s): health says NOT_SERVING", cause,
                           extra={"fields": {"event": "store-down", "cause": cause}})


async def create_server(app: PokerTables, stations: Stations, address: str = "127.0.0.1:0",
                        credentials: grpc.ServerCredentials | None = None, *,
                        hardening: Hardening = HARDENED,
                        ready_check: Callable[[], object] | None = None,
                        metrics: ServiceMetrics | None = None,
                        shufflers: MonitorSettings | None = None,
                        zone: ZoneInfo | None = None,
                        hole_cards_live: bool | None = None) -> tuple[grpc.aio.Server, int]:
    """A started server on ``address`` (port 0: a free port), with health checking and reflection; calls without a
    station token are refused before they are parsed, and requests and connections are limited
    (:mod:`service.grpc.hardening`).  Health says SERVING once ready (``ready_check``: one more thing to wait for,
    run on a worker thread after the store's read).  Every RPC is counted, timed and logged as its handler is looked
    up (:mod:`service.grpc.gateway`), and what the application stores is counted, into ``metrics`` (a registry of the
    server's own when none is given: :func:`metrics_of`).  ``shufflers``: the shuffler integrity monitor's settings
    (ListShufflers; the defaults of docs/integrity.md when none are given); ``zone``: the casino's time zone, whose
    shifts (from 00:00, 08:00, 16:00) are ListShufflers' and ListDealerFigures' default range (UTC when none is
    given); ``hole_cards_live``: the casino's delay policy (issue 29, item 7), set on the application when given
    (False: the pit sees a hand's face-down cards only once it has ended; default, as the application has it: live,
    :data:`service.app.visibility.HOLE_CARDS_LIVE`)."""
    if hole_cards_live is not None:
        app.hole_cards_live = hole_cards_live
    metrics = metrics if metrics is not None else ServiceMetrics()
    observer = RequestObserver(metrics, stations.by_token.get, SERVICE_NAME)
    gate = StationGate(SERVICE_NAME, stations.by_token.get,
                       _status(grpc.StatusCode.UNAUTHENTICATED, UNAUTHENTICATED_MESSAGE, "R-AUD-1"),
                       _status(grpc.StatusCode.INVALID_ARGUMENT, "the request is not a message of its method", "",
                               field=""),
                       hardening.refusal_delay_s, entitled=entitled,
                       unentitled=_status(grpc.StatusCode.PERMISSION_DENIED, "this station may never make this call: "
                                          f"a request of more than {MAX_UNENTITLED_BYTES} bytes is refused unread",
                                          "R-AUD-1"))
    server = grpc.aio.server(options=hardening.options())
    # Commands wait in these threads for their group's commit (service.store.group_commit): enough of them that the
    # tables of a busy floor share transactions. The sole writer of an SQLite file applies commands on the event
    # loop and only sends long reads here.
    executor = ThreadPoolExecutor(max_workers=2 if app.sole_writer else 16, thread_name_prefix="pokertable")
    servicer = TableServicer(app, stations, executor, shufflers=shufflers, zone=zone)
    handlers = Handlers()
    svc_grpc.add_TableServiceServicer_to_server(servicer, handlers)  # type: ignore[no-untyped-call]
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, handlers)  # type: ignore[arg-type]  # stands for the server
    enable_reflection((SERVICE_NAME, "grpc.health.v1.Health"), handlers)
    server.add_generic_rpc_handlers((Gateway(handlers, (gate.resolve, observer.resolve) if hardening.authenticate_first
                                             else (observer.resolve,)),))
    for service in ("", SERVICE_NAME):
        await health.set(service, health_pb2.HealthCheckResponse.NOT_SERVING)
    try:
        port = server.add_secure_port(address, credentials) if credentials else server.add_insecure_port(address)
    except RuntimeError as error:  # gRPC's "Failed to bind": no more said than that
        raise ListenError(f"cannot listen on {address}{' over TLS' if credentials else ''}: the port is taken, the "
                          "address is not this machine's, or the TLS certificate and key are refused") from error
    await server.start()
    metrics.attach(app)
    readiness = _Readiness(health, executor, metrics, servicer)
    readiness.task = asyncio.create_task(_become_ready(app, readiness, executor, ready_check))
    _READINESS[server] = readiness
    return server, port


async def stop(server: grpc.aio.Server, grace: float | None) -> None:
    """Stop a server of :func:`create_server`: health says NOT_SERVING first (to every health watcher), then the
    calls in flight get ``grace`` seconds, then the work they left on worker threads (a Watch stream's scan) ends
    before this returns, so that the store may be closed safely then."""
    readiness = _READINESS.get(server)
    if readiness is not None:
        readiness.stopping = True
        if readiness.task is not None:
            readiness.task.cancel()
        await readiness.health.enter_graceful_shutdown()
        readiness.servicer.drain()  # Watch streams end UNAVAILABLE, naming where to resume, not cut at the grace's end
    await server.stop(grace)
    if readiness is not None:
        await readiness.servicer.stop_following()
        if readiness.task is not None:
            await asyncio.wait({readiness.task})  # its cancellation run through, not left pending with the loop
        if readiness.probe is not None:  # closing an SQLite connection while a thread reads through it is a crash
            await asyncio.wait({readiness.probe}, timeout=STORE_PROBE_TIMEOUT)
        await asyncio.get_running_loop().run_in_executor(
            None, functools.partial(readiness.executor.shutdown, wait=True, cancel_futures=True))
        readiness.metrics.detach()


def metrics_of(server: grpc.aio.Server) -> ServiceMetrics | None:
    """The metrics of a server of :func:`create_server` (``None`` once it is forgotten)."""
    readiness = _READINESS.get(server)
    return readiness.metrics if readiness is not None else None


def _warn_without_statistics(app: PokerTables) -> None:
    """A PostgreSQL server that does not keep the planner's statistics (autovacuum off) is said at the start, once, as
    a WARNING: reads of a growing log slow down by a hundred times until someone runs ANALYZE (issue 30, item 4)."""
    kept = getattr(app.recorder, "planner_statistics_kept", None)
    if kept is None:
        return
    try:
        if kept():
            return
    except Exception as error:  # a setting unread is no reason not to serve: said, and served
        _log.warning("could not read the PostgreSQL server's autovacuum setting (%s)", type(error).__name__)
        return
    _log.warning("the PostgreSQL server runs without autovacuum: the planner's statistics go stale as the log grows "
                 "and reads slow down by a hundred times; turn autovacuum on, or schedule ANALYZE "
                 "(docs/ops/install.md)", extra={"fields": {"event": "autovacuum_off"}})


async def serve(app: PokerTables, stations: Stations, address: str,
                ready: Callable[[int], Awaitable[None] | None] | None = None,
                credentials: grpc.ServerCredentials | None = None, *,
                warm: Callable[[float], None] | None = None, hardening: Hardening = HARDENED,
                metrics: ServiceMetrics | None = None, grace: float = STOP_GRACE_S,
                shufflers: MonitorSettings | None = None, zone: ZoneInfo | None = None,
                hole_cards_live: bool | None = None) -> None:
    """Serve until cancelled (then stopped with ``grace`` seconds for the calls in flight); ``warm`` is told how
    long building the hand-ranking tables took (a few seconds of one core). They are built before the server
    listens: every command loads a hand, which needs them, and built meanwhile they held back the first commands
    after a restart (issue 13: 6 s on PostgreSQL). The start and the stop are logged (``service.grpc.server``);
    ``metrics``, ``shufflers``, ``zone`` and ``hole_cards_live``: see :func:`create_server`."""
    started = time.perf_counter()
    await asyncio.get_running_loop().run_in_executor(None, warm_up, app)
    built = time.perf_counter() - started
    server, port = await create_server(app, stations, address, credentials, hardening=hardening, metrics=metrics,
                                       shufflers=shufflers, zone=zone, hole_cards_live=hole_cards_live)
    roles = Counter(viewer.role.value for viewer in stations.by_token.values())
    _log.info("serving on %s (port %d)%s; stations: %s", address, port, " over TLS" if credentials else "",
              ", ".join(f"{count} {role}" for role, count in sorted(roles.items())) or "none",
              extra={"fields": {"event": "start", "address": address, "port": port, "tls": credentials is not None,
                                "stations": dict(roles), "warm_s": round(built, 2)}})
    _warn_without_statistics(app)
    # Everything built to serve (the modules, the hand-ranking tables, the server) lives as long as the process: kept
    # out of the collector's sight, a full collection no longer walks it (40 to 80 ms each time, every few seconds
    # under load: the tail of the commands' latency).
    gc.collect()
    gc.freeze()
    if ready is not None:
        outcome = ready(port)
        if outcome is not None:
            await outcome
    try:
        if warm is not None:
            warm(built)
        # shielded: cancelling gRPC's own wait cancels the future its shutdown waits on, and stop() then ended in a
        # CancelledError before the worker threads were done and before "stopped" (issue 17)
        await asyncio.shield(server.wait_for_termination())
    finally:
        _log.info("stopping: health says NOT_SERVING, calls in flight get %g s", grace,
                  extra={"fields": {"event": "stopping", "grace_s": grace}})
        await stop(server, grace=grace)
        _log.info("stopped", extra={"fields": {"event": "stop"}})
