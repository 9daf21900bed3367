"""What the pit's view of the dealers costs the service (issue 19, item 5): ``ListDealerFigures`` projects the log's
rotation, hand and irregularity events (``service.app.dealer_report.shift_dealers``, selected by topic from the start
of the log), and the dashboard's Dealers page asks again as the floor moves (at most every 15 seconds a page).

A floor of ``--tables`` Hold'em tables (3 players, every card read by the shoe, hands played to their end) deals
``--hands`` hands each through the application, on an SQLite file, a new dealer signing in at each table every
``--rotation`` hands; then, timed:

- **whole log**: the figures over a range that holds every hand;
- **from now**: over a range that holds nothing: the projection still reads the log from its start (who is
  signed in where, and which table each hand is at, come from before the range), so it costs the same.

The two are timed in turn (the median of seven each).  Printed with the time per hand of the log and scaled to a
full floor's shift (20 tables, 320 hands each: 8 hours at 40 hands an hour) and a week of them.  Run with
``.venv/bin/python -m benchmarks.dealer_view [--tables 8] [--hands 40]`` (some seconds to deal the floor).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.app.application import PokerTables
from service.app.commands import SignIn
from service.app.dealer_report import shift_dealers
from service.store.persistence import environment
from tests.support.app_play import PIT
from tests.support.shuffler_floor import _Floor, _uniform

FULL_FLOOR_HANDS = 20 * 320
"""A full floor's shift: 20 tables, 8 hours at 40 hands an hour."""
WEEK_SHIFTS = 21
"""Three shifts a day, seven days."""


def _timed(app: PokerTables, ranges: list[datetime], rounds: int = 7) -> list[tuple[float, int]]:
    """For each start of a range up to now: the median time of ``rounds`` reports (the ranges taken in turn, so
    that another process's load falls on each alike) and the hands counted."""
    times: list[list[float]] = [[] for _ in ranges]
    hands = [0] * len(ranges)
    for _ in range(rounds):
        for index, since in enumerate(ranges):
            started = time.perf_counter()
            report = shift_dealers(app, since=since).report
            times[index].append(time.perf_counter() - started)
            hands[index] = sum(figures.hands for figures in report.figures)
    return [(statistics.median(taken), counted) for taken, counted in zip(times, hands, strict=True)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--rotation", type=int, default=10)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{Path(directory) / 'floor.db'}"
        app = PokerTables(env=environment(url))
        started = time.perf_counter()
        floors = [_Floor(app, f"Mesa {number}") for number in range(1, args.tables + 1)]
        for hand in range(args.hands):
            for number, floor in enumerate(floors, start=1):
                if hand % args.rotation == 0:
                    app.handle(SignIn(floor.ids(), floor.table, f"D-{number}-{hand // args.rotation}"), PIT)
                floor.hand(_uniform, serial=f"SN-{number:03d}")
        dealt = time.perf_counter() - started
        events = app.recorder.max_notification_id() or 0
        now = datetime.now(UTC)
        (whole, counted), (recent, _) = _timed(app, [now - timedelta(hours=1), now])
        app.close()
    hands = args.tables * args.hands
    print(f"Dealers' view: {args.tables} tables x {args.hands} hands = {hands} hands, a rotation every "
          f"{args.rotation} hands, {events} events on SQLite (dealt in {dealt:.0f} s)")
    print(f"  whole log ({counted} hands counted): {whole * 1000:8.1f} ms  ({whole / hands * 1000:.3f} ms a hand)")
    print(f"  from now (nothing counted):      {recent * 1000:8.1f} ms  (ratio to the whole log "
          f"{recent / whole:.2f}: the log is read from its start either way)")
    shift = whole / hands * FULL_FLOOR_HANDS
    print(f"  scaled by the hands of the log: a full floor's shift ({FULL_FLOOR_HANDS} hands) {shift:.2f} s, "
          f"a week of them {shift * WEEK_SHIFTS:.1f} s (of one core, a read)")


if __name__ == "__main__":
    main()
