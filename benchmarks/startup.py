"""Restart after a kill: how long from starting ``pokertable serve`` until it says it is serving, and until the first
command is acknowledged (issue 13, item 12).

A server is started on a fresh store (PostgreSQL when one answers, else SQLite), tables get a hand in progress, and
the server is killed (SIGKILL).  It is started again and, the moment it prints ``serving on``, one dealer per table
sends a command at once, as the stations of a floor do when their service comes back.  Every command needs the
hand-ranking tables (a hand is loaded), so a server that builds them in each worker thread answers late.

    python -m benchmarks.startup [--postgres URL] [--tables 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc

from benchmarks.service_load import HOLDEM, deal, postgres_url, start
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb

PIT = (("authorization", "Bearer startup-pit-boss-token-0001"),)


def _config(tables: int) -> str:
    """The pit boss and one dealer station per table."""
    dealers = "".join(f'[stations.dealer{n}]\ntoken = "startup-dealer-token-{n:06d}"\nrole = "dealer"\n'
                      f'table = "Startup {n}"\n\n' for n in range(tables))
    return f'[stations.pit]\ntoken = "{PIT[0][1].removeprefix("Bearer ")}"\nrole = "pit-boss"\n\n{dealers}'


def _dealer(n: int) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer startup-dealer-token-{n:06d}"),)


def _prepare(port: int, tables: int, prefix: str) -> None:
    """Tables with three players each and a hand in progress."""
    stub = svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))  # type: ignore[no-untyped-call]
    for n in range(tables):
        table = f"{prefix} {n}"
        stub.OpenTable(svc.OpenTableRequest(command_id=f"{prefix}-open-{n}", table=table, game=pb.GAME_HOLDEM,
                                            circle=HOLDEM), metadata=PIT)
        for seat in (1, 2, 3):
            stub.SeatPlayer(svc.SeatPlayerRequest(command_id=f"{prefix}-sit-{n}-{seat}", table=table, seat=seat,
                                                  chips=100), metadata=_dealer(n))
        stub.StartHand(svc.StartHandRequest(command_id=f"{prefix}-start-{n}", table=table), metadata=_dealer(n))


def _restart(command: list[str], tables: int, prefix: str, round_: int) -> tuple[float, float, float]:
    """Seconds from starting the server to ``serving on``, to the first acknowledged command, and to the last."""
    started = time.perf_counter()
    process, port = start(command)
    serving = time.perf_counter() - started
    acks: list[float] = []
    lock = threading.Lock()

    def dealer(n: int) -> None:
        stub = svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))  # type: ignore[no-untyped-call]
        card = f"{'23456789TJQKA'[round_ % 13]}{'cdhs'[n % 4]}"
        stub.Act(deal(f"{prefix}-r{round_}-deal-{n}", f"{prefix} {n}", card), metadata=_dealer(n), timeout=60)
        with lock:
            acks.append(time.perf_counter() - started)

    threads = [threading.Thread(target=dealer, args=(n,)) for n in range(tables)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    process.kill()
    process.wait()
    return serving, min(acks), max(acks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/pokertable_test")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="pokertable-startup-"))
    config = workdir / "stations.toml"
    config.write_text(_config(args.tables), encoding="utf-8")
    config.chmod(0o600)  # station tokens in clear: its owner's only (issue 32)
    db = postgres_url(args.postgres) or f"sqlite:///{workdir / 'startup.db'}"
    command = [sys.executable, "-m", "service.cli", "serve", "--db", db, "--port", "0", "--config", str(config)]
    process, port = start(command)
    _prepare(port, args.tables, "Startup")
    process.kill()
    process.wait()
    results = [_restart(command, args.tables, "Startup", round_) for round_ in range(args.rounds)]
    store = "PostgreSQL" if db.startswith("postgresql") else "SQLite"
    print(f"restart after a kill on {store}, {args.tables} dealers sending at once, median of {args.rounds}:")
    for label, index in (("to 'serving on'", 0), ("to the first acknowledged command", 1),
                         ("to the last acknowledged command", 2)):
        print(f"  start {label:<36} {statistics.median(r[index] for r in results):6.2f} s")
    subprocess.run(["rm", "-rf", str(workdir)], check=False)


if __name__ == "__main__":
    main()
