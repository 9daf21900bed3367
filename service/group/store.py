"""The group's read store (issue 18, item 3): a PostgreSQL database (or a schema of one) of the group's own, apart
from every casino's.

Its tables, all keyed by the casino's name:

- ``group_casinos``: per casino, the **tracked position** (the last position of the casino's log received), the
  chain hash at that position (what the next event received must chain to, R-AUD-1), how many events were received,
  and the last chain position a signed head of the casino vouches for;
- ``group_events``: every event received, as the casino stored it, with its chain link: the group can verify what it
  received without the casino (``pokertable group verify``);
- ``group_heads``: the casino's signed chain heads received, and whether the group checked each against the
  casino's public key;
- ``group_tables`` and ``group_hands``: what the report reads: each table's name and game, each hand's figures
  (:mod:`service.group.figures`);
- ``group_alerts``: what the follower refused (a broken chain, a forged head), once per casino and position.

Everything a page of events changes is written by :meth:`GroupStore.commit`, in one transaction with the new
position, under a lock on the casino's row that also checks the position it read from is still the tracked one: a
follower killed at any instant leaves either the whole page and its position or neither, and two followers of one
casino never both write a page.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from service.group.figures import PLAYED, HandFigures, Totals
from service.store.chain import GENESIS
from service.store.persistence import environment, masked_url

TABLES = """
CREATE TABLE IF NOT EXISTS group_casinos (
    casino text PRIMARY KEY, position bigint NOT NULL DEFAULT 0, chain_hash bytea NOT NULL,
    events bigint NOT NULL DEFAULT 0, signed bigint NOT NULL DEFAULT 0, received_at timestamptz);
CREATE TABLE IF NOT EXISTS group_events (
    casino text NOT NULL, position bigint NOT NULL, originator_id text NOT NULL, originator_version bigint NOT NULL,
    topic text NOT NULL, state bytea NOT NULL, hash bytea NOT NULL, PRIMARY KEY (casino, position));
CREATE INDEX IF NOT EXISTS group_events_originator ON group_events (casino, originator_id, originator_version);
CREATE TABLE IF NOT EXISTS group_heads (
    casino text NOT NULL, at bigint NOT NULL, position bigint NOT NULL, chain_hash bytea NOT NULL,
    signature bytea NOT NULL, key text NOT NULL, reason text NOT NULL, checked boolean NOT NULL,
    PRIMARY KEY (casino, at));
ALTER TABLE group_heads ADD COLUMN IF NOT EXISTS message bytea;
CREATE TABLE IF NOT EXISTS group_tables (
    casino text NOT NULL, table_id uuid NOT NULL, name text NOT NULL, game text NOT NULL,
    PRIMARY KEY (casino, table_id));
CREATE TABLE IF NOT EXISTS group_hands (
    casino text NOT NULL, hand_id uuid NOT NULL, table_id uuid NOT NULL, number integer NOT NULL,
    game text NOT NULL, outcome text NOT NULL, bet bigint NOT NULL, paid bigint NOT NULL, rake bigint NOT NULL,
    house bigint NOT NULL, started timestamptz NOT NULL, ended timestamptz NOT NULL, position bigint NOT NULL,
    PRIMARY KEY (casino, hand_id));
CREATE TABLE IF NOT EXISTS group_alerts (
    casino text NOT NULL, position bigint NOT NULL, kind text NOT NULL, message text NOT NULL,
    raised_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (casino, position, kind));
"""


class GroupStoreError(RuntimeError):
    """The group's database cannot be used (not PostgreSQL, unreachable)."""


@dataclass(frozen=True)
class Tracked:
    """Where the group stands with a casino."""

    casino: str
    position: int
    chain_hash: bytes
    events: int = 0
    signed: int = 0
    received_at: datetime | None = None


@dataclass(frozen=True)
class Received:
    """One event received, as the casino stored it, with its chain link."""

    position: int
    originator_id: UUID
    originator_version: int
    topic: str
    state: bytes
    hash: bytes


@dataclass(frozen=True)
class HandRow:
    """One hand's row: where it is, and its figures."""

    hand_id: UUID
    table_id: UUID
    number: int
    started: datetime
    ended: datetime
    figures: HandFigures


