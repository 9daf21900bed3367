"""Issue 17, item 6: ``pokertable backup`` and ``pokertable restore`` (docs/ops/backup.md; R-AUD-1).

- A backup taken while a real ``pokertable serve`` is under load (SQLite, with the service holding its sole-writer
  claim; PostgreSQL, in a fresh schema) restores into a new store whose log ``audit verify`` finds clean, signed
  heads included, ending at the head the backup printed, and holding every command acknowledged before the backup
  started.
- Refusals: a store that is not empty, a file that is not a backup, a file a service holds, a destination that
  cannot be written, a backup of the wrong kind: one line on standard error, exit 1 (2 for usage), nothing created.
- The password of a PostgreSQL URL is never printed, and never on ``pg_dump``'s command line (its environment only).
"""

from __future__ import annotations

import doctest
import os
import re
import signal
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import grpc
import pytest
from eventsourcing.application import AggregateNotFoundError

import service.store.backup
import service.store.backup_files
import service.store.backup_postgres
from domain.circle.settings import BettingStructure, TableSettings
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.app.application import PokerTables, ProcessedCommand
from service.app.commands import OpenTable, Sit
from service.bootstrap import open_store
from service.store.backup import SQLITE_TABLES
from service.store.backup_postgres import POSTGRES_TABLES
from service.store.persistence import claim_sole_writer
from tests.support.backups import _url, pokertable
from tests.support.backups import pg_database as pg_database  # noqa: PLC0414  (a fixture)
from tests.support.backups import pg_schema as pg_schema  # noqa: PLC0414  (a fixture)
from tests.support.chip_load import PIT, SEATS, START, TABLES, Load
from tests.support.serve_process import SCRIPT, STATIONS

HEAD = re.compile(r"\d+:[0-9a-f]{64}")
SECRET = "Backup-S3cret%40pw"
"""The password put in PostgreSQL URLs (percent-encoded ``@``): trust authentication ignores it."""


def refused(done: subprocess.CompletedProcess[str], status: int = 1) -> str:
    """A refusal: the exit status, nothing on standard output, one line on standard error (returned)."""
    assert done.returncode == status, done.stdout + done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.fixture(params=["sqlite", "postgres"])
