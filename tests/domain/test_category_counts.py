"""Every 5-card hand of every deck, counted by category against combinatorics (R-CARD-2 … R-CARD-5)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from domain.cards.batch import batch_evaluator
from domain.cards.decks import DECK_SIZES
from domain.cards.hand_classes import Category
from domain.cards.ranking import RANK_KEYS, hand_ranking
from tests.support.cards import all_five_card_hands


def expected_counts(size: int) -> dict[Category, int]:
    """Hands per category for a deck of n ranks of 4 suits; s straights per suit pattern (the ace also plays low)."""
    n = size // 4
    s = n - 3  # n - 4 straights with the ace high or inside, plus the ace-low one (R-CARD-3)
    return {
        Category.STRAIGHT_FLUSH: s * 4,
        Category.FOUR_OF_A_KIND: n * (n - 1) * 4,
        Category.FULL_HOUSE: n * (n - 1) * comb(4, 3) * comb(4, 2),
        Category.FLUSH: (comb(n, 5) - s) * 4,
        Category.STRAIGHT: s * (4**5 - 4),
        Category.THREE_OF_A_KIND: n * comb(n - 1, 2) * comb(4, 3) * 4**2,
        Category.TWO_PAIR: comb(n, 2) * (n - 2) * comb(4, 2) ** 2 * 4,
        Category.PAIR: n * comb(n - 1, 3) * comb(4, 2) * 4**3,
        Category.HIGH_CARD: (comb(n, 5) - s) * (4**5 - 4),
    }


def expected_distinct_values(size: int) -> int:
    """Distinct hand values: the number of hand classes of the deck."""
    n = size // 4
    s = n - 3
    return (s + n * (n - 1) + n * (n - 1) + (comb(n, 5) - s) + s + n * comb(n - 1, 2) + comb(n, 2) * (n - 2)
            + n * comb(n - 1, 3) + (comb(n, 5) - s))


@pytest.mark.slow
@pytest.mark.parametrize("size", DECK_SIZES)
def test_every_five_card_hand_is_counted_in_the_right_category(size: int) -> None:
    evaluator = batch_evaluator(size)
    strengths = evaluator.strengths(all_five_card_hands(size))
    classes = evaluator.ranking.classes
    category_of = np.array([c.category for c in classes], dtype=np.int8)
    counts = np.bincount(category_of[strengths - 1], minlength=len(Category))
    assert {category: int(counts[category]) for category in Category} == expected_counts(size)
    assert len(np.unique(strengths)) == len(classes) == expected_distinct_values(size)
    royals = sum(1 for s in strengths.tolist() if classes[s - 1].is_royal)
    assert royals == 4


def test_the_52_card_deck_has_7462_values_and_the_textbook_counts() -> None:
    counts = expected_counts(52)
    assert expected_distinct_values(52) == len(hand_ranking(52).classes) == 7462
    assert counts[Category.STRAIGHT_FLUSH] == 40
    assert counts[Category.FOUR_OF_A_KIND] == 624
    assert counts[Category.FULL_HOUSE] == 3744
    assert counts[Category.FLUSH] == 5108
    assert counts[Category.STRAIGHT] == 10200
    assert counts[Category.THREE_OF_A_KIND] == 54912
    assert counts[Category.TWO_PAIR] == 123552
    assert counts[Category.PAIR] == 1098240
    assert counts[Category.HIGH_CARD] == 1302540
    assert sum(counts.values()) == comb(52, 5)


def test_reduced_deck_counts_quoted_by_the_rules() -> None:
    """R-CARD-5 quotes: 48 cards 3,132 flushes vs 3,168 full houses; 32 cards 204 vs 1,344, and 224 quads."""
    assert expected_counts(48)[Category.FLUSH] == 3132
    assert expected_counts(48)[Category.FULL_HOUSE] == 3168
    assert expected_counts(32)[Category.FLUSH] == 204
    assert expected_counts(32)[Category.FULL_HOUSE] == 1344
    assert expected_counts(32)[Category.FOUR_OF_A_KIND] == 224


@pytest.mark.parametrize("size", DECK_SIZES)
def test_categories_rank_in_the_order_of_the_deck_setting(size: int) -> None:
    """R-CARD-5: in reduced decks every flush beats every full house; four of a kind stays above the flush."""
    ranking = hand_ranking(size)
    order = [c.category for c in ranking.classes]
    first = {cat: order.index(cat) for cat in Category}
    last = {cat: len(order) - 1 - order[::-1].index(cat) for cat in Category}
    if size < 52:
        assert last[Category.FULL_HOUSE] < first[Category.FLUSH] < last[Category.FLUSH] < first[Category.FOUR_OF_A_KIND]
    else:
        assert last[Category.FLUSH] < first[Category.FULL_HOUSE]
    flipped = hand_ranking(size, size == 52)
    flipped_order = [c.category for c in flipped.classes]
    assert (flipped_order.index(Category.FLUSH) > flipped_order.index(Category.FULL_HOUSE)) == (size == 52)


def test_rank_keys_give_unique_sums_for_every_multiset_of_up_to_seven_ranks() -> None:
    """The lookup's premise: sums of up to seven rank keys, at most four of a rank, never collide."""
    sums: list[set[int]] = [{0}] + [set() for _ in range(7)]
    counts: list[int] = [1] + [0] * 7
    for key in RANK_KEYS:
        new_sums: list[set[int]] = [set() for _ in range(8)]
        new_counts = [0] * 8
        for size in range(8):
            for copies in range(min(4, size) + 1):
                new_sums[size].update(total + copies * key for total in sums[size - copies])
                new_counts[size] += counts[size - copies]
        sums, counts = new_sums, new_counts
    assert [len(s) for s in sums] == counts
    assert counts[7] == 49205
