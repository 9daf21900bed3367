"""Shared test helpers: card parsing shortcuts and the order-agreement check used against the peers."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from hypothesis import settings

from domain.cards.cards import Card, parse_cards
from tests.postgres_schemas import (  # noqa: F401 (hooks and the autouse fixture: no schema left behind)
    drop_postgres_schemas,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_terminal_summary,
)

# Lookup tables are built on first use (up to a second); examples are not timed.
settings.register_profile("pokertable", deadline=None)
settings.load_profile("pokertable")


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
