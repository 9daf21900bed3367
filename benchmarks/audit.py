"""The audit's cost as the log grows (issue 29, item 0): a full check with the service's key (the chain, every signed
head and what each claims), its peak memory, and the periodic audit's check that continues from the last clean one
after 1,000 more events, at several store sizes, on SQLite.  The peer is the library's own read of the whole log
(``select_notifications`` page by page, nothing checked), in the same run: what any check must at least read.

Run with ``.venv/bin/python -m benchmarks.audit [--sizes 20000 100000 200000]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from benchmarks.replay import GAMES, fill, random_hand
from service.app.application import PokerTables
from service.store.audit import Walk, verify
from service.store.persistence import environment
from service.store.signer import HeadSigner


def _read_all(app: PokerTables) -> int:
    """The library's read of the whole log, a page at a time, nothing checked: the peer."""
    count, start = 0, 1
    while page := app.recorder.select_notifications(start, 1000):
        count += len(page)
        start = page[-1].id + 1
    return count


def _more(app: PokerTables, events: int, rng: random.Random) -> None:
    """More finished hands (numbered after :func:`benchmarks.replay.fill`'s) until ``events`` more are stored."""
    stored, number = 0, 10**6
    while stored < events:
        number += 1
        stored += len(app.save(random_hand(list(GAMES)[number % len(GAMES)], number, rng)))


def measure(size: int, directory: Path) -> tuple[float, float, float, float, float]:
    """A store of ``size`` events signed every 1,000: (full check s, peak MB, library read s, resumed check s,
    events in the log)."""
    app = PokerTables(env=environment(f"sqlite:///{directory / f'{size}.db'}"))
    key = Ed25519PrivateKey.generate()
    signer = HeadSigner(app, key, 1000)
    signer.start()
    rng = random.Random(size)
    fill(app, size, rng)
    started = time.perf_counter()
    peer_count = _read_all(app)
    peer = time.perf_counter() - started
    walk = Walk(app.recorder, key.public_key(), app.mapper)  # type: ignore[arg-type]
    started = time.perf_counter()
    verdict = verify(app.recorder, public_key=key.public_key(), mapper=app.mapper, resume=walk)
    full = time.perf_counter() - started
    assert verdict.clean, verdict.finding
    tracemalloc.start()
    verify(app.recorder, public_key=key.public_key(), mapper=app.mapper)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    _more(app, 1000, rng)  # the next interval's commands
    started = time.perf_counter()
    verdict = verify(app.recorder, public_key=key.public_key(), mapper=app.mapper, resume=walk)
    resumed = time.perf_counter() - started
    assert verdict.clean, verdict.finding
    signer.stop()
    return full, peak, peer, resumed, float(peer_count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000, 200_000])
    args = parser.parse_args()
    print("audit verify on SQLite, signed every 1,000 events (one run; the machine is noisy)")
    print(f"  {'events':>8}  {'full check':>11}  {'events/s':>9}  {'library read':>12}  {'ratio':>6}  "
          f"{'peak memory':>11}  {'resumed, +1,000 events':>22}")
    with tempfile.TemporaryDirectory() as scratch:
        for size in args.sizes:
            full, peak, peer, resumed, events = measure(size, Path(scratch))
            print(f"  {events:>8,.0f}  {full:>9.2f} s  {events / full:>9,.0f}  {peer:>10.2f} s  "
                  f"{full / peer:>5.1f}×  {peak:>8.1f} MB  {resumed * 1000:>19.0f} ms")


if __name__ == "__main__":
    main()
