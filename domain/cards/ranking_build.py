"""How the hand-ranking tables of :mod:`domain.cards.ranking` are made, and how kept ones are taken back.

:func:`build` makes a deck's tables from its ranks (1.4 s of a core for 52 cards): every 5-card hand class, weakest
first (R-CARD-4, with R-CARD-5's order of flush and full house), and the strength of the best five of every 5-, 6-
and 7-card holding by its rank-key sum (flushes aside), by the rank bits of a flush suit, and the 5-card flushes by
rank-key sum. :class:`RankingTables` is the same tables as plain integers, for a service to keep in a file and give
back; :func:`taken` checks such a set is of the rules asked and of the right shape before a ranking uses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from domain.cards.cards import Rank
from domain.cards.hand_classes import Category, HandClass, category_order

RANK_KEYS: tuple[int, ...] = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
"""Rank keys, lowest rank of the deck first: the smallest increasing integers whose sums over any multiset
of up to seven ranks (at most four of each) are unique.  Found by a greedy search; verified by the tests."""

SUIT_BITS = 12
"""Width of the suit-count field in a card key: three bits for each of the four suits."""

MIN_CARDS, MAX_CARDS = 5, 7

Straights = list[tuple[Rank, frozenset[Rank]]]
Tables = tuple[tuple[HandClass, ...], list[dict[int, int]], list[int], dict[int, int]]
"""A ranking's tables as it looks them up: the classes weakest first, the non-flush strengths by rank-key sum for
each card count (5 to 7; 0 to 4 empty), the flush strengths by rank bits, the 5-card flushes by rank-key sum."""


@dataclass(frozen=True, slots=True)
class RankingTables:
    """A ranking's built tables as plain integers (:meth:`domain.cards.ranking.HandRanking.tables`), for a service
    to keep and give back (:class:`domain.cards.ranking.HandRanking` takes them instead of building them)."""

    deck_size: int
    flush_over_full: bool
    classes: tuple[tuple[int, ...], ...]
    """Each 5-card hand class, weakest first: its category, then its ranks."""
    without_flush: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    """For 5, 6 and 7 cards: the rank-key sums and the best non-flush strength of each."""
    flush_by_bits: tuple[int, ...]
    flush5: tuple[tuple[int, ...], tuple[int, ...]]


def straights(ranks: tuple[Rank, ...]) -> Straights:
    """Every straight of the deck as (top card, ranks), best first; the ace also plays low (R-CARD-3)."""
    found = [(ranks[i + 4], frozenset(ranks[i:i + 5])) for i in range(len(ranks) - 4)]
    found.append((ranks[3], frozenset((Rank.ACE, *ranks[:4]))))
    return sorted(found, key=lambda item: item[0], reverse=True)


def rank_multisets(ranks: int, size: int) -> Iterator[tuple[int, ...]]:
    """Every way to hold ``size`` cards as counts per rank of a deck of ``ranks`` ranks (at most four of a rank)."""

    def rec(i: int, left: int) -> Iterator[tuple[int, ...]]:
        if i == ranks - 1:
            if left <= 4:
                yield (left,)
            return
        for k in range(min(4, left) + 1):
            for rest in rec(i + 1, left - k):
                yield (k, *rest)

    return rec(0, size)


def best_without_flush(ranks: tuple[Rank, ...], deck_straights: Straights, counts: tuple[int, ...]) -> HandClass:
    """The best 5-card class from cards of these rank counts, ignoring flushes (R-CARD-3, R-CARD-4)."""
    held = [(n, rank) for n, rank in zip(counts, ranks, strict=True) if n]
    held.sort(reverse=True)  # most copies first, then highest rank
    by_rank = sorted((rank for _, rank in held), reverse=True)

    def kickers(exclude: set[Rank], k: int) -> tuple[Rank, ...]:
        return tuple(rank for rank in by_rank if rank not in exclude)[:k]

    top_n, top = held[0]
    if top_n == 4:
        return HandClass(Category.FOUR_OF_A_KIND, (top, *kickers({top}, 1)))
    pairs = [rank for n, rank in held if n >= 2]
    if top_n == 3 and len(pairs) >= 2:
        return HandClass(Category.FULL_HOUSE, (top, max(r for r in pairs if r != top)))
    present = set(by_rank)
    for straight_top, needed in deck_straights:
        if needed <= present:
            return HandClass(Category.STRAIGHT, (straight_top,))
    if top_n == 3:
        return HandClass(Category.THREE_OF_A_KIND, (top, *kickers({top}, 2)))
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        return HandClass(Category.TWO_PAIR, (high, low, *kickers({high, low}, 1)))
    if top_n == 2:
        return HandClass(Category.PAIR, (top, *kickers({top}, 3)))
    return HandClass(Category.HIGH_CARD, tuple(by_rank[:5]))


def best_flush(deck_straights: Straights, suited: frozenset[Rank]) -> HandClass:
    """The best class from five or more cards of one suit: straight flush or flush."""
    for straight_top, needed in deck_straights:
        if needed <= suited:
            return HandClass(Category.STRAIGHT_FLUSH, (straight_top,))
    return HandClass(Category.FLUSH, tuple(sorted(suited, reverse=True)[:5]))


def build(ranks: tuple[Rank, ...], deck_straights: Straights, flush_over_full: bool) -> Tables:
    """The tables of a deck of these ranks under R-CARD-5's ``flush_over_full`` (:data:`Tables`)."""
    position = {category: i for i, category in enumerate(category_order(flush_over_full))}
    classes: set[HandClass] = set()
    for counts in rank_multisets(len(ranks), 5):
        classes.add(best_without_flush(ranks, deck_straights, counts))
    for five in combinations(ranks, 5):
        classes.add(best_flush(deck_straights, frozenset(five)))
    ordered = tuple(sorted(classes, key=lambda c: (position[c.category], c.ranks)))
    strength = {hand_class: i + 1 for i, hand_class in enumerate(ordered)}
    without_flush: list[dict[int, int]] = [{} for _ in range(MAX_CARDS + 1)]
    for size in range(MIN_CARDS, MAX_CARDS + 1):
        table = without_flush[size]
        for counts in rank_multisets(len(ranks), size):
            key = sum(RANK_KEYS[i] * n for i, n in enumerate(counts))
            table[key] = strength[best_without_flush(ranks, deck_straights, counts)]
    flush_by_bits = [0] * (1 << 13)  # bit = rank index from the deuce
    for size in range(MIN_CARDS, MAX_CARDS + 1):
        for held in combinations(ranks, size):
            flush_by_bits[sum(1 << rank.index for rank in held)] = strength[best_flush(deck_straights,
                                                                                         frozenset(held))]
    low = ranks[0]
    flush5 = {sum(RANK_KEYS[r - low] for r in held): strength[best_flush(deck_straights, frozenset(held))]
              for held in combinations(ranks, 5)}
    return ordered, without_flush, flush_by_bits, flush5


