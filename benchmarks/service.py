"""The table service through gRPC: commands per second and latency, on SQLite and PostgreSQL, one table at a time
and 16 and 200 tables played at once, beside peers measured in the same run:

- a bare gRPC echo (raw bytes): the issue's yardstick;
- a *null* TableService: the same proto and methods, answering at once without doing anything: what gRPC and protobuf
  alone cost with this API;
- a *minimal event-sourced* service: the same methods, each command one event of one cached eventsourcing aggregate
  committed durably to SQLite (WAL, fsync'd), no rules, no command record, no hash chain: the least a durable
  event-sourced SQLite service does per command.

Each server runs in its own process (``pokertable serve``; the peers are this file with ``echo-server``,
``null-server`` and ``es-server``); the client plays Hold'em hands where the button and the small blind fold to the
big blind: start, six deals, two folds. Targets (issue 6): sequential commands/s on SQLite ≥ 50 % of the echo's;
200 tables: no errors and p99 ≤ 50 ms (measured at a croupier's pace, a command a second per table, and at five
times it; and flat out beside the echo flat out, where latency is tables ÷ throughput); a command late in a long
session costs what an early one does.

Run with ``.venv/bin/python -m benchmarks.service [--postgres URL]`` (or as a script, ``benchmarks/service.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from service.api import pokertable_pb2 as pb
from service.api import pokertable_pb2_grpc as pb_grpc

TOKEN = "bench-pit-boss-token-0123456789"
CONFIG = f'[stations.bench]\ntoken = "{TOKEN}"\nrole = "pit-boss"\n'
METADATA = (("authorization", f"Bearer {TOKEN}"),)
CARDS = ("As", "Kd", "Qh", "Ac", "Kc", "Qs")


@dataclass
class Run:
    """Latencies of the commands of one measurement."""

    name: str
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    seconds: float = 0.0

    def line(self, echo: float | None = None, *, rate: float | None = None, ratio: str = "") -> str:
        """Rate (this run's, unless given), ratio to the echo's rate (unless given as text), p50, p99, errors."""
        ordered = sorted(self.latencies)
        p50 = ordered[len(ordered) // 2] * 1000
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        rate = rate if rate is not None else len(ordered) / self.seconds
        ratio = ratio or (f"{rate / echo:8.2f}×" if echo else " " * 9)
        return f"  {self.name:<38} {rate:>9,.0f}/s {ratio} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  errors {self.errors}"

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds


def start(command: list[str]) -> tuple[subprocess.Popen[str], int]:
    """A server process; it prints its port on its first line."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if "serving on" not in line:
        raise RuntimeError(f"server did not start: {line} {process.stderr.read() if process.stderr else ''}")
    match = re.search(r"serving on [^:\s]+:(\d+)", line)
    assert match is not None, line
    return process, int(match.group(1))


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


def _table_service_server(handle: Callable[[str, str], Awaitable[pb.CommandReply]]) -> grpc.aio.Server:
    """A server of the four TableService methods the benchmark calls, each answered by ``handle(table, command_id)``."""
    async def answer(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> pb.CommandReply:
        del context
        return await handle(request.table, request.command_id)

    requests: dict[str, Any] = {"OpenTable": pb.OpenTableRequest, "SeatPlayer": pb.SeatPlayerRequest,
                                "StartHand": pb.StartHandRequest, "HandCommand": pb.HandCommandRequest}
    handlers = {method: grpc.unary_unary_rpc_method_handler(
        answer, request_deserializer=message.FromString, response_serializer=pb.CommandReply.SerializeToString)
        for method, message in requests.items()}
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("pokertable.v1.TableService", handlers),))
    return server


