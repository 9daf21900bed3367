"""The client side of the service benchmarks (benchmarks/service.py, benchmarks/flood.py, benchmarks/startup.py):
a measurement's latencies, a server process started and its port read, a table played fold-to-the-big-blind hand
after hand through pokertable.v1 (``StartHand``, ``Act`` deals and folds), and a fresh PostgreSQL schema."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb

TOKEN = "bench-pit-boss-token-0123456789"
CONFIG = f'[stations.bench]\ntoken = "{TOKEN}"\nrole = "pit-boss"\n'
METADATA = (("authorization", f"Bearer {TOKEN}"),)
CARDS = ("As", "Kd", "Qh", "Ac", "Kc", "Qs")
HOLDEM = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2], no_burns=True)
"""The benchmarks' table: no-limit Hold'em 1/2 without burns (six deals to a hand of three)."""


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


def p99(run: Run) -> float:
    """The 99th percentile latency of a run, in milliseconds."""
    return sorted(run.latencies)[int(len(run.latencies) * 0.99)] * 1000


def start(command: list[str], cwd: Path | None = None) -> tuple[subprocess.Popen[str], int]:
    """A server process (run in ``cwd``: another checkout's); it prints its port on its first line."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    assert process.stdout is not None
    line = process.stdout.readline()
    if "serving on" not in line:
        raise RuntimeError(f"server did not start: {line} {process.stderr.read() if process.stderr else ''}")
    match = re.search(r"serving on [^:\s]+:(\d+)", line)
    assert match is not None, line
    return process, int(match.group(1))


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
                             dbname="postgres", autocommit=True, connect_timeout=3) as admin:
            if not admin.execute("select 1 from pg_database where datname = %s", (env["POSTGRES_DBNAME"],)).fetchone():
                admin.execute(f'create database "{env["POSTGRES_DBNAME"]}"')  # a fresh machine: the first run
        with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                             dbname=env["POSTGRES_DBNAME"], autocommit=True, connect_timeout=3) as conn:
            conn.execute(f"create schema {schema}")
        return f"{base}?schema={schema}"
    except Exception:
        return None


def deal(command_id: str, table: str, card: str) -> svc.ActRequest:
    """The croupier deals ``card``."""
    return svc.ActRequest(command_id=command_id, table=table,
                          command=cmd.Command(deal=cmd.Deal(card=card, source=pb.CARD_SOURCE_CROUPIER)))


OPENING_AT_ONCE = 50
"""Tables opened at once by :func:`open_tables`: opening is not measured, and 200 tables opened at once on one
channel (four calls each) sometimes had a call refused with RST_STREAM code 7 (REFUSED_STREAM: past the server's
256 streams a connection, counted before the client had seen the server's limit or the ends of its last calls)."""


async def open_tables(players: Sequence[TablePlayer]) -> None:
    """Open the players' tables and seat their players, :data:`OPENING_AT_ONCE` tables at a time."""
    gate = asyncio.Semaphore(OPENING_AT_ONCE)

    async def opened(player: TablePlayer) -> None:
        async with gate:
            await player.open()

    await asyncio.gather(*(opened(player) for player in players))


class TablePlayer:
    """Plays fold-to-the-big-blind hands at one table, timing every command."""

    def __init__(self, stub: svc_grpc.TableServiceStub, table: str, run: Run) -> None:
        self.stub, self.table, self.run, self.n, self.hands = stub, table, run, 0, 0
        self.pending: list[tuple[str, object]] = []
        """The rest of a hand :meth:`play_until` stopped in."""

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
        await self.stub.OpenTable(svc.OpenTableRequest(command_id=self.cid(), table=self.table, game=pb.GAME_HOLDEM,
                                                       circle=HOLDEM), metadata=METADATA)
        for seat in (1, 2, 3):
            await self.stub.SeatPlayer(svc.SeatPlayerRequest(command_id=self.cid(), table=self.table, seat=seat,
                                                             chips=1_000_000), metadata=METADATA)

    def hand_steps(self) -> list[tuple[str, object]]:
        """The next hand's commands: start, six deals, the button and the small blind fold."""
        self.hands += 1
        button = (self.hands - 1) % 3 + 1
        small_blind = button % 3 + 1
        return [
            ("StartHand", svc.StartHandRequest(command_id=self.cid(), table=self.table)),
            *(("Act", deal(self.cid(), self.table, card)) for card in CARDS),
            *(("Act", svc.ActRequest(command_id=self.cid(), table=self.table,
                                     command=cmd.Command(fold=cmd.Fold(seat=seat))))
              for seat in (button, small_blind)),  # three-handed, the button acts first before the flop
        ]

    async def paced_command(self, method: str, request: object, pace: float) -> None:
        """One command, then a wait until ``pace`` seconds after it was sent (a croupier's rate)."""
        started = time.perf_counter()
        await self.command(method, request)
        if pace:
            await asyncio.sleep(max(0.0, pace - (time.perf_counter() - started)))

    async def hand(self, pace: float = 0.0) -> None:
        """One hand: start, six deals, the button and the small blind fold; with ``pace``, a command every ``pace``
        seconds (a croupier's rate)."""
        for method, request in self.hand_steps():
            await self.paced_command(method, request, pace)

    async def play_until(self, deadline: float, pace: float, run: Run) -> None:
        """A command every ``pace`` seconds until ``deadline`` (``time.perf_counter``), timed into ``run``, hand after
        hand; a hand the deadline cuts goes on at the next call, where it stopped (the table waits mid-hand, as it
        does between two of the croupier's actions), so that turns of a few seconds each add up to one long session."""
        self.run = run
        while time.perf_counter() < deadline:
            if not self.pending:
                self.pending = self.hand_steps()
            method, request = self.pending.pop(0)
            await self.paced_command(method, request, pace)
