"""A table's first load after a restart, as its history grows (issue 30, item 2): from its last signed snapshot and
the events after it (the service, which trusts its key), against the whole history replayed (eventsourcing's
``repository.get`` with no snapshot: what the service did before, and what a reader that trusts no key does), in the
same run, on SQLite.

Each store holds one circle table whose history is ``N`` + 137 events (chips added to its seats, the commonest table
event; a hand's own events are its hand's, not the table's), written through the application in batches of 100, so
that the service's snapshots (every :data:`service.store.snapshots.SNAPSHOT_EVERY` events) are taken as in play.
Printed for each size: the load's median time over ``--repeats`` cold loads (a fresh application each), the events
read, and the growth exponent between the smallest and the largest size (0: flat; 1: in proportion to the history).

    python -m benchmarks.snapshots [--sizes 1000 10000 100000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.table import Table
from service.app.application import PokerTables
from service.store.persistence import environment
from service.store.snapshots import use_keys

SETTINGS = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2))
KEY = Ed25519PrivateKey.generate()
TAIL = 137
"""Events past the size asked: a table's last snapshot is then some way behind its last event, as in play."""


def build(url: str, events: int) -> None:
    """A store whose one table has ``events`` events."""
    app = PokerTables(env=environment(url))
    use_keys(app.snapshots, KEY)
    table = Table.open("Mesa 1", SETTINGS, hands_key="0" * 32)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    app.save(table)
    while table.version < events:
        for _ in range(min(100, events - table.version)):
            table.add_chips(1 + table.version % 3, 1)
        app.save(table)
    app.close()


def load(url: str, *, snapshots: bool) -> tuple[float, int]:
    """One cold load of the table: seconds, and the events read from the log."""
    app = PokerTables(env=environment(url))
    if snapshots:
        use_keys(app.snapshots, KEY)
    read = [0]
    select = app.recorder.select_events

    def counting(originator_id: Any, **kwargs: Any) -> Any:
        found = select(originator_id, **kwargs)
        read[0] += len(found)
        return found

    app.recorder.select_events = counting  # type: ignore[method-assign]
    started = time.perf_counter()
    app.table("Mesa 1")
    took = time.perf_counter() - started
    app.close()
    return took, read[0]


def exponent(sizes: list[int], times: list[float]) -> float:
    return math.log(times[-1] / times[0]) / math.log(sizes[-1] / sizes[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows: dict[str, list[float]] = {"snapshot": [], "replay": []}
    print(f"{'table events':>12} {'from its snapshot':>18} {'events read':>11} {'whole history':>14} "
          f"{'events read':>11} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as directory:
        for size in args.sizes:
            url = f"sqlite:///{Path(directory) / f'tables-{size}.db'}"
            build(url, size + TAIL)
            figures = {}
            for kind, times in rows.items():
                runs = [load(url, snapshots=kind == "snapshot") for _ in range(args.repeats)]
                figures[kind] = (statistics.median(t for t, _ in runs), runs[0][1])
                times.append(figures[kind][0])
            (fast, fast_read), (slow, slow_read) = figures["snapshot"], figures["replay"]
            print(f"{size + TAIL:>12,} {fast * 1000:>15.2f} ms {fast_read:>11,} {slow * 1000:>11.2f} ms "
                  f"{slow_read:>11,} {slow / fast:>5.0f}x")
    print(f"growth exponent ({args.sizes[0]:,} -> {args.sizes[-1]:,} events): from its snapshot "
          f"{exponent(args.sizes, rows['snapshot']):.2f}, whole history {exponent(args.sizes, rows['replay']):.2f}")


if __name__ == "__main__":
    main()
