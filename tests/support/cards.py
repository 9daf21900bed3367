"""Cards from text, the order-agreement check used against the peers, and every five-card hand of a deck."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, combinations, pairwise
from math import comb

import numpy as np
from numpy.typing import NDArray

from domain.cards.cards import Card, parse_cards
from domain.cards.decks import composition


def cards(text: str) -> list[Card]:
    """Cards from text, e.g. ``cards("As Kd 7c")``."""
    return parse_cards(text)


def codes(text: str) -> list[int]:
    """Card codes from text."""
    return [card.code for card in parse_cards(text)]


def assert_same_order(ours: Sequence[int], theirs: Sequence[int]) -> None:
    """Both sequences rank the same hands in the same order with the same ties (larger is better in both)."""
    assert len(ours) == len(theirs)
    pairs = sorted(set(zip(ours, theirs, strict=True)))
    our_values = [o for o, _ in pairs]
    assert len(set(our_values)) == len(pairs), "a tie of ours is not a tie of theirs"
    their_values = [t for _, t in pairs]
    disagreements = [(a, b) for a, b in pairwise(pairs) if not a[1] < b[1]]
    assert not disagreements, f"order differs, e.g. {disagreements[:3]}"
    assert len(set(their_values)) == len(their_values)


def all_five_card_hands(size: int) -> NDArray[np.uint8]:
    """Every 5-card hand of a ``size``-card deck as an (N, 5) array of codes."""
    deck = [card.code for card in composition(size)]
    count = comb(size, 5)
    flat = np.fromiter(chain.from_iterable(combinations(deck, 5)), dtype=np.uint8, count=count * 5)
    return flat.reshape(count, 5)
