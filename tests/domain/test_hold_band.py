"""The theoretical hold and its band (R-ACC-6, :mod:`domain.banked.hold`, docs/accounts.md): the bonus bet's figure is
exact, the simulated figures are what a fresh simulation measures, fair shifts fall outside the 99 % band at about
the stated 1 % rate, and a rigged shift is flagged.  Shifts are simulated from the games' own settlement with the
odds engine's dealing (``service.cli.odds``) and fixed seeds: a few seconds in all."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from domain.banked.cdp_rules import HOUSE_WAYS, CdpSettings, box_result, qualifies
from domain.banked.hold import (
    CDP_FIGURES,
    THB_FIGURES,
    Z_99,
    GameFigures,
    bonus_distribution,
    figures_for,
    fixed_theory,
    shift_theory,
)
from domain.banked.paytables import STANDARD_BONUS, STANDARD_CASINO_DRAW, CasinoDrawPayTable, bonus_class
from domain.banked.thb_settings import STANDARD_LIMITS, ThbSettings
from domain.banked.thb_settlement import bonus_net
from domain.cards.cards import ALL_CARDS
from domain.cards.hand_classes import Category
from domain.cards.ranking import hand_ranking
from service.cli.odds import _cdp_exchange, _cdp_plays, bonus_exact, cdp_chunk, deal_rows, thb_chunk, thb_deals

THB = ThbSettings(STANDARD_LIMITS[5])


def test_the_bonus_figure_is_exact_and_agrees_with_the_odds_engine() -> None:
    distribution = dict(bonus_distribution(STANDARD_BONUS))
    assert sum(distribution.values()) == 1
    assert distribution[1000] == Fraction(6, 1326 * 1225)  # A-A against the dealer's A-A (R-THB-9)
    mean = sum(net * p for net, p in distribution.items())
    assert mean == bonus_exact(THB).expected_return
    assert THB_FIGURES.spots["bonus"].edge == pytest.approx(float(-mean))


@pytest.mark.parametrize("pays_from", [Category.STRAIGHT, Category.FLUSH])
def test_the_quoted_figures_follow_the_tables_ante_setting(pays_from: Category) -> None:
    settings = ThbSettings(STANDARD_LIMITS[5], ante_pays_from=pays_from)  # R-THB-8's setting
    figures = figures_for(settings)
    fresh = thb_chunk(79, 200_000, "basic", 1, settings.to_dict()).report()  # seeds the figures were not measured with
    assert figures.spots["ante"].edge + _later_bets_edge(figures) == pytest.approx(fresh["house_edge"], abs=0.01)
    assert figures.note == ""


@pytest.mark.parametrize("play_bet", ["returned", "paid"])
def test_the_quoted_cdp_figures_follow_the_tables_unqualified_play_bet(play_bet: str) -> None:
    table = CdpSettings(1, 1, unqualified_play_bet=play_bet)  # R-CDP-5's decision
    figures = figures_for(table)
    fresh = cdp_chunk(80, 10_000, "basic", table.to_dict())
    played = (fresh.wagered - fresh.hands) / 2 / fresh.hands  # a box wagers 1 ante, and 2 more when it plays
    quoted = figures.spots["ante"].edge + 2 * played * figures.spots["play"].edge  # per ante
    assert quoted == pytest.approx(fresh.report()["house_edge"], abs=0.06)  # ~3 standard errors
    assert figures.note == ""
    richer = CasinoDrawPayTable({**STANDARD_CASINO_DRAW.pays, "pair": 2})  # figures not simulated for it
    other = figures_for(CdpSettings(1, 1, pay_table=richer, unqualified_play_bet=play_bet))
    assert "not the regulation's" in other.note and other.spots == figures.spots


def _later_bets_edge(figures: GameFigures = THB_FIGURES) -> float:
    """The house's edge per ante from the flop, turn and river bets of the stated strategy: each spot's edge times
    how often it is staked, measured on one more fresh simulation."""
    deals = thb_deals(deal_rows(np.random.default_rng(78), 200_000, 9), "basic", 1, THB)
    spots = figures.spots
    return float(2 * deals.plays.mean() * spots["flop"].edge + deals.turn.mean() * spots["turn"].edge
                 + deals.river.mean() * spots["river"].edge)


def thb_shifts(seed: int, shifts: int, hands: int, rigged: float = 0.0) -> list[tuple[int, Any]]:
    """``shifts`` simulated THB shifts of ``hands`` box-hands each (antes 5–50, a bonus of 1–10 on about half),
    played by the stated strategy: each shift's house win and its theory.  ``rigged``: that share of the hands
    the player would win are dealt with his cards and the croupier's swapped (a stacked shoe)."""
    rng = np.random.default_rng(seed)
    cards = deal_rows(rng, shifts * hands, 9)
    deals = thb_deals(cards, "basic", 1, THB)
    if rigged:
        swap = (deals.net[:, 0] > 0) & (rng.random(len(cards)) < rigged)
        cards[swap, 0:4] = cards[swap][:, [2, 3, 0, 1]]
        deals = thb_deals(cards, "basic", 1, THB)
    antes = rng.integers(5, 51, len(cards))
    bonuses = rng.integers(1, 11, len(cards)) * (rng.random(len(cards)) < 0.5)
    found = []
    for shift in range(shifts):
        stakes, win = [], 0
        for i in range(shift * hands, (shift + 1) * hands):
            ante, bonus = int(antes[i]), int(bonuses[i])
            bets = {"ante": ante}
            for spot, staked, amount in (("flop", deals.plays, 2 * ante), ("turn", deals.turn, ante),
                                         ("river", deals.river, ante)):
                if staked[i, 0]:
                    bets[spot] = amount
            win -= ante * int(deals.net[i, 0])
            if bonus:
                bets["bonus"] = bonus
                hole, dealer = [ALL_CARDS[c] for c in cards[i, :2]], [ALL_CARDS[c] for c in cards[i, 2:4]]
                win -= bonus_net(bonus, bonus_class(hole, dealer), THB)
            stakes.append(bets)
        found.append((win, shift_theory(stakes, THB_FIGURES)))
    return found


