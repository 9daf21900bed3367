"""Read-only inspection (issue 29, item 6; R-AUD-1, R-THB-13): ``pokertable reconstruct``, ``history``, ``export`` and
``hands`` open the store read-only, so that an evidence copy (``chmod 400``, in a read-only directory) is inspected
without a byte of it, or of its directory, changing; on PostgreSQL in read-only sessions, which the server refuses
to write through.  A *recorded* reconstruction (R-THB-13) is a command of the running service: ``reconstruct --record
--server``.

Run as root (a container), ``chmod`` binds nobody: the commands are then run as the user ``nobody`` (``setpriv``),
owner of the copy, so that the permissions are really enforced."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote
from uuid import UUID

import pytest

from service.app.application import PokerTables
from service.app.commands import AddChips
from service.bootstrap import open_store
from service.cli.main import main
from service.cli.reconstruct import StoreUnusableError, history_document, open_read_only
from service.grpc.server import Stations
from service.store.persistence import READ_ONLY, environment
from tests.support.app_play import _play_recording
from tests.support.grpc_support import serving
from tests.support.stores import POSTGRES_URL, postgres_store

SCRIPT = shutil.which("pokertable", path=str(Path(sys.executable).parent)) or "pokertable"
SETPRIV = shutil.which("setpriv")
AS_NOBODY = os.geteuid() == 0 and SETPRIV is not None
"""Root ignores ``chmod``: the inspections then run as ``nobody``, for whom a mode of 0400 and 0555 hold."""
ENFORCED = os.geteuid() != 0 or AS_NOBODY
"""Whether a read-only directory is really read-only to the inspecting process."""
TABLE = "Mesa R"


@dataclass(frozen=True)
class Played:
    """A store with one hand of ``Mesa R`` played (tests.support.app_play), and what the service knew of it."""

    path: Path
    hand_id: UUID
    events: int
    history: dict[str, Any]  # the table at position 5, as table_at gives it


def _play(path: Path) -> Played:
    app = PokerTables(env=environment(f"sqlite:///{path}"))
    try:
        hand_id, _ = _play_recording(app)
        history = json.loads(json.dumps(history_document(app.views.table_at(TABLE, position=5)), default=str))
        events = app.recorder.max_notification_id() or 0
    finally:
        app.close()  # checkpointed: the file alone holds the log
    return Played(path, hand_id, events, history)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The store the evidence copies are taken from (played once for the module)."""
    return _play(tmp_path_factory.mktemp("live") / "tables.db")


@dataclass
class Evidence:
    """A copy of a store in a directory of its own, both made read-only: ``file`` (0400) in ``directory`` (0555)."""

    directory: Path
    file: Path

    @property
    def url(self) -> str:
        """The copy's ``--db``."""
        return f"sqlite:///{self.file}"

    def state(self) -> tuple[dict[str, str], list[tuple[str, int, int, int]]]:
        """Every file's SHA-256, and the directory's listing (name, mode, size, modification time)."""
        digests = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in self.directory.iterdir()}
        listing = sorted((path.name, path.stat().st_mode, path.stat().st_size, path.stat().st_mtime_ns)
                         for path in self.directory.iterdir())
        return digests, listing


def _evidence(tmp_path: Path, *sources: Path, directory_writable: bool = False) -> Iterator[Evidence]:
    """``sources`` copied into a directory of their own (the first is the database), made read-only (owned by
    ``nobody`` when the inspections run as him: then in a directory of /tmp he may reach, pytest's own being its
    owner's alone), and made writable again afterwards, for it to be removed."""
    if AS_NOBODY:
        directory = Path(tempfile.mkdtemp(prefix="pokertable-evidence-")) / "evidence"
        directory.parent.chmod(0o755)
    else:
        directory = tmp_path / "evidence"
    directory.mkdir()
    for source in sources:
        shutil.copy2(source, directory / source.name)
    evidence = Evidence(directory, directory / sources[0].name)
    for copy in directory.iterdir():
        if AS_NOBODY:
            shutil.chown(copy, "nobody", "nogroup")
        copy.chmod(0o400)
    if AS_NOBODY:
        shutil.chown(directory, "nobody", "nogroup")
    if not directory_writable:
        directory.chmod(0o555)
    try:
        yield evidence
    finally:
        directory.chmod(0o755)
        for copy in directory.iterdir():
            copy.chmod(0o600)
        if AS_NOBODY:
            shutil.rmtree(directory.parent)


