"""Who acts first in stud games: the bring-in (R-STUD7-1) and the best exposed hand (R-STUD7-1, R-STUD5-3).

>>> from domain.cards.cards import parse_cards
>>> lowest_up_card([parse_cards("Kc"), parse_cards("2d"), parse_cards("2c")])
2
>>> best_exposed([parse_cards("Ac Kd"), parse_cards("9c 9d"), parse_cards("9h 9s")])
1
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from domain.cards.cards import Card


def lowest_up_card(up_cards: Sequence[Sequence[Card]]) -> int:
    """Index of the player whose lowest up card is lowest, by rank (ace high) and then suit, clubs lowest."""
    lows = [(min(cards), i) for i, cards in enumerate(up_cards) if cards]
    return min(lows)[1]


def highest_up_card(up_cards: Sequence[Sequence[Card]]) -> int:
    """Index of the player with the highest up card by rank; equal ranks: the first from the croupier's left."""
    highs = [(-max(card.rank for card in cards), i) for i, cards in enumerate(up_cards) if cards]
    return min(highs)[1]


def exposed_strength(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """Value of up to four exposed cards: four of a kind, three of a kind, two pair, pair, high card.

    Straights and flushes do not count with fewer than five cards.
    """
    counts = Counter(card.rank for card in cards)
    groups = sorted(((n, rank) for rank, n in counts.items()), reverse=True)
    shape = tuple(n for n, _ in groups)
    if shape[0] == 4:
        category = 4
    elif shape[0] == 3:
        category = 3
    elif shape[:2] == (2, 2):
        category = 2
    elif shape[0] == 2:
        category = 1
    else:
        category = 0
    return category, tuple(int(rank) for _, rank in groups)


def best_exposed(up_cards: Sequence[Sequence[Card]]) -> int:
    """Index of the best exposed hand; equal hands: the first from the croupier's left (lowest index)."""
    best = max((exposed_strength(cards), -i) for i, cards in enumerate(up_cards) if cards)
    return -best[1]


def shows_open_pair(up_cards: Sequence[Sequence[Card]]) -> bool:
    """Whether any player shows a pair among his up cards (the 4th-street big-bet option, R-STUD7-1)."""
    return any(exposed_strength(cards)[0] >= 1 for cards in up_cards if cards)
