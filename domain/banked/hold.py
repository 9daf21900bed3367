"""The theoretical hold of a banked table's shift (issue 19, item 3; R-ACC-6, pokertable's decision): the house's
expected win from the bets actually made, and a confidence band from the per-hand variance.

Each spot of a box (THB: ante, flop, turn, river, bonus; CDP: ante, play) has a :class:`SpotFigure`: the house's
expected win and the variance of its result per unit staked, *given that the spot is staked*.  A box-hand with stakes
``a_s`` is expected to win ``Σ a_s·edge_s`` for the house, with variance ``Σ_s Σ_t a_s·a_t·ρ_st·σ_s·σ_t`` (ρ: the
correlation of two spots of one box).  Box-hands are taken as independent (the boxes of a deal share the dealer's
cards: a small positive correlation the band neglects, docs/accounts.md).  The shift's band is its expected win
± :data:`Z_99` standard deviations: a fair shift falls outside it about 1 % of the time.

Where the figures come from:

- the **bonus** bet (R-THB-9): exact, by enumerating the player's 1,326 two-card holdings (and, for A-A, the
  dealer's 1,225), with the table's own pay table (:func:`bonus_figure`);
- the **main spots** of THB and CDP: simulation under the stated strategies of ``pokertable odds`` (``basic``),
  for each value of the settings that move them (THB's ante paid from a straight or a flush, R-THB-8; CDP's play bet
  returned or paid when the bank does not qualify, R-CDP-5) at the regulation's pay table and house way, measured by
  ``benchmarks/hold_figures.py`` (THB 2,000,000 deals, CDP 200,000 hands, seed 2026).  Players who play otherwise
  move the true edge: the band is the house's expectation under that strategy, as the casino's own figures are.

>>> figures = thb_figures(STANDARD_BONUS)
>>> round(figures.spots["bonus"].edge, 4)
0.0854
>>> theory = shift_theory([{"ante": 10, "flop": 20, "bonus": 5}] * 100, figures)
>>> theory.box_hands, theory.wagered["ante"], theory.low < round(theory.expected) < theory.high
(100, 1000, True)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from types import MappingProxyType

from domain.banked.cdp_rules import CdpSettings
from domain.banked.paytables import STANDARD_BONUS, STANDARD_CASINO_DRAW, BonusPayTable, bonus_class
from domain.banked.thb_settings import ThbSettings
from domain.cards.cards import ALL_CARDS
from domain.errors import RuleError

Z_99 = 2.5758293035489004
"""The two-sided 99 % point of the normal distribution: the band's half-width in standard deviations."""
CONFIDENCE = "99%"


@dataclass(frozen=True)
class SpotFigure:
    """Per unit staked on a spot, given that it is staked: the house's expected win and the variance of its result."""

    edge: float
    variance: float

    @property
    def sd(self) -> float:
        """The standard deviation per unit."""
        return math.sqrt(self.variance)


@dataclass(frozen=True)
class GameFigures:
    """The spots of a game and the correlations of two spots of one box (0 where none is given)."""

    spots: Mapping[str, SpotFigure]
    correlations: Mapping[tuple[str, str], float] = field(default_factory=dict)
    note: str = ""
    """Where the figures do not fit the table's settings exactly, why ("" when they do)."""

    def correlation(self, a: str, b: str) -> float:
        """ρ of spots ``a`` and ``b`` of one box (1 for a spot with itself)."""
        if a == b:
            return 1.0
        return self.correlations.get((a, b), self.correlations.get((b, a), 0.0))

    def box_moments(self, stakes: Mapping[str, int]) -> tuple[float, float]:
        """The house's expected win and variance for one box-hand with these stakes (spots the figures lack:
        :class:`RuleError`)."""
        unknown = set(stakes) - set(self.spots)
        if unknown:
            raise RuleError(f"no theoretical figure for the spots {sorted(unknown)}", rule="R-ACC-6")
        expected = sum(amount * self.spots[spot].edge for spot, amount in stakes.items())
        variance = sum(a * b * self.correlation(s, t) * self.spots[s].sd * self.spots[t].sd
                       for s, a in stakes.items() for t, b in stakes.items())
        return expected, variance