async def run_peer(kind: str) -> None:
    """Serve one of the peers: ``null`` or ``es`` (minimal event-sourced, on an SQLite file in a temporary folder)."""
    if kind == "null":
        async def handle(table: str, command_id: str) -> pb.CommandReply:
            return pb.CommandReply(table=table)
    else:
        app = MinimalApp(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "AGGREGATE_CACHE_MAXSIZE": "1000",
                              "SQLITE_DBNAME": str(Path(tempfile.mkdtemp(prefix="pokertable-es-")) / "es.db"),
                              "AGGREGATE_CACHE_FASTFORWARD": "n"})
        counters: dict[str, uuid.UUID] = {}

        async def handle(table: str, command_id: str) -> pb.CommandReply:
            if table not in counters:
                counter = Counter(table)
                app.save(counter)
                counters[table] = counter.id
            counter = app.repository.get(counters[table], deepcopy_from_cache=False)
            counter.count(command_id)
            app.save(counter)
            return pb.CommandReply(table=table, version=counter.version)

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


class TablePlayer:
    """Plays fold-to-the-big-blind hands at one table, timing every command."""

    def __init__(self, stub: pb_grpc.TableServiceStub, table: str, run: Run) -> None:
        self.stub, self.table, self.run, self.n, self.hands = stub, table, run, 0, 0

    async def command(self, method: str, request: object) -> None:
        started = time.perf_counter()
        try:
            await getattr(self.stub, method)(request, metadata=METADATA, timeout=30)
        except grpc.aio.AioRpcError:
            self.run.errors += 1
        self.run.latencies.append(time.perf_counter() - started)

    def cid(self) -> str:
        self.n += 1
        return f"{self.table}-{self.n}"

    async def open(self) -> None:
        settings = pb.Settings(variant="holdem", structure="no-limit", blinds=[1, 2], no_burns=True)
        await self.stub.OpenTable(pb.OpenTableRequest(command_id=self.cid(), table=self.table, settings=settings),
                                  metadata=METADATA)
        for seat in (1, 2, 3):
            await self.stub.SeatPlayer(pb.SeatPlayerRequest(command_id=self.cid(), table=self.table, seat=seat,
                                                            chips=1_000_000), metadata=METADATA)

    async def hand(self, pace: float = 0.0) -> None:
        """One hand: start, six deals, the button and the small blind fold; with ``pace``, a command every ``pace``
        seconds (a croupier's rate)."""
        self.hands += 1
        button = (self.hands - 1) % 3 + 1
        small_blind = button % 3 + 1
        steps: list[tuple[str, object]] = [
            ("StartHand", pb.StartHandRequest(command_id=self.cid(), table=self.table)),
            *(("HandCommand", pb.HandCommandRequest(command_id=self.cid(), table=self.table, action="deal",
                                                    card=card)) for card in CARDS),
            *(("HandCommand", pb.HandCommandRequest(command_id=self.cid(), table=self.table, action="fold",
                                                    seat=seat))
              for seat in (button, small_blind)),  # three-handed, the button acts first before the flop
        ]
        for method, request in steps:
            started = time.perf_counter()
            await self.command(method, request)
            if pace:
                await asyncio.sleep(max(0.0, pace - (time.perf_counter() - started)))


async def measure_tables(port: int, tables: int, hands: int, name: str) -> Run:
    run = Run(name)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        players = [TablePlayer(stub, f"t{uuid.uuid4().hex[:8]}", run) for _ in range(tables)]
        await asyncio.gather(*(p.open() for p in players))

        async def play(player: TablePlayer) -> None:
            for _ in range(hands):
                await player.hand()

        started = time.perf_counter()
        await asyncio.gather(*(play(p) for p in players))
        run.seconds = time.perf_counter() - started
    return run


async def measure_paced(port: int, tables: int, seconds: float, pace: float, name: str) -> Run:
    """``tables`` tables, each sending a command every ``pace`` seconds (a croupier's rate), for ``seconds``."""
    run = Run(name)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        players = [TablePlayer(stub, f"p{uuid.uuid4().hex[:8]}", run) for _ in range(tables)]
        await asyncio.gather(*(p.open() for p in players))
        deadline = time.perf_counter() + seconds

        async def paced(player: TablePlayer, offset: float) -> None:
            await asyncio.sleep(offset)
            while time.perf_counter() < deadline:
                await player.hand(pace)

        started = time.perf_counter()
        await asyncio.gather(*(paced(p, i * pace / tables) for i, p in enumerate(players)))
        run.seconds = time.perf_counter() - started
    return run


