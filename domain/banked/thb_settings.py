"""A Texas Hold'em Bonus table's settings (RULES §6): limits, the bonus pay table and the decisions of RULES.md.

Every **decision** of RULES.md §6 is a setting here, with the decision as its default, so a casino whose regulator
rules otherwise can change it (docs/banked.md lists them):

- ``limits.flop_max`` (R-THB-2): 2 × the ante maximum (the regulation's column "2ª- Apuesta Mínima" read as the
  flop maximum);
- ``ante_pays_from`` (R-THB-8): a straight (the regulation), or a flush;
- ``refused_bonus`` (R-THB-10): ``returned`` (the stake comes back), or ``aces`` (paid as A-A without the croupier's
  aces, 30:1 on the standard table);
- ``turn_dealer_cards_for_aces`` (R-THB-12): true (the croupier's cards are turned for an A-A bonus still in action
  when nobody plays), or false (they go to the discards unseen and the A-A bonus is paid as aces).

>>> ThbSettings.from_dict({"limits": [5, 100, 200, 100, 1, 100], "bonus_table": STANDARD_BONUS.to_dict(),
...                        "ante_pays_from": "STRAIGHT"}).refused_bonus  # settings stored before the setting existed
'returned'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.banked.paytables import STANDARD_BONUS, BonusPayTable
from domain.cards.hand_classes import Category
from domain.errors import RuleError

REFUSED_BONUS = ("returned", "aces")
"""R-THB-10 (decision): what a refused 1000:1 bonus gets: its stake back, or the A-A payout."""


class ThbRuleError(RuleError):
    """A Texas Hold'em Bonus command the rules do not allow now; nothing changed."""


@dataclass(frozen=True, slots=True)
class ThbLimits:
    """Table limits (R-THB-2): the ante maximum is 20 times its minimum; the bonus has its own limits.

    ``flop_max`` is the decision of R-THB-2: the regulation's column "2ª- Apuesta Mínima" (200 € at the 5–100 €
    table) is read as the flop maximum, 2 × the ante maximum, so every ante allowed can be followed by its flop bet.
    """

    ante_min: int
    ante_max: int
    flop_max: int
    turn_river_max: int
    bonus_min: int = 1
    bonus_max: int = 100

    def __post_init__(self) -> None:
        if self.ante_min <= 0 or self.ante_max != 20 * self.ante_min:
            raise ThbRuleError("the table maximum is 20 times the minimum", rule="R-THB-2")
        if self.flop_max < 2 * self.ante_max:
            raise ThbRuleError("decision: the flop maximum is at least 2× the ante maximum (the regulation's "
                               "'2ª- Apuesta Mínima' column read as the flop maximum)", rule="R-THB-2")
        if self.turn_river_max < self.ante_max:
            raise ThbRuleError("the turn and river maxima allow 1× the ante maximum", rule="R-THB-2")
        if not 0 < self.bonus_min <= self.bonus_max:
            raise ThbRuleError("the bonus has a positive minimum not above its maximum", rule="R-THB-2")


STANDARD_LIMITS: dict[int, ThbLimits] = {
    5: ThbLimits(5, 100, 200, 100),
    10: ThbLimits(10, 200, 400, 200),
    20: ThbLimits(20, 400, 800, 400),
}
"""The standard tables of R-THB-2, by minimum ante (bonus limits are the casino's; 1 to 100 here)."""


@dataclass(frozen=True, slots=True)
class ThbSettings:
    """A Texas Hold'em Bonus table: limits, bonus pay table, and the decisions of RULES §6 (defaults: RULES.md)."""

    limits: ThbLimits
    bonus_table: BonusPayTable = STANDARD_BONUS
    ante_pays_from: Category = Category.STRAIGHT
    refused_bonus: str = "returned"
    turn_dealer_cards_for_aces: bool = True

    def __post_init__(self) -> None:
        if self.ante_pays_from not in (Category.STRAIGHT, Category.FLUSH):
            raise ThbRuleError("the ante pays from a straight or, by setting, a flush", rule="R-THB-8")
        if self.refused_bonus not in REFUSED_BONUS:
            raise ThbRuleError(f"decision: a refused 1000:1 bonus is {' or '.join(REFUSED_BONUS)}, "
                               f"not {self.refused_bonus!r}", rule="R-THB-10")
        if not isinstance(self.turn_dealer_cards_for_aces, bool):
            raise ThbRuleError("decision: the croupier's cards are turned for an A-A bonus, or not (true or false)",
                               rule="R-THB-12")

    def to_dict(self) -> dict[str, Any]:
        """Plain data, for events."""
        limits = self.limits
        return {
            "limits": [limits.ante_min, limits.ante_max, limits.flop_max, limits.turn_river_max, limits.bonus_min,
                       limits.bonus_max],
            "bonus_table": self.bonus_table.to_dict(),
            "ante_pays_from": self.ante_pays_from.name,
            "refused_bonus": self.refused_bonus,
            "turn_dealer_cards_for_aces": self.turn_dealer_cards_for_aces,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ThbSettings:
        """Settings from :meth:`to_dict`'s form; settings stored before a decision became a setting take its
        default (the behaviour of that time)."""
        return cls(ThbLimits(*data["limits"]), BonusPayTable.from_dict(data["bonus_table"]),
                   Category[data["ante_pays_from"]], data.get("refused_bonus", "returned"),
                   data.get("turn_dealer_cards_for_aces", True))
