"""Tables for the single-hand evaluation of hands of exactly two own and three board cards: Omaha and póquer
sintético (R-CARD-6, R-SYNTH-1).  :meth:`domain.ranking.HandRanking.strength_split` reads them.

For every board of 3, 4 or 5 cards, told apart by the rank-key sum of its cards (:data:`domain.ranking.RANK_KEYS`),
a *row* holds, for every pair of own ranks, the best strength of that pair with three of the board's cards,
ignoring flushes.  A pair is found in its row by adding the two ranks' *marks* (:data:`MARKS`, a Golomb ruler:
the sums of two marks, a mark taken twice included, are all different), so a 4-card Omaha hand costs six
additions and six lookups.  A flush needs three board cards and two own cards of one suit; only then are the
cards of that suit looked at, through :attr:`domain.ranking.HandRanking.flush_by_bits`.

>>> from domain.ranking import hand_ranking
>>> tables = hand_ranking(52).split_tables
>>> [len(tables.rows[size]) for size in BOARD_SIZES], len(tables.flush_rows)
([455, 1820, 6175], 2288)
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from domain.ranking import HandRanking

MARKS: tuple[int, ...] = (0, 2, 5, 25, 37, 43, 59, 70, 85, 89, 98, 99, 106)
"""An optimal 13-mark Golomb ruler, one mark per rank from the deck's lowest: the sum of two marks names a pair of
ranks, and a row of :class:`SplitTables` needs ``2 × 106 + 1`` entries.  Any prefix is a ruler for a reduced deck."""

BOARD_SIZES = (3, 4, 5)
"""Board cards an Omaha or sintético hand may have (R-CARD-6): the flop, the turn and the river."""

_CHUNK = 512
"""Boards per NumPy step of the build, to keep its intermediate arrays small."""


class SplitTables(NamedTuple):
    """The lookup tables of 2-own + 3-board hands for one :class:`~domain.ranking.HandRanking`."""

    keys: list[int]
    """By card code: the card's key, :attr:`domain.ranking.HandRanking.card_keys` (here too for one fewer look-up)."""
    marks: tuple[int, ...]
    """By card code: the mark of the card's rank (0 for a card not in the deck)."""
    rows: tuple[dict[int, array[int]], ...]
    """By board size, then by the rank-key sum of the board: best non-flush strength by the sum of two own marks."""
    board_suit: tuple[int, ...]
    """By the suit-count field of a board's key sum: the suit of three or more of its cards, or -1 (a board of
    at most five cards has at most one)."""
    in_suit: tuple[tuple[int, ...], ...]
    """By suit, then card code: 1 for a card of that suit, else 0."""
    suit_bits: tuple[tuple[int, ...], ...]
    """By suit, then card code: the card's rank bit (from the deuce) for a card of that suit, else 0."""
    flush_rows: dict[int, array[int]]
    """By the rank bits (from the deuce) of a board's three to five cards of one suit: the best flush or straight
    flush of three of them with two own cards of that suit, by the sum of the own cards' marks."""


