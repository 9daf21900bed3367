"""The shift report as the log grows (issue 34, item 6): ``GetShiftReport``'s reads (:func:`service.app.shift_report.
shift_report`: the floor's projection summed by table in one snapshot, each shift's theoretical win counted once a
hand) beside the dashboard's path before it (for each table its hands searched, its accounts and its alerts read:
three questions a table), at 13 and at 200 tables, on stores of increasing size.

Each store is :class:`benchmarks.year.Store` (Hold'em tables played through the domain on a simulated clock, 90 s a
hand at each table, every card read by the shoe, saved as play writes them). Before the last ``--window`` rounds of
each size the shift of every table is closed and a new one opened by the pit, so that the report's range holds the
same hands at every size — a shift's first ``--window`` hands a table — and only the log before it grows. Measured on
a fresh application each time (nothing cached but what the path itself loads):

- ``report, first``: the first report after a start (each table loaded from its signed snapshot, each shift's hands
  added up once from the hands index);
- ``report``: the report asked again, as the dashboard's page is (the median of ``--repeats``);
- ``before``: the three questions a table of the dashboard's earlier path, answered by the application.

The growth exponent between the smallest and the largest store says how each cost grows with the log (0: not at all,
1: in proportion); the last line extrapolates to a week of the floor's log with it.

    python -m benchmarks.shift_report [--tables 13 200] [--sizes 20000 60000 180000] [--window 20] [--repeats 5]
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
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.year import HAND_SECONDS, KEY, Store, simulated
from service.app.application import PokerTables
from service.app.commands import AcknowledgeAlert, CloseShift, OpenShift
from service.app.shift_report import shift_report
from service.store.persistence import claim_sole_writer, environment
from service.store.snapshots import use_keys
from tests.support.app_play import PIT

TRAY = {100: 100}
"""Each shift's opener (and, the tray counted again, its closer)."""


def new_shifts(store: Store) -> None:
    """The pit closes every table's open shift and opens the next (a shift's hands are those played after)."""
    with simulated(store.clock):
        app = store._open()
        for name in store.names:
            book = app.accounts.book(name, create=True)
            if book.shifts and app.accounts.shift(name, book.shifts).is_open:
                app.handle(CloseShift(uuid.uuid4().hex, name, TRAY), PIT)
            app.handle(OpenShift(uuid.uuid4().hex, name, TRAY), PIT)
        app.close()


def play_rounds(store: Store, rounds: int) -> None:
    """``rounds`` more hands at every table (the fault :meth:`Store.grow_to` left open acknowledged first)."""
    with simulated(store.clock):
        app = store._open()
        app.floor_log.catch_up()
        for alert in app.floor_log.store.open_alerts():
            app.handle(AcknowledgeAlert(uuid.uuid4().hex, alert.table, alert.position, "read again"), PIT)
        for _ in range(rounds):
            store._round(app)
        app.floor_log.catch_up()
        app.close()


def before(app: PokerTables, since: object, until: object) -> int:
    """The dashboard's earlier path: for each table, its hands searched, its accounts and its alerts read."""
    answered = 0
    for row in app.floor_log.store.tables():
        answered += len(app.views.search_hands(row.name, since=since, until=until))  # type: ignore[arg-type]
        app.accounts.shift_accounts(row.name)
        answered += len(app.floor_log.store.alerts_between(row.name, since, until))  # type: ignore[arg-type]
    return answered


def measure(url: str, store: Store, window: int, repeats: int) -> dict[str, float]:
    """The report's costs (ms) over the current shift's range, on a fresh application that is its store's sole
    writer, as ``pokertable serve`` is on SQLite."""
    since, until = store.end - timedelta(seconds=HAND_SECONDS * window + 30), store.end + timedelta(seconds=1)
    found: dict[str, float] = {}
    claim = claim_sole_writer(url)
    app = PokerTables(env=environment(url, sole_writer=True))
    use_keys(app.snapshots, KEY)  # its tables loaded from their signed snapshots, as the service loads them
    try:
        started = time.perf_counter()
        _, lines = shift_report(app, since, until, lambda table: True)
        found["report, first"] = 1000 * (time.perf_counter() - started)
        assert len(lines) == len(store.names) and all(line.accounts is not None for line in lines)
        found["hands in range"] = sum(line.hands.hands for line in lines)
        found["report"] = _timed(lambda: shift_report(app, since, until, lambda table: True), repeats)
        found["before"] = _timed(lambda: before(app, since, until), repeats)
    finally:
        app.close()
        if claim is not None:
            claim.release()
    return found


def _timed(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(1000 * (time.perf_counter() - started))
    return statistics.median(times)


def run(tables_measured: list[int], sizes: list[int], window: int, repeats: int) -> None:
    """Measure and print, for each number of tables, at each size."""
    print(__doc__.splitlines()[0])
    print(f"the report's range: the open shift's first {window} hands a table ({window * HAND_SECONDS // 60}"
          f" simulated minutes); a fresh application at each size, its store's sole writer (as served); ms")
    for tables in tables_measured:
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{Path(folder) / 'report.db'}"
            store = Store(environment(url), tables, random.Random(tables))
            rows: list[tuple[int, dict[str, float]]] = []
            for size in sizes:
                window_events = tables * window * 45
                grown = store.grow_to(max(size - window_events, 1))
                new_shifts(store)
                play_rounds(store, window)
                events = grown + window_events
                rows.append((events, measure(url, store, window, repeats)))
                figures = rows[-1][1]
                print(f"  {tables:3d} tables, log ≈ {events:>9,} events: report {figures['report']:8.1f}   "
                      f"report, first {figures['report, first']:8.1f}   before (3 reads a table) "
                      f"{figures['before']:8.1f}   ({figures['before'] / figures['report']:.1f}× faster; "
                      f"{int(figures['hands in range'])} hands in range)")
            if len(rows) > 1:
                (small, first), (large, last) = rows[0], rows[-1]
                week = tables * 40 * 24 * 7 * 45
                for name in ("report", "before"):
                    exponent = math.log(last[name] / first[name]) / math.log(large / small)
                    at_week = last[name] * (week / large) ** max(exponent, 0.0)
                    print(f"  {tables:3d} tables, {name:<7}: grows as log^{exponent:+.2f}; a week of this floor's "
                          f"log (≈ {week:,} events) ≈ {at_week:,.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[13, 200])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 60_000, 180_000])
    parser.add_argument("--window", type=int, default=20, help="hands a table in the report's range")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    run(args.tables, args.sizes, args.window, args.repeats)


if __name__ == "__main__":
    main()
