"""Signed snapshots of the tables (issue 30, item 2): a table loaded from its last snapshot and the events after it is
exactly the table its whole history builds, on SQLite and PostgreSQL; a restarted service reads only what follows
the snapshot; and whoever can write the database cannot give a table anything through a snapshot (attacks: a
snapshot's state changed, one moved to another version, one signed with the attacker's own key, one unsigned).

Tier: store (SQLite files and PostgreSQL, required in CI)."""

from __future__ import annotations

import logging
import random
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from eventsourcing.persistence import StoredEvent

from service.app.application import PokerTables
from service.app.commands import AddChips, OpenTable, RecordDeviceReport, Sit
from service.store import snapshots as snapshot_module
from service.store.snapshots import SignedSnapshots, TableSnapshot, use_keys
from tests.support.make_fixture_before_move import _play
from tests.support.snapshotting import EVERY, _served
from tests.support.stores import postgres_store


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    if request.param == "sqlite":
        from service.store.persistence import environment

        return environment(f"sqlite:///{tmp_path / 'tables.db'}")
    return postgres_store()


def _state(aggregate: Any) -> dict[str, Any]:
    return {key: value for key, value in vars(aggregate).items() if key != "_pending_events"}


def _assert_same(loaded: Any, replayed: Any) -> None:
    """Equal, and of the same types all the way down (a tuple is not a list, an int key not a text)."""
    assert _state(loaded) == _state(replayed)
    assert repr(sorted(_state(loaded).items())) == repr(sorted(_state(replayed).items()))


def _tables(app: PokerTables) -> dict[str, Any]:
    return {name: app.any_table(name) for name in app.table_names()}


@contextmanager
def _reads(app: PokerTables) -> Iterator[list[tuple[UUID, int | None]]]:
    """The aggregates' events read from the store meanwhile: (id, the version read after)."""
    seen: list[tuple[UUID, int | None]] = []
    select = app.recorder.select_events

    def counting(originator_id: Any, **kwargs: Any) -> Any:
        seen.append((originator_id, kwargs.get("gt")))
        return select(originator_id, **kwargs)

    app.recorder.select_events = counting  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        app.recorder.select_events = select  # type: ignore[method-assign]


def test_r_aud_1_a_table_from_its_snapshot_is_the_table_its_whole_history_builds(store: dict[str, str]) -> None:
    """Every game played at random through the application, a snapshot every 10 events of a table: each table a
    restarted instance loads (its last snapshot and the events after it) is exactly the one its events alone build,
    and it read only the events after the snapshot."""
    app = _served(store)
    _play(app, random.Random(7))
    live = _tables(app)
    restarted, replayed = _served(store), _served(store, key=None)  # the second trusts no key: events alone
    with _reads(restarted) as reads:
        loaded = _tables(restarted)
    for name, table in live.items():
        _assert_same(loaded[name], replayed.any_table(name))
        _assert_same(loaded[name], table)
        after = dict(reads)[table.id]
        if table.version >= EVERY:  # only what followed its last snapshot
            assert after is not None and after >= table.version - EVERY, (name, table.version, after)
        else:  # none taken yet: its few events
            assert after is None
    assert isinstance(restarted.snapshots, SignedSnapshots) and restarted.snapshots.refused == 0


def _rows(store: dict[str, str]) -> tuple[Any, str]:
    """A connection to the store's snapshot table as an attacker with the database writable has it, and its name."""
    if "POSTGRES_SCHEMA" in store:
        connection: Any = psycopg.connect(host=store["POSTGRES_HOST"], port=store["POSTGRES_PORT"],
                                          user=store["POSTGRES_USER"], dbname=store["POSTGRES_DBNAME"],
                                          autocommit=True)
        return connection, f'"{store["POSTGRES_SCHEMA"]}".pokertable_snapshots'
    connection = sqlite3.connect(store["SQLITE_DBNAME"], isolation_level=None)
    return connection, "stored_snapshots"


def _mark(store: dict[str, str]) -> str:
    return "%s" if "POSTGRES_SCHEMA" in store else "?"


def _latest_snapshot(store: dict[str, str], table: Any) -> tuple[Any, str, int, bytes]:
    connection, name = _rows(store)
    key = table.id if "POSTGRES_SCHEMA" in store else table.id.hex
    row = connection.execute(f"SELECT originator_version, state FROM {name} WHERE originator_id = {_mark(store)} "
                             "ORDER BY originator_version DESC LIMIT 1", (key,)).fetchone()
    assert row is not None, "a snapshot was taken"
    return connection, name, int(row[0]), bytes(row[1])


def _write(store: dict[str, str], table: Any, version: int, state: bytes, *, at: int | None = None) -> None:
    connection, name = _rows(store)
    mark = _mark(store)
    key = table.id if "POSTGRES_SCHEMA" in store else table.id.hex
    if at is None:
        connection.execute(f"UPDATE {name} SET state = {mark} WHERE originator_id = {mark} AND "
                           f"originator_version = {mark}", (state, key, version))
    else:
        connection.execute(f"DELETE FROM {name} WHERE originator_id = {mark}", (key,))
    if at is not None and at >= 0:
        connection.execute(f"INSERT INTO {name} (originator_id, originator_version, topic, state) VALUES "
                           f"({mark}, {mark}, {mark}, {mark})",
                           (key, at, "service.store.snapshots:TableSnapshot", state))
    connection.close()


