"""A casino group's follower (issue 18, item 3; docs/group.md): two casinos of 100,000 events each, every card, bet
and decision played through the application (:mod:`tests.support.group_support`: four circle games, two with a rake,
and both banked games), each casino's service signing its chain head every 1,000 events; the group's follower
(``pokertable group sync --follow``, a real process) killed with SIGKILL at five random moments of the stream (once
it has stored a number of events drawn at random) and started again each time, then left to catch up. Printed: the
kill points, events/s, and the group's totals per casino and game beside each casino's own, computed from its log
alone (they must be equal).

The casinos' events are made quickly and are still real: each casino plays its hands through the application on an
in-memory store (one process per casino, both at once), then its stored events are written, a thousand at a time,
into its PostgreSQL database through the chaining recorder, which links each to the one before it as the service
does, and its key signs the chain head after every thousand.

Run with ``.venv/bin/python -m benchmarks.group [--events N] [--kills K] [--seed S] [--postgres URL]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.app.application import PokerTables
from service.group.figures import casino_totals, total
from service.group.store import GroupStore
from service.group.verify import verify_received
from service.store.persistence import environment, notifications
from service.store.signer import HeadSigner
from service.store.signing import load_public_key, public_pem
from tests.support.group_support import Casino

CASINOS = ("Gran Via", "Costa")
BATCH = 1000


def _admin(base: str) -> psycopg.Connection[Any]:
    env = environment(base)
    return psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                           dbname="postgres", autocommit=True, connect_timeout=3)


def make_casino(name: str, url: str, events: int, seed: int, key_file: str) -> tuple[str, int, int, float]:
    """Play a casino's hands in memory until ``events`` are stored, then write them into its database, chained and
    signed: (name, hands, events written, seconds)."""
    started = time.perf_counter()
    memory = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    casino = Casino(memory, name, random.Random(seed))
    while int(memory.recorder.max_notification_id() or 0) < events:
        casino.play(12)
    app = PokerTables(env=environment(url))
    key = Ed25519PrivateKey.generate()
    Path(key_file).write_text(public_pem(key), encoding="utf-8")
    signer = HeadSigner(app, key, every=BATCH)
    batch: list[Any] = []
    for notification in notifications(memory.recorder):
        batch.append(notification)
        if len(batch) == BATCH:
            app.recorder.insert_events(batch)
            signer.sign(f"{BATCH} events")
            batch = []
    if batch:
        app.recorder.insert_events(batch)
        signer.sign("the last events")
    written = int(app.recorder.max_notification_id() or 0)
    app.close()
    return name, casino.turn, written, time.perf_counter() - started


class Positions:
    """The positions the group's store tracks, read on one connection of its own."""

    def __init__(self, group_url: str) -> None:
        self.url = group_url
        self.connection: psycopg.Connection[Any] | None = None

    def __call__(self) -> dict[str, int]:
        try:
            if self.connection is None:
                self.connection = psycopg.connect(self.url, autocommit=True)
            rows = self.connection.execute("SELECT casino, position FROM group_casinos").fetchall()
        except psycopg.errors.UndefinedTable:  # the follower has not made its tables yet
            return {}
        return {str(casino): int(position) for casino, position in rows}