@dataclass(frozen=True)
class ShiftTheory:
    """A shift's theoretical win (chips, the house's), its variance, and the band ``[low, high]`` at
    :data:`CONFIDENCE` (whole chips, rounded outward)."""

    expected: float
    variance: float
    box_hands: int
    wagered: Mapping[str, int]
    note: str = ""
    """Where the figures do not fit the table exactly, why (:attr:`GameFigures.note`)."""

    @property
    def sd(self) -> float:
        """The standard deviation of the shift's win."""
        return math.sqrt(self.variance)

    @property
    def low(self) -> int:
        """The band's low end."""
        return math.floor(self.expected - Z_99 * self.sd + 1e-9)

    @property
    def high(self) -> int:
        """The band's high end."""
        return math.ceil(self.expected + Z_99 * self.sd - 1e-9)

    def outside(self, win: int) -> bool:
        """Whether an actual win falls outside the band (R-ACC-6)."""
        return not self.low <= win <= self.high


def shift_theory(boxes: Iterable[Mapping[str, int]], figures: GameFigures) -> ShiftTheory:
    """The theoretical win of the box-hands settled in a shift, each given by its stakes per spot."""
    expected = variance = 0.0
    count = 0
    wagered: dict[str, int] = {}
    for stakes in boxes:
        mean, var = figures.box_moments(stakes)
        expected, variance, count = expected + mean, variance + var, count + 1
        for spot, amount in stakes.items():
            wagered[spot] = wagered.get(spot, 0) + amount
    return ShiftTheory(expected, variance, count, MappingProxyType(wagered), figures.note)


def fixed_theory(expected: int) -> ShiftTheory:
    """A win known exactly, with no band (a circle table's rake: the house's win is what it raked, R-CIRC-12)."""
    return ShiftTheory(float(expected), 0.0, 0, MappingProxyType({}))


def bonus_distribution(table: BonusPayTable) -> tuple[tuple[int, Fraction], ...]:
    """The player's net per unit on the bonus bet (R-THB-9) and its exact probability, by enumeration of his
    1,326 holdings (for A-A, the dealer holds the other two aces in 1 of the 1,225 holdings left); every 1000:1
    approved (R-THB-10).

    >>> dict(bonus_distribution(STANDARD_BONUS))[1000]
    Fraction(1, 270725)
    """
    return _bonus_distribution(tuple(sorted(table.pays.items())))


@functools.cache
def _bonus_distribution(pay_items: tuple[tuple[str, int], ...]) -> tuple[tuple[int, Fraction], ...]:
    pays = dict(pay_items)
    odds: dict[int, Fraction] = {}
    holdings = list(combinations(ALL_CARDS, 2))
    each = Fraction(1, len(holdings))
    both_aces = Fraction(1, math.comb(50, 2))
    for player in holdings:
        outcome = bonus_class(player, ())
        if outcome == "aces":
            for name, p in (("aces_vs_dealer_aces", both_aces), ("aces", 1 - both_aces)):
                odds[pays[name]] = odds.get(pays[name], Fraction(0)) + each * p
        else:
            net = pays[outcome] if outcome is not None else -1
            odds[net] = odds.get(net, Fraction(0)) + each
    return tuple(sorted(odds.items()))


def bonus_figure(table: BonusPayTable) -> SpotFigure:
    """The bonus bet's exact figure for this pay table (the house's edge: −the player's mean)."""
    distribution = bonus_distribution(table)
    mean = sum(net * p for net, p in distribution)
    variance = sum(net * net * p for net, p in distribution) - mean * mean
    return SpotFigure(float(-mean), float(variance))


