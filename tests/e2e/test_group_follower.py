"""A casino group's read store (issue 18, item 3; docs/group.md): two casinos as two PostgreSQL databases, each
dealing on its own, and the group's follower as a real process killed (SIGKILL) mid-stream and started again: the
group's totals equal the sum of each casino's own, nothing lost, nothing counted twice; what it already received is
never received again; a casino's tampered or forged event is refused (R-AUD-1)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from service.cli.main import main
from service.group.figures import Totals, casino_totals
from service.store.persistence import environment
from tests.support.group_support import BANKED, Played, floor_counts, play_casino
from tests.support.stores import POSTGRES_URL, _postgres_available

SCRIPT = shutil.which("pokertable", path=str(Path(sys.executable).parent)) or "pokertable"
SERVER = POSTGRES_URL.rsplit("/", 1)[0]
BANKED_GAMES = {game for game, _ in BANKED.values()}


def _admin() -> psycopg.Connection[tuple[object, ...]]:
    env = environment(POSTGRES_URL)
    return psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                           dbname="postgres", autocommit=True)


@pytest.fixture(scope="module")
def databases() -> Iterator[list[str]]:
    """Three new databases: two casinos' and the group's; dropped at the end however the tests ended."""
    if not _postgres_available():
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI ({POSTGRES_URL})")
        pytest.skip(f"no PostgreSQL at {POSTGRES_URL}")
    names = [f"pt_group_{label}_{uuid.uuid4().hex[:8]}" for label in ("a", "b", "g")]
    made = []
    try:
        with _admin() as admin:
            for name in names:
                admin.execute(f'CREATE DATABASE "{name}"')
                made.append(name)
        yield [f"{SERVER}/{name}" for name in names]
    finally:
        with _admin() as admin:
            for name in made:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def casinos(databases: list[str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Played]]:
    directory = tmp_path_factory.mktemp("keys")
    played = [play_casino("Gran Via", databases[0], 6, 11, directory=directory),
              play_casino("Costa", databases[1], 5, 12, directory=directory)]
    yield played
    for one in played:
        one.app.close()


def group(*args: str, played: list[Played], group_db: str) -> list[str]:
    """The arguments of ``pokertable group ...`` for these casinos, with their public keys."""
    line = ["group", *args, "--group-db", group_db]
    for one in played:
        line += ["--casino", f"{one.name}={one.url}", "--public-key", f"{one.name}={one.key_file}"]
    return line


def positions(group_db: str) -> dict[str, int]:
    with psycopg.connect(group_db.replace("?schema=", "?options=-csearch_path%3D")) as connection:
        rows = connection.execute("SELECT casino, position FROM group_casinos").fetchall()
    return {str(casino): int(position) for casino, position in rows}


def kill_mid_stream(line: list[str], group_db: str, after: int, timeout: float = 60) -> int:
    """Start the follower, SIGKILL it as soon as it stored beyond ``after`` events in all; the positions then."""
    process = subprocess.Popen([SCRIPT, *line], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                stored = sum(positions(group_db).values())
            except psycopg.Error:  # its tables are not made yet
                stored = 0
            if stored > after:
                break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.01)
        else:
            raise AssertionError("the follower stored nothing new")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
        if process.stderr:
            process.stderr.close()
    return sum(positions(group_db).values())


def run(capsys: pytest.CaptureFixture[str], line: list[str]) -> tuple[int, str, str]:
    """``pokertable`` in this process: its status, standard output and standard error."""
    capsys.readouterr()
    status = main(line)
    out, err = capsys.readouterr()
    return status, out, err


def test_a_follower_killed_mid_stream_and_started_again_loses_nothing_and_counts_nothing_twice(
        casinos: list[Played], databases: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    group_db = databases[2]
    follow = group("sync", "--follow", "--page", "13", "--interval", "0.05", played=casinos, group_db=group_db)
    kills = [0]
    for round_ in range(3):
        kills.append(kill_mid_stream(follow, group_db, kills[-1]))
        if round_ == 0:  # the casino deals on while the group follows
            casinos[0].casino.play(2)
    total = sum(one.head for one in casinos)
    assert any(0 < point < total for point in kills[1:]), (kills, total)  # killed mid-stream, not after the end
    status, _, err = run(capsys, group("sync", played=casinos, group_db=group_db))  # started once more, to the end
    assert status == 0, err
    assert positions(group_db) == {one.name: one.head for one in casinos}
    with psycopg.connect(group_db) as connection:  # every event once: the copy is the casino's log
        for one in casinos:
            count, = connection.execute("SELECT count(*) FROM group_events WHERE casino = %s",
                                        (one.name,)).fetchone() or (0,)
            assert count == one.head  # positions 1 to head, none skipped, none twice

    status, out, _ = run(capsys, group("report", "--format", "json", played=casinos, group_db=group_db))
    figures = json.loads(out)
    rows = {(row["casino"], row["game"]): Totals(**{k: v for k, v in row.items() if k not in ("casino", "game")})
            for row in figures["rows"]}
    for one in casinos:
        own = casino_totals(one.app.recorder, one.app.mapper)  # from the casino's log alone
        assert {game: totals for (casino, game), totals in rows.items() if casino == one.name} == own
        for game, counted in floor_counts(one.app).items():  # and from the casino's own queries
            totals = rows.get((one.name, game), Totals())
            assert (totals.hands, totals.voided, totals.bet) == (counted["hands"], counted["voided"], counted["bet"])
            if game in BANKED_GAMES:
                assert totals.house == counted["house"]
    summed: dict[str, Totals] = {}
    for (_, game), totals in rows.items():
        summed[game] = summed.get(game, Totals()) + totals
    assert {row["game"]: Totals(**{k: v for k, v in row.items() if k != "game"}) for row in figures["group"]} == summed
    assert figures["total"] == sum(summed.values(), Totals()).as_dict()
    assert all(casino["signed"] > 0 for casino in figures["casinos"])  # the signed heads came along, checked

    status, out, _ = run(capsys, group("report", "--format", "csv", played=casinos, group_db=group_db))
    lines = list(csv.reader(io.StringIO(out)))
    assert lines[0] == ["casino", "game", "hands", "played", "voided", "in_progress", "bet", "paid", "rake", "house"]
    assert lines[-1] == ["(group)", "(all)", *map(str, figures["total"].values())]
    assert len(lines) == 1 + len(figures["rows"]) + len(figures["group"]) + 1
    status, out, _ = run(capsys, group("report", "--by", "table", played=casinos, group_db=group_db))
    assert status == 0 and out.startswith("casino") and f"{casinos[0].name} Holdem" in out
    assert f"{casinos[1].name}: received up to position {casinos[1].head} ({casinos[1].head} events)" in out

    status, out, _ = run(capsys, group("report", "--format", "json", "--to", "2999-01-01 00:00", played=casinos,
                                       group_db=group_db))
    assert json.loads(out)["total"] == figures["total"]
    status, out, _ = run(capsys, group("report", "--format", "json", "--from", "2999-01-01T00:00+00:00",
                                       played=casinos, group_db=group_db))
    assert json.loads(out)["rows"] == [] and json.loads(out)["total"]["hands"] == 0

    status, out, _ = run(capsys, group("sync", played=casinos, group_db=group_db))
    assert status == 0 and out == ""  # from the tracked position: nothing received twice
    status, out, err = run(capsys, group("verify", "--reconcile", played=casinos, group_db=group_db))
    assert status == 0, out + err
    assert out.count("reconciled") == 2 and out.count(": clean:") == 2
