"""The table service through gRPC: commands per second and latency, on SQLite and PostgreSQL, one table at a time
and 16 and 200 tables played at once, beside peers measured in the same run:

- a bare gRPC echo (raw bytes): the issue's yardstick;
- a *null* TableService: the same proto and methods, answering at once without doing anything: what gRPC and protobuf
  alone cost with this API;
- a *minimal event-sourced* service: the same methods, each command one event of one cached eventsourcing aggregate
  committed durably to SQLite (WAL, fsync'd), no rules, no command record, no hash chain: the least a durable
  event-sourced SQLite service does per command.

Each server runs in its own process (``pokertable serve``; the peers are benchmarks/service_peers.py with
``echo-server``, ``null-server`` and ``es-server``); the client (benchmarks/service_load.py) plays Hold'em hands where
the button and the small blind fold to the big blind through pokertable.v1: ``StartHand``, six ``Act`` deals, two
``Act`` folds.

The paced runs (200 tables, each sending a command a second, then two a second: a croupier's pace) are measured on
pokertable (each store) and on the two peers of the same API, the minimal event-sourced service and the null one, in
the same run: the servers take turns, a few seconds each, for ``--paced-rounds`` rounds, so that a slow spell of the
machine falls on all of them; each table's session goes on from turn to turn where it stopped.  pokertable's paced p50
and p99 are printed beside the peers', with their ratios (of the rounds merged, and the range of the rounds' own).

Targets (issue 6): sequential commands/s on SQLite ≥ 50 % of the echo's;
200 tables: no errors and p99 ≤ 50 ms (measured at a croupier's pace, a command a second per table, and at five
times it; and flat out beside the echo flat out, where latency is tables ÷ throughput); a command late in a long
session costs what an early one does. Issue 18's, set against the peers of the same run: SQLite sequential ≥ 0.85×
the minimal event-sourced service, PostgreSQL sequential ≥ 0.65× SQLite, and 200 tables at 2 commands/s on
PostgreSQL with p99 ≤ 15 ms.

Run with ``.venv/bin/python -m benchmarks.service [--postgres URL]`` (or as a script, ``benchmarks/service.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc

from benchmarks.service_load import CONFIG, Run, TablePlayer, open_tables, p99, postgres_url, serve, start
from benchmarks.service_peers import PEERS, measure_echo, measure_echo_flat_out
from service.api import table_service_pb2_grpc as svc_grpc


async def measure_tables(port: int, tables: int, hands: int, name: str) -> Run:
    run = Run(name)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        players = [TablePlayer(stub, f"t{uuid.uuid4().hex[:8]}", run) for _ in range(tables)]
        await open_tables(players)

        async def play(player: TablePlayer) -> None:
            for _ in range(hands):
                await player.hand()

        started = time.perf_counter()
        await asyncio.gather(*(play(p) for p in players))
        run.seconds = time.perf_counter() - started
    return run


async def paced_turn(players: list[TablePlayer], seconds: float, pace: float, name: str) -> Run:
    """One server's turn: its tables, each sending a command every ``pace`` seconds (a croupier's rate), their first
    commands spread over the first ``pace`` seconds, for ``seconds``; each table goes on where its last turn stopped."""
    run = Run(name)
    started = time.perf_counter()
    deadline = started + seconds

    async def paced(player: TablePlayer, offset: float) -> None:
        await asyncio.sleep(offset)
        await player.play_until(deadline, pace, run)

    await asyncio.gather(*(paced(p, i * pace / len(players)) for i, p in enumerate(players)))
    run.seconds = time.perf_counter() - started
    return run


PACES = ((1.0, "a command/s"), (0.5, "2 commands/s"))
"""The paced runs: seconds between a table's commands, and how the figures name it."""
SERVERS = {"SQLite": "SQLite: pokertable", "PostgreSQL": "PostgreSQL: pokertable", "es": "minimal event-sourced",
           "null": "null TableService"}
"""The servers of the paced runs, by kind: pokertable on each store, then the two peers of the same API."""
STORES = ("SQLite", "PostgreSQL")
"""pokertable's stores, by kind (the peers are the other kinds)."""
PEERS_PACED = ("es", "null")
"""The peers pokertable's paced runs are set beside: the minimal event-sourced service and the null one."""


