"""Hand categories and hand classes (R-CARD-3 and R-CARD-5 decisions, R-CARD-4), with English and Spanish descriptions.

A *hand class* is what two equal hands share: the category and the ranks that
break ties inside it (full house: trips then pair; flush: ranks high to low;
straight: its top card, which for the ace-low straight is the fourth card).

>>> HandClass(Category.FULL_HOUSE, (Rank.NINE, Rank.ACE)).describe("en")
'full house, nines over aces'
>>> HandClass(Category.FULL_HOUSE, (Rank.NINE, Rank.ACE)).describe("es")
'full de nueves y ases'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Literal

from domain.cards.cards import Rank

Language = Literal["en", "es"]


class Category(IntEnum):
    """Hand categories from weakest to strongest in a 52-card deck (R-CARD-4).

    In reduced decks a flush may beat a full house (R-CARD-5): the order that
    applies is :func:`category_order`, not this enum's values.
    """

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    def label(self, language: Language = "en") -> str:
        """The category's name, e.g. ``full house`` / ``full``."""
        return _CATEGORY_NAMES[language][self.value]


_CATEGORY_NAMES: dict[Language, tuple[str, ...]] = {
    "en": ("high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house",
           "four of a kind", "straight flush"),
    "es": ("carta alta", "pareja", "doble pareja", "trío", "escalera", "color", "full", "póker", "escalera de color"),
}

_RANK_NAMES: dict[Language, tuple[tuple[str, str], ...]] = {
    "en": (("two", "twos"), ("three", "threes"), ("four", "fours"), ("five", "fives"), ("six", "sixes"),
           ("seven", "sevens"), ("eight", "eights"), ("nine", "nines"), ("ten", "tens"), ("jack", "jacks"),
           ("queen", "queens"), ("king", "kings"), ("ace", "aces")),
    "es": (("dos", "doses"), ("tres", "treses"), ("cuatro", "cuatros"), ("cinco", "cincos"), ("seis", "seises"),
           ("siete", "sietes"), ("ocho", "ochos"), ("nueve", "nueves"), ("diez", "dieces"), ("jota", "jotas"),
           ("dama", "damas"), ("rey", "reyes"), ("as", "ases")),
}


def rank_name(rank: Rank, language: Language = "en", *, plural: bool = False) -> str:
    """A rank's name: ``nine``/``nines``, ``nueve``/``nueves``."""
    return _RANK_NAMES[language][rank.index][1 if plural else 0]


def category_order(flush_beats_full_house: bool) -> tuple[Category, ...]:
    """Categories from weakest to strongest under the R-CARD-5 setting."""
    order = list(Category)
    if flush_beats_full_house:
        order[Category.FLUSH], order[Category.FULL_HOUSE] = Category.FULL_HOUSE, Category.FLUSH
    return tuple(order)


@dataclass(frozen=True, slots=True)
class HandClass:
    """A category with its tie-breaking ranks, most significant first."""

    category: Category
    ranks: tuple[Rank, ...]

    @property
    def is_royal(self) -> bool:
        """An ace-high straight flush (R-CARD-4)."""
        return self.category is Category.STRAIGHT_FLUSH and self.ranks[0] is Rank.ACE

    @property
    def named(self) -> int:
        """How many of :attr:`ranks` the category's name says (the others are kickers): two pair and a full house
        name two, every other category one."""
        return 2 if self.category in (Category.TWO_PAIR, Category.FULL_HOUSE) else 1

    def kickers_deciding(self, other: HandClass) -> int:
        """How many kickers must be named to tell this hand from ``other``: 0 when the name already does (another
        category or other named ranks) or nothing does (a tie); else up to the first kicker that differs."""
        if other.category is not self.category or other.ranks[:self.named] != self.ranks[:self.named]:
            return 0
        pairs = zip(self.ranks[self.named:], other.ranks[self.named:], strict=False)
        return next((index + 1 for index, (mine, theirs) in enumerate(pairs) if mine is not theirs), 0)

    def describe(self, language: Language = "en", kickers: int = 0) -> str:
        """What the croupier announces, e.g. ``full house, nines over aces`` / ``full de nueves y ases``; with
        ``kickers``, the first ones named too (the deciding kicker: ``two pair, kings and twos, ace kicker`` /
        ``doble pareja de reyes y doses, con as``).

        >>> two_pair = HandClass(Category.TWO_PAIR, (Rank.KING, Rank.TWO, Rank.ACE))
        >>> two_pair.describe("en", kickers=1), two_pair.describe("es", kickers=1)
        ('two pair, kings and twos, ace kicker', 'doble pareja de reyes y doses, con as')
        >>> pair = HandClass(Category.PAIR, (Rank.SIX, Rank.ACE, Rank.KING, Rank.FOUR))
        >>> pair.kickers_deciding(HandClass(Category.PAIR, (Rank.SIX, Rank.ACE, Rank.QUEEN, Rank.TEN)))
        2
        >>> pair.describe("en", kickers=2), pair.describe("es", kickers=2)
        ('pair of sixes, kickers ace and king', 'pareja de seises, con as y rey')
        """
        if self.is_royal:
            return _ROYAL[language]
        second = self.ranks[1] if len(self.ranks) > 1 else self.ranks[0]
        name = _DESCRIPTIONS[language][self.category].format(
            one=rank_name(self.ranks[0], language),
            to_one=_spanish_to(self.ranks[0]),
            many=rank_name(self.ranks[0], language, plural=True),
            second=rank_name(second, language, plural=True),
        )
        shown = [rank_name(rank, language) for rank in self.ranks[self.named:self.named + kickers]]
        if not shown:
            return name
        listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} {_AND[language]} {shown[-1]}"
        if language == "es":
            return f"{name}, con {listed}"
        return f"{name}, {listed} kicker" if len(shown) == 1 else f"{name}, kickers {listed}"


def _spanish_to(rank: Rank) -> str:
    """``al rey``, ``al diez``, but ``a la dama``, ``a la jota`` (feminine)."""
    article = "a la" if rank in (Rank.QUEEN, Rank.JACK) else "al"
    return f"{article} {rank_name(rank, 'es')}"


_ROYAL: dict[Language, str] = {"en": "royal flush", "es": "escalera real"}
_AND: dict[Language, str] = {"en": "and", "es": "y"}
_DESCRIPTIONS: dict[Language, dict[Category, str]] = {
    "en": {
        Category.HIGH_CARD: "high card, {one}",
        Category.PAIR: "pair of {many}",
        Category.TWO_PAIR: "two pair, {many} and {second}",
        Category.THREE_OF_A_KIND: "three of a kind, {many}",
        Category.STRAIGHT: "straight, {one} high",
        Category.FLUSH: "flush, {one} high",
        Category.FULL_HOUSE: "full house, {many} over {second}",
        Category.FOUR_OF_A_KIND: "four of a kind, {many}",
        Category.STRAIGHT_FLUSH: "straight flush, {one} high",
    },
    "es": {
        Category.HIGH_CARD: "carta alta, {one}",
        Category.PAIR: "pareja de {many}",
        Category.TWO_PAIR: "doble pareja de {many} y {second}",
        Category.THREE_OF_A_KIND: "trío de {many}",
        Category.STRAIGHT: "escalera {to_one}",
        Category.FLUSH: "color {to_one}",
        Category.FULL_HOUSE: "full de {many} y {second}",
        Category.FOUR_OF_A_KIND: "póker de {many}",
        Category.STRAIGHT_FLUSH: "escalera de color {to_one}",
    },
}
