"""Tamper evidence (R-AUD-1): events altered, removed, reordered or inserted directly in the SQLite file or in
PostgreSQL are named by ``audit verify`` (the first bad one, with its position); a clean log is reported clean."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.cards import Card
from domain.decks import BackColour, DeckIdentity
from domain.table_settings import BettingStructure, TableSettings
from service.application import HandCommand, PokerTables, Role, Viewer
from service.audit import verify
from service.cli import main
from service.persistence import environment
from tests.test_application import postgres_store

PIT = Viewer("pit", Role.PIT_BOSS)


def play(app: PokerTables) -> None:
    """A table, three players and two hands: some 40 events."""
    counter = iter(range(10**6))

    def cid() -> str:
        return f"audit-{next(counter)}"

    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
    app.open_table(cid(), "Mesa A", settings)
    for seat in (1, 2, 3):
        app.sit(cid(), "Mesa A", seat, 500)
    for number in (1, 2):
        app.start_hand(cid(), "Mesa A", DeckIdentity(52, BackColour.RED if number % 2 else BackColour.BLUE))
        for card in ("As", "Kd", "Qh", "Ac", "Kc", "Qs"):
            app.hand_command(cid(), "Mesa A", HandCommand("deal", card=Card.parse(card)), PIT)
        button = (number - 1) % 3 + 1
        for seat in (button, button % 3 + 1):
            app.hand_command(cid(), "Mesa A", HandCommand("fold", seat=seat), PIT)


class Store:
    """A played store and raw SQL access to it, as someone with the database password would have."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        app = PokerTables(env=env)
        play(app)
        self.table = app.recorder.events_table_name  # type: ignore[attr-defined]
        self.sqlite = "SQLITE_DBNAME" in env

    def execute(self, statement: str, *params: Any) -> list[tuple[Any, ...]]:
        statement = statement.replace("stored_events", self.table)
        if self.sqlite:
            with sqlite3.connect(self.env["SQLITE_DBNAME"]) as conn:
                return conn.execute(statement.replace("%s", "?").replace("notification_id", "rowid"),
                                    params).fetchall()
        import psycopg

        with psycopg.connect(host=self.env["POSTGRES_HOST"], port=self.env["POSTGRES_PORT"],
                             user=self.env["POSTGRES_USER"], dbname=self.env["POSTGRES_DBNAME"],
                             autocommit=True) as conn:
            conn.execute(f"SET search_path TO {self.env['POSTGRES_SCHEMA']}")
            cursor = conn.execute(statement, params)
            return cursor.fetchall() if cursor.description else []

    def verdict(self) -> tuple[str, int] | None:
        app = PokerTables(env=self.env)  # kept while verifying: closing it closes its connections
        result = verify(app.recorder)
        return None if result.finding is None else (result.finding.kind, result.finding.position)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield Store(environment(f"sqlite:///{tmp_path / 'audit.db'}") if request.param == "sqlite" else postgres_store())


def _alter(store: Store, position: int) -> None:
    (state,) = store.execute("SELECT state FROM stored_events WHERE notification_id = %s", position)[0]
    store.execute("UPDATE stored_events SET state = %s WHERE notification_id = %s",
                  bytes(state).replace(b"500", b"900") if b"500" in bytes(state) else bytes(state) + b" ", position)


def _remove(store: Store, position: int) -> None:
    store.execute("DELETE FROM stored_events WHERE notification_id = %s", position)


def _swap(store: Store, position: int) -> None:
    store.execute("UPDATE stored_events SET notification_id = -1 WHERE notification_id = %s", position)
    store.execute("UPDATE stored_events SET notification_id = %s WHERE notification_id = %s", position, position + 1)
    store.execute("UPDATE stored_events SET notification_id = %s WHERE notification_id = -1", position + 1)


TAMPERING: dict[str, tuple[Callable[[Store, int], None], str]] = {
    "altered": (_alter, "altered"),
    "removed": (_remove, "removed"),
    "reordered": (_swap, "reordered"),
}


def test_a_clean_log_is_reported_clean(store: Store) -> None:
    app = PokerTables(env=store.env)
    result = verify(app.recorder)
    assert result.clean and result.events >= 30 and result.head[0] >= 30


@pytest.mark.parametrize("tampering", list(TAMPERING))
@pytest.mark.parametrize("position", [1, 5, 17])
def test_the_first_altered_removed_or_reordered_event_is_named(store: Store, tampering: str, position: int) -> None:
    change, kind = TAMPERING[tampering]
    change(store, position)
    assert store.verdict() == (kind, position)


def test_an_inserted_event_is_named(store: Store) -> None:
    rows = store.execute("SELECT originator_id, originator_version, topic, state FROM stored_events "
                         "ORDER BY notification_id DESC LIMIT 1")
    originator, version, topic, state = rows[0]
    store.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) "
                  "VALUES (%s, %s, %s, %s)", originator, version + 1, topic, state)
    (last,) = store.execute("SELECT MAX(notification_id) FROM stored_events")[0]
    assert store.verdict() == ("inserted", last)


def test_the_command_line_names_the_first_bad_event_and_checks_a_safekept_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(environment(f"sqlite:///{tmp_path / 'cli.db'}"))
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["audit", "head", "--db", url]) == 0
    head = capsys.readouterr().out.strip()
    assert main(["audit", "verify", "--db", url, "--head", head]) == 0
    assert capsys.readouterr().out.startswith("clean: ")
    forged = head.split(":")[0] + ":" + "00" * 32
    assert main(["audit", "verify", "--db", url, "--head", forged]) == 1
    assert "safekept head" in capsys.readouterr().out
    _alter(store, 3)
    assert main(["audit", "verify", "--db", url]) == 1
    out = capsys.readouterr().out
    assert out.startswith("TAMPERED (altered): position 3: ") and "intact up to position 2" in out