def _forged_chips(state: bytes) -> bytes:
    """The snapshot's state with one seat's chips raised (the JSON of its stacks, left signed as it was)."""
    forged = state.replace(b'[[1,', b'[[1,9', 1)
    assert forged != state
    return forged


@pytest.mark.parametrize("attack", ["chips-raised", "moved-to-a-later-version", "own-key", "unsigned"])
def test_r_aud_1_a_snapshot_changed_in_the_database_gives_the_table_nothing(
        store: dict[str, str], attack: str, caplog: pytest.LogCaptureFixture) -> None:
    app = _served(store)
    _play(app, random.Random(11))
    table = app.table("Holdem")
    connection, _, version, state = _latest_snapshot(store, table)
    connection.close()
    header = len(snapshot_module.MAGIC) + 32 + 2 + len(snapshot_module.release()) + 64
    if attack == "chips-raised":
        _write(store, table, version, _forged_chips(state))
    elif attack == "moved-to-a-later-version":  # a genuine snapshot put where a later one would be
        _write(store, table, version, state, at=table.version)
    elif attack == "own-key":  # chips raised, then signed again with the attacker's own key: not trusted here
        thief = _served(store, key=Ed25519PrivateKey.generate())
        forged = thief.mapper.to_domain_event(StoredEvent(
            originator_id=table.id, originator_version=version, topic="service.store.snapshots:TableSnapshot",
            state=_forged_chips(state[header:])))
        _write(store, table, version, b"", at=-1)  # the genuine one removed
        assert isinstance(thief.snapshots, SignedSnapshots)
        thief.snapshots.put([forged])
    else:  # the signature and its header removed
        _write(store, table, version, state[header:])
    restarted = _served(store)
    with caplog.at_level(logging.ERROR, logger="pokertable.snapshots"):
        loaded = restarted.table("Holdem")
    _assert_same(loaded, _served(store, key=None).table("Holdem"))
    assert loaded.stacks == table.stacks
    assert isinstance(restarted.snapshots, SignedSnapshots)
    if attack == "own-key":  # another key's: passed over quietly, never an alarm
        assert restarted.snapshots.refused == 0 and not caplog.records
    else:
        assert restarted.snapshots.refused >= 1
        assert any("snapshot refused" in record.getMessage() for record in caplog.records)


def test_a_reader_that_trusts_no_key_reads_no_snapshot_and_another_release_s_is_passed_over(
        store: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    app = _served(store)
    _play(app, random.Random(3))
    table = app.table("Holdem")
    inspector = _served(store, key=None)
    with _reads(inspector) as reads:
        inspector.table("Holdem")
    assert dict(reads)[table.id] is None  # every event, from the first
    monkeypatch.setattr(snapshot_module, "release", lambda: "0.0.0-another")
    upgraded = _served(store)
    with _reads(upgraded) as reads:
        _assert_same(upgraded.table("Holdem"), table)
    assert dict(reads)[table.id] is None
    assert isinstance(upgraded.snapshots, SignedSnapshots) and upgraded.snapshots.refused == 0


def test_a_snapshot_is_taken_from_the_table_as_the_command_left_it_and_a_rotation_signs_with_the_new_key(
        store: dict[str, str]) -> None:
    app = _served(store)
    _play(app, random.Random(5))
    table = app.table("Holdem")
    new = Ed25519PrivateKey.generate()
    use_keys(app.snapshots, new)  # as keyring.rotate does
    assert isinstance(app.snapshots, SignedSnapshots) and app.snapshots.key is new and len(app.snapshots.trusted) == 2
    restarted = _served(store)
    _assert_same(restarted.table("Holdem"), table)
    snapshot = TableSnapshot.take(table)
    assert snapshot.originator_version == table.version


def test_r_hold_1_a_table_held_when_its_snapshot_is_taken_is_held_when_loaded_from_it(
        store: dict[str, str], caplog: pytest.LogCaptureFixture) -> None:
    """A shoe fault holds the table until the pit acknowledges it (R-HOLD-1); a snapshot taken meanwhile keeps the
    hold (it was once not taken at all: a hold could not be written), and the table loaded from it is still held."""
    from domain.circle.settings import BettingStructure, TableSettings
    from domain.device_reports import DeviceReport
    from tests.support.app_play import PIT

    app = _served(store)
    app.handle(OpenTable("open", "Mesa 1", TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2))))
    app.handle(Sit("sit", "Mesa 1", 1, 100))
    app.handle(RecordDeviceReport("fault", "Mesa 1", DeviceReport("PT-SHOE", "SH-1", "fault", "red", "misread")), PIT)
    with caplog.at_level(logging.WARNING):
        for n in range(EVERY):  # past the next snapshot
            app.handle(AddChips(f"chips-{n}", "Mesa 1", 1, 1))
    assert "not taken" not in caplog.text
    held = app.table("Mesa 1").holds
    assert held
    restarted = _served(store)
    with _reads(restarted) as reads:
        loaded = restarted.table("Mesa 1")
    assert dict(reads)[loaded.id] is not None  # from its snapshot: only the events after it were read
    assert loaded.holds == held
    _assert_same(loaded, _served(store, key=None).table("Mesa 1"))
