"""A played store and what someone with the database password does to it: events altered, removed, reordered,
forged or inserted, the guards dropped, the chain recomputed (the tamper-evidence tests)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import StoredEvent

from domain.actions import Deal, Fold
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from service.app.application import PokerTables, Role, Viewer
from service.app.commands import Act, OpenTable, Sit, StartHand
from service.store.audit import chain_hash, verify
from service.store.persistence import environment
from tests.support.stores import postgres_store

PIT = Viewer("pit", Role.PIT_BOSS)


def play(app: PokerTables) -> None:
    """A table, three players and two hands: some 40 events."""
    counter = iter(range(10**6))

    def cid() -> str:
        return f"audit-{next(counter)}"

    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
    app.handle(OpenTable(cid(), "Mesa A", settings))
    for seat in (1, 2, 3):
        app.handle(Sit(cid(), "Mesa A", seat, 500))
    for number in (1, 2):
        app.handle(StartHand(cid(), "Mesa A", DeckIdentity(52, BackColour.RED if number % 2 else BackColour.BLUE)))
        for card in ("As", "Kd", "Qh", "Ac", "Kc", "Qs"):
            app.handle(Act(cid(), "Mesa A", Deal(card=Card.parse(card))), PIT)
        button = (number - 1) % 3 + 1
        for seat in (button, button % 3 + 1):
            app.handle(Act(cid(), "Mesa A", Fold(seat=seat)), PIT)


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


def _remove_with_link(store: Store, position: int) -> None:
    _remove(store, position)
    store.execute("DELETE FROM stored_events_chain WHERE position = %s", position)


def _swap(store: Store, position: int) -> None:
    (spare,) = store.execute("SELECT MAX(notification_id) + 1000 FROM stored_events")[0]
    store.execute("UPDATE stored_events SET notification_id = %s WHERE notification_id = %s", spare, position)
    store.execute("UPDATE stored_events SET notification_id = %s WHERE notification_id = %s", position, position + 1)
    store.execute("UPDATE stored_events SET notification_id = %s WHERE notification_id = %s", position + 1, spare)


TAMPERING: dict[str, tuple[Callable[[Store, int], None], str]] = {
    "altered": (_alter, "altered"),
    "removed": (_remove, "removed"),
    "removed-with-its-link": (_remove_with_link, "removed"),
    "reordered": (_swap, "reordered"),
}


def _forged_chips(store: Store, amount: int) -> StoredEvent:
    """What someone with the library and the database password writes: Mesa A's next event, chips at seat 1."""
    app = PokerTables(env=store.env)
    table = app.table("Mesa A")
    table.add_chips(1, amount)
    (event,) = table.collect_events()
    return app.mapper.to_stored_event(event)


def _insert_at(store: Store, position: int, event: StoredEvent, *, link: bool = False) -> None:
    originator = event.originator_id.hex if store.sqlite else event.originator_id  # type: ignore[union-attr]
    store.execute("INSERT INTO stored_events (notification_id, originator_id, originator_version, topic, state) "
                  "VALUES (%s, %s, %s, %s, %s)", position, originator, event.originator_version, event.topic,
                  event.state)
    if link:
        store.execute("INSERT INTO stored_events_chain (position, hash) VALUES (%s, %s)", position, bytes(32))


def _drop_guards(store: Store) -> None:
    """What the attacker does first (or what a store made before the guards lacks)."""
    if not store.sqlite:
        for table in ("stored_events", "stored_events_chain"):
            store.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_position_check")
        return
    store.execute("DROP TRIGGER stored_events_position_insert")
    store.execute("DROP TRIGGER stored_events_position_update")
    # SQLite drops no CHECK: the chain table is made again without one (its triggers go with the old one)
    store.execute("ALTER TABLE stored_events_chain RENAME TO guarded")
    store.execute("CREATE TABLE stored_events_chain (position INTEGER PRIMARY KEY, hash BLOB NOT NULL)")
    store.execute("INSERT INTO stored_events_chain SELECT position, hash FROM guarded")
    store.execute("DROP TABLE guarded")


def rechain(store: Store, start: int) -> None:
    """Recompute every link from ``start`` on, as anyone who knows the (public) formula can."""
    rows = store.execute("SELECT hash FROM stored_events_chain WHERE position < %s ORDER BY position DESC LIMIT 1",
                         start)
    previous = bytes(rows[0][0]) if rows else bytes(32)
    for position, originator, version, topic, state in store.execute(
            "SELECT notification_id, originator_id, originator_version, topic, state FROM stored_events "
            "WHERE notification_id >= %s ORDER BY notification_id", start):
        previous = chain_hash(previous, position, StoredEvent(originator, version, topic, bytes(state)))
        if store.execute("SELECT 1 FROM stored_events_chain WHERE position = %s", position):
            store.execute("UPDATE stored_events_chain SET hash = %s WHERE position = %s", previous, position)
        else:
            store.execute("INSERT INTO stored_events_chain (position, hash) VALUES (%s, %s)", position, previous)


def append(store: Store, event: StoredEvent) -> int:
    """An event appended after the last one, with its link computed by the formula."""
    (last,) = store.execute("SELECT MAX(notification_id) FROM stored_events")[0]
    _insert_at(store, last + 1, event)
    rechain(store, last + 1)
    return int(last) + 1
