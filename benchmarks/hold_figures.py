"""The simulated figures of the theoretical hold (docs/accounts.md, :mod:`domain.banked.hold`): per spot of the banked
games, the player's mean net and its variance per unit staked, given that the spot is staked, and the correlation
between two spots of one box, under the stated strategies of ``pokertable odds`` (``basic``), at the regulation's
tables.  The bonus bet's own mean and variance are exact (enumeration); only its correlation with the main spots is
simulated here.

Run with ``.venv/bin/python benchmarks/hold_figures.py [THB deals] [CDP hands]`` (defaults 2,000,000 and 200,000,
seed 2026): for each setting the figures cover (THB's ante paid from a straight or a flush, R-THB-8; CDP's play bet
returned or paid when the bank does not qualify, R-CDP-5), the figures this run measured and, beside them, those
:mod:`domain.banked.hold` quotes.
"""

from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.banked import hold
from domain.banked.cdp_rules import HOUSE_WAYS, UNQUALIFIED_PLAY_BET, CdpSettings, box_result, qualifies
from domain.banked.paytables import bonus_class
from domain.banked.thb_settings import STANDARD_LIMITS, ThbSettings
from domain.banked.thb_settlement import ante_paid, bonus_net, main_results, versus
from domain.cards.batch import batch_evaluator
from domain.cards.cards import ALL_CARDS
from domain.cards.hand_classes import Category
from domain.cards.ranking import hand_ranking
from service.cli.odds import (
    _bets_street,
    _categories,
    _cdp_exchange,
    _cdp_plays,
    _plays_preflop,
    deal_rows,
)

SEED = 2026


Moments = tuple[dict[str, tuple[float, float, int]], dict[tuple[str, str], float]]


def _moments(nets: dict[str, NDArray[np.float64]], staked: dict[str, NDArray[np.bool_]]) -> Moments:
    """Mean, variance and count per spot (given staked), correlation per pair of spots (given both staked)."""
    spots: dict[str, tuple[float, float, int]] = {}
    correlations: dict[tuple[str, str], float] = {}
    for spot in nets:
        x = nets[spot][staked[spot]]
        spots[spot] = (float(x.mean()), float(x.var()), int(staked[spot].sum()))
    for a, b in combinations(nets, 2):
        both = staked[a] & staked[b]
        if both.sum() > 2:
            correlations[a, b] = float(np.corrcoef(nets[a][both], nets[b][both])[0, 1])
    return spots, correlations


def thb(deals: int, settings: ThbSettings) -> Moments:
    """One box a deal, stated basic strategy, ante 1 and bonus 1, at a table of these settings."""
    evaluator = batch_evaluator(52)
    category_of = _categories()
    bonus_of = np.zeros((52, 52), dtype=np.int64)
    for a, b in combinations(range(52), 2):
        paid = bonus_net(1, bonus_class((ALL_CARDS[a], ALL_CARDS[b]), ()), settings)
        bonus_of[a, b] = bonus_of[b, a] = paid
    nets: dict[str, list[NDArray[np.float64]]] = {s: [] for s in ("ante", "flop", "turn", "river", "bonus")}
    staked: dict[str, list[NDArray[np.bool_]]] = {s: [] for s in nets}
    rng = np.random.default_rng(SEED)
    for start in range(0, deals, 200_000):
        cards = deal_rows(rng, min(200_000, deals - start), 9)
        hole, dealer_cards, board = cards[:, :2], cards[:, 2:4], cards[:, 4:9]
        dealer = evaluator.strengths(np.concatenate([dealer_cards, board], axis=1), check=False).astype(np.int64)
        player = evaluator.strengths(np.concatenate([hole, board], axis=1), check=False).astype(np.int64)
        plays = _plays_preflop(hole)
        turn = plays & _bets_street(evaluator, hole, board[:, :3])
        river = plays & _bets_street(evaluator, hole, board[:, :4])
        ones = np.ones(len(cards), dtype=np.int64)
        results = main_results({"ante": ones, "flop": ones, "turn": ones, "river": ones},
                               versus=versus(player, dealer), ante_paid=ante_paid(category_of[player - 1], settings),
                               folded=~plays)
        bonus: NDArray[np.int64] = bonus_of[hole[:, 0], hole[:, 1]].copy()
        aces = ((hole >> 2) == 12).all(axis=1) & ((dealer_cards >> 2) == 12).all(axis=1)
        bonus[aces] = settings.bonus_table.pays["aces_vs_dealer_aces"]
        for spot, net, bet in (("ante", results["ante"], ones > 0), ("flop", results["flop"], plays),
                               ("turn", results["turn"], turn), ("river", results["river"], river),
                               ("bonus", bonus, ones > 0)):
            nets[spot].append(net.astype(np.float64))
            staked[spot].append(bet)
    return _moments({s: np.concatenate(v) for s, v in nets.items()}, {s: np.concatenate(v) for s, v in staked.items()})