def inspect(*argv: str) -> subprocess.CompletedProcess[str]:
    """The real ``pokertable ARGV`` (as ``nobody`` when run as root), in the casino's time zone UTC."""
    command = [SCRIPT, *argv]
    if AS_NOBODY:
        assert SETPRIV is not None
        command = [SETPRIV, "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
    environ = {**os.environ, "POKERTABLE_TZ": "UTC", "PYTHONDONTWRITEBYTECODE": "1"}
    environ.pop("POKERTABLE_CONFIG", None)
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, env=environ)


def one_error_line(done: subprocess.CompletedProcess[str], command: str) -> str:
    """The command failed with status 2 and said why on one line of standard error, nothing on standard output."""
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"pokertable {command}: "), done.stderr
    return lines[0]


# -- SQLite: an evidence copy ----------------------------------------------------------------------------------------


@pytest.fixture
def evidence(played: Played, tmp_path: Path) -> Iterator[Evidence]:
    """A copy of the played store, 0400 in a 0555 directory."""
    yield from _evidence(tmp_path, played.path)


def test_inspecting_an_evidence_copy_changes_no_byte_and_no_file_beside_it(played: Played,
                                                                           evidence: Evidence) -> None:
    """R-AUD-1: reconstruct, history, export and hands read a read-only copy (no -wal, no -shm made beside it) and
    show what the service recorded; nothing is recorded by reading (R-THB-13)."""
    before = evidence.state()
    hand = str(played.hand_id)

    shown = inspect("reconstruct", hand, "--db", evidence.url)
    assert shown.returncode == 0, shown.stderr
    assert shown.stderr == "" and f"hand 1 of {TABLE} ({hand}); read from the store, not recorded" in shown.stdout
    assert "As to seat 2 (shoe read 1)" in shown.stdout and "pot of 6 (rake 0) paid" in shown.stdout
    at = inspect("reconstruct", "--table", TABLE, "--hand", "1", "--at", "4", "--db", evidence.url)
    assert at.returncode == 0 and "after event 4 (Hand.CardDealt" in at.stdout and "+00:00)" in at.stdout

    history = inspect("history", TABLE, "--position", "5", "--db", evidence.url)
    assert history.returncode == 0, history.stderr
    state, expected = json.loads(history.stdout), dict(played.history)
    assert state.pop("time").endswith("+00:00") and expected.pop("time")  # shown in the casino's zone (UTC here)
    assert state == expected

    exported = inspect("export", hand, "--db", evidence.url)
    assert exported.returncode == 0, exported.stderr
    document = json.loads(exported.stdout)
    assert document["hand_id"] == hand and document["finishing_stacks"] == [300, 300, 300]
    shift = inspect("export", "--table", TABLE, "--format", "phh", "--db", evidence.url)
    assert shift.returncode == 0 and "[1]" in shift.stdout and shift.stderr.endswith("1 hand(s) exported\n")

    found = inspect("hands", TABLE, "--outcome", "showdown", "--db", evidence.url)
    assert found.returncode == 0 and hand in found.stdout and found.stderr == "1 hand(s) found\n"

    assert evidence.state() == before  # the same bytes, the same files, modes and times
    with sqlite3.connect(f"file:{quote(str(evidence.file))}?immutable=1", uri=True) as db:
        assert db.execute("SELECT count(*) FROM stored_events").fetchone()[0] == played.events  # nothing recorded


def test_a_backup_in_rollback_journal_mode_is_inspected_unchanged(played: Played, tmp_path: Path) -> None:
    """``pokertable backup`` holds a self-contained store (journal mode DELETE), taken out of the backup as an auditor
    would (``tar -xf FILE store.sqlite``): a plain ``mode=ro`` open could not even start on it (eventsourcing asks
    for WAL mode, a write), the immutable open reads it as it is (R-AUD-1)."""
    archive = tmp_path / "2026-11-25T0400.backup"
    assert main(["backup", "--db", f"sqlite:///{played.path}", "--to", str(archive)]) == 0
    with tarfile.open(archive) as tar:
        tar.extract("store.sqlite", tmp_path / "backup", filter="data")
    backup = tmp_path / "backup" / "store.sqlite"
    with sqlite3.connect(backup) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    for evidence in _evidence(tmp_path, backup):
        before = evidence.state()
        done = inspect("export", "--table", TABLE, "--db", evidence.url)
        assert done.returncode == 0, done.stderr
        assert [json.loads(line)["hand_id"] for line in done.stdout.splitlines()] == [str(played.hand_id)]
        assert evidence.state() == before


