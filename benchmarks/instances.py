"""Several instances, one casino (issue 18, item 2): throughput and latency with 1, 2 and 4 ``pokertable serve``
processes on one PostgreSQL schema, and where the CPU goes.

Each turn starts N instances on a fresh schema (each warm: its hand-ranking tables built) and plays ``--tables``
Hold'em tables flat out (fold-to-the-big-blind hands, as benchmarks/service.py plays them: ``StartHand``, six deals,
two folds), for ``--seconds``. Two ways to spread the stations over the instances:

- **sticky** (what docs/scale.md recommends): each table's station keeps one connection to one instance (as behind
  a TCP load balancer, or a station given one address); tables are spread round-robin over the instances;
- **per command**: one channel to all instances with gRPC's ``round_robin`` policy, so consecutive commands of a
  table land on different instances: each instance's copy of the table is then behind, the store refuses the
  command's first try and the instance runs it again on a fresh copy (issue 18, item 4).

Printed for each: commands/s and its ratio to one instance, p50 and p99, errors, and the CPU used in the run — the
instances', PostgreSQL's (every ``postgres`` process of the machine) and this client's — as cores and as
milliseconds per command, from which docs/scale.md works out what a bigger machine would give. The machine has 2
cores, which the instances, PostgreSQL and the client share.

Run with ``.venv/bin/python -m benchmarks.instances [--instances 1,2,4] [--tables 32] [--seconds 15]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc

from benchmarks.scale import POSTGRES, TICKS, _drop, cpu_seconds
from benchmarks.service_load import CONFIG, Run, TablePlayer, open_tables, postgres_url, serve
from service.api import table_service_pb2_grpc as svc_grpc


def postgres_cpu() -> float:
    """The CPU seconds of every PostgreSQL server process so far (the server's share of the machine)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name, rest = stat.split("(", 1)[1].rsplit(")", 1)
        if name.startswith("postgres"):
            fields = rest.split()
            total += (int(fields[11]) + int(fields[12])) / TICKS
    return total


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Turn:
    """One measurement: N instances, one way of spreading the stations."""

    instances: int
    mode: str
    run: Run
    service_cpu: float
    postgres_cpu: float
    client_cpu: float

    @property
    def commands(self) -> int:
        return len(self.run.latencies)

    def line(self, base: float | None) -> str:
        ordered = sorted(self.run.latencies)
        p50 = ordered[len(ordered) // 2] * 1000
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        rate = self.commands / self.run.seconds
        ratio = f"{rate / base:5.2f}×" if base else "   1× "
        cores = [cpu / self.run.seconds for cpu in (self.service_cpu, self.postgres_cpu, self.client_cpu)]
        per = [cpu / self.commands * 1000 for cpu in (self.service_cpu, self.postgres_cpu, self.client_cpu)]
        return (f"  {self.instances} × {self.mode:<12} {rate:7,.0f}/s {ratio}  p50 {p50:6.2f} ms  p99 {p99:7.2f} ms  "
                f"errors {self.run.errors:3}  cores {cores[0]:.2f} + {cores[1]:.2f} + {cores[2]:.2f}  "
                f"ms/command {per[0]:.3f} + {per[1]:.3f} + {per[2]:.3f}")


async def play(ports: list[int], mode: str, tables: int, seconds: float,
               cpu: Callable[[], tuple[float, float, float]]) -> tuple[Run, list[float]]:
    """``tables`` tables flat out for ``seconds``, their stations spread over the instances as ``mode`` says; the
    run and the CPU (``cpu()``'s three figures) used while it was timed."""
    run = Run(mode)
    if mode == "per command":
        shared = grpc.aio.insecure_channel(",".join(f"127.0.0.1:{port}" for port in ports).join(("ipv4:", "")),
                                           options=[("grpc.lb_policy_name", "round_robin")])
        channels = [shared]
        stubs = [svc_grpc.TableServiceStub(shared)] * tables  # type: ignore[no-untyped-call]
    else:
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for port in ports]
        stubs = [svc_grpc.TableServiceStub(channels[n % len(ports)]) for n in range(tables)]  # type: ignore[no-untyped-call]
    try:
        players = [TablePlayer(stub, f"i{uuid.uuid4().hex[:8]}", run) for stub in stubs]
        await open_tables(players)
        for player in players:  # a first hand each, untimed: every instance has loaded the tables it serves
            await player.hand()
        run.latencies.clear()
        run.errors = 0
        deadline = time.perf_counter() + seconds

        async def flat_out(player: TablePlayer) -> None:
            while time.perf_counter() < deadline:
                await player.hand()

        before, started = cpu(), time.perf_counter()
        await asyncio.gather(*(flat_out(player) for player in players))
        run.seconds = time.perf_counter() - started
        used = [b - a for a, b in zip(before, cpu(), strict=True)]
    finally:
        for channel in channels:
            await channel.close()
    return run, used


def measure(instances: int, mode: str, args: argparse.Namespace, config: Path) -> Turn | None:
    url = postgres_url(POSTGRES)
    if url is None:
        print(f"no PostgreSQL at {POSTGRES}: nothing measured")
        return None
    servers: list[subprocess.Popen[str]] = []
    try:
        ports = []
        for _ in range(instances):
            process, port = serve(url, config)
            servers.append(process)
            ports.append(port)
        def cpu() -> tuple[float, float, float]:
            return sum(cpu_seconds(server.pid) for server in servers), postgres_cpu(), client_cpu()

        run, used = asyncio.run(play(ports, mode, args.tables, args.seconds, cpu))
        return Turn(instances, mode, run, *used)
    finally:
        for process in servers:
            process.terminate()
        for process in servers:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        _drop(url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", default="1,2,4", help="the numbers of instances to measure, in turn")
    parser.add_argument("--tables", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--modes", default="sticky,per command")
    args = parser.parse_args()
    counts = [int(n) for n in args.instances.split(",")]
    print(f"pokertable on PostgreSQL: {args.tables} tables flat out for {args.seconds:.0f} s, 1 to {max(counts)} "
          f"instances on one schema ({os.cpu_count()} cores shared by the instances, PostgreSQL and this client)")
    print("  cores and ms/command: the instances + PostgreSQL + the client")
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "stations.toml"
        config.write_text(CONFIG, encoding="utf-8")
        config.chmod(0o600)  # station tokens in clear: its owner's only (issue 32)
        base: float | None = None  # one instance's rate: the turns' yardstick
        for mode in args.modes.split(","):
            for count in counts:
                if count == 1 and base is not None:
                    continue  # one instance: the two ways are the same
                turn = measure(count, mode, args, config)
                if turn is None:
                    return
                print(turn.line(base), flush=True)
                if count == 1:
                    base = turn.commands / turn.run.seconds


if __name__ == "__main__":
    main()
