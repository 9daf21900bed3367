"""Deck compositions (R-CARD-2), back colours (R-DECK-2) and deck checks (R-DECK-1, R-DECK-3, R-DECK-4).

Reduced decks remove the lowest ranks: 48 cards have no deuces, 32 cards run
from the seven to the ace, 28 from the eight.  The domain never shuffles: an
arranged deck's order always comes from outside (a shuffler, a shoe, a test).

>>> composition(32)[0], len(composition(28))
(Card(rank=<Rank.SEVEN: 7>, suit=<Suit.CLUBS: 0>), 28)
>>> lowest_rank(32)
<Rank.SEVEN: 7>
>>> check_deck(parse_cards("7c 7c Ah"), 32).duplicates
(Card(rank=<Rank.SEVEN: 7>, suit=<Suit.CLUBS: 0>),)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from domain.cards.cards import ALL_CARDS, Card, Rank, format_cards, parse_cards  # noqa: F401  (parse_cards: doctest)
from domain.errors import InvalidCardsError

DECK_SIZES: tuple[int, ...] = (52, 48, 44, 40, 36, 32, 28)
"""The deck sizes of R-CARD-2, largest first."""


def lowest_rank(size: int) -> Rank:
    """The lowest rank in a deck of ``size`` cards (R-CARD-2): 2 in 52 cards … 8 in 28."""
    if size not in DECK_SIZES:
        raise InvalidCardsError(f"a deck has 52, 48, 44, 40, 36, 32 or 28 cards, not {size}", rule="R-CARD-2")
    return Rank(2 + (52 - size) // 4)


def deck_ranks(size: int) -> tuple[Rank, ...]:
    """The ranks of a deck of ``size`` cards, lowest first (R-CARD-2)."""
    return tuple(Rank(r) for r in range(lowest_rank(size), Rank.ACE + 1))


def composition(size: int) -> tuple[Card, ...]:
    """Every card of a deck of ``size`` cards, in code order (R-CARD-2)."""
    low = lowest_rank(size)
    return tuple(card for card in ALL_CARDS if card.rank >= low)


class BackColour(Enum):
    """The back colour of a deck; the shuffler alternates a red and a blue deck (R-DECK-2)."""

    RED = "red"
    BLUE = "blue"

    @property
    def other(self) -> BackColour:
        """The colour of the other deck of the pair (R-DECK-2)."""
        return BackColour.BLUE if self is BackColour.RED else BackColour.RED


@dataclass(frozen=True, slots=True)
class DeckIdentity:
    """Which physical deck this is: its size and back colour (R-DECK-2), and the casino's label for it.

    Two decks of the same size and label but different colours are different decks.
    """

    size: int
    colour: BackColour
    label: str = ""

    def __post_init__(self) -> None:
        lowest_rank(self.size)  # validates the size (R-CARD-2)

    def __str__(self) -> str:
        name = f"{self.colour.value} {self.size}-card deck"
        return f"{name} {self.label}" if self.label else name

    def contains(self, card: Card) -> bool:
        """Whether ``card`` belongs to a deck of this size (R-CARD-2)."""
        return card.rank >= lowest_rank(self.size)


@dataclass(frozen=True, slots=True)
class DeckCheck:
    """The result of counting a deck (R-DECK-1, R-DECK-3): what is missing, repeated or foreign."""

    size: int
    counted: int
    missing: tuple[Card, ...]
    duplicates: tuple[Card, ...]
    foreign: tuple[Card, ...]

    @property
    def complete(self) -> bool:
        """True when every card is there exactly once and nothing else is."""
        return not (self.missing or self.duplicates or self.foreign)

    def __str__(self) -> str:
        if self.complete:
            return f"{self.size}-card deck complete"
        parts = [f"{self.counted} cards counted for a {self.size}-card deck"]
        for name, cards in (("missing", self.missing), ("duplicated", self.duplicates), ("foreign", self.foreign)):
            if cards:
                parts.append(f"{name}: {format_cards(cards)}")
        return "; ".join(parts)


def check_deck(cards: Iterable[Card], size: int) -> DeckCheck:
    """Count ``cards`` against the composition of a ``size``-card deck (R-DECK-3)."""
    expected = composition(size)
    counts = Counter(cards)
    return DeckCheck(
        size=size,
        counted=sum(counts.values()),
        missing=tuple(card for card in expected if card not in counts),
        duplicates=tuple(sorted(card for card, n in counts.items() if n > 1)),
        foreign=tuple(sorted(card for card in counts if card.rank < lowest_rank(size))),
    )


@dataclass(frozen=True, slots=True)
class ArrangedDeck:
    """A complete deck in a known order, as delivered from outside (a shuffler's report, a test).

    Construction checks the order is exactly the deck's composition (R-DECK-1, R-DECK-4).
    """

    identity: DeckIdentity
    order: tuple[Card, ...]

    def __post_init__(self) -> None:
        result = check_deck(self.order, self.identity.size)
        if not result.complete:
            raise InvalidCardsError(f"{self.identity} is not complete: {result}", rule="R-DECK-1")

    @classmethod
    def of(cls, identity: DeckIdentity, order: Sequence[Card]) -> ArrangedDeck:
        """An arranged deck from any sequence of cards."""
        return cls(identity, tuple(order))


CARD_SOURCES = ("shoe", "croupier", "replay", "test")
"""Where a dealt card comes from (R-AUD-1): the shoe's reader, the croupier's hand, a replayed history, a test."""


def shoe_read_problem(source: str, sequence: int | None, last: int | None) -> tuple[str, str] | None:
    """What is wrong with a card's provenance, as (message, rule), or None.

    A shoe read carries its read sequence number (R-AUD-1), and within a hand the shoe's reads only go forward: a
    number at or below the last one dealt is a repeated or stale read, never a card (R-DECK-4).  A gap is allowed
    here: the station lets the croupier key in a card the shoe could not read, and reports a true gap itself."""
    if source not in CARD_SOURCES:
        return f"unknown card source {source!r}", "R-AUD-1"
    if source != "shoe":
        return None
    if sequence is None:
        return "a shoe read carries its sequence number", "R-AUD-1"
    if last is not None and sequence <= last:
        return f"shoe read {sequence} comes after read {last} was dealt: a repeated or stale read", "R-DECK-4"
    return None
