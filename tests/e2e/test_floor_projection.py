"""The floor's projection (issue 30, item 1; service/app/floor_log.py): the pit's alerts, each table's notes and the
hands index kept beside the log. Each test compares it with a recomputation from the log — after play of every
game (voids, device faults, holds, acknowledgements, a correction), after a crash in the middle of a page's write and
a process killed while it follows the log, after a restore and a log restored behind it — and a search through the
index with the log's own path; the projection rebuilt from scratch equals the live one. On SQLite and PostgreSQL."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import uuid
from datetime import timedelta
from pathlib import Path

import pytest

from domain.circle.settings import BettingStructure, TableSettings
from domain.games import game_of
from service.app import floor_log as floor_log_module
from service.app.application import PokerTables
from service.app.commands import AcknowledgeAlert, OpenTable
from service.app.floor_log import FloorLog, hand_summary
from service.app.table_views import HandSummary
from service.store import floor_store
from service.store.floor_store import FloorStore
from tests.support.app_play import PIT
from tests.support.backups import pokertable
from tests.support.make_fixture_before_move import _play
from tests.support.stores import postgres_store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    if request.param == "sqlite":
        from service.store.persistence import environment

        return environment(f"sqlite:///{tmp_path / 'tables.db'}")
    return postgres_store()


def _played(env: dict[str, str], seed: int = 7) -> PokerTables:
    """Every game played (tests/support/make_fixture_before_move.py), the floor followed half-way through, then alerts
    acknowledged and one raised by the service."""
    app = PokerTables(env=env)
    _play(app, random.Random(seed))
    app.floor_log.catch_up()
    open_alerts = app.floor_log.store.open_alerts()
    assert {alert.kind for alert in open_alerts} >= {"device-fault", "void"}, open_alerts
    first = open_alerts[0]
    app.handle(AcknowledgeAlert(uuid.uuid4().hex, first.table, first.position, "jam cleared"), PIT)  # R-AUD-1
    app.holds.raise_alert("Holdem", "shuffler-integrity", "a deck failed its tests")  # R-HOLD-1
    return app


def _recomputed(app: PokerTables, position: int) -> dict[str, list[tuple[object, ...]]]:
    again = FloorLog(app, FloorStore(None))
    again.catch_up(until=position)
    return again.store.everything()[1]


def test_the_projection_equals_a_recomputation_from_the_log_after_play(store: dict[str, str]) -> None:
    app = _played(store)
    position = app.floor_log.catch_up()
    assert position == app.recorder.max_notification_id()
    kept_at, kept = app.floor_log.store.everything()
    assert kept_at == position and kept == _recomputed(app, position)
    assert app.floor_log.check() == []
    # what the floor opens with: the open alerts (the acknowledged one gone), the hold just raised among them
    open_alerts = app.floor_log.store.open_alerts()
    acknowledged = [row for row in kept["alerts"] if row[5]]
    assert len(acknowledged) == 1 and acknowledged[0][5] == f"{PIT.station}: jam cleared"
    assert acknowledged[0][0] not in {alert.position for alert in open_alerts}
    assert any(alert.kind == "shuffler-integrity" and alert.table == "Holdem" for alert in open_alerts)
    # every table in opening order, the hands index holding every hand started
    assert [row.name for row in app.floor_log.store.tables()] == app.table_names()
    started = sum(app.any_table(name).hands_started for name in app.table_names())
    assert len(kept["hands"]) == started
    app.close()


def test_a_projection_rebuilt_from_scratch_equals_the_live_one(store: dict[str, str]) -> None:
    app = _played(store, seed=11)
    app.floor_log.catch_up()
    live = app.floor_log.store.everything()
    assert app.floor_log.rebuild() == live[0]
    assert app.floor_log.store.everything() == live
    app.close()


def test_a_search_through_the_index_finds_what_the_log_s_own_path_finds(store: dict[str, str],
                                                                         tmp_path: Path) -> None:
    """The index answers as reading every hand did: every table, with and without a time range, seat, outcome."""
    app = _played(store, seed=3)
    inspector = PokerTables(env=store)
    inspector.floor_log.usable = False  # the log's own path: every hand of the range read
    rng = random.Random(5)
    for name in app.table_names():
        hands = inspector.views.search_hands(name)
        assert app.views.search_hands(name) == hands
        for _ in range(6):
            pick = rng.choice(hands) if hands else None
            since = (pick.started - timedelta(microseconds=rng.choice([0, 1]))) if pick else None
            seat = rng.choice(pick.seats) if pick and pick.seats and rng.random() < 0.5 else None
            outcome = pick.outcome if pick and rng.random() < 0.5 else None
            assert app.views.search_hands(name, since=since, seat=seat, outcome=outcome) == \
                inspector.views.search_hands(name, since=since, seat=seat, outcome=outcome)
            assert app.views.search_hands(name, until=since) == inspector.views.search_hands(name, until=since)
    inspector.close()
    app.close()


def test_a_crash_in_the_middle_of_a_page_leaves_the_page_and_its_position_or_neither(
        store: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    app = PokerTables(env=store)
    _play(app, random.Random(1))
    written = 0
    real = floor_store._write

    def failing(cursor: object, change: object, summaries: object, stakes: object) -> None:
        nonlocal written
        written += 1
        if written == 30:  # the 30th row of the page: the process dies here (the transaction is not committed)
            raise OSError("the power failed")
        real(cursor, change, summaries, stakes)  # type: ignore[arg-type]

    monkeypatch.setattr(floor_log_module, "PAGE", 12)
    monkeypatch.setattr(floor_store, "_write", failing)
    with pytest.raises(OSError):
        app.floor_log.catch_up()
    position, kept = app.floor_log.store.everything()
    assert 0 < position < (app.recorder.max_notification_id() or 0)  # the pages before it, and not that one
    assert kept == _recomputed(app, position)
    monkeypatch.setattr(floor_store, "_write", real)
    assert app.floor_log.catch_up() == app.recorder.max_notification_id()
    assert app.floor_log.check() == []
    app.close()


CHILD = textwrap.dedent("""
    import sys, time
    from service.app import floor_log
    from service.app.application import PokerTables
    from service.store import floor_store
    floor_log.PAGE = 5
    real = floor_store.FloorStore.commit
    def slow(self, *args, **kwargs):
        real(self, *args, **kwargs)
        print("page", flush=True)
        time.sleep(0.05)
    floor_store.FloorStore.commit = slow
    env = dict(arg.split("=", 1) for arg in sys.argv[1:])
    PokerTables(env=env).floor_log.catch_up()
