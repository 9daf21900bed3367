"""Issue 17, items 3 and 4 — health that means something, and a graceful stop, tried as a casino's IT engineer would.

- Health: a private PostgreSQL instance, started by the test in a temporary folder (never the shared server), is
  stopped under a running service: health says NOT_SERVING within seconds, and SERVING again once it is back, when a
  command goes through again.
- SIGTERM during a load of commands: the process exits 0; every acknowledged command is stored (a retry of each is
  answered with its first result and changes nothing; each seat's chips are the acknowledged commands' and, at most,
  those lost in flight); a Watch stream ends UNAVAILABLE, naming where to resume, and resumed there at the restarted
  service it misses nothing and repeats nothing.
- SIGINT (Ctrl-C) ends the service and a waiting command with no traceback.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb

PIT_TOKEN = "ops-pit-boss-token-0123456789"
CONFIG = f"""
[service]
audit_every = 0
grace = 5

[stations.pit]
token = "{PIT_TOKEN}"
role = "pit-boss"
"""
PIT = [("authorization", f"Bearer {PIT_TOKEN}")]
POSTGRES_BIN = Path("/usr/lib/postgresql/15/bin")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _serve(config: Path, db: str, *extra: str) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--db", db, "--port", "0",
                                "--config", str(config), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if "serving on" not in line:
        process.kill()
        raise AssertionError(process.communicate()[1])
    found = re.search(r"serving on [^:\s]+:(\d+)", line)
    assert found is not None, line
    return process, int(found.group(1))


def _dashboard_url(process: subprocess.Popen[str]) -> str:
    """The HTTP address ``--http`` serves (the dashboard, /livez, /readyz, /metrics), as the service prints it."""
    assert process.stdout is not None
    while "pit dashboard on" not in (line := process.stdout.readline()):
        assert line, "the service stopped before its HTTP port listened"
    return line.split(" on ", 1)[1].strip().rstrip("/")


def _probe(url: str) -> tuple[int, str]:
    reply = httpx.get(url, timeout=10)
    return reply.status_code, reply.text.strip()


def _health(port: int) -> str:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(  # type: ignore[attr-defined]
                health_pb2.HealthCheckRequest(service="pokertable.v1.TableService"), timeout=3)
        except grpc.RpcError as error:
            return error.code().name
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def _until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


class PrivatePostgres:
    """A PostgreSQL cluster of the test's own in a temporary folder, on a free port, trust authentication."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, _free_port()
        self.data = folder / "data"
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        folder.mkdir(parents=True, exist_ok=True)
        if self.as_postgres:
            shutil.chown(folder, "postgres", "postgres")
        self._run(str(POSTGRES_BIN / "initdb"), "-D", str(self.data), "--auth=trust", "-U", "postgres",
                  "--no-sync")

    def _run(self, *command: str) -> None:
        subprocess.run([*self.as_postgres, *command], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._run(str(POSTGRES_BIN / "pg_ctl"), "-D", str(self.data), "-w", "-l", str(self.folder / "log"),
                  "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self) -> None:
        self._run(str(POSTGRES_BIN / "pg_ctl"), "-D", str(self.data), "-w", "-m", "immediate", "stop")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"


@pytest.fixture
def private_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivatePostgres]:
    """A private PostgreSQL (its binaries are required in CI; elsewhere a visible skip without them)."""
    if not (POSTGRES_BIN / "initdb").exists() or (os.geteuid() == 0 and not shutil.which("runuser")):
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL's server binaries are required in CI ({POSTGRES_BIN})")
        pytest.skip(f"no PostgreSQL server binaries at {POSTGRES_BIN} to start a private instance")
    folder = Path(f"/tmp/pokertable-pg-{uuid.uuid4().hex[:8]}")  # a short path: the socket's name has a limit
    server = PrivatePostgres(folder)
    server.start()
    try:
        yield server
    finally:
        subprocess.run([*server.as_postgres, str(POSTGRES_BIN / "pg_ctl"), "-D", str(server.data), "-m",
                        "immediate", "stop"], capture_output=True, check=False, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def _open_table(stub: svc_grpc.TableServiceStub, table: str) -> None:
    settings = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2], no_burns=True)
    stub.OpenTable(svc.OpenTableRequest(command_id=f"open-{table}", table=table, game=pb.GAME_HOLDEM,
                                        circle=settings), metadata=PIT, timeout=30)
    for seat in (1, 2):
        stub.SeatPlayer(svc.SeatPlayerRequest(command_id=f"sit-{table}-{seat}", table=table, seat=seat, chips=1000),
                        metadata=PIT, timeout=30)