async def measure_history(port: int, hands: int) -> tuple[float, float]:
    """Mean latency of the first and the last 50 hands' commands on one table with a long history."""
    run = Run("history")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        player = TablePlayer(pb_grpc.TableServiceStub(channel), f"h{uuid.uuid4().hex[:8]}", run)  # type: ignore[no-untyped-call]
        await player.open()
        for _ in range(hands):
            await player.hand()
    per_hand = 9
    early = statistics.mean(run.latencies[: 50 * per_hand]) * 1000
    late = statistics.mean(run.latencies[-50 * per_hand:]) * 1000
    return early, late


def serve(db: str, config: Path) -> tuple[subprocess.Popen[str], int]:
    """A service, measured once warm: its hand-ranking tables (seconds of a core) built, not being built meanwhile."""
    process, port = start([sys.executable, "-m", "service.cli", "serve", "--db", db, "--port", "0",
                           "--config", str(config)])
    assert process.stdout is not None
    while "warm" not in (line := process.stdout.readline()):
        if not line:
            raise RuntimeError("the server stopped while warming up")
    return process, port


def postgres_url(base: str) -> str | None:
    """A fresh schema on the PostgreSQL server, or ``None`` without one."""
    try:
        import psycopg

        from service.store.persistence import environment

        env = environment(base)
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                             dbname=env["POSTGRES_DBNAME"], autocommit=True, connect_timeout=3) as conn:
            conn.execute(f"create schema {schema}")
        return f"{base}?schema={schema}"
    except Exception:
        return None


def p99(run: Run) -> float:
    """The 99th percentile latency of a run, in milliseconds."""
    return sorted(run.latencies)[int(len(run.latencies) * 0.99)] * 1000


@dataclass
class Sequential:
    """One server's sequential runs, one a round: the servers take turns, so that a slow spell of the machine falls
    on all of them and the ratios stay meaningful. Its rate and ratio to the echo are the medians of the rounds'."""

    name: str
    rounds: list[Run] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return statistics.median(run.rate for run in self.rounds)

    def ratios(self, echo: Sequential) -> list[float]:
        return [run.rate / yardstick.rate for run, yardstick in zip(self.rounds, echo.rounds, strict=True)]

    def line(self, echo: Sequential | None = None) -> str:
        merged = Run(self.name, [t for run in self.rounds for t in run.latencies],
                     sum(run.errors for run in self.rounds), sum(run.seconds for run in self.rounds))
        if echo is None:
            return merged.line(rate=self.rate)
        ratios = self.ratios(echo)
        return (merged.line(rate=self.rate, ratio=f"{statistics.median(ratios):8.2f}×")
                + f"  (rounds {min(ratios):.2f}–{max(ratios):.2f}×)")


