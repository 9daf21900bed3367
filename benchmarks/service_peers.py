"""The peers the service benchmark (benchmarks/service.py) measures pokertable beside, each its own server process:

- ``echo-server``: a bare gRPC echo (raw bytes), the issue's yardstick;
- ``null-server``: a *null* TableService: the same proto and methods the benchmark calls (pokertable.v1
  ``OpenTable``, ``SeatPlayer``, ``StartHand``, ``Act``), answering at once without doing anything;
- ``es-server``: a *minimal event-sourced* service: the same methods, each command one event of one cached
  eventsourcing aggregate committed durably to SQLite (WAL, fsync'd), no rules, no command record, no hash chain.

Run as ``python -m benchmarks.service_peers echo-server|null-server|es-server``: it prints ``… serving on HOST:PORT``.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from benchmarks.service_load import Run
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb

PEERS = ("echo", "null", "es")
METHODS: dict[str, tuple[Any, Any]] = {
    "OpenTable": (svc.OpenTableRequest, svc.OpenTableResponse),
    "SeatPlayer": (svc.SeatPlayerRequest, svc.SeatPlayerResponse),
    "StartHand": (svc.StartHandRequest, svc.StartHandResponse),
    "Act": (svc.ActRequest, svc.ActResponse),
}
"""The TableService methods the benchmark calls: their request and response messages."""


async def echo_server() -> None:
    """A bare unary echo service (raw bytes), for comparison."""
    async def echo(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        del context
        return request

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler("bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)})
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"echo serving on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


def _table_service_server(handle: Callable[[str, str], Awaitable[pb.CommandResult]]) -> grpc.aio.Server:
    """A server of the TableService methods the benchmark calls, each answered by ``handle(table, command_id)``."""
    def handler(request: Any, response: Any) -> grpc.RpcMethodHandler[Any, Any]:
        async def answer(message: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            del context
            return response(result=await handle(message.table, message.command_id))

        return grpc.unary_unary_rpc_method_handler(answer, request_deserializer=request.FromString,
                                                   response_serializer=response.SerializeToString)

    handlers = {method: handler(request, response) for method, (request, response) in METHODS.items()}
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("pokertable.v1.TableService", handlers),))
    return server


async def run_peer(kind: str) -> None:
    """Serve one of the peers: ``null`` or ``es`` (minimal event-sourced, on an SQLite file in a temporary folder)."""
    if kind == "null":
        async def handle(table: str, command_id: str) -> pb.CommandResult:
            return pb.CommandResult(table=table)
    else:
        app = MinimalApp(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "AGGREGATE_CACHE_MAXSIZE": "1000",
                              "SQLITE_DBNAME": str(Path(tempfile.mkdtemp(prefix="pokertable-es-")) / "es.db"),
                              "AGGREGATE_CACHE_FASTFORWARD": "n"})
        counters: dict[str, uuid.UUID] = {}

        async def handle(table: str, command_id: str) -> pb.CommandResult:
            if table not in counters:
                counter = Counter(table)
                app.save(counter)
                counters[table] = counter.id
            counter = app.repository.get(counters[table], deepcopy_from_cache=False)
            counter.count(command_id)
            app.save(counter)
            return pb.CommandResult(table=table, version=counter.version)

    server = _table_service_server(handle)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"{kind} serving on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


class Counter(Aggregate):
    """The minimal event-sourced peer's aggregate: one event per command."""

    def __init__(self, table: str) -> None:
        self.table, self.commands = table, 0

    @event("Counted")
    def count(self, command_id: str) -> None:
        del command_id
        self.commands += 1


class MinimalApp(Application[uuid.UUID]):
    """The minimal event-sourced peer."""


async def measure_echo(port: int, calls: int) -> Run:
    run = Run("bare gRPC echo, sequential")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        echo: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary("/bench.Echo/Echo")
        payload = b"x" * 64
        started = time.perf_counter()
        for _ in range(calls):
            t = time.perf_counter()
            await echo(payload)
            run.latencies.append(time.perf_counter() - t)
        run.seconds = time.perf_counter() - started
    return run


async def measure_echo_flat_out(port: int, clients: int, calls: int) -> Run:
    """``clients`` echo clients at once, each calling back to back: the flat-out load of the table runs, on a
    service that does nothing."""
    run = Run(f"bare gRPC echo, {clients} clients flat out")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        echo: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary("/bench.Echo/Echo")

        async def client() -> None:
            for _ in range(calls):
                started = time.perf_counter()
                await echo(b"x" * 64)
                run.latencies.append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        run.seconds = time.perf_counter() - started
    return run


if __name__ == "__main__":
    if sys.argv[1:] == ["echo-server"]:
        asyncio.run(echo_server())
    elif len(sys.argv) == 2 and sys.argv[1] in ("null-server", "es-server"):
        asyncio.run(run_peer(sys.argv[1].removesuffix("-server")))
    else:
        sys.exit(f"usage: python -m benchmarks.service_peers {'|'.join(f'{p}-server' for p in PEERS)}")
