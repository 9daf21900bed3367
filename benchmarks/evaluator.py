"""Hand-evaluation speed: ours (single-hand and batch) beside phevaluator, eval7, treys and pokerkit.

Every evaluator sees the same random hands in the same run; the figures are hands per second and ratios,
since the machine is noisy.  Card conversion to each peer's own card type happens before timing.
Run with ``make bench`` or ``.venv/bin/python benchmarks/evaluator.py [--hands N]``.

Targets (issue 2): single-hand 7-card ≥ phevaluator's public API; batch 7-card ≥ 2× phevaluator's C function
called per hand in a Python loop.  Target (issue 12): single-hand Omaha (2 of 4 own + 3 of 5 board, as odds and
reconstruction evaluate it) ≥ phevaluator's public Omaha API, and sintético's 2 + 3 of 28 cards as fast; the two
single-hand Omaha figures are timed in alternation, so that a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import eval7
import numpy as np
import treys
from numpy.typing import NDArray
from phevaluator import _pheval, evaluate_cards, evaluate_omaha_cards
from pokerkit import Card as PokerkitCard
from pokerkit import OmahaHoldemHand, StandardHighHand

from domain.cards.batch import batch_evaluator
from domain.cards.cards import ALL_CARDS
from domain.cards.decks import composition
from domain.cards.ranking import hand_ranking

NAMES = [str(card) for card in ALL_CARDS]


@dataclass(frozen=True)
class Figure:
    """One measurement: evaluations per second of one evaluator."""

    name: str
    hands: int
    seconds: float

    @property
    def rate(self) -> float:
        """Hands per second."""
        return self.hands / self.seconds


def timed(name: str, hands: int, run: Callable[[], object], repeats: int = 3) -> Figure:
    """The best of ``repeats`` timings of ``run``, which evaluates ``hands`` hands."""
    best = min(_once(run) for _ in range(repeats))
    return Figure(name, hands, best)


def timed_alternately(runs: dict[str, tuple[int, Callable[[], object]]], repeats: int = 5) -> list[Figure]:
    """The best of ``repeats`` timings of each run (name: hands, run), the runs taking turns."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeats):
        for name, (_, run) in runs.items():
            best[name] = min(best[name], _once(run))
    return [Figure(name, hands, best[name]) for name, (hands, _) in runs.items()]