async def measure_sequential(ports: dict[str, int], calls: int, rounds: int) -> dict[str, Sequential]:
    """Every server one table at a time, command after command, taking turns for ``rounds`` rounds."""
    names = {"echo": "bare gRPC echo", "null": "null TableService", "es": "minimal event-sourced",
             "SQLite": "SQLite: pokertable", "PostgreSQL": "PostgreSQL: pokertable"}
    results = {kind: Sequential(f"{names[kind]}, sequential") for kind in ports}
    per_round = max(9, calls // rounds)
    for _ in range(rounds):
        for kind, port in ports.items():
            if kind == "echo":
                run = await measure_echo(port, per_round)
            else:
                run = await measure_tables(port, 1, per_round // 9, kind)
            results[kind].rounds.append(run)
    echo = results["echo"]
    for result in results.values():
        print(result.line(None if result is echo else echo))
    return results


async def measure_store(label: str, port: int, args: argparse.Namespace, echo: float) -> tuple[list[Run], float, float]:
    """pokertable on one store: 16 and 200 tables flat out, 200 tables paced, a long session."""
    runs: list[Run] = []
    for tables in (16, 200):
        runs.append(await measure_tables(port, tables, max(1, args.calls // 9 // tables),
                                         f"{label}: {tables} tables at once"))
        print(runs[-1].line(echo))
    for pace, words in ((1.0, "a command/s"), (0.5, "2 commands/s")):
        runs.append(await measure_paced(port, 200, args.paced_seconds, pace, f"{label}: 200 tables, {words} each"))
        print(runs[-1].line(echo))
    early, late = await measure_history(port, args.history)
    return runs, early, late


def report(sequential: dict[str, Sequential], flat: dict[str, Run], results: list[Run],
           history: list[tuple[str, float, float]], sessions: int) -> None:
    print()
    for label, early, late in history:
        print(f"  {label}: a {sessions}-hand session, mean command latency first 50 hands {early:.2f} ms, "
              f"last 50 hands {late:.2f} ms ({late / early:.2f}×)")
    echo = sequential["echo"]
    ratio = statistics.median(sequential["SQLite"].ratios(echo))
    print(f"\nTargets: SQLite sequential at {ratio:.0%} of the echo's rate (median of {len(echo.rounds)} rounds; "
          f"≥ 50 %): {'met' if ratio >= 0.5 else 'MISSED'}")
    null, minimal = (statistics.median(sequential[kind].ratios(echo)) for kind in ("null", "es"))
    print(f"  beside it, sequential: the null TableService at {null:.0%} of the echo, the minimal event-sourced "
          f"service at {minimal:.0%}; pokertable at {ratio / minimal:.0%} of the minimal event-sourced service")
    for run in results:
        if "200 tables," in run.name:
            ok = run.errors == 0 and p99(run) <= 50
            print(f"  {run.name}: {run.errors} errors, p99 {p99(run):.1f} ms (≤ 50 ms): {'met' if ok else 'MISSED'}")
    for run in results:
        if "200 tables at once" in run.name:
            print(f"  {run.name} (flat out): {run.errors} errors, p99 {p99(run):.0f} ms; flat out, the echo's own p99 "
                  f"is {p99(flat['echo']):.0f} ms and the minimal event-sourced service's {p99(flat['es']):.0f} ms: "
                  "200 closed loops wait tables ÷ throughput, whatever the service")


async def main(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="pokertable-bench-"))
    config = workdir / "stations.toml"
    config.write_text(CONFIG, encoding="utf-8")
    servers = {kind: start([sys.executable, "-m", "benchmarks.service", f"{kind}-server"]) for kind in PEERS}
    stores = {"SQLite": f"sqlite:///{workdir / 'bench.db'}"}
    pg = postgres_url(args.postgres)
    if pg:
        stores["PostgreSQL"] = pg
    try:
        for label, db in stores.items():
            servers[label] = serve(db, config)
        ports = {kind: port for kind, (_, port) in servers.items()}
        print(f"pokertable service benchmark ({os.cpu_count()} cores; one run; commands = StartHand, deals, folds)")
        sequential = await measure_sequential(ports, args.calls, args.rounds)
        echo = sequential["echo"].rate
        hands_each = max(1, args.calls // 9 // 200)  # as in the 200-table flat-out runs: 9 commands a hand
        flat = {"echo": await measure_echo_flat_out(ports["echo"], 200, hands_each * 9),
                "es": await measure_tables(ports["es"], 200, hands_each, "minimal event-sourced, 200 tables")}
        for run in flat.values():
            print(run.line(echo))
        results: list[Run] = []
        history: list[tuple[str, float, float]] = []
        for label in stores:
            runs, early, late = await measure_store(label, ports[label], args, echo)
            results.extend(runs)
            history.append((label, early, late))
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=10)
    report(sequential, flat, results, history, args.history)


PEERS = ("echo", "null", "es")

if __name__ == "__main__":
    if sys.argv[1:] == ["echo-server"]:
        asyncio.run(echo_server())
    elif len(sys.argv) == 2 and sys.argv[1] in ("null-server", "es-server"):
        asyncio.run(run_peer(sys.argv[1].removesuffix("-server")))
    else:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--calls", type=int, default=3600, help="commands in each server's sequential runs")
        parser.add_argument("--rounds", type=int, default=6, help="turns the servers take in the sequential runs")
        parser.add_argument("--history", type=int, default=600, help="hands in the long-session run")
        parser.add_argument("--paced-seconds", type=float, default=20.0,
                            help="length of each run where 200 tables send commands at a croupier's pace")
        parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/pokertable_test")
        asyncio.run(main(parser.parse_args()))
