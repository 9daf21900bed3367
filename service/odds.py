"""``pokertable odds``: the theoretical return of the banked games' pay tables, for the casino and the regulator.

- Texas Hold'em Bonus, bonus bet: exact, by enumerating every player and dealer two-card holding.
- Texas Hold'em Bonus, main game, and Casino Draw Poker: simulation with a stated player strategy, on both cores,
  with a 95 % confidence interval.  Randomness lives here, never in ``domain/``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from domain.batch import batch_evaluator
from domain.cards import ALL_CARDS, Card, Rank
from domain.cdp import house_way, qualifies
from domain.hand_classes import Category
from domain.paytables import STANDARD_BONUS, STANDARD_CASINO_DRAW, BonusPayTable, bonus_class
from domain.ranking import hand_ranking

CHUNK = 50_000
THB_STRATEGIES = ("always", "basic")
CDP_STRATEGIES = ("stand-pat", "basic")


# -- the bonus bet, exactly ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BonusFigures:
    """Exact figures of the bonus bet per unit staked."""

    expected_return: Fraction
    hit_frequency: Fraction

    @property
    def house_edge(self) -> Fraction:
        """What the house keeps per unit staked."""
        return -self.expected_return


def bonus_exact(table: BonusPayTable = STANDARD_BONUS) -> BonusFigures:
    """Enumerate the player's 1,326 two-card holdings; for aces, the dealer's 1,225 holdings decide the 1000:1."""
    total_pairs = math.comb(50, 2)
    expected = Fraction(0)
    hits = Fraction(0)
    holdings = list(combinations(ALL_CARDS, 2))
    for player in holdings:
        outcome = bonus_class(player, ())
        if outcome is None:
            expected -= 1
            continue
        if outcome == "aces":  # the dealer holds the other two aces in 1 of the 1,225 holdings left
            aces_left = 2
            p_both = Fraction(math.comb(aces_left, 2), total_pairs)
            expected += p_both * table.pays["aces_vs_dealer_aces"] + (1 - p_both) * table.pays["aces"]
        else:
            expected += table.pays[outcome]
        hits += 1
    return BonusFigures(expected / len(holdings), hits / len(holdings))


# -- simulations ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Simulated:
    """Sums over simulated deals, in antes.

    A deal has ``boxes`` player boxes against one dealer; the boxes of a deal are not independent, so the
    confidence interval treats each deal's average as one observation.  ``net_squared`` sums the squares of the
    deals' total results.  ``extra`` holds game-specific counts.
    """

    deals: int
    boxes: int
    net: int
    net_squared: int
    wagered: int
    extra: tuple[int, ...] = ()

    @property
    def hands(self) -> int:
        """Box-hands played."""
        return self.deals * self.boxes

    def __add__(self, other: Simulated) -> Simulated:
        if not self.deals:
            return other
        extra = tuple(a + b for a, b in zip(self.extra, other.extra, strict=True))
        return Simulated(self.deals + other.deals, self.boxes, self.net + other.net,
                         self.net_squared + other.net_squared, self.wagered + other.wagered, extra)

    def report(self) -> dict[str, Any]:
        """House edge per ante and per unit wagered (element of risk), with 95 % confidence intervals."""
        mean = self.net / self.hands
        deal_mean_square = self.net_squared / self.deals / (self.boxes * self.boxes)
        variance = max(deal_mean_square - mean * mean, 0.0)
        half = 1.96 * math.sqrt(variance / self.deals)
        per_wager = self.wagered / self.hands
        return {
            "hands": self.hands,
            "house_edge": -mean,
            "house_edge_ci95": [-mean - half, -mean + half],
            "element_of_risk": -mean / per_wager,
            "element_of_risk_ci95": [(-mean - half) / per_wager, (-mean + half) / per_wager],
            "average_wager": per_wager,
        }


def deal_rows(rng: np.random.Generator, rows: int, cards: int) -> NDArray[np.uint8]:
    """``rows`` random deals of ``cards`` distinct cards of the 52-card deck (the shuffler's job)."""
    return rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (rows, 1)), axis=1)[:, :cards]


def _min_strength(category: Category) -> int:
    classes = hand_ranking(52).classes
    return 1 + next(i for i, c in enumerate(classes) if c.category is category)