@dataclass
class Page:
    """What one page of a casino's log changes in the group's store."""

    events: list[Received]
    chain_hash: bytes
    heads: list[tuple[int, int, bytes, bytes, str, str, bool, bytes | None]]
    """at, position, hash, signature, key, reason, checked, and a version-2 head's signed message."""
    tables: list[tuple[UUID, str, str]]  # table id, name, game
    hands: dict[UUID, HandRow]
    signed: int

    @property
    def last(self) -> int:
        return self.events[-1].position


class PositionMovedError(RuntimeError):
    """Another follower of the same casino stored this page first: read again from the position now tracked."""


class GroupStore:
    """The group's read store at a ``postgresql://…[?schema=NAME]`` URL (its tables are made if missing)."""

    def __init__(self, url: str) -> None:
        env = environment(url)
        if env["PERSISTENCE_MODULE"] != "eventsourcing.postgres":
            raise GroupStoreError(f"the group's store is a PostgreSQL database, not {masked_url(url)!r}")
        self.schema = env.get("POSTGRES_SCHEMA", "public")
        try:
            self.connection = psycopg.connect(
                host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], dbname=env["POSTGRES_DBNAME"],
                user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"] or None, connect_timeout=5,
                application_name="pokertable-group", row_factory=dict_row)
            with self.connection.transaction():
                self.connection.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema)))
                self.connection.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema)))
                self.connection.execute("SELECT pg_advisory_xact_lock(hashtext('pokertable-group-tables'))")
                for statement in TABLES.split(";"):
                    if statement.strip():
                        self.connection.execute(statement)
        except psycopg.Error as error:
            raise GroupStoreError(f"the group's store {masked_url(url)}: {str(error).strip()}") from None

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> GroupStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- the follower's side --------------------------------------------------------------------------

    def tracked(self, casino: str) -> Tracked:
        """Where the group stands with ``casino`` (position 0, the genesis hash: nothing received yet)."""
        with self.connection.transaction():
            self.connection.execute("INSERT INTO group_casinos (casino, chain_hash) VALUES (%s, %s) "
                                    "ON CONFLICT (casino) DO NOTHING", (casino, GENESIS))
            row = self.connection.execute("SELECT * FROM group_casinos WHERE casino = %s", (casino,)).fetchone()
        assert row is not None
        return Tracked(casino, int(row["position"]), bytes(row["chain_hash"]), int(row["events"]),
                       int(row["signed"]), row["received_at"])

    def every_tracked(self) -> list[Tracked]:
        """Every casino the group has followed, by name."""
        with self.connection.transaction():
            rows = self.connection.execute("SELECT * FROM group_casinos ORDER BY casino").fetchall()
        return [Tracked(row["casino"], int(row["position"]), bytes(row["chain_hash"]), int(row["events"]),
                        int(row["signed"]), row["received_at"]) for row in rows]

    def hand_events(self, casino: str, hand_id: UUID, below: int) -> list[Received]:
        """A hand's events received, up to (not including) version ``below``, oldest first."""
        with self.connection.transaction():
            rows = self.connection.execute(
                "SELECT * FROM group_events WHERE casino = %s AND originator_id = %s AND originator_version < %s "
                "ORDER BY originator_version", (casino, str(hand_id), below)).fetchall()
        return [_received(row) for row in rows]

    def chain_hash_at(self, casino: str, position: int) -> bytes | None:
        """The chain hash received at ``position`` (None: no event received there)."""
        with self.connection.transaction():
            row = self.connection.execute("SELECT hash FROM group_events WHERE casino = %s AND position = %s",
                                          (casino, position)).fetchone()
        return None if row is None else bytes(row["hash"])

    def commit(self, casino: str, since: int, page: Page) -> None:
        """Store a page of ``casino``'s log received after position ``since``, and move the tracked position to its
        last event: one transaction (:class:`PositionMovedError` if the position is no longer ``since``)."""
        with self.connection.transaction(), self.connection.cursor() as cursor:
            row = cursor.execute("SELECT position FROM group_casinos WHERE casino = %s FOR UPDATE",
                                 (casino,)).fetchone()
            if row is None or int(row["position"]) != since:
                raise PositionMovedError(f"{casino}: the tracked position moved from {since}")
            with cursor.copy("COPY group_events (casino, position, originator_id, originator_version, topic, state, "
                             "hash) FROM STDIN") as copy:
                for event in page.events:
                    copy.write_row((casino, event.position, str(event.originator_id), event.originator_version,
                                    event.topic, event.state, event.hash))
            cursor.executemany("INSERT INTO group_heads (casino, at, position, chain_hash, signature, key, reason, "
                               "checked, message) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                               [(casino, *head) for head in page.heads])
            cursor.executemany("INSERT INTO group_tables VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                               [(casino, *table) for table in page.tables])
            cursor.executemany(
                "INSERT INTO group_hands VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (casino, hand_id) DO UPDATE SET outcome = excluded.outcome, bet = excluded.bet, "
                "paid = excluded.paid, rake = excluded.rake, house = excluded.house, ended = excluded.ended, "
                "position = excluded.position",
                [(casino, hand.hand_id, hand.table_id, hand.number, hand.figures.game, hand.figures.outcome,
                  hand.figures.bet, hand.figures.paid, hand.figures.rake, hand.figures.house, hand.started,
                  hand.ended, page.last) for hand in page.hands.values()])
            cursor.execute("UPDATE group_casinos SET position = %s, chain_hash = %s, events = events + %s, "
                           "signed = greatest(signed, %s), received_at = now() WHERE casino = %s",
                           (page.last, page.chain_hash, len(page.events), page.signed, casino))

    def alert(self, casino: str, position: int, kind: str, message: str) -> bool:
        """Record what the follower refused; whether it is new (the same refusal is recorded once)."""
        with self.connection.transaction():
            cursor = self.connection.execute(
                "INSERT INTO group_alerts (casino, position, kind, message) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING", (casino, position, kind, message))
            return cursor.rowcount == 1

    def alerts(self) -> list[dict[str, Any]]:
        """Every refusal recorded, oldest first."""
        with self.connection.transaction():
            return self.connection.execute("SELECT * FROM group_alerts ORDER BY raised_at, casino").fetchall()

    # -- the report's and the verifier's side ------------------------------------------------------------

    def totals(self, *, by_table: bool = False, since: datetime | None = None,
               until: datetime | None = None) -> dict[tuple[str, str], Totals]:
        """The totals per casino and game (or per casino and table, ``by_table``), from the hands received (those
        started from ``since`` and before ``until``, if given)."""
        key = sql.SQL("coalesce(t.name, h.table_id::text)" if by_table else "h.game")
        query = sql.SQL(
            "SELECT h.casino, {0} AS key, count(*) AS hands, count(*) FILTER (WHERE h.outcome = ANY(%s)) AS played, "
            "count(*) FILTER (WHERE h.outcome = 'voided') AS voided, "
            "count(*) FILTER (WHERE h.outcome = 'in-progress') AS in_progress, sum(h.bet) AS bet, "
            "sum(h.paid) AS paid, sum(h.rake) AS rake, sum(h.house) AS house FROM group_hands h "
            "LEFT JOIN group_tables t ON t.casino = h.casino AND t.table_id = h.table_id "
            "WHERE h.started >= coalesce(%s::timestamptz, '-infinity') "
            "AND h.started < coalesce(%s::timestamptz, 'infinity') "
            "GROUP BY h.casino, {0} ORDER BY h.casino, {0}").format(key)
        with self.connection.transaction():
            rows = self.connection.execute(query, (list(PLAYED), since, until)).fetchall()
        return {(row["casino"], row["key"]): Totals(int(row["hands"]), int(row["played"]), int(row["voided"]),
                                                   int(row["in_progress"]), int(row["bet"]), int(row["paid"]),
                                                   int(row["rake"]), int(row["house"])) for row in rows}

    def received(self, casino: str, *, page: int = 5000) -> Iterator[Received]:
        """Every event received from ``casino``, in position order, a page at a time."""
        after = -(2**63)
        while True:
            with self.connection.transaction():
                rows = self.connection.execute(
                    "SELECT * FROM group_events WHERE casino = %s AND position > %s ORDER BY position LIMIT %s",
                    (casino, after, page)).fetchall()
            if not rows:
                return
            yield from (_received(row) for row in rows)
            after = int(rows[-1]["position"])

    def heads(self, casino: str) -> list[dict[str, Any]]:
        """The signed heads received from ``casino``, in log order."""
        with self.connection.transaction():
            return self.connection.execute("SELECT * FROM group_heads WHERE casino = %s ORDER BY at",
                                           (casino,)).fetchall()


def _received(row: dict[str, Any]) -> Received:
    return Received(int(row["position"]), UUID(row["originator_id"]), int(row["originator_version"]), row["topic"],
                    bytes(row["state"]), bytes(row["hash"]))

