"""The shuffler integrity monitor's power and false-alarm rate, by simulation (issue 19, item 1; docs/integrity.md).

Shuffler models: k riffle shuffles (Gilbert–Shannon–Reeds) for k = 1 … 7 — drawn as one 2^k-shuffle, the inverse of
a stable sort by uniform base-2^k digits (Bayer–Diaconis) — a **stuck** shuffler (its random source stuck: the same
permutation every shuffle, a different one per run), and a uniform shuffle (the null).

What is assumed, as on the floor:

- a deck comes back to the shuffler as the default gathering says (``read-then-stub``): the cards read, in read
  order, on top of the undealt stub; the monitor knows only the places of the cards read;
- the shoe reads only what a hand deals: 9-handed Hold'em (52 cards) reads the 18 hole cards, then the burn and flop
  (+4) in 60 % of hands, the burn and turn (+2) in 45 %, the burn and river (+2) in 35 % (22 cards on average);
  6-handed five-card stud (32 cards) reads 12 cards, then +4 in 70 % of hands, +3 in 50 %, +3 in 35 % (17.4);
- the monitor's defaults (level 0.01 per shift for the floor, 160 shuffles of a deck a shift, 8 position bins), and
  a floor of ``--decks`` shuffler decks sharing that level (Bonferroni: default 20, ten tables with two decks).

Printed: for each model, the hands of that deck after which the monitor has alarmed in 90 % of ``--runs``
independent runs (``> 160``: not within a shift), and the false-alarm rate of a uniform shuffle over 100,000 hands of
one deck (625 shifts of 160 hands) for a monitor holding that one deck to the whole level (a floor of one deck: the
strictest check of the level; with ``decks`` decks each is held to ``level / decks`` and the floor's rate is at most
the sum).

Run with ``.venv/bin/python -m benchmarks.shuffler_monitor`` (a few minutes).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one look's small eigen-decomposition: threads only slow it
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from numpy.typing import NDArray

from domain.integrity.monitor import MonitorSettings, ShufflerMonitor
from domain.integrity.observations import ShuffleSample

Permutations = NDArray[np.intp]


@dataclass(frozen=True)
class Game:
    """A game's deck and how many cards its hands read: ``reads`` with probability ``weights``."""

    name: str
    deck_size: int
    reads: tuple[int, ...]
    weights: tuple[float, ...]


HOLDEM = Game("Hold'em, 9 players", 52, (18, 22, 24, 26), (0.40, 0.15, 0.10, 0.35))
STUD5 = Game("five-card stud, 6 players", 32, (12, 16, 19, 22), (0.30, 0.20, 0.15, 0.35))


def riffles(rng: np.random.Generator, count: int, deck_size: int, k: int) -> Permutations:
    """``count`` shuffles of ``k`` GSR riffles each: row ``r`` lists, by place coming out, the place each card went
    in (one 2^k-shuffle: the inverse of a stable sort by uniform base-2^k digits)."""
    digits = rng.integers(0, 2**k, size=(count, deck_size))
    inverse = np.argsort(digits, axis=1, kind="stable")
    return np.argsort(inverse, axis=1)


def uniform(rng: np.random.Generator, count: int, deck_size: int) -> Permutations:
    """``count`` uniform shuffles."""
    return np.argsort(rng.random((count, deck_size)), axis=1)


def stuck(rng: np.random.Generator, count: int, deck_size: int) -> Permutations:
    """A stuck shuffler: one permutation (drawn at random), ``count`` times."""
    return np.tile(uniform(rng, 1, deck_size), (count, 1))


def samples(permutations: Permutations, reads: NDArray[np.intp]) -> list[ShuffleSample]:
    """What the monitor sees of consecutive shuffles of one deck gathered ``read-then-stub``: shuffle ``t`` takes in
    the deck as hand ``t-1`` left it (its ``reads[t-1]`` cards read on top, in read order) and hand ``t`` reads
    ``reads[t]`` cards of it; the places going in of the cards read after shuffle ``t`` are ``permutation[:reads]``."""
    found = []
    for t in range(1, len(permutations)):
        known, read = int(reads[t - 1]), int(reads[t])
        came_in = permutations[t, :read]
        pairs = tuple((int(place), out) for out, place in enumerate(came_in) if place < known)
        found.append(ShuffleSample(permutations.shape[1], pairs, tuple(range(known)), read))
    return found


