"""Pay tables of the banked games as validated data (R-THB-9, R-CDP-6), and the rules that read them.

Payouts are whole ratios ``n`` meaning ``n:1``; chips stay integers.

>>> bonus_class(parse_cards("As Ad"), parse_cards("Ac Ah"))
'aces_vs_dealer_aces'
>>> bonus_class(parse_cards("Ks Qs"), parse_cards("2c 3d")) is None
True
>>> STANDARD_BONUS.pays["ak_suited"]
25
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from domain.cards.cards import Card, Rank, parse_cards  # noqa: F401  (parse_cards: doctest)
from domain.cards.hand_classes import Category
from domain.errors import RuleError


class InvalidPayTableError(RuleError):
    """A pay table that is incomplete or pays a negative amount."""


BONUS_CLASSES: tuple[str, ...] = (
    "aces_vs_dealer_aces", "aces", "ak_suited", "aq_aj_suited", "ak_offsuit", "kk_qq_jj", "aq_aj_offsuit",
    "pair_2_to_10",
)
"""The bonus outcomes of R-THB-9, best first."""


@dataclass(frozen=True)
class BonusPayTable:
    """Texas Hold'em Bonus side bet (R-THB-9): ``pays[class] = n`` for n:1; the 1000:1 needs approval (R-THB-10)."""

    pays: Mapping[str, int]
    approval_over: int = 999
    """Payouts above this ratio wait for the games director's approval (R-THB-10)."""

    def __post_init__(self) -> None:
        missing = set(BONUS_CLASSES) - set(self.pays)
        extra = set(self.pays) - set(BONUS_CLASSES)
        if missing or extra:
            raise InvalidPayTableError(f"bonus pay table: missing {sorted(missing)}, unknown {sorted(extra)}",
                                       rule="R-THB-9")
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in self.pays.values()):
            raise InvalidPayTableError("bonus payouts are whole, non-negative ratios", rule="R-THB-9")
        object.__setattr__(self, "pays", MappingProxyType(dict(self.pays)))

    def __deepcopy__(self, memo: dict[int, object]) -> BonusPayTable:
        return self  # immutable

    def to_dict(self) -> dict[str, object]:
        """Plain data, for events."""
        return {"pays": dict(self.pays), "approval_over": self.approval_over}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> BonusPayTable:
        """A table from :meth:`to_dict`'s form."""
        pays = data["pays"]
        approval = data["approval_over"]
        assert isinstance(pays, Mapping) and isinstance(approval, int)
        return cls(dict(pays), approval)


STANDARD_BONUS = BonusPayTable({
    "aces_vs_dealer_aces": 1000, "aces": 30, "ak_suited": 25, "aq_aj_suited": 20, "ak_offsuit": 15, "kk_qq_jj": 10,
    "aq_aj_offsuit": 5, "pair_2_to_10": 3,
})
"""The table of the regulation (R-THB-9)."""


def bonus_class(player: Sequence[Card], dealer: Sequence[Card]) -> str | None:
    """The bonus outcome of the player's two cards (and, for aces against aces, the dealer's), or ``None``."""
    high, low = sorted(player, key=lambda c: c.rank, reverse=True)
    if high.rank == low.rank:
        if high.rank is Rank.ACE:
            dealer_aces = all(card.rank is Rank.ACE for card in dealer) and len(dealer) == 2
            return "aces_vs_dealer_aces" if dealer_aces else "aces"
        return "kk_qq_jj" if high.rank >= Rank.JACK else "pair_2_to_10"
    if high.rank is not Rank.ACE or low.rank < Rank.JACK:
        return None
    suited = high.suit == low.suit
    if low.rank is Rank.KING:
        return "ak_suited" if suited else "ak_offsuit"
    return "aq_aj_suited" if suited else "aq_aj_offsuit"


CDP_CLASSES: tuple[str, ...] = (
    "pair", "two_pair", "three_of_a_kind", "straight", "flush", "full_house", "four_of_a_kind", "straight_flush",
    "royal_flush",
)


@dataclass(frozen=True)
class CasinoDrawPayTable:
    """Casino Draw Poker play-bet payouts by the player's winning hand (R-CDP-6); ``n`` for n:1."""

    pays: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = set(CDP_CLASSES) - set(self.pays)
        extra = set(self.pays) - set(CDP_CLASSES)
        if missing or extra:
            raise InvalidPayTableError(f"casino draw pay table: missing {sorted(missing)}, unknown {sorted(extra)}",
                                       rule="R-CDP-6")
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in self.pays.values()):
            raise InvalidPayTableError("payouts are whole, non-negative ratios", rule="R-CDP-6")
        object.__setattr__(self, "pays", MappingProxyType(dict(self.pays)))

    def pay_for(self, category: Category, royal: bool) -> int:
        """The ratio paid on the play bet for a winning hand (a pair or better: the bank qualified with eights)."""
        return self.pays["royal_flush" if royal else category.name.lower()]

    def __deepcopy__(self, memo: dict[int, object]) -> CasinoDrawPayTable:
        return self  # immutable

    def to_dict(self) -> dict[str, object]:
        """Plain data, for events."""
        return {"pays": dict(self.pays)}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> CasinoDrawPayTable:
        """A table from :meth:`to_dict`'s form."""
        pays = data["pays"]
        assert isinstance(pays, Mapping)
        return cls(dict(pays))


STANDARD_CASINO_DRAW = CasinoDrawPayTable({
    "pair": 1, "two_pair": 1, "three_of_a_kind": 2, "straight": 3, "flush": 5, "full_house": 7, "four_of_a_kind": 20,
    "straight_flush": 20, "royal_flush": 100,
})
"""The table of the regulation (R-CDP-6)."""