def test_fair_thb_shifts_leave_the_band_at_about_the_stated_rate() -> None:
    shifts = thb_shifts(2026, 400, 120)
    outside = sum(theory.outside(win) for win, theory in shifts)
    assert outside <= 10  # 1 % of 400 is 4; P(Binomial(400, 0.01) ≥ 11) < 0.3 %
    assert all(theory.box_hands == 120 and theory.low < theory.expected < theory.high for _, theory in shifts)


def test_a_rigged_thb_shift_is_flagged() -> None:
    shifts = thb_shifts(11, 40, 600, rigged=0.25)
    assert sum(theory.outside(win) for win, theory in shifts) >= 34
    assert all(win > theory.expected for win, theory in shifts)


def test_fair_cdp_shifts_leave_the_band_at_about_the_stated_rate() -> None:
    rng = np.random.default_rng(5)
    table, ranking = CdpSettings(5, 100), hand_ranking(52)
    outside = 0
    for _ in range(150):
        stakes, win = [], 0
        for row in deal_rows(rng, 60, 19).tolist():
            cards = [ALL_CARDS[c] for c in row]
            player, bank, stock = cards[:5], cards[5:10], iter(cards[10:])
            thrown = _cdp_exchange(player)
            player = [c for c in player if c not in thrown] + [next(stock) for _ in thrown]
            value = ranking.evaluate(player)
            ante = int(rng.integers(5, 101))
            plays = _cdp_plays(value.category, player)
            if not qualifies(bank):
                changed = HOUSE_WAYS[table.house_way](bank)
                bank = [c for c in bank if c not in changed] + [next(stock) for _ in changed]
            qualified = qualifies(bank)
            bets = {"ante": ante, "play": 2 * ante} if plays else {"ante": ante}
            result = box_result(bets, folded=not plays, bank_qualified=qualified, player=value,
                                bank=ranking.evaluate(bank) if qualified and plays else None, settings=table)
            win -= sum(result.values())
            stakes.append(bets)
        outside += shift_theory(stakes, CDP_FIGURES).outside(win)
    assert outside <= 5  # 1 % of 150 is 1.5; P(Binomial(150, 0.01) ≥ 6) < 0.5 %


def test_the_band_is_the_expected_win_plus_or_minus_z_standard_deviations() -> None:
    theory = shift_theory([{"ante": 10, "flop": 20, "turn": 10, "river": 10, "bonus": 5}] * 50, THB_FIGURES)
    one = THB_FIGURES.box_moments({"ante": 10, "flop": 20, "turn": 10, "river": 10, "bonus": 5})
    assert theory.expected == pytest.approx(50 * one[0]) and theory.variance == pytest.approx(50 * one[1])
    assert theory.low <= theory.expected - Z_99 * theory.sd and theory.high >= theory.expected + Z_99 * theory.sd
    assert theory.high - theory.low <= 2 * Z_99 * theory.sd + 2
    rake = fixed_theory(340)  # a circle table: the house's win is its rake, exactly (R-CIRC-12)
    assert (rake.low, rake.high, rake.outside(340), rake.outside(339)) == (340, 340, False, True)
