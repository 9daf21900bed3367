"""Replay speed for disputes and audits (issue 8): the time to reconstruct one finished hand of each circle game
from the store, and events per second to replay a long log (100,000+ events) and to verify its tamper-evident
chain, on SQLite and PostgreSQL.  The peer is eventsourcing's own way to rebuild an aggregate
(``repository.get``), in the same run.  Targets: one hand under 5 ms; the log at 20,000 events/s or more.

Run with ``.venv/bin/python -m benchmarks.replay [--events N] [--postgres URL]``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.service_load import postgres_url
from domain.cards.cards import Rank
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, TableSettings
from domain.reconstruction import reconstruct
from service.app.application import PokerTables
from service.store.audit import verify
from service.store.persistence import environment, notifications
from tests.support.circle_support import play_randomly, shuffled, start

GAMES = {
    "holdem": (TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=True), 6),
    "omaha": (TableSettings.create("omaha", BettingStructure.POT_LIMIT, blinds=(1, 2), burn_cards=True), 6),
    "stud7": (TableSettings.create("stud7", BettingStructure.FIXED_LIMIT, antes=1, bring_in=2, small_bet=5,
                                   big_bet=10, burn_cards=True), 6),
    "draw": (TableSettings.create("draw", BettingStructure.POT_LIMIT, antes=1, small_bet=2, big_bet=4, min_bet=2,
                                  burn_cards=True), 5),
    "stud5": (TableSettings.create("stud5", BettingStructure.FIXED_LIMIT, antes=1, bring_in=1, small_bet=2,
                                   big_bet=4, min_bet=2, burn_cards=True), 5),
    "sintetico": (TableSettings.create("sintetico", BettingStructure.POT_LIMIT, antes=1, small_bet=2, big_bet=4,
                                       min_bet=2), 6),
}


def random_hand(game: str, number: int, rng: random.Random) -> Hand:
    settings, players = GAMES[game]
    hand = start(settings, [rng.randrange(50, 400) for _ in range(players)], number, openers=Rank.JACK)
    play_randomly(hand, rng, shuffled(hand.state.deck_size, rng))
    return hand


def fill(app: PokerTables, events: int, rng: random.Random) -> tuple[int, dict[str, uuid.UUID]]:
    """Random finished hands of every game until the log holds ``events``; one hand of each game to reconstruct."""
    stored, number = 0, 0
    chosen: dict[str, uuid.UUID] = {}
    games = list(GAMES)
    while stored < events:
        number += 1
        game = games[number % len(games)]
        hand = random_hand(game, number, rng)
        chosen.setdefault(game, hand.id)
        recording = app.save(hand)
        stored += len(recording)
    return stored, chosen


def per_hand(app: PokerTables, chosen: dict[str, uuid.UUID], repeats: int = 50) -> None:
    print("  reconstruct: the state after every event; repository.get: the final state only (the library's rebuild)")
    print(f"  {'one finished hand':<18} {'events':>6}  {'reconstruct (ours)':>19}  {'repository.get':>15}  "
          "time ratio")
    for game, hand_id in chosen.items():
        events = list(app.events.get(hand_id))
        ours, peers = [], []
        for _ in range(repeats):
            started = time.perf_counter()
            steps = reconstruct(app.events.get(hand_id))
            ours.append(time.perf_counter() - started)
            started = time.perf_counter()
            app.repository.get(hand_id, version=len(events))  # a version: from the store, not the cache
            peers.append(time.perf_counter() - started)
        assert len(steps) == len(events)
        mine, theirs = statistics.median(ours) * 1000, statistics.median(peers) * 1000
        verdict = "met" if mine < 5 else "MISSED"
        print(f"  {game:<18} {len(events):>6}  {mine:>16.2f} ms  {theirs:>12.2f} ms  {mine / theirs:5.2f}×  "
              f"(target < 5 ms: {verdict})")


def whole_log(app: PokerTables) -> None:
    started = time.perf_counter()
    rebuilt: dict[uuid.UUID, Any] = {}
    count = 0
    for notification in notifications(app.recorder):
        event: Any = app.mapper.to_domain_event(notification)
        rebuilt[event.originator_id] = event.mutate(rebuilt.get(event.originator_id))
        count += 1
    ours = count / (time.perf_counter() - started)
    started = time.perf_counter()
    for aggregate_id, aggregate in rebuilt.items():
        app.repository.get(aggregate_id, version=aggregate.version)  # a version: from the store, not the cache
    peer = count / (time.perf_counter() - started)
    started = time.perf_counter()
    verdict = verify(app.recorder)
    audit = verdict.events / (time.perf_counter() - started)
    assert verdict.clean
    print(f"  replay of the whole log, {count:,} events: {ours:,.0f} events/s "
          f"(repository.get per aggregate {peer:,.0f}/s, {ours / peer:.2f}×; target ≥ 20,000: "
          f"{'met' if ours >= 20000 else 'MISSED'})")
    print(f"  audit verify of the chain: {audit:,.0f} events/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/pokertable_test")
    args = parser.parse_args()
    print(f"pokertable replay benchmark ({os.cpu_count()} cores; one run)")
    stores = [("SQLite", environment(f"sqlite:///{Path(tempfile.mkdtemp()) / 'replay.db'}"))]
    pg = postgres_url(args.postgres)
    if pg:
        stores.append(("PostgreSQL", environment(pg)))
    else:
        print(f"  (PostgreSQL skipped: no server at {args.postgres})")
    for label, env in stores:
        app = PokerTables(env=env)
        started = time.perf_counter()
        stored, chosen = fill(app, args.events, random.Random(7))
        print(f"\n{label}: {stored:,} events stored in {time.perf_counter() - started:.1f} s")
        per_hand(app, chosen)
        whole_log(app)
        app.close()
        if "POSTGRES_SCHEMA" in env:
            import psycopg

            with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                                 dbname=env["POSTGRES_DBNAME"], autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {env['POSTGRES_SCHEMA']} CASCADE")


if __name__ == "__main__":
    main()