""")


def test_a_process_killed_while_it_follows_the_log_leaves_a_projection_that_is_what_the_log_says(
        store: dict[str, str]) -> None:
    app = PokerTables(env=store)
    _play(app, random.Random(2))
    head = app.recorder.max_notification_id() or 0
    child = subprocess.Popen([sys.executable, "-c", CHILD, *(f"{key}={value}" for key, value in store.items())],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None
    pages = 0
    while pages < 4 and child.stdout.readline():
        pages += 1
    os.kill(child.pid, signal.SIGKILL)  # in the middle of a page, or between two
    child.wait(timeout=30)
    assert pages == 4
    position, kept = app.floor_log.store.everything()
    assert 0 < position < head
    assert kept == _recomputed(app, position)
    assert app.floor_log.catch_up() == head
    assert app.floor_log.check() == []
    app.close()


def test_a_projection_ahead_of_a_restored_log_or_of_another_format_is_rebuilt(store: dict[str, str]) -> None:
    app = _played(store, seed=5)
    head = app.floor_log.catch_up()
    with app.floor_log.store._cursor(commit=True) as cursor:  # a log restored to before the projection's position
        cursor.execute("UPDATE {position} SET position = ?", (head + 500,))
        cursor.execute("DELETE FROM {alerts}")
    assert app.floor_log.catch_up() == head
    assert app.floor_log.check() == []
    with app.floor_log.store._cursor(commit=True) as cursor:  # a projection written by another version
        cursor.execute("UPDATE {position} SET format = ?", (floor_store.FORMAT + 1,))
        cursor.execute("UPDATE {tables} SET shuffler = 'forged'")
    assert app.floor_log.catch_up() == head
    assert app.floor_log.check() == []
    app.close()


def test_after_a_backup_and_restore_the_projection_is_what_the_restored_log_says(tmp_path: Path) -> None:
    live, restored = f"sqlite:///{tmp_path / 'live.db'}", f"sqlite:///{tmp_path / 'restored.db'}"
    from service.store.persistence import environment

    app = _played(environment(live), seed=9)
    app.floor_log.catch_up()
    app.close()
    assert pokertable("backup", "--db", live, "--to", str(tmp_path / "floor.backup")).returncode == 0
    done = pokertable("restore", "--from", str(tmp_path / "floor.backup"), "--db", restored)
    assert done.returncode == 0, done.stderr
    back = PokerTables(env=environment(restored))
    assert back.floor_log.check() == []
    assert back.floor_log.store.everything() == PokerTables(env=environment(live)).floor_log.store.everything()
    back.close()


def test_an_attacker_who_deletes_an_open_alert_from_the_projection_is_caught_by_floor_check(tmp_path: Path) -> None:
    """The projection is a cache, never evidence: `pokertable floor check` recomputes it from the (chained) log and
    names what differs; `rebuild` makes it again (the pit's holds are the tables' own, R-HOLD-1)."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    from service.store.persistence import environment

    app = _played(environment(url), seed=4)
    app.floor_log.catch_up()
    hidden = app.floor_log.store.open_alerts()[-1]
    app.close()
    assert pokertable("floor", "check", "--db", url).returncode == 0
    import sqlite3

    with sqlite3.connect(tmp_path / "tables.db") as db:  # the database is writable to the attacker
        db.execute("DELETE FROM pokertable_floor_alerts WHERE position = ?", (hidden.position,))
    done = pokertable("floor", "check", "--db", url)
    assert done.returncode == 1 and f"missing: ({hidden.position}," in done.stdout, done.stdout + done.stderr
    assert "not what the log says" in done.stderr
    assert pokertable("floor", "rebuild", "--db", url).returncode == 0
    assert pokertable("floor", "check", "--db", url).returncode == 0
    back = PokerTables(env=environment(url))
    assert hidden.position in {alert.position for alert in back.floor_log.store.open_alerts()}
    back.close()


