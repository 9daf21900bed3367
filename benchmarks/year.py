"""The floor's read paths as the log grows (issue 30, item 5): each path timed on stores of increasing size, with the
growth exponent between the smallest and the largest (0: the cost does not grow with the log; 1: in proportion).

Each store is built quickly and as play writes it: ``--tables`` Hold'em tables, each hand played through the domain
(random legal play, every card read by the shoe with its sequence number), saved with its table in one transaction
through the application's own store path (chained, timed in log order), a shuffler's report before each hand (the
decks alternate), a dealer rotation every 40 hands. A simulated clock runs 90 s a hand at each table (40 hands a
table-hour), so a large store covers days of play and "the current shift" holds what an 8-hour shift holds.
Events a hand: about 40 (the hand's and its table's). Measured, each as the median of ``--repeats`` runs after one
warm-up, on a fresh application (nothing cached but what the path itself loads):

- ``dealers``: the dealers' figures of the last 4 hours (the Dealers page shows the shift so far, every 15 s;
  ``ListDealerFigures``);
- ``shufflers``: the shuffler check of the last 4 hours (every 300 s, and the Shufflers page);
- ``history``: one table as it stood at a log position in the middle of the log (a dispute; ``GetTable`` at a
  position);
- ``search``: a table's hands of the last hour (the floor's hands per hour; ``SearchHands``);
- ``first load``: a table's first load after a restart (its last signed snapshot and the events after it);
- ``command``: one command at a table (a chip purchase), warm.

Beside the first two, the same answers computed as before issue 30, in the same run: the dealers' figures read
from the log's first event, and the shuffles seen reading every table from its opening.

    python -m benchmarks.year [--sizes 50000 150000 500000] [--tables 8] [--repeats 5] [--postgres URL]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import eventsourcing.domain
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.cards.decks import BackColour, DeckIdentity, composition
from domain.circle.settings import BettingStructure, TableSettings
from domain.dealer_figures import dealer_figures
from domain.device_reports import DeviceReport
from service.app.application import PokerTables
from service.app.dealer_report import log_entries, shift_dealers
from service.app.shufflers import _finished_hands, shuffles_seen
from service.store.persistence import environment
from service.store.snapshots import use_keys
from tests.circle_support import play_randomly

SETTINGS = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
KEY = Ed25519PrivateKey.generate()
HAND_SECONDS = 90
WINDOW = timedelta(hours=4)
"""The period the dealers' figures and the shuffler check cover: the first half of an 8-hour shift, the same at every
size (a shift's start falls anywhere in a store's last day)."""
START = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)


class _Clock:
    """The simulated clock every event is timed by while a store is built."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=10)
        return self.now


class _ShoeRead:
    """A hand's ``deal`` with every card read by the shoe, with the next sequence number."""

    def __init__(self, deal: Callable[..., None]) -> None:
        self.deal, self.sequence = deal, 0

    def __call__(self, card: Any, source: str = "shoe", sequence: int | None = None) -> None:
        self.sequence += 1
        self.deal(card, "shoe", self.sequence)


@contextmanager
def simulated(clock: _Clock) -> Iterator[None]:
    real = eventsourcing.domain.datetime_now_with_tzinfo
    eventsourcing.domain.datetime_now_with_tzinfo = clock
    try:
        yield
    finally:
        eventsourcing.domain.datetime_now_with_tzinfo = real


