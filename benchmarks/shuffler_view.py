"""What the pit's view of the shufflers costs the service (issue 19, items 1 and 5): ``ListShufflers`` reads every
hand of the range (``service.app.shufflers.shift_report``), and the dashboard's Shufflers page asks again as hands
start and end (at most every 15 seconds a page).

A floor of ``--tables`` Hold'em tables (3 players, every card read by the shoe, each deck shuffled by an automatic
shuffler and reported) deals ``--hands`` hands each through the application, on an SQLite file; then, timed:

- **cold**: the report of a service just started on that file (no hand's reads kept yet: every hand read);
- **warm**: the same report again (each finished hand's reads kept: each table's events and last hand read);
- **after a hand**: one more hand dealt at one table, then the report.

Printed with the time per hand of the range, and scaled to a full floor's shift (20 tables, 320 hands each: 8 hours
at 40 hands an hour).  Warm, what is left is mostly the monitor itself: it looks after every shuffle of a deck.
Run with ``.venv/bin/python -m benchmarks.shuffler_view [--tables 8] [--hands 60]`` (half a minute to deal the
floor).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.app.application import PokerTables
from service.app.shufflers import shift_report
from service.store.persistence import environment
from tests.support.shuffler_floor import _Floor, _uniform

FULL_FLOOR_HANDS = 20 * 320
"""A full floor's shift: 20 tables, 8 hours at 40 hands an hour."""


def _timed(app: PokerTables) -> tuple[float, int]:
    started = time.perf_counter()
    report = shift_report(app)
    return time.perf_counter() - started, sum(verdict.result.shuffles for verdict in report.verdicts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--hands", type=int, default=60)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{Path(directory) / 'floor.db'}"
        app = PokerTables(env=environment(url))
        started = time.perf_counter()
        floors = [_Floor(app, f"Mesa {number}") for number in range(1, args.tables + 1)]
        for _ in range(args.hands):
            for number, floor in enumerate(floors, start=1):
                floor.hand(_uniform, serial=f"SN-{number:03d}")
        dealt = time.perf_counter() - started
        app.close()
        hands = args.tables * args.hands
        print(f"Shufflers' view: {args.tables} tables x {args.hands} hands = {hands} hands on SQLite "
              f"(dealt in {dealt:.0f} s), 3 players, every card read by the shoe")
        app = PokerTables(env=environment(url))  # a service just started: nothing kept
        cold, shuffles = _timed(app)
        warm, _ = _timed(app)
        floors[0].app = app
        floors[0].hand(_uniform, serial="SN-001")
        after, _ = _timed(app)
        app.close()
    print(f"  {shuffles} shuffles seen")
    print(f"  cold (every hand read):        {cold * 1000:8.1f} ms  ({cold / hands * 1000:.2f} ms a hand)")
    print(f"  warm (finished hands kept):    {warm * 1000:8.1f} ms  (ratio cold/warm {cold / warm:.1f})")
    print(f"  after one more hand:           {after * 1000:8.1f} ms")
    print(f"  a full floor's shift ({FULL_FLOOR_HANDS} hands), scaled by the hands: cold "
          f"{cold / hands * FULL_FLOOR_HANDS:.1f} s, warm {warm / hands * FULL_FLOOR_HANDS:.1f} s (of one core)")


if __name__ == "__main__":
    main()
