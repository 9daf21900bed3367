"""What the monitor sees of one shuffle: the cards that went into the shuffler, in what order, and the cards the shoe
read after it (docs/integrity.md).

The shuffler never reports a deck's order (docs/devices.md), so the monitor learns both orders from the shoe:

- **out**: the cards the shoe read in the hand dealt from the shuffled deck, in read order — the top of the deck as
  it came out.  The shoe reads only what a hand deals (about 20 of 52 cards in 9-handed Hold'em), so this is a
  *prefix* of the shuffled order.
- **in**: the cards the shoe read in the previous hand dealt from the same deck, placed by the **gathering model**
  (:class:`Gathering`, a setting): how the croupier puts the cards back into the shuffler.  The undealt stub goes in
  too, but the shoe never read it: the monitor knows which cards it holds, not their order, and leaves it out.

The monitor then uses only the cards whose place going in *and* coming out it knows, and their relative order: under
a uniform shuffle that is a uniform permutation of them, whatever the deck size, the number read, or the gathering
(the statistics' null laws in :mod:`domain.integrity.distributions` hold exactly).

>>> seen = ShuffleObservation(52, before=("As", "Kd", "7c", "2h"), after=("Kd", "7c", "9s", "As"))
>>> seen.relative_order(Gathering.READ_THEN_STUB)  # Kd, 7c, As came out; they went in 2nd, 3rd, 1st
(1, 2, 0)
>>> successions((1, 2, 0)), rising_sequences((1, 2, 0))
(1, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from itertools import pairwise

from domain.cards.cards import Card
from domain.cards.decks import composition
from domain.errors import RuleError


class ObservationError(RuleError):
    """An observation of a shuffle that cannot be: a card twice, more cards than the deck holds, a foreign card."""


class Gathering(StrEnum):
    """How the cards of a hand go back into the shuffler (the setting ``shuffler_gathering``)."""

    READ_THEN_STUB = "read-then-stub"
    """The cards dealt, in the order the shoe read them, on top; the undealt stub below them (the default)."""
    STUB_THEN_READ = "stub-then-read"
    """The undealt stub on top, then the cards dealt in the order the shoe read them."""
    UNKNOWN = "unknown"
    """The croupier gathers the cards in no known order: only the tests that need no input order apply."""

    @property
    def knows_input_order(self) -> bool:
        """Whether the order going in is known (then all three tests apply)."""
        return self is not Gathering.UNKNOWN


@dataclass(frozen=True)
class ShuffleObservation:
    """One shuffle of one deck: its size, the cards the shoe read in the hand before (``before``, the deck's last
    hand) and in the hand after (``after``), each in read order, as card codes (``As``, ``Td``)."""

    deck_size: int
    before: tuple[str, ...]
    after: tuple[str, ...]

    def __post_init__(self) -> None:
        deck = card_index(self.deck_size)
        for name, cards in (("before", self.before), ("after", self.after)):
            if len(set(cards)) != len(cards):
                raise ObservationError(f"a card read twice in one hand ({name} the shuffle)", rule="R-DECK-4")
            if foreign := [card for card in cards if card not in deck]:
                raise ObservationError(f"{', '.join(foreign)} not in a {self.deck_size}-card deck", rule="R-DECK-4")

    @classmethod
    def of(cls, deck_size: int, before: Sequence[Card | str], after: Sequence[Card | str]) -> ShuffleObservation:
        """An observation from cards or card codes (normalised: ``10d`` is ``Td``)."""
        return cls(deck_size, tuple(_code(card) for card in before), tuple(_code(card) for card in after))

    def input_positions(self, gathering: Gathering) -> dict[str, int]:
        """The place (0 = top) of each card whose place going in the gathering model tells ({} if unknown)."""
        if gathering is Gathering.READ_THEN_STUB:
            return {card: place for place, card in enumerate(self.before)}
        if gathering is Gathering.STUB_THEN_READ:
            offset = self.deck_size - len(self.before)
            return {card: offset + place for place, card in enumerate(self.before)}
        return {}

    def relative_order(self, gathering: Gathering) -> tuple[int, ...]:
        """The cards seen both going in and coming out, in the order they came out, each named by its rank (0, 1, …)
        among them going in: a uniform random permutation under a uniform shuffle."""
        placed = self.input_positions(gathering)
        came_in = [placed[card] for card in self.after if card in placed]
        ranks = {place: rank for rank, place in enumerate(sorted(came_in))}
        return tuple(ranks[place] for place in came_in)


    def sample(self, gathering: Gathering) -> ShuffleSample:
        """What the tests use of this shuffle under ``gathering`` (:class:`ShuffleSample`)."""
        placed = self.input_positions(gathering) if gathering.knows_input_order else card_index(self.deck_size)
        pairs = tuple((placed[card], out) for out, card in enumerate(self.after) if card in placed)
        return ShuffleSample(self.deck_size, pairs, tuple(sorted(placed.values())), len(self.after),
                             gathering.knows_input_order)


@dataclass(frozen=True)
class ShuffleSample:
    """One shuffle as the tests see it: the deck size; ``pairs``, for each card seen going in and coming out, its
    place going in and its place coming out (read order); ``known_in``, every place going in that is known; ``read``,
    how many cards came out read (places 0 … read-1); ``ordered``: whether places going in are the deck's real order
    (with an unknown gathering they are each card's place in the deck's own order, for the per-position test only)."""

    deck_size: int
    pairs: tuple[tuple[int, int], ...]
    known_in: tuple[int, ...]
    read: int
    ordered: bool = True

    def relative_order(self) -> tuple[int, ...]:
        """The cards seen both ways, in the order they came out, named by their rank going in."""
        came_in = [place for place, _ in sorted(self.pairs, key=lambda pair: pair[1])]
        ranks = {place: rank for rank, place in enumerate(sorted(came_in))}
        return tuple(ranks[place] for place in came_in)


def _code(card: Card | str) -> str:
    return str(card if isinstance(card, Card) else Card.parse(card))


def successions(order: Sequence[int]) -> int:
    """Adjacent pairs kept: how many times the card that followed a card going in follows it coming out
    (``order[j+1] == order[j] + 1``).  A too-short riffle keeps many; a uniform shuffle about one."""
    return sum(1 for first, second in pairwise(order) if second == first + 1)


def rising_sequences(order: Sequence[int]) -> int:
    """Bayer–Diaconis rising sequences: 1 + how many cards come out *before* the card that went in just above them.
    A deck riffled k times (GSR) has at most 2^k; a uniform permutation of n about (n+1)/2 (0 for no card)."""
    if not order:
        return 0
    where = {rank: place for place, rank in enumerate(order)}
    return 1 + sum(1 for rank in range(len(order) - 1) if where[rank + 1] < where[rank])


@cache
def card_index(deck_size: int) -> dict[str, int]:
    """Each card of a ``deck_size`` deck by its place in the deck's own order (what the per-position test uses as
    the "place going in" when the gathering is unknown: then it tests the card itself against where it lands)."""
    return {str(card): index for index, card in enumerate(composition(deck_size))}