def build(env: dict[str, str], events: int, tables: int, rng: random.Random) -> tuple[int, datetime]:
    """A store of about ``events`` events; the events written and the simulated time at its end."""
    clock = _Clock()
    with simulated(clock):
        app = PokerTables(env=env)
        use_keys(app.snapshots, KEY)
        names = [f"Mesa {n + 1}" for n in range(tables)]
        for name in names:
            app.open_table(uuid.uuid4().hex, name, SETTINGS)
            for seat in range(1, 7):
                app.sit(uuid.uuid4().hex, name, seat, 500)
        written = app.recorder.max_notification_id() or 0
        hands = 0
        while written < events:
            for index, name in enumerate(names):
                clock.now = START + timedelta(seconds=HAND_SECONDS * (hands // tables)) + timedelta(seconds=index)
                table = app.table(name)
                if hands // tables % 40 == 0:
                    table.sign_in(f"D-{(hands // tables // 40 + index) % 30:02d}", f"station-{index}")
                for seat, stack in table.stacks.items():
                    if stack < 50:
                        table.add_chips(seat, 500)
                colour = BackColour.RED if (table.hands_started + 1) % 2 else BackColour.BLUE
                table.record_device_report(DeviceReport("PT-SHUF", f"SN-{index}", "shuffle", colour.value, "ok"))
                hand = table.start_hand(DeckIdentity(52, colour))
                deck = list(composition(52))
                rng.shuffle(deck)
                shoe: Any = hand
                shoe.deal = _ShoeRead(hand.deal)  # every card read by the shoe, in sequence
                play_randomly(hand, rng, iter(deck))
                del shoe.deal
                table.finish_hand(hand)
                written += len(app.save(table, hand))
                hands += 1
        end = clock.now
        app.close()
    return written, end


def timed(run: Callable[[], object], repeats: int) -> float:
    run()  # warm-up
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(env: dict[str, str], end: datetime, repeats: int) -> dict[str, float]:
    """Each read path's cost on the store (seconds)."""
    figures: dict[str, float] = {}
    app = PokerTables(env=env)
    use_keys(app.snapshots, KEY)
    since = end - WINDOW  # the same stretch of play at every size (a shift's first half)
    figures["dealers"] = timed(lambda: shift_dealers(app, since=since, until=end, now=end), repeats)
    figures["dealers, from position 1"] = timed(  # what the page did before (the peer: the same answer)
        lambda: dealer_figures(log_entries(app, until=end), start=since, end=end, now=end), repeats)
    figures["shufflers"] = timed(lambda: shuffles_seen(app, since=since, until=end), repeats)

    def every_hand() -> None:  # every table from its opening, as before (its cache of finished hands emptied)
        _finished_hands(app).clear()
        shuffles_seen(app, until=end)

    figures["shufflers, every hand"] = timed(every_hand, repeats)
    middle = (app.recorder.max_notification_id() or 0) // 2
    figures["history"] = timed(lambda: app.table_at("Mesa 1", position=middle), repeats)
    figures["search"] = timed(lambda: app.search_hands("Mesa 1", since=end - timedelta(hours=1)), repeats)

    def first_load() -> None:
        fresh = PokerTables(env=env)
        use_keys(fresh.snapshots, KEY)
        fresh.table("Mesa 2")
        fresh.close()

    figures["first load"] = timed(first_load, repeats)
    figures["command"] = timed(lambda: app.add_chips(uuid.uuid4().hex, "Mesa 3", 1, 1), repeats)
    app.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50_000, 150_000, 500_000])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--postgres", default="", help="a PostgreSQL URL: measure there too (a schema a size)")
    args = parser.parse_args()
    for kind in ["SQLite", *(["PostgreSQL"] if args.postgres else [])]:
        rows: dict[int, dict[str, float]] = {}
        with tempfile.TemporaryDirectory() as directory:
            for size in args.sizes:
                if kind == "SQLite":
                    env = environment(f"sqlite:///{Path(directory) / f'year-{size}.db'}")
                    cleanup: Callable[[], None] = lambda: None  # noqa: E731
                else:
                    env, cleanup = _postgres_schema(args.postgres)
                try:
                    started = time.perf_counter()
                    written, end = build(env, size, args.tables, random.Random(size))
                    built = time.perf_counter() - started
                    rows[written] = measure(env, end, args.repeats)
                    print(f"{kind}: built {written:,} events ({(end - START).total_seconds() / 86400:.1f} days of "
                          f"{args.tables} tables) in {built:.0f} s", flush=True)
                finally:
                    cleanup()
        sizes = sorted(rows)
        paths = list(rows[sizes[0]])
        print(f"\n{kind}: cost of each read path (ms, median of {args.repeats}) by events in the log")
        print(f"{'path':<26}" + "".join(f"{size:>12,}" for size in sizes) + f"{'exponent':>10}")
        for path in paths:
            values = [rows[size][path] for size in sizes]
            slope = math.log(values[-1] / values[0]) / math.log(sizes[-1] / sizes[0])
            print(f"{path:<26}" + "".join(f"{value * 1000:>12.2f}" for value in values) + f"{slope:>10.2f}")


def _postgres_schema(url: str) -> tuple[dict[str, str], Callable[[], None]]:
    import psycopg

    env = environment(url)
    schema = f"year_{uuid.uuid4().hex[:10]}"
    admin = dict(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                 dbname=env["POSTGRES_DBNAME"], autocommit=True)
    with psycopg.connect(**admin) as connection:  # type: ignore[arg-type]
        connection.execute(f"CREATE SCHEMA {schema}")

    def drop() -> None:
        with psycopg.connect(**admin) as connection:  # type: ignore[arg-type]
            connection.execute(f"DROP SCHEMA {schema} CASCADE")

    return {**env, "POSTGRES_SCHEMA": schema}, drop


if __name__ == "__main__":
    main()