THB_MAIN: Mapping[str, Mapping[str, SpotFigure]] = MappingProxyType({
    "STRAIGHT": MappingProxyType({
        "ante": SpotFigure(0.41104, 0.41184),
        "flop": SpotFigure(-0.01605, 0.95988),
        "turn": SpotFigure(-0.42243, 0.79665),
        "river": SpotFigure(-0.42206, 0.79486),
    }),
    "FLUSH": MappingProxyType({
        "ante": SpotFigure(0.44695, 0.34512),
        "flop": SpotFigure(-0.01605, 0.95988),
        "turn": SpotFigure(-0.42243, 0.79665),
        "river": SpotFigure(-0.42206, 0.79486),
    }),
})
"""Texas Hold'em Bonus's main spots (R-THB-5, R-THB-6, R-THB-8), by the table's ``ante_pays_from``, simulated (module
docstring): the house wins its edge on the ante (folds lose it, a win below a straight — or a flush — only returns
it) and loses on the later bets, which the stated strategy makes with the stronger hands."""
THB_CORRELATIONS: Mapping[str, Mapping[tuple[str, str], float]] = MappingProxyType({
    "STRAIGHT": MappingProxyType({
        ("ante", "flop"): 0.8994, ("ante", "turn"): 0.8567, ("ante", "river"): 0.8464,
        ("flop", "turn"): 1.0, ("flop", "river"): 1.0, ("turn", "river"): 1.0,
        ("ante", "bonus"): 0.0788, ("flop", "bonus"): 0.0920, ("turn", "bonus"): 0.0464, ("river", "bonus"): 0.0462,
    }),
    "FLUSH": MappingProxyType({
        ("ante", "flop"): 0.9194, ("ante", "turn"): 0.8711, ("ante", "river"): 0.8691,
        ("flop", "turn"): 1.0, ("flop", "river"): 1.0, ("turn", "river"): 1.0,
        ("ante", "bonus"): 0.0923, ("flop", "bonus"): 0.0920, ("turn", "bonus"): 0.0464, ("river", "bonus"): 0.0462,
    }),
})
"""ρ of two spots of one THB box, given both staked, simulated (module docstring); flop, turn and river all settle
on the same comparison with the croupier (R-THB-8), so their ρ is 1."""
CDP: Mapping[str, Mapping[str, SpotFigure]] = MappingProxyType({
    "returned": MappingProxyType({"ante": SpotFigure(-0.04122, 0.99829), "play": SpotFigure(0.03421, 1.19189)}),
    "paid": MappingProxyType({"ante": SpotFigure(-0.04122, 0.99829), "play": SpotFigure(-0.44480, 1.47422)}),
})
"""Casino Draw Poker's ante and play bet (R-CDP-3, R-CDP-5, R-CDP-6), by the table's ``unqualified_play_bet``,
simulated (module docstring), per unit staked (the play bet is 2× the ante)."""
CDP_CORRELATIONS: Mapping[str, float] = MappingProxyType({"returned": 0.6190, "paid": 0.8327})
"""ρ of the ante and the play bet of one CDP box, given both staked."""


def thb_figures(bonus_table: BonusPayTable, ante_pays_from: str = "STRAIGHT") -> GameFigures:
    """THB's figures: the main spots' for the table's R-THB-8 setting, the bonus bet's exact for its pay table."""
    return GameFigures(MappingProxyType({**THB_MAIN[ante_pays_from], "bonus": bonus_figure(bonus_table)}),
                       THB_CORRELATIONS[ante_pays_from])


def cdp_figures(unqualified_play_bet: str = "returned") -> GameFigures:
    """CDP's figures for the table's R-CDP-5 decision, at the regulation's pay table and house way."""
    return GameFigures(CDP[unqualified_play_bet], MappingProxyType({("ante", "play"):
                                                                    CDP_CORRELATIONS[unqualified_play_bet]}))


THB_FIGURES = thb_figures(STANDARD_BONUS)
"""THB's figures at the regulation's table (R-THB-8: the ante paid from a straight; R-THB-9's pay table)."""
CDP_FIGURES = cdp_figures()
"""CDP's figures at the regulation's table (R-CDP-4, R-CDP-5, R-CDP-6's decisions)."""


def figures_for(settings: ThbSettings | CdpSettings) -> GameFigures:
    """A banked table's figures from its settings (THB: its R-THB-8 setting and its own bonus pay table; CDP: its
    R-CDP-5 decision), with a note when the table's settings are not those the main spots were simulated at (another
    CDP pay table or house way: the regulation's figures are used)."""
    if isinstance(settings, ThbSettings):
        return thb_figures(settings.bonus_table, settings.ante_pays_from.name)
    figures = cdp_figures(settings.unqualified_play_bet)
    if settings.pay_table != STANDARD_CASINO_DRAW or settings.house_way != "regulation":
        return GameFigures(figures.spots, figures.correlations,
                           note="the table's pay table or house way is not the regulation's: the figures are the "
                                "regulation's (R-CDP-4, R-CDP-6)")
    return figures