def follow(line: list[str], group_url: str, heads: dict[str, int], rng: random.Random, kills: int) -> None:
    """Start the follower and SIGKILL it at ``kills`` random moments of the stream (once it has stored a number of
    events drawn at random), starting it again each time; then let it catch up. Print what happened."""
    whole = sum(heads.values())
    positions = Positions(group_url)
    runs: list[tuple[float, int]] = []
    for kill in range(1, kills + 2):
        before = sum(positions().values())
        # a number of events this run is to store before its kill: at random, the kills spread over what is left
        target = before + rng.randint(1, max(1, (whole - before) // (kills - kill + 2)))
        started = time.perf_counter()
        process = subprocess.Popen(line, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if kill <= kills:
            while sum(positions().values()) < target and process.poll() is None:
                time.sleep(0.005)
            process.send_signal(signal.SIGKILL)
            process.wait()
            at = positions()
            stored = sum(at.values())
            where = "mid-stream" if 0 < stored < whole else "at the end" if stored == whole else "before any"
            print(f"  kill {kill}: SIGKILL after {time.perf_counter() - started:4.1f} s, once {target:,} "
                  f"events in all were stored: positions "
                  f"{', '.join(f'{name} {position:,}' for name, position in sorted(at.items()))} ({where})")
        else:
            while positions() != heads:
                time.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            process.wait()
            stored = whole
        runs.append((time.perf_counter() - started, stored - before))
    if positions.connection is not None:
        positions.connection.close()
    seconds = sum(run[0] for run in runs)
    print(f"  {whole:,} events received in {len(runs)} runs, {seconds:.1f} s of the follower's life (its "
          f"restarts included): {whole / seconds:,.0f} events/s")
    last_seconds, last_events = runs[-1]
    print(f"  the last run: {last_events:,} events in {last_seconds:.1f} s (a start included): "
          f"{last_events / last_seconds:,.0f} events/s")


def compare(urls: dict[str, str], group_url: str, keys: dict[str, str]) -> bool:
    """The group's totals beside each casino's own (from its log) and their sum; whether all are equal."""
    with GroupStore(group_url) as store:
        grouped = store.totals()
        verdicts = {name: verify_received(store, name, (load_public_key(Path(keys[name])),)) for name in urls}
    equal = True
    summed: dict[str, Any] = {}
    print(f"  {'casino':<9} {'game':<13} {'hands':>6} {'bet':>10} {'paid':>10} {'rake':>7} {'house':>8}  "
          "group = casino's own")
    for name, url in urls.items():
        app = PokerTables(env=environment(url))
        try:
            own = casino_totals(app.recorder, app.mapper)
        finally:
            app.close()
        for game, totals in own.items():
            ours = grouped.get((name, game))
            equal = equal and ours == totals
            summed[game] = summed[game] + totals if game in summed else totals
            print(f"  {name:<9} {game:<13} {totals.hands:>6} {totals.bet:>10} {totals.paid:>10} {totals.rake:>7} "
                  f"{totals.house:>8}  {'yes' if ours == totals else f'NO: group {ours}'}")
        equal = equal and {game for (casino, game) in grouped if casino == name} == set(own)
        verdict = verdicts[name]
        print(f"  {name}: group verify: {'clean' if verdict.clean else verdict.finding}, {verdict.events:,} events, "
              f"signed up to {verdict.signed:,} ({verdict.heads} signed heads checked)")
    group_total = total({f"{casino}/{game}": totals for (casino, game), totals in grouped.items()})
    casinos_total = total(summed)
    print(f"  group total: {group_total.hands} hands, bet {group_total.bet}, paid {group_total.paid}, rake "
          f"{group_total.rake}, house {group_total.house}")
    print(f"  sum of the casinos' own: {casinos_total.hands} hands, bet {casinos_total.bet}, paid "
          f"{casinos_total.paid}, rake {casinos_total.rake}, house {casinos_total.house}")
    equal = equal and group_total == casinos_total
    print(f"  group totals equal the sum of the casinos' own: {'YES' if equal else 'NO'}")
    return equal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000, help="events per casino")
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/pokertable_test")
    args = parser.parse_args()
    print(f"pokertable group follower benchmark ({os.cpu_count()} cores; one run; seed {args.seed})")
    server = args.postgres.rsplit("/", 1)[0]
    names = {label: f"bench_group_{label}_{uuid.uuid4().hex[:8]}" for label in ("a", "b", "g")}
    rng = random.Random(args.seed)
    with _admin(args.postgres) as admin:
        for name in names.values():
            admin.execute(f'CREATE DATABASE "{name}"')
    try:
        with tempfile.TemporaryDirectory() as directory:
            urls = {CASINOS[0]: f"{server}/{names['a']}", CASINOS[1]: f"{server}/{names['b']}"}
            keys = {name: str(Path(directory) / f"{index}.pub.pem") for index, name in enumerate(CASINOS)}
            group_url = f"{server}/{names['g']}"
            started = time.perf_counter()
            with multiprocessing.get_context("spawn").Pool(2) as pool:
                made = pool.starmap(make_casino, [(name, urls[name], args.events, args.seed + index, keys[name])
                                                  for index, name in enumerate(CASINOS)])
            heads = {}
            for name, hands, written, seconds in made:
                heads[name] = written
                print(f"  {name}: {hands:,} hands played, {written:,} events written, chained and signed in "
                      f"{seconds:.1f} s")
            print(f"  both casinos made in {time.perf_counter() - started:.1f} s")
            line = [sys.executable, "-m", "service.cli", "group", "sync", "--follow", "--interval", "0.2",
                    "--group-db", group_url]
            for name in CASINOS:
                line += ["--casino", f"{name}={urls[name]}", "--public-key", f"{name}={keys[name]}"]
            follow(line, group_url, heads, rng, args.kills)
            if not compare(urls, group_url, keys):
                raise SystemExit(1)
    finally:
        with _admin(args.postgres) as admin:
            for name in names.values():
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
