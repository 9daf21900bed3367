"""Cards, ranks and suits (R-CARD-1): parsing, formatting and integer codes.

A card's *code* is ``rank_index * 4 + suit`` with the deuce as rank index 0 and
the ace as 12, and suits ordered ♣ < ♦ < ♥ < ♠ (0–3).  That order only breaks
stud bring-in ties (R-CARD-1); hand comparison ignores suits.  The codes are the
same as phevaluator's card ids, so ``2c`` is 0 and ``As`` is 51.

>>> Card.parse("As")
Card(rank=<Rank.ACE: 14>, suit=<Suit.SPADES: 3>)
>>> [str(c) for c in parse_cards("10d Td 7C")]
['Td', 'Td', '7c']
>>> format_cards(parse_cards("AsKd7c"), pretty=True)
'A♠ K♦ 7♣'
>>> Card.parse("As").code, Card.from_code(0)
(51, Card(rank=<Rank.TWO: 2>, suit=<Suit.CLUBS: 0>))
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum

from domain.errors import InvalidCardError


class Rank(IntEnum):
    """A card rank; the value is the rank's pip value with the ace high (14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        """One-character symbol: ``2``–``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_SYMBOLS[self.value - 2]

    @property
    def index(self) -> int:
        """Position from the deuce (0) to the ace (12)."""
        return self.value - 2


class Suit(IntEnum):
    """A suit, in the order ♣ < ♦ < ♥ < ♠ (R-CARD-1, a decision: the regulation gives no suit order) used only where
    one card must be chosen: stud bring-in ties and the stud odd chip; hand comparison ignores suits."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """Lower-case letter: ``c``, ``d``, ``h``, ``s``."""
        return "cdhs"[self.value]

    @property
    def symbol(self) -> str:
        """Unicode suit symbol: ♣ ♦ ♥ ♠."""
        return "♣♦♥♠"[self.value]


_RANK_SYMBOLS = "23456789TJQKA"
_SUIT_BY_CHAR = {ch: Suit(i) for i, chars in enumerate(("c♣♧", "d♦♢", "h♥♡", "s♠♤")) for ch in chars}
_RANK_BY_TEXT = {sym: Rank(i + 2) for i, sym in enumerate(_RANK_SYMBOLS)} | {"10": Rank.TEN}
# ASCII case-insensitivity only: Unicode case folding would take the Kelvin sign (U+212A) for "k" and the long s
# (U+017F) for "s", look-alikes that are no card (issue 13)
_CARD_TOKEN = re.compile(r"(10|[2-9tjqka])([cdhs♣♦♥♠♧♢♡♤])", re.IGNORECASE | re.ASCII)
_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """A playing card.  Cards order by rank, then suit (the order of their codes)."""

    rank: Rank
    suit: Suit
    code: int = field(init=False, repr=False, compare=False)
    """Integer code 0–51 (``rank_index * 4 + suit``), as used by the evaluators."""
    name: str = field(init=False, repr=False, compare=False)
    """The card as text, e.g. ``As``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", (self.rank.value - 2) * 4 + self.suit.value)
        object.__setattr__(self, "name", self.rank.symbol + self.suit.letter)

    @classmethod
    def from_code(cls, code: int) -> Card:
        """The card with this integer code (0–51)."""
        if not 0 <= code < 52:
            raise InvalidCardError(f"card code {code} is outside 0–51", rule="R-CARD-1")
        return ALL_CARDS[code]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse one card: ``As``, ``Td`` or ``10d``, ``7c``; suits and ranks in either case, or ``A♠``."""
        card = _BY_NAME.get(text)
        if card is not None:
            return card
        match = _CARD_TOKEN.fullmatch(text.strip())
        if match is None:
            raise InvalidCardError(f"unknown card {text!r}", rule="R-CARD-1")
        return _card_from_match(match)

    def __str__(self) -> str:
        return self.name

    def pretty(self) -> str:
        """The card with a unicode suit symbol, e.g. ``A♠``."""
        return self.rank.symbol + self.suit.symbol


def _card_from_match(match: re.Match[str]) -> Card:
    rank = _RANK_BY_TEXT[match.group(1).upper()]
    suit = _SUIT_BY_CHAR[match.group(2).lower()]
    return ALL_CARDS[(rank.value - 2) * 4 + suit.value]


ALL_CARDS: tuple[Card, ...] = tuple(Card(Rank(r + 2), Suit(s)) for r in range(13) for s in range(4))
"""The 52 cards of the French deck (R-CARD-1), indexed by code."""
_BY_NAME = {card.name: card for card in ALL_CARDS}


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas, or run together (``AsKd7c``, ``10d9d``).

    Raises :class:`InvalidCardError` naming the first text that is not a card.
    Duplicates are kept: whether a repeated card is an error depends on the caller.
    """
    cards: list[Card] = []
    for chunk in _SEPARATORS.split(text.strip()):
        position = 0
        while position < len(chunk):
            match = _CARD_TOKEN.match(chunk, position)
            if match is None:
                raise InvalidCardError(f"unknown card {chunk[position:position + 3]!r} in {chunk!r}", rule="R-CARD-1")
            cards.append(_card_from_match(match))
            position = match.end()
    return cards


def format_cards(cards: Iterable[Card], *, pretty: bool = False) -> str:
    """Cards separated by spaces, e.g. ``As Kd`` or, with ``pretty``, ``A♠ K♦``."""
    return " ".join(card.pretty() if pretty else str(card) for card in cards)
