"""What checking each event's chain link costs when an aggregate is loaded (issue 13, item 1): the time to read every
aggregate of a store through the chaining recorders' ``select_events`` (each row read with its link and the link
before it, looked up by key, its hash recomputed: :func:`service.store.chain.check_link`) beside the library's own
``select_events`` of the same store, unchecked, on SQLite and PostgreSQL; and the time to read the whole log through
``select_notifications`` (each page checked against the links it covers: what the Watch stream, history and exports
read) beside the library's, unchecked. Each aggregate is read from the store, not from a cache: what a restart, a
cache miss or a reconstruction costs. A command on a cached aggregate reads nothing (SQLite, sole writer) or only the
events newer than its copy (PostgreSQL), usually none.

Run with ``.venv/bin/python -m benchmarks.chain_load [--events N] [--postgres URL]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder

from benchmarks.replay import fill
from benchmarks.service_load import postgres_url
from service.app.application import PokerTables
from service.store.persistence import environment, notifications


def _time(read: Callable[[Any], Sequence[Any]], ids: Sequence[Any]) -> tuple[float, int]:
    started = time.perf_counter()
    events = sum(len(read(aggregate_id)) for aggregate_id in ids)
    return time.perf_counter() - started, events


def measure(label: str, env: dict[str, str], events: int) -> None:
    app = PokerTables(env=env)
    fill(app, events, random.Random(13))
    ids: list[Any] = sorted({n.originator_id for n in notifications(app.recorder)}, key=str)
    recorder: Any = app.recorder
    library = (SQLiteApplicationRecorder if isinstance(recorder, SQLiteApplicationRecorder)
               else PostgresApplicationRecorder)
    checked, unchecked = [], []
    for _ in range(5):
        seconds, count = _time(recorder.select_events, ids)
        checked.append(seconds)
        seconds, same = _time(lambda aggregate_id: library.select_events(recorder, aggregate_id), ids)
        unchecked.append(seconds)
        assert same == count
    ours, theirs = statistics.median(checked), statistics.median(unchecked)
    print(f"  {label:<10} select_events, {len(ids)} aggregates of {count / len(ids):.0f} events: checked "
          f"{ours / count * 1e6:5.1f} µs/event, library {theirs / count * 1e6:5.1f}: "
          f"+{(ours - theirs) / count * 1e6:4.1f} µs/event ({ours / theirs:.2f}×), "
          f"+{(ours - theirs) / len(ids) * 1e3:.2f} ms an aggregate")
    checked, unchecked = [], []
    for _ in range(5):
        seconds, count = _time(lambda start: _pages(recorder.select_notifications), [1])
        checked.append(seconds)
        seconds, same = _time(lambda start: _pages(recorder.unchecked_notifications), [1])
        unchecked.append(seconds)
        assert same == count
    ours, theirs = statistics.median(checked), statistics.median(unchecked)
    print(f"  {label:<10} select_notifications, the whole log by pages of 1,000: checked {count / ours:,.0f} "
          f"events/s, library {count / theirs:,.0f}: +{(ours - theirs) / count * 1e6:4.1f} µs/event "
          f"({ours / theirs:.2f}×)")


def _pages(select: Callable[[int, int], Sequence[Any]]) -> list[Any]:
    found: list[Any] = []
    while page := select(len(found) + 1, 1000):
        found.extend(page)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/pokertable_test")
    args = parser.parse_args()
    print(f"Loading every aggregate of a {args.events:,}-event store, its links checked and not (median of 5):")
    with tempfile.TemporaryDirectory() as directory:
        measure("SQLite", environment(f"sqlite:///{Path(directory) / 'load.db'}"), args.events)
    url = postgres_url(args.postgres)
    if url is None:
        print("  PostgreSQL: not reachable, skipped")
        return
    measure("PostgreSQL", environment(url), args.events)


if __name__ == "__main__":
    main()
