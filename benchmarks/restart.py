"""Restart after a kill -9 under load (issue 18): how soon after the restarted service says SERVING its stations'
commands are acknowledged again.

One ``pokertable serve`` (PostgreSQL when one answers, else SQLite; the service's defaults, its audit of the log at
start included) on a fixed port; ``--tables`` stations play fold-to-the-big-blind Hold'em hands flat out, each on its
own channel with the stations' reconnection settings (:data:`service.station.RECONNECT`), retrying a command that got
no answer with the same command id, as a station does. After ``--load`` seconds the service is killed (SIGKILL) and
started again at once on the same port; a watcher asks the standard health service every 10 ms. Measured for each
of ``--rounds`` kills: kill to SERVING, SERVING to the first acknowledged command, and SERVING to the moment every
table has had a command acknowledged. Target (issue 18): the first command within 1 s of SERVING.

    python -m benchmarks.restart [--tables 16] [--rounds 3] [--load 5]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from benchmarks.service_load import CARDS, CONFIG, HOLDEM, METADATA, deal, postgres_url, start
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.station import RECONNECT

RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED)
"""No answer (the service went away mid-call): the same command again, with the same id (exactly once, R-AUD-1)."""


class Station(threading.Thread):
    """One table's station: hand after hand, each command retried with its id until it is acknowledged."""

    def __init__(self, port: int, table: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=RECONNECT)
        self.stub = svc_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.table, self.stop, self.n, self.hands = table, stop, 0, 0
        self.acks: list[float] = []
        self.refused: list[str] = []

    def cid(self) -> str:
        self.n += 1
        return f"{self.table}-{self.n}"

    def call(self, method: str, request: object) -> None:
        while not self.stop.is_set():
            try:
                getattr(self.stub, method)(request, metadata=METADATA, timeout=5, wait_for_ready=True)
            except grpc.RpcError as error:
                if error.code() in RETRIED:
                    continue  # no answer: the same command again, with the same id
                self.refused.append(f"{method}: {error.code().name} {error.details()}")
            self.acks.append(time.perf_counter())
            return

    def open(self) -> None:
        self.call("OpenTable", svc.OpenTableRequest(command_id=self.cid(), table=self.table, game=pb.GAME_HOLDEM,
                                                    circle=HOLDEM))
        for seat in (1, 2, 3):
            self.call("SeatPlayer", svc.SeatPlayerRequest(command_id=self.cid(), table=self.table, seat=seat,
                                                          chips=1_000_000))

    def run(self) -> None:
        while not self.stop.is_set():
            self.hands += 1
            button = (self.hands - 1) % 3 + 1
            self.call("StartHand", svc.StartHandRequest(command_id=self.cid(), table=self.table))
            for card in CARDS:
                self.call("Act", deal(self.cid(), self.table, card))
            for seat in (button, button % 3 + 1):
                self.call("Act", svc.ActRequest(command_id=self.cid(), table=self.table,
                                                command=cmd.Command(fold=cmd.Fold(seat=seat))))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _watch_health(port: int, stop: threading.Event, serving: list[float]) -> None:
    """Every 10 ms: is the service SERVING? The moments it said so."""
    channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=RECONNECT)
    health = health_pb2_grpc.HealthStub(channel)
    while not stop.is_set():
        try:
            reply = health.Check(health_pb2.HealthCheckRequest(), timeout=0.5)  # type: ignore[attr-defined]
            if reply.status == health_pb2.HealthCheckResponse.SERVING:
                serving.append(time.perf_counter())
        except grpc.RpcError:
            pass
        time.sleep(0.01)
    channel.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/pokertable_test")
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--load", type=float, default=5.0, help="seconds of load before each kill")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="pokertable-restart-"))
    config = workdir / "stations.toml"
    config.write_text(CONFIG, encoding="utf-8")
    config.chmod(0o600)  # station tokens in clear: its owner's only (issue 32)
    db = postgres_url(args.postgres) or f"sqlite:///{workdir / 'restart.db'}"
    port = _free_port()
    command = [sys.executable, "-m", "service.cli", "serve", "--db", db, "--port", str(port), "--config", str(config)]
    process, _ = start(command)
    stop = threading.Event()
    stations = [Station(port, f"r{uuid.uuid4().hex[:8]}", stop) for _ in range(args.tables)]
    for station in stations:
        station.open()
        station.start()
    serving: list[float] = []
    watcher = threading.Thread(target=_watch_health, args=(port, stop, serving), daemon=True)
    watcher.start()
    results = []
    try:
        for _ in range(args.rounds):
            time.sleep(args.load)
            process.kill()
            process.wait()
            killed = time.perf_counter()
            process, _ = start(command)
            while not [moment for moment in serving if moment > killed]:
                time.sleep(0.005)
            up = min(moment for moment in serving if moment > killed)
            while not all(any(ack > up for ack in station.acks) for station in stations):
                time.sleep(0.005)
            first = min(ack for station in stations for ack in station.acks if ack > killed)
            every = max(min(ack for ack in station.acks if ack > killed) for station in stations)
            results.append((up - killed, first - up, every - up))
    finally:
        stop.set()
        process.terminate()
        process.wait(timeout=30)
        subprocess.run(["rm", "-rf", str(workdir)], check=False)
    store = "PostgreSQL" if db.startswith("postgresql") else "SQLite"
    refused = [reason for station in stations for reason in station.refused]
    print(f"kill -9 under load on {store}: {args.tables} stations flat out, {args.rounds} kills, median (max); "
          f"{len(refused)} commands refused in all")
    for reason in refused[:5]:
        print(f"    refused: {reason}")
    for label, index in (("kill to SERVING", 0), ("SERVING to the first acknowledged command", 1),
                         ("SERVING to every table acknowledged", 2)):
        values = [result[index] for result in results]
        print(f"  {label:<44} {statistics.median(values):6.2f} s ({max(values):.2f} s)")
    first = statistics.median(result[1] for result in results)
    print(f"  target: the first command within 1 s of SERVING: {'met' if first <= 1.0 else 'MISSED'}")


if __name__ == "__main__":
    main()