def test_a_copy_taken_with_its_write_ahead_log_is_read_whole_and_left_unchanged(tmp_path: Path) -> None:
    """A copy whose ``-wal`` still holds events (taken with ``cp`` while a writer had it open) is not read
    immutable, which would miss them: ``mode=ro`` reads the file and its log and writes neither.  In a read-only
    directory SQLite cannot make the log's index (``-shm``): one line says so, exit 2 (R-AUD-1)."""
    live = tmp_path / "live" / "open.db"
    live.parent.mkdir()
    app = PokerTables(env=environment(f"sqlite:///{live}"))
    try:
        hand_id, _ = _play_recording(app)
        wal = live.with_name("open.db-wal")
        assert wal.stat().st_size > 0  # the events are still in the log, not yet in the file
        (tmp_path / "w").mkdir()
        for evidence in _evidence(tmp_path / "w", live, wal, directory_writable=True):
            before = evidence.state()
            done = inspect("export", str(hand_id), "--db", evidence.url)
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout)["finishing_stacks"] == [300, 300, 300]  # the log's events were read
            digests, _ = evidence.state()
            assert {name: digests[name] for name in before[0]} == before[0]  # the file and its log: same bytes
            assert set(digests) <= {"open.db", "open.db-wal", "open.db-shm"}  # at most the index beside them
        if ENFORCED:
            (tmp_path / "r").mkdir()
            for evidence in _evidence(tmp_path / "r", live, wal):
                before = evidence.state()
                line = one_error_line(inspect("history", TABLE, "--position", "5", "--db", evidence.url), "history")
                assert "cannot read" in line and "-wal" in line and "pokertable backup" in line
                assert evidence.state() == before
    finally:
        app.close()


def test_a_store_a_service_writes_is_read_through_its_log_never_immutable(played: Played, tmp_path: Path) -> None:
    """While a pokertable process holds the file as its sole writer, the read-only URI is ``mode=ro`` alone: the
    service's pages still in its log are read (R-AUD-1); once it lets go, the file is read immutable."""
    live = tmp_path / "served.db"
    shutil.copy(played.path, live)
    url = f"sqlite:///{live}"
    with open_store(url, writer=True):
        uri = environment(url, read_only=True)["SQLITE_DBNAME"]
        assert uri.endswith("?mode=ro") and "immutable" not in uri
        with open_read_only(url) as store:
            assert store.app.hands_of(TABLE) == [played.hand_id]
    assert environment(url, read_only=True)["SQLITE_DBNAME"].endswith("?mode=ro&immutable=1")


def test_a_read_only_sqlite_store_refuses_every_write(played: Played, tmp_path: Path) -> None:
    """The application on a read-only open: a command fails in SQLite itself, and the file is unchanged."""
    copy = tmp_path / "copy.db"
    shutil.copy(played.path, copy)
    digest = hashlib.sha256(copy.read_bytes()).hexdigest()
    with open_read_only(f"sqlite:///{copy}") as store:
        assert store.app.env.get(READ_ONLY) == "y"
        with pytest.raises(Exception, match="readonly database"):
            store.app.handle(AddChips("ro-1", TABLE, 1, 10))
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == digest and sorted(os.listdir(tmp_path)) == ["copy.db"]


@pytest.fixture
def reachable(tmp_path: Path) -> Iterator[Path]:
    """A directory the inspections may search (pytest's is its owner's alone, and they may run as ``nobody``)."""
    if not AS_NOBODY:
        yield tmp_path
        return
    directory = Path(tempfile.mkdtemp(prefix="pokertable-inspection-"))
    directory.chmod(0o755)
    try:
        yield directory
    finally:
        shutil.rmtree(directory)


def test_a_missing_file_or_not_a_pokertable_store_is_one_line_and_exit_2(reachable: Path) -> None:
    """R-AUD-1: an inspection never creates a store, nor its tables in a database that is not one."""
    tmp_path = reachable
    missing = tmp_path / "nowhere.db"
    line = one_error_line(inspect("history", TABLE, "--position", "1", "--db", f"sqlite:///{missing}"), "history")
    assert f"no database '{missing}'" in line and not missing.exists()
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE visitors (name TEXT)")
    db.close()
    digest = hashlib.sha256(other.read_bytes()).hexdigest()
    line = one_error_line(inspect("export", "--table", TABLE, "--db", f"sqlite:///{other}"), "export")
    assert "is not a pokertable store (no stored_events table; R-AUD-1)" in line
    assert hashlib.sha256(other.read_bytes()).hexdigest() == digest  # no table was made in it
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all\n" * 200, encoding="utf-8")
    line = one_error_line(inspect("reconstruct", "--table", TABLE, "--hand", "1", "--db", f"sqlite:///{text}"),
                          "reconstruct")
    assert "is not a pokertable store" in line


