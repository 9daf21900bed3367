"""Scaling on PostgreSQL (issue 18): what idle Watch streams cost a service instance.

A real ``pokertable serve`` on a fresh PostgreSQL schema; 40 tables opened: "Mesa 01-20" take the commands, "Sala
01-20" are watched and stay quiet. Measured, in one run:

- the service's CPU (its process's user + system time, from /proc) over ``--idle-seconds`` with no stream open, then
  with ``--streams`` Watch streams open and idle (spread over the Sala tables, each waiting after the log's head);
- sequential commands (``AddChips`` at the Mesa tables, one at a time) with none open, then with them open: p50 and
  p99 (the casino's commands elsewhere must not slow down because its streams are open).

Target (issue 18): 500 idle streams cost under 5 % of a core, and the commands' p50 stays within 10 % of none.

``--before PATH`` runs the same against another checkout's service (its own ``.venv``), e.g. the code before the
streams' follower, whose streams each polled the log every 50 ms: the figures side by side.

Run with ``.venv/bin/python -m benchmarks.scale [--streams 500] [--idle-seconds 10] [--calls 400]
[--before /tmp/before17]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc

from benchmarks.service_load import CONFIG, METADATA, TablePlayer, open_tables, postgres_url, start
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc

POSTGRES = os.environ.get("POKERTABLE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/pokertable_test")
TABLES = 20
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """A process's user + system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


async def idle_cpu(pid: int, seconds: float) -> float:
    """The share of one core the process used over ``seconds`` (0.05 = 5 %)."""
    before, started = cpu_seconds(pid), time.perf_counter()
    await asyncio.sleep(seconds)
    return (cpu_seconds(pid) - before) / (time.perf_counter() - started)


async def commands(stub: svc_grpc.TableServiceStub, calls: int, tag: str) -> list[float]:
    """``calls`` sequential AddChips; each one's latency (seconds)."""
    latencies = []
    for n in range(calls):
        started = time.perf_counter()
        try:
            await stub.AddChips(svc.AddChipsRequest(command_id=f"{tag}-{n}", table=f"Mesa {n % TABLES + 1:02}",
                                                    seat=1, chips=1), metadata=METADATA, timeout=10)
        except grpc.aio.AioRpcError as error:  # the service too busy to answer: timed as it failed, and counted
            print(f"    ({tag} command {n}: {error.code().name})", flush=True)
        latencies.append(time.perf_counter() - started)
    return latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] * 1000


async def measure(port: int, pid: int, args: argparse.Namespace) -> dict[str, Any]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        players = [TablePlayer(stub, f"{room} {n:02}", None)  # type: ignore[arg-type]
                   for room in ("Mesa", "Sala") for n in range(1, TABLES + 1)]
        await open_tables(players)
        await commands(stub, 50, "warm")
        alone = await commands(stub, args.calls, "alone")
        cpu_alone = await idle_cpu(pid, args.idle_seconds)
        listed = await stub.ListTables(svc.ListTablesRequest(), metadata=METADATA)
        head = max(summary.position for summary in listed.tables)
        # each station its own connection (the service takes a bounded number of streams per connection): here
        # ten streams a connection, as ten stations behind one NAT would be
        # (a local subchannel pool each: gRPC otherwise shares one connection among channels to the same address,
        # and past the service's 256 streams a connection, calls would wait)
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range((args.streams + 9) // 10)]
        streams = [svc_grpc.TableServiceStub(channels[n // 10]).Watch(  # type: ignore[no-untyped-call]
            svc.WatchRequest(table=f"Sala {n % TABLES + 1:02}", after_position=head), metadata=METADATA)
            for n in range(args.streams)]
        readers = [asyncio.ensure_future(_drain(stream)) for stream in streams]
        await asyncio.sleep(3)  # every stream open and idle
        cpu_streams = await idle_cpu(pid, args.idle_seconds)
        watched = await commands(stub, args.calls, "watched")
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        for other in channels:
            await other.close()
    return {"cpu_alone": cpu_alone, "cpu_streams": cpu_streams, "alone": alone, "watched": watched}


async def _drain(stream: Any) -> None:
    async for _ in stream:
        pass


def run_one(root: Path, args: argparse.Namespace) -> dict[str, Any] | None:
    url = postgres_url(POSTGRES)
    if url is None:
        print(f"no PostgreSQL at {POSTGRES}: nothing measured")
        return None
    python = root / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory() as tmp:
        stations = Path(tmp) / "stations.toml"
        stations.write_text(CONFIG, encoding="utf-8")
        stations.chmod(0o600)  # station tokens in clear: its owner's only (issue 32)
        process, port = start([str(python), "-m", "service.cli", "serve", "--db", url, "--port", "0",
                               "--config", str(stations), "--audit-every", "0"] if root == ROOT else
                              [str(python), "-m", "service.cli", "serve", "--db", url, "--port", "0",
                               "--config", str(stations)], cwd=root)
        try:
            time.sleep(3)  # warm: the hand-ranking tables built
            return asyncio.run(measure(port, process.pid, args))
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
            _drop(url)


def _drop(url: str) -> None:
    import psycopg

    schema = url.rsplit("schema=", 1)[1]
    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f"drop schema if exists {schema} cascade")


ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--before", type=Path, help="another checkout (with its .venv) to measure beside this one")
    args = parser.parse_args()
    runs = {"this checkout": ROOT, **({f"before ({args.before})": args.before} if args.before else {})}
    results = {name: run_one(root, args) for name, root in runs.items()}
    print(f"pokertable on PostgreSQL, {args.streams} idle Watch streams over {TABLES} tables; "
          f"{args.calls} sequential commands each way")
    for name, result in results.items():
        if result is None:
            continue
        alone_p50, watched_p50 = (statistics.median(result[key]) * 1000 for key in ("alone", "watched"))
        print(f"  {name}:")
        print(f"    service CPU, idle: {result['cpu_alone']:.1%} of a core with no stream, "
              f"{result['cpu_streams']:.1%} with {args.streams} idle streams (target < 5 %: "
              f"{'met' if result['cpu_streams'] < 0.05 else 'MISSED'})")
        print(f"    commands: p50 {alone_p50:.2f} ms / p99 {percentile(result['alone'], 0.99):.2f} ms with none, "
              f"p50 {watched_p50:.2f} ms / p99 {percentile(result['watched'], 0.99):.2f} ms with the streams open: "
              f"p50 {watched_p50 / alone_p50:.2f}× (target ≤ 1.10: "
              f"{'met' if watched_p50 <= 1.1 * alone_p50 else 'MISSED'})")


if __name__ == "__main__":
    main()
