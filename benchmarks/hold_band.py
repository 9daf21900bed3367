"""How often the hold band flags a shift (R-ACC-6, docs/accounts.md): fair Texas Hold'em Bonus shifts (the stated
strategy, antes 5–50, a bonus of 1–10 on about half the boxes) should fall outside the 99 % band about 1 % of the
time; shifts dealt from a stacked shoe (a share of the hands a player would win dealt with his two cards and the
croupier's swapped) should be flagged, the more often the longer the shift.

Shifts are simulated with the odds engine's dealing and the games' own settlement (``service.cli.odds``), the band
is :func:`domain.banked.hold.shift_theory`'s, vectorised here over box-hands.  Run with
``.venv/bin/python benchmarks/hold_band.py [fair shifts]`` (default 10,000 of each length; seed 2026).
"""

from __future__ import annotations

import math
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.banked.hold import THB_FIGURES, Z_99, shift_theory
from domain.banked.paytables import bonus_class
from domain.banked.thb_settings import STANDARD_LIMITS, ThbSettings
from domain.banked.thb_settlement import bonus_net
from domain.cards.cards import ALL_CARDS
from service.cli.odds import deal_rows, thb_deals

SEED = 2026
SPOTS = ("ante", "flop", "turn", "river", "bonus")
SETTINGS = ThbSettings(STANDARD_LIMITS[5])


def _bonus_table() -> NDArray[np.int64]:
    """The bonus bet's net per unit for every two-card holding (A-A against the croupier's A-A apart)."""
    table = np.zeros((52, 52), dtype=np.int64)
    for a, b in combinations(range(52), 2):
        table[a, b] = table[b, a] = bonus_net(1, bonus_class((ALL_CARDS[a], ALL_CARDS[b]), ()), SETTINGS)
    return table


def played(rng: np.random.Generator, rows: int, rigged: float = 0.0) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """``rows`` box-hands: each one's stakes per spot (columns in :data:`SPOTS` order) and the house's win."""
    cards = deal_rows(rng, rows, 9)
    deals = thb_deals(cards, "basic", 1, SETTINGS)
    if rigged:
        swap = (deals.net[:, 0] > 0) & (rng.random(rows) < rigged)
        cards[swap, 0:4] = cards[swap][:, [2, 3, 0, 1]]
        deals = thb_deals(cards, "basic", 1, SETTINGS)
    ante = rng.integers(5, 51, rows)
    bonus = rng.integers(1, 11, rows) * (rng.random(rows) < 0.5)
    stakes = np.stack([ante, 2 * ante * deals.plays[:, 0], ante * deals.turn[:, 0], ante * deals.river[:, 0], bonus],
                      axis=1).astype(np.float64)
    paid = _bonus_table()[cards[:, 0], cards[:, 1]]
    aces = ((cards[:, :2] >> 2) == 12).all(axis=1) & ((cards[:, 2:4] >> 2) == 12).all(axis=1)
    paid[aces] = SETTINGS.bonus_table.pays["aces_vs_dealer_aces"]
    win: NDArray[np.int64] = -(ante * deals.net[:, 0] + bonus * paid)
    return stakes, win


def bands(stakes: NDArray[np.float64], shifts: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each shift's band, ``low`` and ``high``, from its box-hands' stakes (:func:`shift_theory`, vectorised)."""
    spots = THB_FIGURES.spots
    edge = np.array([spots[s].edge for s in SPOTS])
    sd = np.array([spots[s].sd for s in SPOTS])
    covariance = np.array([[THB_FIGURES.correlation(a, b) for b in SPOTS] for a in SPOTS]) * np.outer(sd, sd)
    expected = (stakes @ edge).reshape(shifts, -1).sum(axis=1)
    spread = Z_99 * np.sqrt(np.einsum("ni,ij,nj->n", stakes, covariance, stakes).reshape(shifts, -1).sum(axis=1))
    return np.floor(expected - spread + 1e-9), np.ceil(expected + spread - 1e-9)


def simulate(rng: np.random.Generator, shifts: int, hands: int, rigged: float = 0.0) -> NDArray[np.bool_]:
    """Whether each of ``shifts`` shifts of ``hands`` box-hands falls outside its band (a million box-hands at a
    time)."""
    found: list[NDArray[np.bool_]] = []
    batch = max(1, 1_000_000 // hands)
    for start in range(0, shifts, batch):
        count = min(batch, shifts - start)
        stakes, win = played(rng, count * hands, rigged)
        low, high = bands(stakes, count)
        total = win.reshape(count, hands).sum(axis=1)
        found.append((total < low) | (total > high))
    return np.concatenate(found)


def _check_against_the_domain(rng: np.random.Generator) -> None:
    """The vectorised band is the domain's: one shift, box by box, through :func:`shift_theory`."""
    stakes, _ = played(rng, 300)
    boxes = [{spot: int(amount) for spot, amount in zip(SPOTS, row, strict=True) if amount} for row in stakes]
    theory = shift_theory(boxes, THB_FIGURES)
    low, high = bands(stakes, 1)
    assert (theory.low, theory.high) == (int(low[0]), int(high[0])), (theory.low, theory.high, low, high)


def main() -> None:
    """Print the rates of flagged shifts, fair and rigged, by the shift's length."""
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = np.random.default_rng(SEED)
    _check_against_the_domain(rng)
    print(f"Texas Hold'em Bonus shifts outside the 99 % band (stated level 1 %; seed {SEED})")
    print(f"  {'box-hands':>9}  {'fair shifts':>11}  {'fair flagged':>12}")
    for hands in (60, 120, 600):
        shifts = count
        outside = simulate(rng, shifts, hands)
        rate = outside.mean()
        half = 1.96 * math.sqrt(rate * (1 - rate) / shifts)
        print(f"  {hands:>9}  {shifts:>11,}  {rate:>11.2%} ± {half:.2%}")
    print("\nStacked shoe (a share of the player's winning hands swapped with the croupier's): shifts flagged")
    print(f"  {'box-hands':>9}  " + "  ".join(f"{f'{share:.0%} swapped':>12}" for share in (0.05, 0.1, 0.25)))
    for hands in (60, 120, 600):
        rates = [simulate(rng, 400, hands, rigged=share).mean() for share in (0.05, 0.1, 0.25)]
        print(f"  {hands:>9}  " + "  ".join(f"{rate:>12.1%}" for rate in rates))


if __name__ == "__main__":
    main()
