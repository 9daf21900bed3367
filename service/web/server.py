"""Serving the pit's dashboard beside gRPC, in the same process and event loop (``pokertable serve --http``).

Uvicorn serves the Starlette application on a socket bound here (port 0 picks a free one, told to ``ready``); the
service's own signal handling stops it (uvicorn's is left out).  With TLS the dashboard is served over HTTPS with the
service's certificate, its session cookies ``Secure``, and it reaches the gRPC service over TLS too.

``/livez`` and ``/readyz`` are the liveness and readiness probes of a service manager or a load balancer (no
session; readiness is the gRPC health service's answer). ``/metrics`` serves the service's metrics to Prometheus
(issue 17) when the server is given them (a callable that renders them: this package knows neither the server nor
its registry). It needs no session — a scraper cannot sign
in — and shows no secret, table name, station or card (docs/ops/monitoring.md); uvicorn logs through the service's
own logging (``pokertable serve --log-format``).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from datetime import UTC, tzinfo
from pathlib import Path

import grpc
import uvicorn
from cryptography import x509
from cryptography.x509.oid import NameOID
from grpc_health.v1 import health_pb2, health_pb2_grpc
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from service.web import accounts, dealers, decisions, disputes, reports, shufflers, staff, table_ops
from service.web.api import Api
from service.web.app import Dashboard, create_app
from service.web.floor import IDLE_AFTER, Floor
from service.web.floor_rows import DEFAULT_THRESHOLDS, Thresholds
from service.web.sessions import Authenticate, Sessions

SERVICE = "pokertable.v1.TableService"
PROBE_TIMEOUT = 2.0
"""Seconds ``/readyz`` waits for the gRPC service's health."""
Metrics = Callable[[], tuple[bytes, str]]
"""Renders the service's metrics: the body and its content type."""


def metrics_route(render: Metrics) -> Route:
    """``GET /metrics``: the metrics as Prometheus reads them, never cached; rendered on a worker thread (the alerts'
    gauges read the application, which may ask the store: not on the event loop that serves the tables)."""

    async def endpoint(request: Request) -> Response:
        body, content_type = await asyncio.to_thread(render)
        return Response(body, headers={"Content-Type": content_type, "Cache-Control": "no-store",
                                       "X-Content-Type-Options": "nosniff"})

    return Route("/metrics", endpoint, methods=["GET"])


def probe_routes(api: Api) -> list[Route]:
    """``GET /livez`` (the process answers: a service manager restarts it when it does not) and ``GET /readyz``
    (the gRPC service says SERVING: its hand-ranking tables built, its store answering, not stopping; 503 otherwise,
    with the status). No session: a load balancer or an orchestrator cannot sign in; they show nothing else."""
    health = health_pb2_grpc.HealthStub(api.channel)

    async def live(request: Request) -> Response:
        return PlainTextResponse("alive\n", headers={"Cache-Control": "no-store"})

    async def ready(request: Request) -> Response:
        try:
            reply = await health.Check(  # type: ignore[attr-defined]
                health_pb2.HealthCheckRequest(service=SERVICE), timeout=PROBE_TIMEOUT)
            status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        except grpc.aio.AioRpcError as error:
            status = error.code().name
        return PlainTextResponse(f"{status}\n", status_code=200 if status == "SERVING" else 503,
                                 headers={"Cache-Control": "no-store"})

    return [Route("/livez", live, methods=["GET"]), Route("/readyz", ready, methods=["GET"])]


class _Server(uvicorn.Server):
    """Uvicorn without its own signal handlers: the service stops everything on SIGINT and SIGTERM."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


@dataclass(frozen=True)
class Tls:
    """The service's certificate chain and key (PEM files)."""

    cert: Path
    key: Path

    def channel_credentials(self) -> tuple[grpc.ChannelCredentials, str]:
        """Credentials for the dashboard's channel to the gRPC service, and the name its certificate carries."""
        chain = self.cert.read_bytes()
        certificate = x509.load_pem_x509_certificates(chain)[0]
        try:
            names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            name = next(iter(names.get_values_for_type(x509.DNSName)), "")
        except x509.ExtensionNotFound:
            name = ""
        if not name:
            common = certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
            name = str(common[0].value) if common else "localhost"
        return grpc.ssl_channel_credentials(root_certificates=chain), name


def bind(address: str) -> socket.socket:
    """A listening socket for ``HOST:PORT`` (``ValueError`` when it cannot be bound: taken, or not this host)."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, int(port)))
    except (OSError, ValueError) as error:
        raise ValueError(f"--http {address}: cannot listen there: {error}") from None
    listener.listen(128)
    listener.setblocking(False)
    return listener


async def serve_dashboard(listener: socket.socket, grpc_port: Awaitable[int], grpc_host: str,
                          authenticate: Authenticate, floor_token: str, *, tls: Tls | None = None,
                          station: tuple[str, str] | None = None,
                          ready: Callable[[int], None] = lambda port: None, metrics: Metrics | None = None,
                          floor_idle_after: float | None = IDLE_AFTER, zone: tzinfo = UTC,
                          thresholds: Thresholds = DEFAULT_THRESHOLDS,
                          floor_clock: Callable[[], float] = time.time) -> None:
    """Serve the dashboard on ``listener`` until cancelled, once the gRPC service listens on ``grpc_port``; with
    ``metrics``, ``/metrics`` too; ``zone``: the casino's time zone, every time on its pages (the service's ``tz``);
    ``thresholds``: what the floor flags (the service's settings), by ``floor_clock`` (a test moves it on).
    The floor reads the tables' summaries while dashboards look, until
    ``floor_idle_after`` seconds after the last request (:mod:`service.web.floor`; ``None``: always)."""
    port = await grpc_port
    host = "127.0.0.1" if grpc_host in ("", "0.0.0.0", "::", "[::]") else grpc_host
    if tls is not None:
        credentials, name = tls.channel_credentials()
        api = Api(f"{host}:{port}", credentials, target_name=name)
    else:
        api = Api(f"{host}:{port}")
    floor = Floor(api, floor_token, idle_after=floor_idle_after, zone=zone, thresholds=thresholds, clock=floor_clock)
    dashboard = Dashboard(api, Sessions(authenticate), floor, secure=tls is not None, station=station, zone=zone)
    app = create_app(dashboard, [*decisions.routes(dashboard), *disputes.routes(dashboard),
                                 *reports.routes(dashboard), *shufflers.routes(dashboard), *dealers.routes(dashboard),
                                 *staff.routes(dashboard), *accounts.routes(dashboard), *table_ops.routes(dashboard),
                                 *([metrics_route(metrics)] if metrics else []),
                                 *probe_routes(api)])
    config = uvicorn.Config(app, log_level="warning", log_config=None, lifespan="off", access_log=False,
                            timeout_graceful_shutdown=1,  # the live streams never end by themselves: cut at stop
                            ssl_certfile=str(tls.cert) if tls else None, ssl_keyfile=str(tls.key) if tls else None)
    server = _Server(config)
    following = asyncio.ensure_future(floor.run())
    serving = asyncio.ensure_future(server.serve(sockets=[listener]))
    try:
        while not server.started and not serving.done():
            await asyncio.sleep(0.01)
        if server.started:
            ready(listener.getsockname()[1])
        await serving
    finally:
        dashboard.close()  # the live streams end first, so that uvicorn's own stop finds none to cut
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(serving), 5)
        following.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await following
        await api.close()