def places(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """Where the service runs and where its backup is restored: two SQLite files, or a fresh PostgreSQL schema and
    the same schema in a fresh database (both dropped after)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'tables.db'}", f"sqlite:///{tmp_path / 'restored' / 'tables.db'}"
    schema = request.getfixturevalue("pg_schema")
    return _url(schema), _url(schema, database=request.getfixturevalue("pg_database"))


def _serve(url: str, config: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen([SCRIPT, "serve", "--db", url, "--port", "0", "--config", str(config),
                                "--sign-every", "25"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "serving on" in line, line
    return process, int(line.split(":")[1].split()[0])


def _open_tables(port: int) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        settings = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2])
        for table in TABLES:
            stub.OpenTable(svc.OpenTableRequest(command_id=f"open-{table}", table=table, game=pb.GAME_HOLDEM,
                                                circle=settings), metadata=PIT, timeout=10)
            for seat in SEATS:
                stub.SeatPlayer(svc.SeatPlayerRequest(command_id=f"sit-{table}-{seat}", table=table, seat=seat,
                                                      chips=START), metadata=PIT, timeout=10)


def _recorded(app: PokerTables, command_id: str) -> bool:
    try:
        app.repository.get(ProcessedCommand.create_id(command_id))
    except AggregateNotFoundError:
        return False
    return True


def _backup_under_load(live: str, backup: Path, config: Path) -> tuple[subprocess.CompletedProcess[str],
                                                                        dict[str, tuple[str, int]], set[str], int]:
    """Serve ``live``, load it from a client thread per seat, and take a backup meanwhile: the backup's run, what
    was sent, what was acknowledged before it started, and how many acknowledgements came while it ran."""
    process, port = _serve(live, config)
    try:
        _open_tables(port)
        load = Load(port)
        threads = [threading.Thread(target=load.run, args=(table, seat)) for table in TABLES for seat in SEATS]
        for thread in threads:
            thread.start()
        try:
            deadline = time.monotonic() + 60
            while len(load.acked) < 100 and time.monotonic() < deadline:
                time.sleep(0.05)
            before = load.acked.copy()  # one C-level copy: consistent while the clients add to it
            done = pokertable("backup", "--db", live, "--to", str(backup), "--config", str(config))  # its key
            during = len(load.acked) - len(before)
        finally:
            load.stop.set()
            for thread in threads:
                thread.join(timeout=15)
            load.channel.close()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    return done, load.sent, before, during


def test_a_backup_taken_under_load_restores_every_command_acknowledged_before_it_and_verifies_clean(
        places: tuple[str, str], tmp_path: Path) -> None:
    live, target = places
    config, backup = tmp_path / "stations.toml", tmp_path / "backups" / "tables.backup"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    backup.parent.mkdir()
    (tmp_path / "restored").mkdir()

    done, sent, before, during = _backup_under_load(live, backup, config)

    assert done.returncode == 0, done.stderr
    assert len(before) >= 100, "the load must have been real"
    assert during > 0, "the service kept acknowledging commands while the backup ran"
    head = done.stdout.strip()
    assert HEAD.fullmatch(head), done.stdout
    assert f"chain head at position {head.split(':')[0]}" in done.stderr
    assert oct(backup.stat().st_mode & 0o777) == "0o600", "a backup holds every card: its owner's alone"
    assert sorted(path.name for path in backup.parent.iterdir()) == [backup.name], "no partial file left"

    public = tmp_path / "public.pem"
    key = pokertable("audit", "key", "--signing-key", str(tmp_path / "signing.key"))
    assert key.returncode == 0, key.stdout
    public.write_text(key.stdout, encoding="utf-8")

    restored = pokertable("restore", "--from", str(backup), "--db", target, "--public-key", str(public))
    assert restored.returncode == 0, restored.stdout + restored.stderr
    verdict = restored.stdout.splitlines()
    assert verdict[0].startswith("clean: ") and verdict[0].endswith(f"chain head {head}"), restored.stdout
    assert "every one valid" in verdict[1], restored.stdout  # the signed heads went along, and still check
    assert "its end signed" in done.stderr  # the service's key, found beside its configuration (issue 29)
    assert verdict[-1].startswith(f"backup end: the log ends at position {head.split(':')[0]} as the backup's "
                                  "end says, signed with key "), restored.stdout

    audit = pokertable("audit", "verify", "--db", target, "--public-key", str(public), "--head", head)
    assert audit.returncode == 0, audit.stdout
    assert audit.stdout.startswith("clean: ") and "every one valid" in audit.stdout, audit.stdout

    with open_store(target, must_exist=True) as store:
        missing = sorted(command for command in before if not _recorded(store.app, command))
        assert not missing, f"{len(missing)} acknowledged commands missing from the backup, e.g. {missing[:3]}"
        for table in TABLES:
            stacks = store.app.table(table).stacks
            for seat in SEATS:
                acknowledged = sum(1 for command in before if sent[command] == (table, seat))
                assert stacks[seat] >= START + acknowledged, (table, seat)


# -- refusals -----------------------------------------------------------------------------------------------------


@pytest.fixture
def small_store(tmp_path: Path) -> str:
    """An SQLite store holding a table with a player."""
    url = f"sqlite:///{tmp_path / 'live.db'}"
    with open_store(url, writer=True) as store:
        store.app.handle(OpenTable("open", "Mesa 1", TableSettings.create("holdem", BettingStructure.NO_LIMIT,
                                                                          blinds=(1, 2))))
        store.app.handle(Sit("sit", "Mesa 1", 1, 100))
        assert store.app.recorder.events_table_name == SQLITE_TABLES[0]  # type: ignore[attr-defined]
        assert store.app.recorder.chain_table == SQLITE_TABLES[1]  # type: ignore[attr-defined]
    return url


@pytest.fixture
def backup_file(small_store: str, tmp_path: Path) -> Path:
    backup = tmp_path / "live.backup"
    done = pokertable("backup", "--db", small_store, "--to", str(backup))
    assert done.returncode == 0, done.stderr
    return backup


def _listing(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def test_restore_over_a_store_that_is_not_empty_is_refused_without_force(backup_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with open_store(f"sqlite:///{other}", writer=True) as store:
        store.app.handle(OpenTable("open", "Mesa 9", TableSettings.create("holdem", BettingStructure.NO_LIMIT,
                                                                    blinds=(1, 2))))
    before = other.read_bytes()
    message = refused(pokertable("restore", "--from", str(backup_file), "--db", f"sqlite:///{other}"))
    assert "is not empty" in message and "--force" in message, message
    assert other.read_bytes() == before, "the store was left as it was"

    forced = pokertable("restore", "--from", str(backup_file), "--db", f"sqlite:///{other}", "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert forced.stdout.startswith("clean: 4 events"), forced.stdout
    with open_store(f"sqlite:///{other}", must_exist=True) as store:
        assert store.app.table_names() == ["Mesa 1"]  # the backup's, nothing of Mesa 9


def test_restore_of_a_file_that_is_not_a_backup_is_refused_and_creates_nothing(backup_file: Path,
                                                                               tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shift notes, not a backup\n", encoding="utf-8")
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE players (name TEXT)")
    connection.close()
    truncated = tmp_path / "truncated.backup"
    truncated.write_bytes(backup_file.read_bytes()[:6000])
    fake_dump = tmp_path / "fake.dump"
    fake_dump.write_bytes(b"PGDMP" + os.urandom(200))
    before = _listing(tmp_path)
    target = f"sqlite:///{tmp_path / 'new.db'}"

    assert "is not a pokertable backup (neither an SQLite database nor a pg_dump archive)" in \
        refused(pokertable("restore", "--from", str(notes), "--db", target))
    assert "not a pokertable backup (no stored_events table)" in \
        refused(pokertable("restore", "--from", str(foreign), "--db", target))
    assert re.search(r"not a pokertable backup|is damaged", refused(pokertable("restore", "--from", str(truncated),
                                                                              "--db", target)))
    assert "restore it to a postgresql:// URL" in refused(pokertable("restore", "--from", str(fake_dump), "--db",
                                                                     target))
    assert "restore it to an sqlite:/// URL" in refused(pokertable("restore", "--from", str(backup_file), "--db",
                                                                   "postgresql://postgres@127.0.0.1/pokertable"))
    assert "cannot read the backup" in refused(pokertable("restore", "--from", str(tmp_path / "absent.backup"),
                                                          "--db", target))
    assert _listing(tmp_path) == before, "nothing created"


def test_a_pg_dump_archive_that_pg_restore_cannot_read_is_not_a_backup(tmp_path: Path) -> None:
    fake_dump = tmp_path / "fake.dump"
    fake_dump.write_bytes(b"PGDMP" + bytes(200))
    message = refused(pokertable("restore", "--from", str(fake_dump), "--db", _url("t_nowhere", password=SECRET)))
    assert "is not a pokertable backup (pg_restore cannot read it)" in message, message
    assert "S3cret" not in message


def test_restore_into_a_file_a_service_holds_is_refused_even_with_force(backup_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "held.db"
    claim = claim_sole_writer(f"sqlite:///{target}")  # as 'pokertable serve' holds its file
    try:
        message = refused(pokertable("restore", "--from", str(backup_file), "--db", f"sqlite:///{target}", "--force"))
    finally:
        assert claim is not None
        claim.release()
    assert "is being written by" in message and "stop that service first" in message, message
    assert target.stat().st_size == 0, "nothing written into it"


def test_a_backup_into_a_destination_that_cannot_be_written_is_refused_and_creates_nothing(
        small_store: str, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    (tmp_path / "a-directory").mkdir()
    before = _listing(tmp_path)
    for destination, says in ((tmp_path / "missing" / "b.backup", "No such file or directory"),
                              (tmp_path / "a-file" / "b.backup", "Not a directory"),
                              (tmp_path / "a-directory", "is a directory"),
                              (Path("/proc/pokertable.backup"), "cannot write the backup")):
        message = refused(pokertable("backup", "--db", small_store, "--to", str(destination)))
        assert says in message, message
    assert _listing(tmp_path) == before, "nothing created"
    assert not Path("/proc/pokertable.backup").exists()


def test_a_backup_never_replaces_a_file_unless_forced(small_store: str, backup_file: Path) -> None:
    kept = backup_file.read_bytes()
    message = refused(pokertable("backup", "--db", small_store, "--to", str(backup_file)))
    assert "exists" in message and "--force" in message
    assert backup_file.read_bytes() == kept
    database = small_store.removeprefix("sqlite:///")
    assert "is the database itself" in refused(pokertable("backup", "--db", small_store, "--to", database, "--force"))
    assert pokertable("backup", "--db", small_store, "--to", str(backup_file), "--force").returncode == 0


def test_usage_errors_exit_2(small_store: str, tmp_path: Path) -> None:
    assert pokertable("backup", "--db", small_store).returncode == 2  # no --to
    assert pokertable("restore", "--from", str(tmp_path / "x.backup")).returncode == 2  # no --db
    message = refused(pokertable("backup", "--db", "mysql://casino/tables", "--to", str(tmp_path / "x")), 2)
    assert "unsupported database URL" in message
    message = refused(pokertable("backup", "--db", f"postgresql://casino:{SECRET}@/tables", "--to",
                                 str(tmp_path / "x")), 2)
    assert "names a host and a database" in message and "S3cret" not in message, message
    assert not (tmp_path / "x").exists()


def test_a_postgres_backup_without_pg_dump_says_what_to_do(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    message = refused(pokertable("backup", "--db", _url("t_any", password=SECRET), "--to",
                                 str(tmp_path / "casino.dump"), env={**os.environ, "PATH": str(empty)}))
    assert "pg_dump is not on PATH" in message and "postgresql-client" in message, message
    assert "S3cret" not in message
    assert _listing(tmp_path) == ["bin"]


def test_the_service_module_examples_hold() -> None:
    results = [doctest.testmod(module) for module in (service.store.backup, service.store.backup_files,
                                                      service.store.backup_postgres)]
    assert sum(result.attempted for result in results) >= 5 and not any(result.failed for result in results)


# -- PostgreSQL: the password --------------------------------------------------------------------------------------


def _fake_client(directory: Path, name: str, body: str) -> None:
    directory.mkdir(exist_ok=True)
    program = directory / name
    program.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    program.chmod(0o755)


def test_the_postgres_password_is_never_printed_and_never_on_a_command_line(pg_schema: str, pg_database: str,
                                                                             tmp_path: Path) -> None:
    live, elsewhere = _url(pg_schema, password=SECRET), _url(pg_schema, database=pg_database, password=SECRET)
    with open_store(live) as store:
        assert (store.app.recorder.events_table_name,  # type: ignore[attr-defined]
                store.app.recorder.chain_table) == POSTGRES_TABLES  # type: ignore[attr-defined]
        store.app.handle(OpenTable("open", "Mesa 1", TableSettings.create("holdem", BettingStructure.NO_LIMIT,
                                                                    blinds=(1, 2))))
    backup = tmp_path / "casino.dump"
    runs = [
        made := pokertable("backup", "--db", live, "--to", str(backup)),
        pokertable("restore", "--from", str(backup), "--db", live),  # the live schema: not empty
        pokertable("restore", "--from", str(backup), "--db", _url("t_other", password=SECRET)),  # another schema
        restored := pokertable("restore", "--from", str(backup), "--db", elsewhere),
        pokertable("backup", "--db", _url(pg_schema, password=SECRET, port=1), "--to", str(tmp_path / "nowhere.dump")),
        pokertable("backup", "--db", _url("t_absent", password=SECRET), "--to", str(tmp_path / "absent.dump")),
    ]
    assert made.returncode == 0, made.stderr
    assert restored.returncode == 0 and restored.stdout.startswith("clean: 2 events"), restored.stdout
    assert "is not empty" in refused(runs[1])
    assert "holds the schema" in refused(runs[2]) and f"?schema={pg_schema}" in runs[2].stderr
    assert "cannot connect to" in refused(runs[4])
    assert "holds no pokertable store" in refused(runs[5])
    assert ":***@" in made.stderr
    for done in runs:
        printed = done.stdout + done.stderr
        assert "S3cret" not in printed, printed
    assert sorted(path.name for path in tmp_path.iterdir()) == ["casino.dump"], "nothing else created"

    # pg_dump (a stand-in here, that records what it was given) sees the password in its environment only
    fake = tmp_path / "fake-bin"
    _fake_client(fake, "pg_dump", f'printf "%s\\n" "$@" > {tmp_path}/argv; printf "%s" "$PGPASSWORD" > '
                                  f'{tmp_path}/password; echo "pg_dump: error: disk full" >&2; exit 1')
    failed = pokertable("backup", "--db", live, "--to", str(tmp_path / "second.dump"),
                        env={**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"})
    assert refused(failed) == "pokertable backup: pg_dump failed: disk full"
    argv = (tmp_path / "argv").read_text(encoding="utf-8")
    assert "--format=custom" in argv and f'--schema="{pg_schema}"' in argv, argv
    assert "S3cret" not in argv and "password=" not in argv, argv
    assert (tmp_path / "password").read_text(encoding="utf-8") == "Backup-S3cret@pw"
    assert not (tmp_path / "second.dump").exists()

    # the password kept off the command line of pokertable itself too, as the service reads it
    secret_file = tmp_path / "db.password"
    secret_file.write_text("From-A-F1le\n", encoding="utf-8")
    for extra, environ, expected in (([], {"POKERTABLE_DB_PASSWORD": "From-The-Env1ron"}, "From-The-Env1ron"),
                                     (["--db-password-file", str(secret_file)], {}, "From-A-F1le")):
        failed = pokertable("backup", "--db", _url(pg_schema), "--to", str(tmp_path / "third.dump"), *extra,
                            env={**os.environ, **environ, "PATH": f"{fake}:{os.environ['PATH']}"})
        assert refused(failed) == "pokertable backup: pg_dump failed: disk full"
        assert (tmp_path / "password").read_text(encoding="utf-8") == expected
        assert expected not in (tmp_path / "argv").read_text(encoding="utf-8")


def test_ctrl_c_during_a_backup_exits_130_quietly_and_leaves_nothing(pg_schema: str, tmp_path: Path) -> None:
    live = _url(pg_schema)
    with open_store(live):
        pass  # the store's tables
    fake = tmp_path / "fake-bin"
    _fake_client(fake, "pg_dump", f"echo $$ > {tmp_path}/started; exec sleep 60")
    backups = tmp_path / "backups"
    backups.mkdir()
    process = subprocess.Popen([SCRIPT, "backup", "--db", live, "--to", str(backups / "casino.dump")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"})
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert out == "" and "Traceback" not in err and err.count("\n") == 1, err
    assert _listing(backups) == [], "no partial backup left"
    child = int((tmp_path / "started").read_text(encoding="utf-8"))
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)  # pg_dump was stopped with it
