"""Texas Hold'em Bonus simulation speed: hands per minute on this machine, every box, dealer and settlement
computed (the vectorised simulator of ``pokertable odds``), on one core and on both.

Steady state: every measured configuration (1 and 7 boxes, one core and both, and the target's run) is run once
untimed, with the same deals and seed, before it is timed.  The untimed run builds what the first run in a process
builds and later ones reuse (the 52-card hand-ranking and batch tables, the strategy's category tables), so the
figures are those of a simulator already running; the worker processes of the two-core runs are forked from this one
and inherit those tables.  What each two-core run does pay is starting its pool of two processes, as every
``pokertable odds`` run pays it.

Target (issue 5): at least 1,000,000 simulated hands per minute.  Run with ``.venv/bin/python -m benchmarks.odds
[--scale 0.1]`` (``--scale`` multiplies the deals of every run, for a quick check).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.cli.odds import Simulated, simulate, thb_chunk


def run(boxes: int, deals: int, cores: str) -> Simulated:
    """One simulation of ``deals`` deals at ``boxes`` boxes: in this process (``1 core``) or on both cores."""
    if cores == "1 core":
        return thb_chunk(2026, deals, "basic", boxes)
    return simulate(thb_chunk, deals, 2026, "basic", boxes, progress=False)


def rate(boxes: int, deals: int, cores: str) -> tuple[float, float]:
    """Deals per minute and box-hands per minute, timed after one untimed run of the same simulation."""
    run(boxes, deals, cores)  # warm-up, not timed: tables and caches built, as in a simulator already running
    started = time.perf_counter()
    result = run(boxes, deals, cores)
    elapsed = time.perf_counter() - started
    return result.deals / elapsed * 60, result.hands / elapsed * 60


def main() -> None:
    """Print deals and box-hands per minute for 1 and 7 boxes, on one core and on both."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every run's deals (a quick check: 0.1)")
    args = parser.parse_args()

    scale: float = args.scale

    def deals(count: int) -> int:
        return max(1, round(count * scale))

    print("Texas Hold'em Bonus simulation (stated basic strategy; every box, the dealer and the settlement)")
    print("  steady state: each configuration run once untimed (tables and caches built), then timed once")
    print(f"  {'table':<10} {'cores':<8} {'deals/min':>14} {'box-hands/min':>15}")
    for boxes in (1, 7):
        for note in ("1 core", "2 cores"):
            per_minute, hands = rate(boxes, deals(400_000 if boxes == 1 else 100_000), note)
            print(f"  {boxes} box{'es' if boxes > 1 else '':<5} {note:<8} {per_minute:>14,.0f} {hands:>15,.0f}")
    per_minute, hands = rate(7, deals(200_000), "2 cores")
    verdict = "met" if per_minute >= 1_000_000 else "MISSED"
    print(f"\nTarget ≥ 1,000,000 hands/min: full 7-box deals {per_minute:,.0f}/min, {hands:,.0f} box-hands/min: "
          f"{verdict}")


if __name__ == "__main__":
    main()