def cdp(hands: int, table: CdpSettings) -> Moments:
    """One box a hand, stated basic strategy, ante 1 (play 1: figures are per unit), at a table of these settings."""
    bank_way = HOUSE_WAYS[table.house_way]
    ranking = hand_ranking(52)
    rng = np.random.default_rng(SEED)
    ante, play, played = np.zeros(hands), np.zeros(hands), np.zeros(hands, dtype=bool)
    for i, row in enumerate(deal_rows(rng, hands, 19).tolist()):
        cards = [ALL_CARDS[c] for c in row]
        player, bank, stock = cards[:5], cards[5:10], iter(cards[10:])
        qualified = qualifies(bank)
        thrown = _cdp_exchange(player)
        player = [c for c in player if c not in thrown] + [next(stock) for _ in thrown]
        value = ranking.evaluate(player)
        plays = _cdp_plays(value.category, player)
        if not qualified:
            changed = bank_way(bank)
            bank = [c for c in bank if c not in changed] + [next(stock) for _ in changed]
            qualified = qualifies(bank)
        bets = {"ante": 1, "play": 1} if plays else {"ante": 1}
        result = box_result(bets, folded=not plays, bank_qualified=qualified, player=value,
                            bank=ranking.evaluate(bank) if qualified and plays else None, settings=table)
        ante[i], play[i], played[i] = result["ante"], result.get("play", 0), plays
    return _moments({"ante": ante, "play": play}, {"ante": np.ones(hands, dtype=bool), "play": played})


def _print(game: str, measured: Moments, quoted: hold.GameFigures) -> None:
    print(f"{game}: per unit staked, the player's net given the spot is staked (house edge = −mean)")
    print(f"  {'spot':<8} {'staked':>10} {'mean':>10} {'variance':>10}   quoted: {'mean':>9} {'variance':>9}")
    spots, correlations = measured
    for spot in quoted.spots:
        if spot in spots:
            mean, var, n = spots[spot]
            figure = quoted.spots[spot]
            print(f"  {spot:<8} {n:>10,} {mean:>10.5f} {var:>10.5f}   quoted: {-figure.edge:>9.5f} "
                  f"{figure.variance:>9.5f}")
    for (a, b), value in correlations.items():
        print(f"  corr {a + '~' + b:<14} {value:>8.4f}   quoted: {quoted.correlation(a, b):>8.4f}")


def main() -> None:
    """Print the measured and the quoted figures, for each setting the figures cover."""
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    hands = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    for pays_from in (Category.STRAIGHT, Category.FLUSH):
        settings = ThbSettings(STANDARD_LIMITS[5], ante_pays_from=pays_from)
        _print(f"Texas Hold'em Bonus, ante paid from a {pays_from.name.lower()} ({deals:,} deals, seed {SEED})",
               thb(deals, settings), hold.figures_for(settings))
    for play_bet in UNQUALIFIED_PLAY_BET:
        table = CdpSettings(1, 1, unqualified_play_bet=play_bet)
        _print(f"Casino Draw Poker, play bet {play_bet} when the bank does not qualify ({hands:,} hands, seed "
               f"{SEED})", cdp(hands, table), hold.figures_for(table))


if __name__ == "__main__":
    main()