def test_health_is_not_serving_while_the_database_is_down_and_serving_once_it_is_back(
    tmp_path: Path, private_postgres: PrivatePostgres,
) -> None:
    config = tmp_path / "pokertable.toml"
    config.write_text(CONFIG, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    process, port = _serve(config, private_postgres.url, "--http", "127.0.0.1:0")
    http = _dashboard_url(process)
    try:
        _until(lambda: _health(port) == "SERVING", "SERVING")
        assert _probe(f"{http}/readyz") == (200, "SERVING") and _probe(f"{http}/livez") == (200, "alive")
        stub = svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))  # type: ignore[no-untyped-call]
        _open_table(stub, "Mesa 1")
        private_postgres.stop()
        _until(lambda: _health(port) == "NOT_SERVING", "NOT_SERVING with the database down", timeout=20)
        assert _probe(f"{http}/readyz") == (503, "NOT_SERVING")  # a load balancer sends it nothing new
        assert _probe(f"{http}/livez") == (200, "alive")  # alive all the same: no restart would help
        # a command meanwhile: a clear status, never UNKNOWN. The service holds it while the store is down (it had
        # not answered after 200 s when tried), so what its station sees is its own deadline: 5 s shows it as 30 did
        with pytest.raises(grpc.RpcError) as refused:
            stub.AddChips(svc.AddChipsRequest(command_id="down-1", table="Mesa 1", seat=1, chips=5), metadata=PIT,
                          timeout=5)
        assert refused.value.code() != grpc.StatusCode.UNKNOWN, refused.value
        private_postgres.start()
        _until(lambda: _health(port) == "SERVING", "SERVING again with the database back", timeout=30)
        assert _probe(f"{http}/readyz") == (200, "SERVING")
        stub.AddChips(svc.AddChipsRequest(command_id="up-1", table="Mesa 1", seat=1, chips=5), metadata=PIT,
                      timeout=30)
        assert _stacks(stub, "Mesa 1")[1] in (1005, 1010)  # "down-1" may have landed before the database went
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "the store does not answer" in err and "the store answers again" in err
    assert "Traceback" not in err
    assert "stopped" in err  # the whole stop ran: calls given their grace, threads ended, then the store closed


def _stacks(stub: svc_grpc.TableServiceStub, table: str) -> dict[int, int]:
    return dict(stub.GetTable(svc.GetTableRequest(table=table), metadata=PIT, timeout=30).view.circle.stacks)


def _positions(stub: svc_grpc.TableServiceStub, table: str, after: int) -> list[int]:
    """The positions of every change of ``table`` after ``after``, as a Watch stream gives them (read for 3 s)."""
    positions: list[int] = []
    try:
        for change in stub.Watch(svc.WatchRequest(table=table, after_position=after), metadata=PIT, timeout=3):
            positions.append(change.position)
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED, error
    return positions


class Load:
    """Client threads adding a chip per command to their own seat; what was sent and what acknowledged."""

    def __init__(self, port: int) -> None:
        self.stub = svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))  # type: ignore[no-untyped-call]
        self.sent: dict[str, tuple[str, int]] = {}
        self.acked: dict[str, int] = {}

    def run(self, table: str, seat: int) -> None:
        while True:
            command_id = f"chip-{uuid.uuid4().hex}"
            self.sent[command_id] = (table, seat)
            try:
                reply = self.stub.AddChips(svc.AddChipsRequest(command_id=command_id, table=table, seat=seat,
                                                               chips=1), metadata=PIT, timeout=10)
            except grpc.RpcError as error:
                assert error.code() != grpc.StatusCode.UNKNOWN, error
                return  # the service stops: this command's fate is not known to the client
            self.acked[command_id] = reply.result.version


