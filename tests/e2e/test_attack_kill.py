"""Issue 13 — attack: ``kill -9`` the server under load, on SQLite and on PostgreSQL, twice, and count.

Clients add one chip at a time to the seats of several tables, each command with its own id, as fast as the server
answers; the server is killed with SIGKILL while they do, and restarted. Afterwards:

- every acknowledged command is durable: a retry of it is answered with its first reply and changes nothing;
- every command sent (acknowledged or lost in flight) is retried until answered, after which each seat holds exactly
  its starting chips plus one per command: nothing lost, nothing applied twice.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from tests.support.chip_load import PIT, SEATS, START, TABLES, Load
from tests.support.serve_process import SCRIPT, STATIONS
from tests.support.stores import POSTGRES_URL, postgres_store


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL for ``pokertable serve``: a new SQLite file, or a fresh PostgreSQL schema (dropped after)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'tables.db'}"
        return
    schema = postgres_store()["POSTGRES_SCHEMA"]
    yield f"{POSTGRES_URL}?schema={schema}"
    import psycopg

    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        conn.execute(f"drop schema {schema} cascade")


def _serve(url: str, config: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen([SCRIPT, "serve", "--db", url, "--port", "0", "--config", str(config)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "serving on" in line, line
    return process, int(line.split(":")[1].split()[0])


def _stacks(stub: svc_grpc.TableServiceStub, table: str) -> dict[int, int]:
    return dict(stub.GetTable(svc.GetTableRequest(table=table), metadata=PIT, timeout=10).view.circle.stacks)


def _add(stub: svc_grpc.TableServiceStub, command_id: str, table: str, seat: int) -> svc.AddChipsResponse:
    for _ in range(50):
        try:
            reply: svc.AddChipsResponse = stub.AddChips(svc.AddChipsRequest(command_id=command_id, table=table,
                                                                            seat=seat, chips=1), metadata=PIT,
                                                        timeout=10)
            return reply
        except grpc.RpcError as error:
            if error.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.UNAVAILABLE):
                raise
            time.sleep(0.05)
    raise AssertionError(f"{command_id} never answered")


def _load_and_kill(database: str, config: Path, port: int, process: subprocess.Popen[str], *,
                   sent: dict[str, tuple[str, int]], acked: set[str]) -> tuple[subprocess.Popen[str], int]:
    """Two rounds: load, SIGKILL mid-load, restart; what was sent and acknowledged is added up."""
    for kill in range(2):
        load = Load(port)
        threads = [threading.Thread(target=load.run, args=(table, seat)) for table in TABLES for seat in SEATS]
        for thread in threads:
            thread.start()
        time.sleep(0.5 + 0.2 * kill)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        load.stop.set()
        for thread in threads:
            thread.join(timeout=10)
        load.channel.close()
        sent.update(load.sent)
        acked |= load.acked
        process, port = _serve(database, config)
    return process, port


def test_kill_9_under_load_loses_no_acknowledged_command_and_applies_none_twice(database: str,
                                                                                tmp_path: Path) -> None:
    config = tmp_path / "stations.toml"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    process, port = _serve(database, config)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
    settings = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2])
    for table in TABLES:
        stub.OpenTable(svc.OpenTableRequest(command_id=f"open-{table}", table=table, game=pb.GAME_HOLDEM,
                                            circle=settings), metadata=PIT)
        for seat in SEATS:
            stub.SeatPlayer(svc.SeatPlayerRequest(command_id=f"sit-{table}-{seat}", table=table, seat=seat,
                                                  chips=START), metadata=PIT)
    channel.close()
    sent: dict[str, tuple[str, int]] = {}
    acked: set[str] = set()
    try:
        process, port = _load_and_kill(database, config, port, process, sent=sent, acked=acked)
        assert len(acked) > 50, "the load must have been real"
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        before = {table: _stacks(stub, table) for table in TABLES}
        for table in TABLES:  # every acknowledged command survived the kills
            for seat in SEATS:
                durable = sum(1 for c in acked if sent[c] == (table, seat))
                assert before[table][seat] >= START + durable
        for command_id in random.Random(len(acked)).sample(sorted(acked), 40):  # a retry of one applies nothing
            _add(stub, command_id, *sent[command_id])
        assert {table: _stacks(stub, table) for table in TABLES} == before
        for command_id in sorted(set(sent) - acked):  # the commands lost in flight, retried until answered
            _add(stub, command_id, *sent[command_id])
        for table in TABLES:  # now exactly one chip per command sent: nothing lost, nothing twice
            stacks = _stacks(stub, table)
            for seat in SEATS:
                assert stacks[seat] == START + sum(1 for c in sent.values() if c == (table, seat)), (table, seat)
        channel.close()
    finally:
        process.kill()
        process.wait(timeout=10)
