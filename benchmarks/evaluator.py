"""Hand-evaluation speed: ours (single-hand and batch) beside phevaluator, eval7, treys and pokerkit.

Every evaluator sees the same random hands in the same run; the figures are hands per second and ratios,
since the machine is noisy.  Card conversion to each peer's own card type happens before timing.
Run with ``make bench`` or ``.venv/bin/python benchmarks/evaluator.py [--hands N]``.

phevaluator is timed three ways, each on its own card ids (``rank × 4 + suit``, converted before timing with its own
``Card.to_id``): its general public API ``evaluate_cards(*cards)``, which dispatches on the number of cards; its
fixed-size public API ``evaluate_7cards(a, …, g)`` (``evaluate_6cards``, ``evaluate_5cards`` for 6 and 5 cards),
its fastest documented call; and the C function those two end in (``phevaluator._pheval.evaluate_7cards``, a
private module), called per hand in a Python loop.

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
from phevaluator.card import Card as PhevaluatorCard
from phevaluator.evaluator import evaluate_5cards, evaluate_6cards, evaluate_7cards
from pokerkit import Card as PokerkitCard
from pokerkit import OmahaHoldemHand, StandardHighHand

from domain.cards.batch import batch_evaluator
from domain.cards.cards import ALL_CARDS
from domain.cards.decks import composition
from domain.cards.ranking import hand_ranking

NAMES = [str(card) for card in ALL_CARDS]
PH_IDS = [PhevaluatorCard.to_id(name) for name in NAMES]
"""phevaluator's card id of each of our card codes (its ``rank × 4 + suit``, from the card's name)."""
PH_FIXED: dict[int, Callable[..., int]] = {5: evaluate_5cards, 6: evaluate_6cards, 7: evaluate_7cards}
"""phevaluator's fixed-size public API by hand size."""


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


def check_phevaluator(strength: Callable[[tuple[int, ...]], int], rows: list[tuple[int, ...]],
                      ph_rows: list[tuple[int, ...]], ph_fixed: Callable[..., int]) -> None:
    """Before timing: phevaluator's fixed-size API, given the converted ids, ranks the first thousand hands as we
    do (our strength is exactly ``7463 − its rank``), so the peers time the same hands, read right."""
    for row, ph_row in zip(rows[:1000], ph_rows[:1000], strict=True):
        if strength(row) != 7463 - ph_fixed(*ph_row):
            raise RuntimeError(f"phevaluator ranks {[NAMES[c] for c in row]} otherwise: the card ids are wrong")


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
    ph_rows = [tuple(PH_IDS[c] for c in row) for row in rows]
    ph_fixed = PH_FIXED[size]
    strength = ranking.strength
    check_phevaluator(strength, rows, ph_rows, ph_fixed)
    figures = [
        timed("ours, single hand", len(rows), lambda: [strength(row) for row in rows]),
        timed("ours, batch (checked)", len(hands), lambda: batch.strengths(hands)),
        timed("ours, batch (trusted)", len(hands), lambda: batch.strengths(hands, check=False)),
        timed("phevaluator, public API", len(rows), lambda: [evaluate_cards(*row) for row in ph_rows]),
        timed(f"phevaluator, evaluate_{size}cards", len(rows), lambda: [ph_fixed(*row) for row in ph_rows]),
        timed("phevaluator, C function", len(rows), lambda: [pheval_c(*row) for row in ph_rows]),
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
    print(f"  {'evaluator':<30} {'hands':>10} {'hands/s':>14} {'vs ' + reference:>30}")
    for figure in figures.values():
        print(f"  {figure.name:<30} {figure.hands:>10,} {figure.rate:>14,.0f} {figure.rate / base:>29.2f}×")


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


def print_fixed_size(seven: dict[str, Figure]) -> None:
    """Ours beside phevaluator's fixed-size ``evaluate_7cards``, its fastest documented call (no target: the
    targets were set against its general API and its C function; these ratios are the same run's)."""
    fixed = seven["phevaluator, evaluate_7cards"].rate
    print(f"Beside phevaluator's evaluate_7cards ({fixed:,.0f} hands/s, "
          f"{fixed / seven['phevaluator, public API'].rate:.2f}× its evaluate_cards, "
          f"{fixed / seven['phevaluator, C function'].rate:.2f}× its C function):")
    for name in ("ours, single hand", "ours, batch (checked)", "ours, batch (trusted)"):
        print(f"  {name:<30} {seven[name].rate / fixed:6.2f}×")


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
    print_fixed_size(seven)
    theirs = omaha["phevaluator, public API"].rate
    print("Targets (Omaha single hand, hands/s):")
    for name in ("ours, single hand", "sintético 28, single hand"):
        rate = omaha[name].rate
        verdict = "met" if rate >= theirs else "MISSED"
        print(f"  {name:<26} {rate:>10,.0f} vs phevaluator public API {theirs:>10,.0f}:  {rate / theirs:5.2f}×  "
              f"(target ≥ 1)  {verdict}")


if __name__ == "__main__":
    main()