def taken(tables: RankingTables, deck_size: int, flush_over_full: bool) -> Tables:
    """Kept tables (:class:`RankingTables`) as a ranking of a deck of ``deck_size`` cards under R-CARD-5's
    ``flush_over_full`` looks them up, after checking they are of those rules and of the right shape: a malformed set
    is refused with ``ValueError``, never half taken."""
    if (tables.deck_size, tables.flush_over_full) != (deck_size, flush_over_full):
        raise ValueError("the tables are of another deck or flush rule")
    if len(tables.without_flush) != MAX_CARDS - MIN_CARDS + 1 or len(tables.flush_by_bits) != 1 << 13:
        raise ValueError("the tables are not of the right shape")
    strongest = len(tables.classes)
    for keys, values in (*tables.without_flush, tables.flush5):
        if len(keys) != len(values) or not all(1 <= value <= strongest for value in values):
            raise ValueError("a table names a strength no class has")
    if not all(0 <= value <= strongest for value in tables.flush_by_bits):
        raise ValueError("a table names a strength no class has")
    classes = tuple(HandClass(Category(entry[0]), tuple(Rank(rank) for rank in entry[1:])) for entry in tables.classes)
    without_flush: list[dict[int, int]] = [{} for _ in range(MIN_CARDS)]
    without_flush += [dict(zip(keys, values, strict=True)) for keys, values in tables.without_flush]
    return classes, without_flush, list(tables.flush_by_bits), dict(zip(*tables.flush5, strict=True))