def _once(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def random_hands(count: int, size: int, seed: int) -> NDArray[np.uint8]:
    """``count`` random hands of ``size`` distinct cards of the 52-card deck."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :size].astype(np.uint8)


def bench_size(size: int, loop_hands: int, batch_hands: int, slow_hands: int) -> dict[str, Figure]:
    """Measure every evaluator on ``size``-card hands."""
    hands = random_hands(batch_hands, size, seed=size)
    rows = [tuple(row) for row in hands[:loop_hands].tolist()]
    ranking, batch = hand_ranking(52), batch_evaluator(52)
    batch.without_flush(size)  # build the dense table before timing
    pheval_c = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards, 7: _pheval.evaluate_7cards}[size]
    e7_cards = [eval7.Card(name) for name in NAMES]
    e7_rows = [[e7_cards[c] for c in row] for row in rows]
    treys_cards = [treys.Card.new(name) for name in NAMES]
    treys_rows = [([treys_cards[c] for c in r[:2]], [treys_cards[c] for c in r[2:]]) for r in rows[:slow_hands * 10]]
    treys_evaluator = treys.Evaluator()
    pk_cards = [next(iter(PokerkitCard.parse(name))) for name in NAMES]
    pk_rows = [[pk_cards[c] for c in row] for row in rows[:slow_hands]]
    strength = ranking.strength
    figures = [
        timed("ours, single hand", len(rows), lambda: [strength(row) for row in rows]),
        timed("ours, batch (checked)", len(hands), lambda: batch.strengths(hands)),
        timed("ours, batch (trusted)", len(hands), lambda: batch.strengths(hands, check=False)),
        timed("phevaluator, public API", len(rows), lambda: [evaluate_cards(*row) for row in rows]),
        timed("phevaluator, C function", len(rows), lambda: [pheval_c(*row) for row in rows]),
        timed("eval7", len(e7_rows), lambda: [eval7.evaluate(row) for row in e7_rows]),
        timed("treys", len(treys_rows), lambda: [treys_evaluator.evaluate(a, b) for a, b in treys_rows], repeats=1),
        timed("pokerkit", len(pk_rows), lambda: [StandardHighHand.from_game(row) for row in pk_rows], repeats=1),
    ]
    return {figure.name: figure for figure in figures}


def bench_omaha(loop_hands: int, batch_hands: int, slow_hands: int) -> dict[str, Figure]:
    """Omaha: exactly 2 of 4 own cards and 3 of 5 board cards; and sintético: 2 own + 3 of 5 board, 28 cards."""
    hands = random_hands(batch_hands, 9, seed=9)
    rows = [tuple(row) for row in hands[:loop_hands].tolist()]
    ranking, batch = hand_ranking(52), batch_evaluator(52)
    batch.flush5()
    sintetico = hand_ranking(28)
    deck28 = [card.code for card in composition(28)]
    rng = np.random.default_rng(28)
    rows28 = [tuple(deck28[i] for i in rng.permutation(28)[:7]) for _ in range(loop_hands)]
    pk_cards = [next(iter(PokerkitCard.parse(name))) for name in NAMES]
    pk_rows = [([pk_cards[c] for c in row[:4]], [pk_cards[c] for c in row[4:]]) for row in rows[:slow_hands]]
    split, split28, by_fives = ranking.strength_split, sintetico.strength_split, ranking.strength_split_by_fives
    figures = timed_alternately({
        "ours, single hand": (len(rows), lambda: [split(row[:4], row[4:]) for row in rows]),
        "phevaluator, public API": (len(rows), lambda: [evaluate_omaha_cards(*row[4:], *row[:4]) for row in rows]),
        "sintético 28, single hand": (len(rows28), lambda: [split28(row[:2], row[2:]) for row in rows28]),
    })
    figures += [
        timed("ours, every five (exact)", len(rows) // 10, lambda: [by_fives(row[:4], row[4:]) for row in rows[::10]]),
        timed("ours, batch (checked)", len(hands), lambda: batch.strengths_split(hands[:, :4], hands[:, 4:])),
        timed("pokerkit", len(pk_rows), lambda: [OmahaHoldemHand.from_game(a, b) for a, b in pk_rows], repeats=1),
    ]
    return {figure.name: figure for figure in figures}


def print_table(title: str, figures: dict[str, Figure], reference: str) -> None:
    """Figures with their ratio to ``reference``."""
    base = figures[reference].rate
    print(f"\n{title}")
    print(f"  {'evaluator':<26} {'hands':>10} {'hands/s':>14} {'vs ' + reference:>30}")
    for figure in figures.values():
        print(f"  {figure.name:<26} {figure.hands:>10,} {figure.rate:>14,.0f} {figure.rate / base:>29.2f}×")


def print_build_times() -> None:
    """Build the tables the single-hand figures use, and say how long each took."""
    built = []
    for deck_size in (52, 28):
        started = time.perf_counter()
        ranking = hand_ranking(deck_size)
        ranked = time.perf_counter()
        tables = ranking.split_tables
        done = time.perf_counter()
        rows = sum(len(by_board) for by_board in tables.rows) + len(tables.flush_rows)
        built.append(f"{deck_size} cards: ranking {ranked - started:.2f} s, 2 + 3 rows {done - ranked:.2f} s "
                     f"({rows:,} rows)")
    print("Tables built: " + "; ".join(built))


def main() -> None:
    """Run every measurement and print the tables and the two targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300_000, help="hands for the per-hand loops")
    args = parser.parse_args()
    loop_hands, batch_hands, slow_hands = args.hands, max(args.hands, 1_000_000), max(args.hands // 100, 1_000)
    print("pokertable hand evaluation benchmark (52-card deck; one run, best of 3 where timed thrice)")
    print_build_times()
    results = {}
    for size in (7, 6, 5):
        results[size] = bench_size(size, loop_hands, batch_hands, slow_hands)
        print_table(f"{size}-card hands", results[size], "phevaluator, public API")
    omaha = bench_omaha(loop_hands // 10, batch_hands // 10, slow_hands)
    print_table("Omaha (2 of 4 own + 3 of 5 board; sintético: 2 own + 3 of 5 board, 28 cards)", omaha,
                "phevaluator, public API")
    seven = results[7]
    single = seven["ours, single hand"].rate / seven["phevaluator, public API"].rate
    trusted = seven["ours, batch (trusted)"].rate / seven["phevaluator, C function"].rate
    checked = seven["ours, batch (checked)"].rate / seven["phevaluator, C function"].rate
    print("\nTargets (7-card):")
    verdict = "met" if single >= 1 else "MISSED"
    print(f"  single hand vs phevaluator public API:     {single:5.2f}×  (target ≥ 1)  {verdict}")
    print(f"  batch vs phevaluator C function per hand:  {trusted:5.2f}×  trusted rows, {checked:.2f}× checked rows "
          f"(target ≥ 2)  {'met' if trusted >= 2 else 'MISSED'}")
    theirs = omaha["phevaluator, public API"].rate
    print("Targets (Omaha single hand, hands/s):")
    for name in ("ours, single hand", "sintético 28, single hand"):
        rate = omaha[name].rate
        verdict = "met" if rate >= theirs else "MISSED"
        print(f"  {name:<26} {rate:>10,.0f} vs phevaluator public API {theirs:>10,.0f}:  {rate / theirs:5.2f}×  "
              f"(target ≥ 1)  {verdict}")


if __name__ == "__main__":
    main()
