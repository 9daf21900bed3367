"""``pokertable odds``: the theoretical return of the banked games' pay tables, for the casino and the regulator.

- Texas Hold'em Bonus, bonus bet: exact, by enumerating every player and dealer two-card holding.
- Texas Hold'em Bonus, main game, and Casino Draw Poker: simulation with a stated player strategy, on both cores,
  with a 95 % confidence interval.  Randomness lives here, never in ``domain/``.
"""

from __future__ import annotations

import argparse
import functools
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

from domain.banked.cdp_rules import HOUSE_WAYS, UNQUALIFIED_PLAY_BET, CdpSettings, box_result, house_way, qualifies
from domain.banked.paytables import bonus_class
from domain.banked.thb_settings import STANDARD_LIMITS, ThbSettings
from domain.banked.thb_settlement import ante_paid, bonus_net, main_results, versus
from domain.cards.batch import batch_evaluator
from domain.cards.cards import ALL_CARDS, Card, Rank
from domain.cards.hand_classes import Category
from domain.cards.ranking import hand_ranking
from domain.games import GAMES

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


def bonus_exact(settings: ThbSettings | None = None) -> BonusFigures:
    """Enumerate the player's 1,326 two-card holdings; for aces, the dealer's 1,225 holdings decide the 1000:1.

    Each outcome is paid by the tables' own :func:`domain.banked.thb_settlement.bonus_net`.  The croupier's cards are
    taken as turned (R-THB-12's default) and every 1000:1 as approved (R-THB-10).
    """
    table = settings or ThbSettings(STANDARD_LIMITS[5])
    total_pairs = math.comb(50, 2)
    expected = Fraction(0)
    hits = Fraction(0)
    holdings = list(combinations(ALL_CARDS, 2))
    for player in holdings:
        outcome = bonus_class(player, ())
        if outcome == "aces":  # the dealer holds the other two aces in 1 of the 1,225 holdings left
            p_both = Fraction(math.comb(2, 2), total_pairs)
            expected += p_both * bonus_net(1, "aces_vs_dealer_aces", table) + (1 - p_both) * bonus_net(1, "aces", table)
        else:
            expected += bonus_net(1, outcome, table)
        hits += outcome is not None
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


@functools.cache
def _min_strength(category: Category) -> int:
    classes = hand_ranking(52).classes
    return 1 + next(i for i, c in enumerate(classes) if c.category is category)


@functools.cache
def _categories() -> NDArray[np.int8]:
    """The category of every strength of the 52-card ranking (``[strength - 1]``)."""
    return np.array([c.category for c in hand_ranking(52).classes], dtype=np.int8)


@dataclass(frozen=True)
class ThbDeals:
    """Simulated Texas Hold'em Bonus deals, box by box (rows × boxes): the decisions of the stated strategy and
    each box's net result in antes, settled by the domain's :func:`domain.banked.thb_settlement.main_results`."""

    plays: NDArray[np.bool_]
    turn: NDArray[np.bool_]
    river: NDArray[np.bool_]
    net: NDArray[np.int64]


def thb_deals(cards: NDArray[np.uint8], strategy: str, boxes: int, settings: ThbSettings) -> ThbDeals:
    """Play and settle every deal of ``cards`` (one row a deal: two cards a box, the croupier's two, the five of the
    board), vectorised; each box stakes one ante.  The settlement is the tables' own (R-THB-8 with the table's
    ``ante_pays_from``), applied to whole columns at once."""
    evaluator = batch_evaluator(52)
    category_of = _categories()
    rows, basic = len(cards), strategy == "basic"
    board = cards[:, 2 * boxes + 2:2 * boxes + 7]
    dealer = evaluator.strengths(np.concatenate([cards[:, 2 * boxes:2 * boxes + 2], board], axis=1),
                                 check=False).astype(np.int64)
    plays, turn = np.ones((boxes, rows), dtype=bool), np.zeros((boxes, rows), dtype=bool)
    river, net = np.zeros((boxes, rows), dtype=bool), np.zeros((boxes, rows), dtype=np.int64)
    ante = np.ones(rows, dtype=np.int64)
    for box in range(boxes):
        hole = cards[:, 2 * box:2 * box + 2]
        if basic:
            plays[box] = _plays_preflop(hole)
            turn[box] = plays[box] & _bets_street(evaluator, hole, board[:, :3])
            river[box] = plays[box] & _bets_street(evaluator, hole, board[:, :4])
        player = evaluator.strengths(np.concatenate([hole, board], axis=1), check=False).astype(np.int64)
        stakes = {"ante": ante, "flop": 2 * plays[box], "turn": turn[box], "river": river[box]}
        results = main_results(stakes, versus=versus(player, dealer),
                               ante_paid=ante_paid(category_of[player - 1], settings), folded=~plays[box])
        net[box] = sum(results.values())
    return ThbDeals(plays.T, turn.T, river.T, net.T)