def test_reading_records_nothing_and_says_where_a_recorded_reconstruction_goes(
        played: Played, evidence: Evidence, capsys: pytest.CaptureFixture[str]) -> None:
    """R-THB-13: --reason and --by belong to a recorded reconstruction, the service's (--record): refused (exit 2)
    on a read, which records nothing; the hand is named once (its id, or its table and number)."""
    for argv in (["--reason", "seat 2 disputes the pot"], ["--by", "pit-3"], ["--server", "127.0.0.1:9"]):
        assert main(["reconstruct", str(played.hand_id), "--db", evidence.url, *argv]) == 2
        out, err = capsys.readouterr()
        assert out == "" and "--record" in err and "R-THB-13" in err
    for argv in ([], [str(played.hand_id), "--table", TABLE, "--hand", "1"], ["--table", TABLE]):
        assert main(["reconstruct", *argv, "--db", evidence.url]) == 2
        assert "name the hand" in capsys.readouterr().err
    assert main(["reconstruct", "--table", TABLE, "--hand", "2", "--db", evidence.url]) == 1
    assert "Mesa R has hands 1–1, not 2" in capsys.readouterr().err


# -- the recorded reconstruction: through the running service (R-THB-13) ---------------------------------------------

PIT_TOKEN, DEALER_TOKEN = "pit-boss-inspection-token-01", "dealer-inspection-token-0123"
STATIONS = Stations.from_mapping({
    "pit-7": {"token": PIT_TOKEN, "role": "pit-boss"},
    "mesa-r": {"token": DEALER_TOKEN, "role": "dealer", "table": TABLE},
})


def _said(err: str) -> str:
    """What ``pokertable reconstruct`` itself wrote on standard error (its lines), without the log records of a server
    running in the same process."""
    return "\n".join(line for line in err.splitlines() if line.startswith("pokertable reconstruct"))