def test_a_follower_behind_another_learns_the_tables_the_other_followed_before_it_reads_on() -> None:
    """Two instances on one PostgreSQL: one follows the log, another follows it further (past a table opened
    meanwhile), then the first follows on from where the other left the projection: it knows that table, and its
    events are in the projection (CI found a projection that had lost a table's alerts and hands this way)."""
    env = postgres_store()
    first = PokerTables(env=env)
    first.handle(OpenTable("open-1", "Mesa 1", TableSettings.create("holdem", BettingStructure.NO_LIMIT,
                                                                    blinds=(1, 2))))
    first.floor_log.catch_up()  # its names: Mesa 1
    first.handle(OpenTable("open-2", "Mesa 2", TableSettings.create("holdem", BettingStructure.NO_LIMIT,
                                                                    blinds=(1, 2))))
    other = PokerTables(env=env)
    other.floor_log.catch_up()  # follows past Mesa 2's opening
    raised = first.holds.raise_alert("Mesa 2", "shuffler-integrity", "SN-1 failed its tests")
    first.floor_log.catch_up()  # on from where the other left it
    assert raised.position in {alert.position for alert in first.floor_log.store.open_alerts()}
    assert first.floor_log.check() == []
    other.close()
    first.close()


def test_two_followers_of_one_log_never_both_write_a_page() -> None:
    """Two instances on one PostgreSQL follow the log at once: each page is written once, and both projections
    (one store) are what the log says."""
    env = postgres_store()
    app = PokerTables(env=env)
    _play(app, random.Random(6))
    other = PokerTables(env=env)
    floor_log_module.PAGE, page = 20, floor_log_module.PAGE
    try:
        import threading

        threads = [threading.Thread(target=follower.floor_log.catch_up) for follower in (app, other)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        floor_log_module.PAGE = page
    assert app.floor_log.store.position()[0] == app.recorder.max_notification_id()
    assert app.floor_log.check() == [] and other.floor_log.check() == []
    other.close()
    app.close()


def test_a_hand_summary_is_what_the_search_lists(store: dict[str, str]) -> None:
    app = _played(store, seed=8)
    app.floor_log.catch_up()
    for name in app.table_names():
        for row in app.floor_log.store.hands_index.hands(name, since=None, until=None, outcome=None, seat=None):
            if row.summary is not None:
                summary = hand_summary(app, game_of(app.any_table(name)), uuid.UUID(row.hand_id))
                assert row.summary == summary.stored()  # stored as the game sums the hand up, key for key
                assert HandSummary.of(row.summary) == summary
    app.close()


def test_a_service_s_first_list_of_tables_reads_the_log_from_the_projection_s_position_not_its_start(
        store: dict[str, str]) -> None:
    """At a service's start the list of tables comes from the floor's projection, and only the log after the
    position it holds them as of is read (a year's log is not scanned); a table opened since is found in the log."""
    app = _played(store, seed=12)
    position = app.floor_log.catch_up()
    app.handle(OpenTable(uuid.uuid4().hex, "Mesa nueva", TableSettings.create("holdem", BettingStructure.NO_LIMIT,
                                                                        blinds=(1, 2))))
    restarted = PokerTables(env=store)
    starts: list[int] = []
    select = restarted.recorder.select_notifications

    def counting(start: int, *args: object, **kwargs: object) -> object:
        starts.append(start)
        return select(start, *args, **kwargs)  # type: ignore[arg-type]

    restarted.recorder.select_notifications = counting  # type: ignore[method-assign, assignment]
    assert restarted.table_names() == app.table_names() and restarted.table_names()[-1] == "Mesa nueva"
    assert starts and min(starts) == position + 1
    restarted.close()
    app.close()