def thb_chunk(seed: int, rows: int, strategy: str, boxes: int = 1,
              settings: dict[str, Any] | None = None) -> Simulated:
    """Simulate ``rows`` deals of Texas Hold'em Bonus with ``boxes`` boxes each at a table of these settings
    (:meth:`ThbSettings.to_dict`; default: the standard 5–100 table); results in antes; one observation per deal
    (boxes share a dealer)."""
    table = ThbSettings.from_dict(settings) if settings is not None else ThbSettings(STANDARD_LIMITS[5])
    rng = np.random.default_rng(seed)
    deals = thb_deals(deal_rows(rng, rows, 2 * boxes + 7), strategy, boxes, table)
    deal_net = deals.net.sum(axis=1)
    wagered = int((1 + 2 * deals.plays + deals.turn + deals.river).sum())
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


def cdp_chunk(seed: int, rows: int, strategy: str, settings: dict[str, Any] | None = None) -> Simulated:
    """Simulate ``rows`` Casino Draw Poker hands (one box of one ante against the bank) at a table of these settings
    (:meth:`CdpSettings.to_dict`; default: the regulation's), hand by hand with the tables' own rules: the bank's
    qualification and house way (R-CDP-4) and the settlement (:func:`domain.banked.cdp_rules.box_result`).

    ``extra`` counts the bank qualifying before its exchange and after it.
    """
    table = CdpSettings.from_dict(settings) if settings is not None else CdpSettings(1, 1)
    bank_way = HOUSE_WAYS[table.house_way]
    rng = np.random.default_rng(seed)
    ranking = hand_ranking(52)
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
            changed = bank_way(bank)
            bank = [c for c in bank if c not in changed] + [next(stock) for _ in changed]
            qualified = qualifies(bank)
        after += qualified
        bets = {"ante": 1, "play": 2} if plays else {"ante": 1}
        result = box_result(bets, folded=not plays, bank_qualified=qualified, player=value,
                            bank=ranking.evaluate(bank) if qualified and plays else None, settings=table)
        net = sum(result.values())
        net_sum += net
        net_sq += net * net
        wagered += sum(bets.values())
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
    parser.add_argument("game", choices=ODDS_GAMES)
    parser.add_argument("--bet", choices=("main", "bonus"), default="main", help="holdem-bonus: which bet")
    parser.add_argument("--hands", type=int, default=1_000_000, help="hands to simulate")
    parser.add_argument("--strategy", default="basic",
                        help=f"holdem-bonus: {', '.join(THB_STRATEGIES)}; casino-draw: {', '.join(CDP_STRATEGIES)}")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--ante-pays-from", choices=("straight", "flush"), default="straight",
                        help="holdem-bonus: the table's R-THB-8 setting (default: straight, the regulation)")
    parser.add_argument("--unqualified-play-bet", choices=UNQUALIFIED_PLAY_BET, default="returned",
                        help="casino-draw: the table's R-CDP-5 decision (default: returned)")
    parser.add_argument("--house-way", choices=sorted(HOUSE_WAYS), default="regulation",
                        help="casino-draw: the bank's exchange, R-CDP-4 decision (default: regulation)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(run=run)


def _thb_main(args: argparse.Namespace, settings: Any) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    result = simulate(thb_chunk, args.hands, args.seed, args.strategy, 1, settings.to_dict(), progress=not args.json)
    return {"bet": "main", "strategy": args.strategy, "relative_to": "ante", "ante_pays_from": args.ante_pays_from,
            **result.report()}, []


def _cdp_main(args: argparse.Namespace, settings: Any) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    result = simulate(cdp_chunk, args.hands, args.seed, args.strategy, settings.to_dict(), progress=not args.json)
    out = {"strategy": args.strategy, "relative_to": "ante", "house_way": args.house_way,
           "unqualified_play_bet": args.unqualified_play_bet, **result.report(),
           "bank_qualifies_before_exchange": result.extra[0] / result.hands,
           "bank_qualifies_after_exchange": result.extra[1] / result.hands}
    return out, [("bank qualifies before exchange", out["bank_qualifies_before_exchange"]),
                 ("bank qualifies after exchange", out["bank_qualifies_after_exchange"])]


@dataclass(frozen=True)
class OddsGame:
    """One banked game's figures: its table's settings (from the command line), strategies, main bet's simulation
    and side bet's exact enumeration, if any."""

    strategies: tuple[str, ...]
    settings: Callable[[argparse.Namespace], ThbSettings | CdpSettings]
    main: Callable[[argparse.Namespace, Any], tuple[dict[str, Any], list[tuple[str, Any]]]]
    bonus: Callable[[Any], BonusFigures] | None = None


ODDS: dict[type[Any], OddsGame] = {
    ThbSettings: OddsGame(THB_STRATEGIES, lambda a: ThbSettings(STANDARD_LIMITS[5], ante_pays_from=Category[
        a.ante_pays_from.upper()]), _thb_main, bonus_exact),
    CdpSettings: OddsGame(CDP_STRATEGIES, lambda a: CdpSettings(1, 1, house_way=a.house_way, unqualified_play_bet=a
                                                                .unqualified_play_bet), _cdp_main),
}
ODDS_GAMES = tuple(code for code, game in GAMES.items() if game.settings_class in ODDS)
"""Each banked game's figures, by its settings class (``domain.games`` names the game's); the games with figures."""


def odds_game(code: str) -> OddsGame:
    """The figures of the game ``code`` (a key of :data:`domain.games.GAMES`)."""
    return ODDS[GAMES[code].settings_class or type(None)]  # KeyError: not a banked game (no pay table)


def table_settings(args: argparse.Namespace) -> ThbSettings | CdpSettings:
    """The settings of the table the figures are for (the simulation settles as such a table does)."""
    return odds_game(args.game).settings(args)


def run(args: argparse.Namespace) -> int:
    """Compute and print the figures."""
    odds = odds_game(args.game)
    settings = odds.settings(args)
    if odds.bonus is not None and args.bet == "bonus":
        figures = odds.bonus(settings)
        out = {"game": args.game, "bet": "bonus", "method": "exact enumeration",
               "expected_return": float(figures.expected_return), "house_edge": float(figures.house_edge),
               "hit_frequency": float(figures.hit_frequency),
               "house_edge_fraction": str(figures.house_edge)}
        return _print(out, args.json, [("house edge", out["house_edge"]), ("return", out["expected_return"]),
                                       ("hit frequency", out["hit_frequency"])])
    if args.strategy not in odds.strategies:
        print(f"pokertable odds: --strategy is one of {', '.join(odds.strategies)}", file=sys.stderr)
        return 2
    if args.hands <= 0:
        print("pokertable odds: --hands must be positive", file=sys.stderr)
        return 2
    figures_out, extra = odds.main(args, settings)
    out = {"game": args.game, **figures_out}
    lines = [("house edge", out["house_edge"]), ("95 % CI", out["house_edge_ci95"]),
             ("element of risk", out["element_of_risk"]), *extra]
    return _print(out, args.json, lines)


def _print(out: dict[str, Any], as_json: bool, lines: list[tuple[str, Any]]) -> int:
    if as_json:
        print(json.dumps(out, indent=2))
        return 0
    title = " ".join(str(out[k]) for k in ("game", "bet", "strategy", "method") if k in out)
    keys = ("ante_pays_from", "house_way", "unqualified_play_bet")
    settings = ", ".join(f"{k.replace('_', ' ')} {out[k]}" for k in keys if k in out)
    title += f" [{settings}]" if settings else ""
    print(f"{title} ({out.get('hands', 'all'):,} hands)" if "hands" in out else title)
    for label, value in lines:
        if isinstance(value, list):
            print(f"  {label:<32} [{value[0] * 100:.4f} %, {value[1] * 100:.4f} %]")
        else:
            print(f"  {label:<32} {value * 100:.4f} %")
    return 0