def test_sigterm_under_load_stores_every_acknowledged_command_exits_0_and_the_stream_resumes(tmp_path: Path) -> None:
    config, db = tmp_path / "pokertable.toml", f"sqlite:///{tmp_path / 'tables.db'}"
    config.write_text(CONFIG, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    process, port = _serve(config, db)
    load = Load(port)
    for table in ("Mesa 1", "Mesa 2"):
        _open_table(load.stub, table)
    seen: list[int] = []
    ended: list[grpc.RpcError] = []

    def watch() -> None:
        try:
            for change in load.stub.Watch(svc.WatchRequest(table="Mesa 1"), metadata=PIT):
                seen.append(change.position)
        except grpc.RpcError as error:
            ended.append(error)

    follower = threading.Thread(target=watch, daemon=True)
    follower.start()
    workers = [threading.Thread(target=load.run, args=(table, seat), daemon=True)
               for table in ("Mesa 1", "Mesa 2") for seat in (1, 2)]
    for worker in workers:
        worker.start()
    _until(lambda: len(load.acked) > 200, "a load of commands")
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    for worker in workers:
        worker.join(timeout=30)
    follower.join(timeout=30)
    assert process.returncode == 0, err
    assert "Traceback" not in err
    (stream_end,) = ended
    assert stream_end.code() == grpc.StatusCode.UNAVAILABLE, stream_end
    resume = re.search(r"after_position (\d+)", stream_end.details() or "")
    assert resume is not None and int(resume.group(1)) >= seen[-1], stream_end.details()  # (past other tables' too)

    restarted, port = _serve(config, db)  # the SQLite claim was released
    try:
        stub = svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))  # type: ignore[no-untyped-call]
        chips = {table: _stacks(stub, table) for table in ("Mesa 1", "Mesa 2")}
        for table in ("Mesa 1", "Mesa 2"):
            for seat in (1, 2):
                acked = sum(1 for command, place in load.sent.items() if place == (table, seat)
                            and command in load.acked)
                in_flight = sum(1 for command, place in load.sent.items() if place == (table, seat)
                                and command not in load.acked)
                assert 1000 + acked <= chips[table][seat] <= 1000 + acked + in_flight, (table, seat)
        for command, version in list(load.acked.items())[:: max(1, len(load.acked) // 50)]:
            table, seat = load.sent[command]
            again = stub.AddChips(svc.AddChipsRequest(command_id=command, table=table, seat=seat, chips=1),
                                  metadata=PIT, timeout=30)
            assert again.result.version == version  # the first result: stored once, not applied again
        assert {table: _stacks(stub, table) for table in ("Mesa 1", "Mesa 2")} == chips
        stub.AddChips(svc.AddChipsRequest(command_id="after-restart", table="Mesa 1", seat=1, chips=1),
                      metadata=PIT, timeout=30)
        resumed = _positions(stub, "Mesa 1", after=int(resume.group(1)))
        assert resumed and resumed[0] > seen[-1] and len(set(resumed)) == len(resumed)  # none skipped, none twice
        assert _positions(stub, "Mesa 1", after=0) == seen + resumed  # what was seen, then the rest: nothing else
    finally:
        restarted.send_signal(signal.SIGINT)  # Ctrl-C: the same orderly stop
        _, err = restarted.communicate(timeout=60)
    assert restarted.returncode == 0 and "Traceback" not in err, err


def test_sigterm_with_the_dashboard_s_live_streams_open_exits_0_at_once_and_quietly(tmp_path: Path) -> None:
    """Browsers on the floor and on a table (server-sent events that never end by themselves): the stop ends them,
    the process exits 0 within its grace, and its log has no error and no traceback."""
    config, db = tmp_path / "pokertable.toml", f"sqlite:///{tmp_path / 'tables.db'}"
    config.write_text(CONFIG, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    process, port = _serve(config, db, "--http", "127.0.0.1:0")
    http = _dashboard_url(process)
    _open_table(svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}")),  # type: ignore[no-untyped-call]
                "Mesa 1")
    opened: list[str] = []

    def browse(path: str) -> None:
        with httpx.Client(base_url=http, timeout=None) as browser:
            browser.post("/signin", data={"station": "pit", "token": PIT_TOKEN})
            try:
                with browser.stream("GET", path) as events:
                    opened.append(path)
                    for _ in events.iter_lines():
                        pass
            except httpx.HTTPError:
                pass

    browsers = [threading.Thread(target=browse, args=(path,), daemon=True)
                for path in ("/events/floor", "/events/floor", "/events/tables/Mesa 1")]
    for browser in browsers:
        browser.start()
    _until(lambda: len(opened) == 3, "the live streams open")
    time.sleep(0.5)
    stopped = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert time.monotonic() - stopped < 8  # within the grace (5 s here) and a second for the web's own stop
    # no error of the stop (the host's clock, which a test machine may not synchronise, is said apart: its own logger)
    stop_errors = [line for line in err.splitlines() if " ERROR " in line and "pokertable.clock" not in line]
    assert "Traceback" not in err and not stop_errors, err
    for browser in browsers:
        browser.join(timeout=10)
        assert not browser.is_alive()  # each stream ended: the browser's EventSource reconnects elsewhere
