"""Texas Hold'em Bonus simulation speed: hands per minute on this machine, every box, dealer and settlement
computed (the vectorised simulator of ``pokertable odds``), on one core and on both.

Target (issue 5): at least 1,000,000 simulated hands per minute.  Run with ``.venv/bin/python benchmarks/odds.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.cli.odds import simulate, thb_chunk


def rate(boxes: int, deals: int, workers_note: str) -> tuple[float, float]:
    """Deals per minute and box-hands per minute."""
    started = time.perf_counter()
    if workers_note == "1 core":
        result = thb_chunk(2026, deals, "basic", boxes)
    else:
        result = simulate(thb_chunk, deals, 2026, "basic", boxes, progress=False)
    elapsed = time.perf_counter() - started
    return result.deals / elapsed * 60, result.hands / elapsed * 60


def main() -> None:
    """Print deals and box-hands per minute for 1 and 7 boxes, on one core and on both."""
    print("Texas Hold'em Bonus simulation (stated basic strategy; every box, the dealer and the settlement)")
    print(f"  {'table':<10} {'cores':<8} {'deals/min':>14} {'box-hands/min':>15}")
    for boxes in (1, 7):
        for note in ("1 core", "2 cores"):
            deals, hands = rate(boxes, 400_000 if boxes == 1 else 100_000, note)
            print(f"  {boxes} box{'es' if boxes > 1 else '':<5} {note:<8} {deals:>14,.0f} {hands:>15,.0f}")
    deals, hands = rate(7, 200_000, "2 cores")
    verdict = "met" if deals >= 1_000_000 else "MISSED"
    print(f"\nTarget ≥ 1,000,000 hands/min: full 7-box deals {deals:,.0f}/min, {hands:,.0f} box-hands/min: {verdict}")


if __name__ == "__main__":
    main()