def p50(run: Run) -> float:
    """The median latency of a run, in milliseconds (as :meth:`Run.line` prints it)."""
    return sorted(run.latencies)[len(run.latencies) // 2] * 1000


@dataclass
class Paced:
    """One server's paced runs at one pace, a run a turn (the servers take turns, round after round)."""

    kind: str
    load: str
    """The tables and their pace: ``200 tables, 2 commands/s each``."""
    rounds: list[Run] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The server, as the sequential runs name it."""
        return SERVERS[self.kind]

    @property
    def merged(self) -> Run:
        """The rounds as one run: every latency, errors and seconds summed."""
        return Run(self.name, [t for run in self.rounds for t in run.latencies],
                   sum(run.errors for run in self.rounds), sum(run.seconds for run in self.rounds))

    @property
    def title(self) -> str:
        """The store (pokertable) or the peer, and the load: ``PostgreSQL: 200 tables, 2 commands/s each``."""
        return f"{self.kind if self.kind in STORES else self.name}: {self.load}"

    def beside(self, peer: Paced) -> str:
        """p50 and p99 as multiples of ``peer``'s: of the rounds merged, and the range of the rounds' own."""
        def ratios(figure: Callable[[Run], float]) -> str:
            rounds = [figure(mine) / figure(theirs) for mine, theirs in zip(self.rounds, peer.rounds, strict=True)]
            return (f"{figure(self.merged) / figure(peer.merged):5.2f}× "
                    f"(rounds {min(rounds):.2f}–{max(rounds):.2f}×)")

        return f"    {self.name} ÷ {peer.name}: p50 {ratios(p50)}, p99 {ratios(p99)}"


async def measure_paced(ports: dict[str, int], kinds: list[str], args: argparse.Namespace,
                        echo: float) -> dict[str, dict[str, Paced]]:
    """Every server of ``kinds`` at each pace, ``args.paced_tables`` tables each (opened once, before the first
    turn), the servers taking turns of ``args.paced_seconds / args.paced_rounds`` seconds for ``args.paced_rounds``
    rounds, each round starting with the next server (none always follows the same one); by pace's words, by server
    kind."""
    tables, rounds = args.paced_tables, args.paced_rounds
    turn = args.paced_seconds / rounds
    results: dict[str, dict[str, Paced]] = {}
    async with contextlib.AsyncExitStack() as channels:
        players: dict[str, list[TablePlayer]] = {}
        for kind in kinds:
            channel = await channels.enter_async_context(grpc.aio.insecure_channel(f"127.0.0.1:{ports[kind]}"))
            stub = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            players[kind] = [TablePlayer(stub, f"p{uuid.uuid4().hex[:8]}", Run("opening")) for _ in range(tables)]
            await open_tables(players[kind])
        for pace, words in PACES:
            print(f"\n  Paced, {tables} tables, {words} each: {rounds} rounds, the servers taking turns of "
                  f"{turn:.1f} s")
            paced = {kind: Paced(kind, f"{tables} tables, {words} each") for kind in kinds}
            for number in range(rounds):
                for kind in kinds[number % len(kinds):] + kinds[:number % len(kinds)]:
                    paced[kind].rounds.append(await paced_turn(players[kind], turn, pace, paced[kind].name))
            for result in paced.values():
                print(result.merged.line(echo))
            for kind in kinds:
                if kind in STORES:
                    for peer in PEERS_PACED:
                        print(paced[kind].beside(paced[peer]))
            results[words] = paced
    return results


async def measure_history(port: int, hands: int) -> tuple[float, float]:
    """Mean latency of the first and the last 50 hands' commands on one table with a long history."""
    run = Run("history")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        player = TablePlayer(svc_grpc.TableServiceStub(channel), f"h{uuid.uuid4().hex[:8]}", run)  # type: ignore[no-untyped-call]
        await player.open()
        for _ in range(hands):
            await player.hand()
    per_hand = 9
    early = statistics.mean(run.latencies[: 50 * per_hand]) * 1000
    late = statistics.mean(run.latencies[-50 * per_hand:]) * 1000
    return early, late


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
    """pokertable on one store: 16 and 200 tables flat out, a long session (its paced runs: :func:`measure_paced`,
    beside the peers)."""
    runs: list[Run] = []
    for tables in (16, 200):
        runs.append(await measure_tables(port, tables, max(1, args.calls // 9 // tables),
                                         f"{label}: {tables} tables at once"))
        print(runs[-1].line(echo))
    early, late = await measure_history(port, args.history)
    return runs, early, late


def report(sequential: dict[str, Sequential], flat: dict[str, Run], results: list[Run],
           paced: dict[str, dict[str, Paced]], history: list[tuple[str, float, float]], *, sessions: int) -> None:
    print()
    for label, early, late in history:
        print(f"  {label}: a {sessions}-hand session, mean command latency first 50 hands {early:.2f} ms, "
              f"last 50 hands {late:.2f} ms ({late / early:.2f}×)")
    echo = sequential["echo"]
    ratio = statistics.median(sequential["SQLite"].ratios(echo))
    print(f"\nEarlier targets: SQLite sequential at {ratio:.0%} of the echo's rate (median of {len(echo.rounds)} "
          "rounds; the target of 50 % is withdrawn by issue 18: a durable commit is the floor, see below)")
    null, minimal = (statistics.median(sequential[kind].ratios(echo)) for kind in ("null", "es"))
    print(f"  beside it, sequential: the null TableService at {null:.0%} of the echo, the minimal event-sourced "
          f"service at {minimal:.0%}; pokertable at {ratio / minimal:.0%} of the minimal event-sourced service")
    for by_kind in paced.values():
        for kind in STORES:
            if kind in by_kind:
                run = by_kind[kind].merged
                ok = run.errors == 0 and p99(run) <= 50
                print(f"  {by_kind[kind].title}: {run.errors} errors, p99 {p99(run):.1f} ms (≤ 50 ms): "
                      f"{'met' if ok else 'MISSED'}")
    for run in results:
        if "200 tables at once" in run.name:
            print(f"  {run.name} (flat out): {run.errors} errors, p99 {p99(run):.0f} ms; flat out, the echo's own p99 "
                  f"is {p99(flat['echo']):.0f} ms and the minimal event-sourced service's {p99(flat['es']):.0f} ms: "
                  "200 closed loops wait tables ÷ throughput, whatever the service")
    issue_18_targets(sequential, paced)


def issue_18_targets(sequential: dict[str, Sequential], paced: dict[str, dict[str, Paced]]) -> None:
    """Issue 18's targets, set against the minimal event-sourced service and SQLite of the same run (each ratio the
    median of the rounds' ratios: the servers take turns, so a slow spell falls on all of them)."""
    def ratio(kind: str, yardstick: str) -> float:
        return statistics.median(run.rate / base.rate for run, base in
                                 zip(sequential[kind].rounds, sequential[yardstick].rounds, strict=True))

    print("\nIssue 18's targets:")
    sqlite = ratio("SQLite", "es")
    print(f"  SQLite sequential at {sqlite:.2f}× the minimal event-sourced service (≥ 0.85): "
          f"{'met' if sqlite >= 0.85 else 'MISSED'}")
    if "PostgreSQL" in sequential:
        postgres = ratio("PostgreSQL", "SQLite")
        print(f"  PostgreSQL sequential at {postgres:.2f}× SQLite's (≥ 0.65): "
              f"{'met' if postgres >= 0.65 else 'MISSED'}")
    if "PostgreSQL" in paced["2 commands/s"]:
        postgres_paced = paced["2 commands/s"]["PostgreSQL"]
        run = postgres_paced.merged
        print(f"  {postgres_paced.title}: p99 {p99(run):.1f} ms (≤ 15 ms): {'met' if p99(run) <= 15 else 'MISSED'}")


async def main(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="pokertable-bench-"))
    config = workdir / "stations.toml"
    config.write_text(CONFIG, encoding="utf-8")
    config.chmod(0o600)  # station tokens in clear: its owner's only (issue 32)
    servers = {kind: start([sys.executable, "-m", "benchmarks.service_peers", f"{kind}-server"]) for kind in PEERS}
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
        paced = await measure_paced(ports, [*stores, *PEERS_PACED], args, echo)
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=10)
    report(sequential, flat, results, paced, history, sessions=args.history)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3600, help="commands in each server's sequential runs")
    parser.add_argument("--rounds", type=int, default=6, help="turns the servers take in the sequential runs")
    parser.add_argument("--history", type=int, default=600, help="hands in the long-session run")
    parser.add_argument("--paced-seconds", type=float, default=20.0,
                        help="each server's time at each croupier's pace, over all its turns")
    parser.add_argument("--paced-rounds", type=int, default=4,
                        help="turns each server takes at each pace, the servers alternating")
    parser.add_argument("--paced-tables", type=int, default=200, help="tables of the paced runs (a quick check: 20)")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/pokertable_test")
    asyncio.run(main(parser.parse_args()))
