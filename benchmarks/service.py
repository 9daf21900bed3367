"""The table service through gRPC: commands per second and latency, on SQLite and PostgreSQL, one table at a time
and 16 and 200 tables played at once, beside a bare gRPC echo service measured in the same run.

Each server runs in its own process (``pokertable serve``; the echo server is this file with ``echo-server``); the
client plays Hold'em hands where the button and the small blind fold to the big blind: start, six deals, two folds.
Targets (issue 6): sequential commands/s on SQLite ≥ 50 % of the echo's; 200 tables: no errors and p99 ≤ 50 ms
(measured both flat out, where latency is tables ÷ throughput, and at a croupier's pace of a command a second per
table); a command late in a long session costs what an early one does.

Run with ``.venv/bin/python -m benchmarks.service [--postgres URL]`` (as a module: ``service`` is the package).
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
from dataclasses import dataclass, field
from pathlib import Path

import grpc

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

    def line(self, echo: float | None = None) -> str:
        ordered = sorted(self.latencies)
        p50 = ordered[len(ordered) // 2] * 1000
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        rate = len(ordered) / self.seconds
        ratio = f"{rate / echo:8.2f}×" if echo else " " * 9
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

    async def hand(self) -> None:
        self.hands += 1
        button = (self.hands - 1) % 3 + 1
        small_blind = button % 3 + 1
        await self.command("StartHand", pb.StartHandRequest(command_id=self.cid(), table=self.table))
        for card in CARDS:
            await self.command("HandCommand", pb.HandCommandRequest(command_id=self.cid(), table=self.table,
                                                                    action="deal", card=card))
        for seat in (button, small_blind):  # three-handed, the button acts first before the flop
            await self.command("HandCommand", pb.HandCommandRequest(command_id=self.cid(), table=self.table,
                                                                    action="fold", seat=seat))


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
                player.hands += 1
                button = (player.hands - 1) % 3 + 1
                steps: list[tuple[str, object]] = [
                    ("StartHand", pb.StartHandRequest(command_id=player.cid(), table=player.table)),
                    *(("HandCommand", pb.HandCommandRequest(command_id=player.cid(), table=player.table,
                                                             action="deal", card=card)) for card in CARDS),
                    *(("HandCommand", pb.HandCommandRequest(command_id=player.cid(), table=player.table,
                                                             action="fold", seat=seat))
                      for seat in (button, button % 3 + 1)),
                ]
                for method, request in steps:
                    started = time.perf_counter()
                    await player.command(method, request)
                    await asyncio.sleep(max(0.0, pace - (time.perf_counter() - started)))

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

        from service.persistence import environment

        env = environment(base)
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                             dbname=env["POSTGRES_DBNAME"], autocommit=True, connect_timeout=3) as conn:
            conn.execute(f"create schema {schema}")
        return f"{base}?schema={schema}"
    except Exception:
        return None


async def main(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="pokertable-bench-"))
    config = workdir / "stations.toml"
    config.write_text(CONFIG, encoding="utf-8")
    echo_process, echo_port = start([sys.executable, "-m", "benchmarks.service", "echo-server"])
    stores = [("SQLite", f"sqlite:///{workdir / 'bench.db'}")]
    pg = postgres_url(args.postgres)
    if pg:
        stores.append(("PostgreSQL", pg))
    results: list[tuple[str, Run]] = []
    history: list[tuple[str, float, float]] = []
    try:
        echo = await measure_echo(echo_port, args.calls)
        print(f"pokertable service benchmark ({os.cpu_count()} cores; one run; commands = StartHand, deals, folds)")
        print(echo.line())
        for label, db in stores:
            process, port = serve(db, config)
            try:
                sequential = await measure_tables(port, 1, args.calls // 9, f"{label}: 1 table, sequential")
                print(sequential.line(echo.rate))
                results.append((label, sequential))
                for tables in (16, 200):
                    hands = max(1, args.calls // 9 // tables)
                    run = await measure_tables(port, tables, hands, f"{label}: {tables} tables at once")
                    print(run.line(echo.rate))
                    results.append((label, run))
                paced = await measure_paced(port, 200, args.paced_seconds, 1.0,
                                            f"{label}: 200 tables, a command/s each")
                print(paced.line(echo.rate))
                results.append((label, paced))
                early, late = await measure_history(port, args.history)
                history.append((label, early, late))
            finally:
                process.terminate()
                process.wait(timeout=10)
    finally:
        echo_process.terminate()
        echo_process.wait(timeout=10)
    print()
    for label, early, late in history:
        print(f"  {label}: a {args.history}-hand session, mean command latency first 50 hands {early:.2f} ms, "
              f"last 50 hands {late:.2f} ms ({late / early:.2f}×)")
    sqlite_sequential = next(run for label, run in results if label == "SQLite" and "sequential" in run.name)
    ratio = sqlite_sequential.rate / echo.rate
    verdict = "met" if ratio >= 0.5 else "MISSED"
    print(f"\nTargets: SQLite sequential at {ratio:.0%} of the echo's rate (≥ 50 %): {verdict}")
    for _, run in results:
        if "200" in run.name:
            p99 = sorted(run.latencies)[int(len(run.latencies) * 0.99)] * 1000
            ok = run.errors == 0 and p99 <= 50
            print(f"  {run.name}: {run.errors} errors, p99 {p99:.1f} ms (≤ 50 ms): {'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    if sys.argv[1:] == ["echo-server"]:
        asyncio.run(echo_server())
    else:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--calls", type=int, default=3600, help="commands in the sequential runs")
        parser.add_argument("--history", type=int, default=600, help="hands in the long-session run")
        parser.add_argument("--paced-seconds", type=float, default=20.0,
                            help="length of the run where 200 tables each send a command a second")
        parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/pokertable_test")
        asyncio.run(main(parser.parse_args()))