def test_a_recorded_reconstruction_is_sent_to_the_running_service(
        played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``reconstruct --record --server``: the service records the request at the table under the pit boss's station
    (who, when, why) and streams the hand back; a dealer's station is refused (PERMISSION_DENIED, R-THB-13), a
    blank reason too, and neither is recorded."""
    live = tmp_path / "served.db"
    shutil.copy(played.path, live)
    pit_file, dealer_file = tmp_path / "pit.token", tmp_path / "dealer.token"
    pit_file.write_text(PIT_TOKEN + "\n", encoding="utf-8")
    pit_file.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    dealer_file.write_text(DEALER_TOKEN + "\n", encoding="utf-8")
    dealer_file.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    monkeypatch.delenv("POKERTABLE_TOKEN", raising=False)
    with open_store(f"sqlite:///{live}", writer=True) as store, serving(store.app, STATIONS) as port:
        server = f"127.0.0.1:{port}"
        record = ["reconstruct", "--record", "--server", server, "--table", TABLE, "--hand", "1"]
        assert main([*record, "--reason", "seat 2 disputes the pot", "--token-file", str(pit_file)]) == 0
        out, err = capsys.readouterr()
        # standard error holds no word of the command (the server in this process may log its readiness there)
        assert "pokertable reconstruct" not in err and 'request recorded by the service: "seat 2 disputes the pot"' \
            in out
        assert "As to seat 2 (shoe read 1)" in out and "pot of 6 (rake 0) paid" in out
        assert main([*record, "--reason", "again", "--at", "4", "--token-file", str(pit_file)]) == 0
        assert "after event 4 (Hand.CardDealt" in capsys.readouterr().out

        assert main([*record, "--reason", "curious", "--token-file", str(dealer_file)]) == 1
        out, err = capsys.readouterr()
        said = _said(err)  # the command's own words (the server in this process may log beside them)
        assert out == "" and said.startswith("pokertable reconstruct: PERMISSION_DENIED") and "R-THB-13" in said
        assert main([*record, "--reason", " ", "--token-file", str(pit_file)]) == 1
        assert "reason" in capsys.readouterr().err
        requests = [vars(event) for event in store.app.events.get(store.app.table(TABLE).id)
                    if type(event).__name__ == "ReconstructionRequested"]
        assert [(r["pit_boss"], r["reason"], r["number"]) for r in requests] == [
            ("pit-7", "seat 2 disputes the pot", 1), ("pit-7", "again", 1)]

        for argv in ([*record, "--reason", "no token"], [*record, "--token-file", str(pit_file)],
                     [*record, "--reason", "x", "--by", "pit-3", "--token-file", str(pit_file)],
                     ["reconstruct", "--record", "--server", server, str(played.hand_id), "--reason", "x"]):
            assert main(argv) == 2, argv
            assert _said(capsys.readouterr().err).startswith("pokertable reconstruct: ")
    unreachable = ["reconstruct", "--record", "--server", "127.0.0.1:9", "--table", TABLE, "--hand", "1",
                   "--reason", "x", "--token-file", str(pit_file)]
    assert main(unreachable) == 1 and "UNAVAILABLE" in capsys.readouterr().err


def test_the_token_comes_from_the_environment_without_a_file(
        played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``POKERTABLE_TOKEN`` (never the command line, which ``ps`` shows): the request is recorded as the pit boss's
    station's (R-THB-13)."""
    live = tmp_path / "served.db"
    shutil.copy(played.path, live)
    monkeypatch.setenv("POKERTABLE_TOKEN", PIT_TOKEN)
    with open_store(f"sqlite:///{live}", writer=True) as store, serving(store.app, STATIONS) as port:
        assert main(["reconstruct", "--record", "--server", f"127.0.0.1:{port}", "--table", TABLE, "--hand", "1",
                     "--reason", "the games director asks"]) == 0
        capsys.readouterr()
        requests = [vars(event) for event in store.app.events.get(store.app.table(TABLE).id)
                    if type(event).__name__ == "ReconstructionRequested"]
        assert [(r["pit_boss"], r["reason"]) for r in requests] == [("pit-7", "the games director asks")]


# -- PostgreSQL: read-only sessions ----------------------------------------------------------------------------------


def _relations(env: dict[str, str]) -> int:
    import psycopg

    with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                         password=env.get("POSTGRES_PASSWORD") or None, dbname=env["POSTGRES_DBNAME"],
                         autocommit=True) as connection:
        row = connection.execute("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                                 "WHERE n.nspname = %s", (env["POSTGRES_SCHEMA"],)).fetchone()
    return int(row[0]) if row else 0


def test_a_read_only_postgres_session_cannot_write_and_the_inspections_work(
        capsys: pytest.CaptureFixture[str]) -> None:
    """R-AUD-1: on PostgreSQL the inspections' sessions are read-only (default_transaction_read_only): a command of
    the application and a statement of its own are refused by the server; reconstruct, history, export and hands
    answer; the schema is as it was (no table made, no event added)."""
    env = postgres_store()
    url = f"{POSTGRES_URL}?schema={env['POSTGRES_SCHEMA']}"
    app = PokerTables(env=env)
    try:
        hand_id, _ = _play_recording(app)
        events = app.recorder.max_notification_id()
    finally:
        app.close()
    relations = _relations(env)

    with open_read_only(url) as store:
        recorder: Any = store.app.recorder
        with pytest.raises(Exception, match="read-only transaction"):
            store.app.handle(AddChips("ro-1", TABLE, 1, 10))
        with pytest.raises(Exception, match="read-only transaction"), \
                recorder.datastore.transaction(commit=True) as cursor:
            cursor.execute(f'CREATE TABLE "{env["POSTGRES_SCHEMA"]}".intruder (x int)')
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute("SHOW default_transaction_read_only")
            row = cursor.fetchone()
            assert row is not None and row["default_transaction_read_only"] == "on"

    assert main(["reconstruct", str(hand_id), "--db", url, "--tz", "UTC"]) == 0
    assert "read from the store, not recorded" in capsys.readouterr().out
    assert main(["history", TABLE, "--position", "5", "--db", url]) == 0
    assert json.loads(capsys.readouterr().out)["position"] == 5
    assert main(["export", str(hand_id), "--db", url]) == 0
    assert json.loads(capsys.readouterr().out)["finishing_stacks"] == [300, 300, 300]
    assert main(["hands", TABLE, "--db", url]) == 0
    assert capsys.readouterr().err == "1 hand(s) found\n"

    writer = PokerTables(env=env)
    try:
        assert writer.recorder.max_notification_id() == events  # nothing recorded by the inspections
    finally:
        writer.close()
    assert _relations(env) == relations


def test_an_empty_postgres_schema_is_not_a_store_and_stays_empty(capsys: pytest.CaptureFixture[str]) -> None:
    """A schema without pokertable's tables: one line, exit 2, and no table made in it (R-AUD-1)."""
    env = postgres_store()
    url = f"{POSTGRES_URL}?schema={env['POSTGRES_SCHEMA']}"
    assert main(["export", "--table", TABLE, "--db", url]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert "is not a pokertable store (no pokertable_events table" in err and "R-AUD-1" in err
    assert _relations(env) == 0
    with pytest.raises(StoreUnusableError):
        open_read_only(url)