def reads_of(rng: np.random.Generator, game: Game, count: int) -> NDArray[np.intp]:
    """The cards each of ``count`` hands reads."""
    return rng.choice(np.asarray(game.reads), size=count, p=np.asarray(game.weights))


def first_alarm(monitor: ShufflerMonitor, seen: list[ShuffleSample]) -> int | None:
    """The hand (from 1) at which the monitor first alarms, or ``None``."""
    for hand, sample in enumerate(seen, start=1):
        if monitor.add(sample):
            return hand
    return None


def hands_to_alarm(rng: np.random.Generator, game: Game, model: str, *, runs: int, settings: MonitorSettings,
                   decks: int) -> tuple[float, float]:
    """The 90th percentile of the hands to the first alarm over ``runs`` runs (``inf``: more than 10 % of the runs
    never alarm within a shift), and the median."""
    found = []
    for _ in range(runs):
        count = settings.looks + 1
        if model == "stuck":
            permutations = stuck(rng, count, game.deck_size)
        else:
            permutations = riffles(rng, count, game.deck_size, int(model))
        alarm = first_alarm(ShufflerMonitor(game.deck_size, settings, decks),
                            samples(permutations, reads_of(rng, game, count)))
        found.append(np.inf if alarm is None else alarm)
    return float(np.percentile(found, 90, method="higher")), float(np.median(found))


def false_alarms(rng: np.random.Generator, game: Game, hands: int, settings: MonitorSettings,
                 decks: int) -> tuple[int, int]:
    """Shifts with a false alarm, and shifts, over ``hands`` uniform shuffles of one deck."""
    shifts = hands // settings.looks
    alarms = 0
    for _ in range(shifts):
        count = settings.looks + 1
        seen = samples(uniform(rng, count, game.deck_size), reads_of(rng, game, count))
        alarms += first_alarm(ShufflerMonitor(game.deck_size, settings, decks), seen) is not None
    return alarms, shifts


def _shown(hands: float, looks: int) -> str:
    return f"> {looks}" if not np.isfinite(hands) else f"{hands:.0f}"


def main() -> None:
    """Print the detection table and the false-alarm rate for Hold'em (52) and five-card stud (32)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=200, help="independent runs per model (default 200)")
    parser.add_argument("--hands", type=int, default=100_000, help="uniform hands for the false-alarm rate")
    parser.add_argument("--decks", type=int, default=20, help="shuffler decks on the floor (default 20)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    settings = MonitorSettings()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(f"Shuffler integrity monitor: level {settings.level} per shift for a floor of {args.decks} shuffler decks "
          f"(each test, each look: {settings.test_level(args.decks):.2e}), {settings.looks} shuffles of a deck a "
          f"shift, gathering {settings.gathering}, {args.runs} runs per model, seed {args.seed}")
    for game in (HOLDEM, STUD5):
        mean = float(np.dot(game.reads, game.weights))
        print(f"\n{game.name}: {game.deck_size}-card deck, {mean:.1f} cards read a hand on average")
        print(f"  {'shuffler':<16} {'hands to alarm (90 %)':>22} {'median':>8}")
        for model in ("1", "2", "3", "4", "5", "6", "7", "stuck"):
            p90, median = hands_to_alarm(rng, game, model, runs=args.runs, settings=settings, decks=args.decks)
            name = "stuck" if model == "stuck" else f"{model} riffle{'s' if model != '1' else ''} (GSR)"
            print(f"  {name:<16} {_shown(p90, settings.looks):>22} {_shown(median, settings.looks):>8}")
        alarms, shifts = false_alarms(rng, game, args.hands, settings, 1)
        verdict = "within" if alarms / shifts <= settings.level else "ABOVE"
        print(f"  uniform shuffle, one deck held to the whole level: {alarms} false alarm(s) in {shifts} shifts "
              f"({shifts * settings.looks:,} hands): rate {alarms / shifts:.4f} per shift, {verdict} the level "
              f"{settings.level}")
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