def thb_chunk(seed: int, rows: int, strategy: str, boxes: int = 1) -> Simulated:
    """Simulate ``rows`` deals of Texas Hold'em Bonus with ``boxes`` boxes each; every box, the dealer and the
    settlement are computed, vectorised.  Results in antes; one observation per deal (boxes share a dealer)."""
    rng = np.random.default_rng(seed)
    evaluator = batch_evaluator(52)
    cards = deal_rows(rng, rows, 2 * boxes + 7)
    board = cards[:, 2 * boxes + 2:]
    dealer = evaluator.strengths(np.concatenate([cards[:, 2 * boxes:2 * boxes + 2], board], axis=1), check=False)
    straight = _min_strength(Category.STRAIGHT)
    deal_net = np.zeros(rows, dtype=np.int64)
    wagered = 0
    for box in range(boxes):
        hole = cards[:, 2 * box:2 * box + 2]
        plays = _plays_preflop(hole) if strategy == "basic" else np.ones(rows, dtype=bool)
        turn = _bets_street(evaluator, hole, board[:, :3]) if strategy == "basic" else np.zeros(rows, dtype=bool)
        river = _bets_street(evaluator, hole, board[:, :4]) if strategy == "basic" else np.zeros(rows, dtype=bool)
        turn &= plays
        river &= plays
        player = evaluator.strengths(np.concatenate([hole, board], axis=1), check=False)
        raises = 2 + turn.astype(np.int64) + river.astype(np.int64)
        ante_win = (player >= straight).astype(np.int64)
        net = np.where(player > dealer, raises + ante_win, np.where(player < dealer, -(1 + raises), 0))
        net = np.where(plays, net, -1)
        deal_net += net
        wagered += int(np.where(plays, 1 + raises, 1).sum())
    return Simulated(rows, boxes, int(deal_net.sum()), int((deal_net * deal_net).sum()), wagered)