def build_split_tables(ranking: HandRanking) -> SplitTables:
    """Build the tables for ``ranking``'s deck and R-CARD-5 setting (0.1–0.25 s for 52 cards, docs/evaluator.md)."""
    from domain.ranking import RANK_KEYS, SUIT_BITS

    count = len(ranking.ranks)
    low = ranking.ranks[0].index
    marks = np.array(MARKS[:count], dtype=np.int64)
    rank_keys = np.array(RANK_KEYS[:count], dtype=np.int64)
    plain = ranking.without_flush[5]
    dense = np.zeros(max(plain) + 1, dtype=np.int16)
    dense[np.fromiter(plain.keys(), dtype=np.int64)] = np.fromiter(plain.values(), dtype=np.int16)

    first, second = np.triu_indices(count)  # every pair of ranks, a rank twice included
    pair_sum = rank_keys[first] + rank_keys[second]
    pair_mark = marks[first] + marks[second]
    pair_counts = np.zeros((len(first), count), dtype=np.int64)
    np.add.at(pair_counts, (np.arange(len(first)), first), 1)
    np.add.at(pair_counts, (np.arange(len(first)), second), 1)
    width = 2 * int(marks[-1]) + 1
    rows: list[dict[int, array[int]]] = [{} for _ in range(max(BOARD_SIZES) + 1)]
    for size in BOARD_SIZES:
        boards = np.array(list(ranking.rank_multisets(size)), dtype=np.int64)  # (boards, ranks): counts
        subsets = np.array(list(combinations(range(size), 3)), dtype=np.intp)
        for start in range(0, len(boards), _CHUNK):
            counts = boards[start:start + _CHUNK]
            ranks = np.array([np.repeat(np.arange(count), row) for row in counts], dtype=np.intp)
            triple_sum = rank_keys[ranks[:, subsets]].sum(axis=2)  # (boards, triples)
            keys = np.minimum(triple_sum[:, :, None] + pair_sum[None, None, :], len(dense) - 1)
            best = dense[keys].max(axis=1)  # (boards, pairs)
            possible = (counts[:, None, :] + pair_counts[None, :, :] <= 4).all(axis=2)  # four cards of a rank
            table = np.zeros((len(counts), width), dtype=np.uint16)
            table[:, pair_mark] = np.where(possible, best, 0)
            rows[size].update(zip((counts @ rank_keys).tolist(), _arrays(table), strict=True))

    card_marks = tuple(int(marks[(code >> 2) - low]) if (code >> 2) >= low else 0 for code in range(52))
    suit_fields = range(1 << SUIT_BITS)
    board_suit = tuple(next((s for s in range(4) if (f >> 3 * s) & 7 >= 3), -1) for f in suit_fields)
    in_suit = tuple(tuple(int(code & 3 == suit) for code in range(52)) for suit in range(4))
    suit_bits = tuple(tuple(1 << (code >> 2) if code & 3 == suit else 0 for code in range(52)) for suit in range(4))
    flush_rows = _flush_rows(ranking, marks)
    return SplitTables(ranking.card_keys, card_marks, tuple(rows), board_suit, in_suit, suit_bits, flush_rows)


def with_flush(best: int, own: Sequence[int], board: Sequence[int], suit: int, tables: SplitTables) -> int:
    """``best``, or a better flush or straight flush of two own and three board cards of ``suit`` (three or more
    board cards have it)."""
    bits = tables.suit_bits[suit]
    shared = 0
    for code in board:
        shared |= bits[code]
    row, marks = tables.flush_rows[shared], tables.marks
    mine = [marks[code] for code in own if bits[code]]
    if len(mine) == 2:  # the usual case: one pair of own cards of the suit
        value = row[mine[0] + mine[1]]
        return value if value > best else best
    for i, x in enumerate(mine):
        for y in mine[i + 1:]:
            if (value := row[x + y]) > best:
                best = value
    return best


def _flush_rows(ranking: HandRanking, marks: NDArray[np.int64]) -> dict[int, array[int]]:
    """:attr:`SplitTables.flush_rows`: every 3–5 ranks of the board's suit against every two other ranks."""
    count, low = len(ranking.ranks), ranking.ranks[0].index
    by_bits = np.array(ranking.flush_by_bits, dtype=np.int16)
    first, second = np.triu_indices(count, k=1)  # two different ranks: own cards of one suit
    pair_bits = (1 << (first + low)) | (1 << (second + low))
    pair_mark = marks[first] + marks[second]
    width = 2 * int(marks[-1]) + 1
    flush_rows: dict[int, array[int]] = {}
    for size in BOARD_SIZES:
        suited = np.array(list(combinations(range(low, low + count), size)), dtype=np.int64)  # (boards, size)
        subsets = np.array(list(combinations(range(size), 3)), dtype=np.intp)
        triple_bits = (1 << suited[:, subsets]).sum(axis=2)  # (boards, triples)
        board_bits = (1 << suited).sum(axis=1)
        best = by_bits[triple_bits[:, :, None] | pair_bits[None, None, :]].max(axis=1)  # (boards, pairs)
        table = np.zeros((len(suited), width), dtype=np.uint16)
        table[:, pair_mark] = np.where((board_bits[:, None] & pair_bits[None, :]) == 0, best, 0)  # one card each
        flush_rows.update(zip(board_bits.tolist(), _arrays(table), strict=True))
    return flush_rows


def _arrays(table: NDArray[np.uint16]) -> list[array[int]]:
    """Each row of ``table`` as a compact ``array('H')``: a row is read at a few scattered places per hand, and
    two bytes an entry keep more rows in the cache than a tuple's pointers to int objects."""
    rows = []
    for values in table:
        row = array("H")
        row.frombytes(values.tobytes())
        rows.append(row)
    return rows