def _plays_preflop(hole: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """Fold unsuited 2-3 through 2-7 (the folds of the published optimal first decision); play everything else."""
    ranks = np.sort(hole >> 2, axis=1)  # 0 = deuce
    suited = (hole[:, 0] & 3) == (hole[:, 1] & 3)
    weak: NDArray[np.bool_] = (ranks[:, 0] == 0) & (ranks[:, 1] >= 1) & (ranks[:, 1] <= 5) & ~suited
    return ~weak


def _bets_street(evaluator: Any, hole: NDArray[np.uint8], board: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """Stated strategy: bet with a pocket pair, a hole card pairing the board, or a straight or better."""
    hole_ranks, board_ranks = hole >> 2, board >> 2
    pocket = hole_ranks[:, 0] == hole_ranks[:, 1]
    pairs_board = (hole_ranks[:, :, None] == board_ranks[:, None, :]).any(axis=(1, 2))
    strength = evaluator.strengths(np.concatenate([hole, board], axis=1), check=False)
    bets: NDArray[np.bool_] = pocket | pairs_board | (strength >= _min_strength(Category.STRAIGHT))
    return bets


def cdp_chunk(seed: int, rows: int, strategy: str) -> Simulated:
    """Simulate ``rows`` Casino Draw Poker hands (one box against the bank), hand by hand with the domain's rules.

    ``extra`` counts the bank qualifying before its exchange and after it.
    """
    rng = np.random.default_rng(seed)
    ranking = hand_ranking(52)
    pays = STANDARD_CASINO_DRAW
    net_sum = net_sq = wagered = before = after = 0
    for row in deal_rows(rng, rows, 19).tolist():
        cards = [ALL_CARDS[c] for c in row]
        player, bank, stock = cards[:5], cards[5:10], iter(cards[10:])
        qualified = qualifies(bank)  # R-CDP-4: counted on every hand, played or not
        before += qualified
        thrown = _cdp_exchange(player) if strategy == "basic" else []
        player = [c for c in player if c not in thrown] + [next(stock) for _ in thrown]
        value = ranking.evaluate(player)
        plays = strategy != "basic" or _cdp_plays(value.category, player)
        if not qualified:
            changed = house_way(bank)
            bank = [c for c in bank if c not in changed] + [next(stock) for _ in changed]
            qualified = qualifies(bank)
        after += qualified
        if not plays:
            net, staked = -1, 1
        else:
            staked = 3
            if not qualified:
                net = 1
            else:
                bank_strength = ranking.strength([c.code for c in bank])
                if value.strength > bank_strength:
                    net = 1 + 2 * pays.pay_for(value.category, value.hand_class.is_royal)
                elif value.strength < bank_strength:
                    net = -3
                else:
                    net = 0
        net_sum += net
        net_sq += net * net
        wagered += staked
    return Simulated(rows, 1, net_sum, net_sq, wagered, (before, after))


def _cdp_exchange(hand: list[Card]) -> list[Card]:
    """Stated strategy: keep two pair or better; with a pair change the two lowest other cards; else the house way."""
    category = hand_ranking(52).evaluate(hand).category
    if category > Category.PAIR:
        return []
    if category is Category.PAIR:
        counts = {c.rank: sum(1 for d in hand if d.rank == c.rank) for c in hand}
        singles = sorted((c for c in hand if counts[c.rank] == 1), key=lambda c: c.rank)
        return singles[:2]
    return house_way(hand)


def _cdp_plays(category: Category, hand: list[Card]) -> bool:
    """Stated strategy: play a pair or better, or ace-king high; fold the rest."""
    ranks = {c.rank for c in hand}
    return category > Category.HIGH_CARD or {Rank.ACE, Rank.KING} <= ranks


def simulate(chunk: Callable[..., Simulated], hands: int, seed: int, *args: Any, progress: bool = True) -> Simulated:
    """Run ``chunk`` over ``hands`` hands on every core, with a progress bar on standard error."""
    seeds = np.random.SeedSequence(seed).generate_state(max(1, -(-hands // CHUNK))).tolist()
    sizes = [min(CHUNK, hands - i * CHUNK) for i in range(len(seeds))]
    total = Simulated(0, 1, 0, 0, 0)
    workers = min(os.cpu_count() or 1, 2)
    with ProcessPoolExecutor(max_workers=workers) as pool, \
            tqdm(total=hands, unit="hand", disable=not progress, file=sys.stderr, leave=False) as bar:
        for result in _as_done(pool, chunk, seeds, sizes, args):
            total = total + result
            bar.update(result.hands)
    return total


def _as_done(pool: ProcessPoolExecutor, chunk: Callable[..., Simulated], seeds: list[int], sizes: list[int],
             args: tuple[Any, ...]) -> Iterator[Simulated]:
    futures = [pool.submit(chunk, s, n, *args) for s, n in zip(seeds, sizes, strict=True)]
    for future in futures:
        yield future.result()


# -- CLI -----------------------------------------------------------------------------------------------


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``odds`` on the CLI."""
    parser = commands.add_parser("odds", help="house edge of the banked games' pay tables")
    parser.add_argument("game", choices=("holdem-bonus", "casino-draw"))
    parser.add_argument("--bet", choices=("main", "bonus"), default="main", help="holdem-bonus: which bet")
    parser.add_argument("--hands", type=int, default=1_000_000, help="hands to simulate")
    parser.add_argument("--strategy", default="basic",
                        help=f"holdem-bonus: {', '.join(THB_STRATEGIES)}; casino-draw: {', '.join(CDP_STRATEGIES)}")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Compute and print the figures."""
    if args.game == "holdem-bonus" and args.bet == "bonus":
        figures = bonus_exact()
        out = {"game": "holdem-bonus", "bet": "bonus", "method": "exact enumeration",
               "expected_return": float(figures.expected_return), "house_edge": float(figures.house_edge),
               "hit_frequency": float(figures.hit_frequency),
               "house_edge_fraction": str(figures.house_edge)}
        return _print(out, args.json, [("house edge", out["house_edge"]), ("return", out["expected_return"]),
                                       ("hit frequency", out["hit_frequency"])])
    strategies = THB_STRATEGIES if args.game == "holdem-bonus" else CDP_STRATEGIES
    if args.strategy not in strategies:
        print(f"pokertable odds: --strategy is one of {', '.join(strategies)}", file=sys.stderr)
        return 2
    if args.hands <= 0:
        print("pokertable odds: --hands must be positive", file=sys.stderr)
        return 2
    if args.game == "holdem-bonus":
        result = simulate(thb_chunk, args.hands, args.seed, args.strategy, progress=not args.json)
        out = {"game": "holdem-bonus", "bet": "main", "strategy": args.strategy, "relative_to": "ante",
               **result.report()}
    else:
        result = simulate(cdp_chunk, args.hands, args.seed, args.strategy, progress=not args.json)
        out = {"game": "casino-draw", "strategy": args.strategy, "relative_to": "ante", **result.report(),
               "bank_qualifies_before_exchange": result.extra[0] / result.hands,
               "bank_qualifies_after_exchange": result.extra[1] / result.hands}
    lines = [("house edge", out["house_edge"]), ("95 % CI", out["house_edge_ci95"]),
             ("element of risk", out["element_of_risk"])]
    if args.game == "casino-draw":
        lines += [("bank qualifies before exchange", out["bank_qualifies_before_exchange"]),
                  ("bank qualifies after exchange", out["bank_qualifies_after_exchange"])]
    return _print(out, args.json, lines)


def _print(out: dict[str, Any], as_json: bool, lines: list[tuple[str, Any]]) -> int:
    if as_json:
        print(json.dumps(out, indent=2))
        return 0
    title = " ".join(str(out[k]) for k in ("game", "bet", "strategy", "method") if k in out)
    print(f"{title} ({out.get('hands', 'all'):,} hands)" if "hands" in out else title)
    for label, value in lines:
        if isinstance(value, list):
            print(f"  {label:<32} [{value[0] * 100:.4f} %, {value[1] * 100:.4f} %]")
        else:
            print(f"  {label:<32} {value * 100:.4f} %")
    return 0

