"""Tables for the single-hand evaluation of hands of exactly two own and three board cards: Omaha and póquer
sintético (R-CARD-6, R-SYNTH-1).  :meth:`domain.cards.ranking.HandRanking.strength_split` reads them.

For every board of 3, 4 or 5 cards, told apart by the sum of its cards' *board keys* (:data:`BOARD_RANK_KEYS`),
a *row* holds, for every pair of own ranks, the best strength of that pair with three of the board's cards,
ignoring flushes.  A pair is found in its row by adding the two ranks' *marks* (:data:`MARKS`, a Golomb ruler:
the sums of two marks, a mark taken twice included, are all different), so a 4-card Omaha hand costs six
additions and six lookups.  A flush needs three board cards and two own cards of one suit; only then are the
cards of that suit looked at, through :attr:`domain.cards.ranking.HandRanking.flush_by_bits`.

>>> from domain.cards.ranking import hand_ranking
>>> tables = hand_ranking(52).split_tables
>>> [len(tables.rows[size]) for size in BOARD_SIZES], len(tables.flush_rows)
([455, 1820, 6175], 2288)
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from itertools import combinations, combinations_with_replacement
from typing import NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from domain.cards.cards import Rank


class Ranking(Protocol):
    """What the tables are built from: a :class:`domain.cards.ranking.HandRanking`, which builds them (named by a
    protocol, so that this module does not import the one that imports it: docs/architecture.md, "Walls")."""

    @property
    def ranks(self) -> tuple[Rank, ...]:
        """The deck's ranks, lowest first."""

    @property
    def rank_keys(self) -> tuple[int, ...]:
        """The rank keys, lowest rank of the deck first (:data:`domain.cards.ranking.RANK_KEYS`)."""

    @property
    def without_flush(self) -> list[dict[int, int]]:
        """By number of cards: the strength of each rank multiset (by its key sum), flushes aside."""

    @property
    def flush_by_bits(self) -> list[int]:
        """The strength of the best flush in each set of ranks of one suit (by its bits)."""

    def rank_multisets(self, size: int) -> Iterator[tuple[int, ...]]:
        """Every multiset of ``size`` ranks (at most four of each), as counts by rank."""


MARKS: tuple[int, ...] = (0, 2, 5, 25, 37, 43, 59, 70, 85, 89, 98, 99, 106)
"""An optimal 13-mark Golomb ruler, one mark per rank from the deck's lowest: the sum of two marks names a pair of
ranks, and a row of :class:`SplitTables` needs ``2 × 106 + 1`` entries.  Any prefix is a ruler for a reduced deck."""

BOARD_SIZES = (3, 4, 5)
"""Board cards an Omaha or sintético hand may have (R-CARD-6): the flop, the turn and the river."""

BOARD_RANK_KEYS: tuple[int, ...] = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415)
"""Rank keys for boards, lowest rank of the deck first: the smallest increasing integers whose sums over the
multisets of any one size up to five (at most four of a rank) are unique (a greedy search; the tests re-verify it).
Smaller than :data:`domain.cards.ranking.RANK_KEYS`, which must tell apart up to seven cards of any count, they keep a
board's key sum under 2³⁰, where Python's integer arithmetic is fastest."""

BOARD_SUIT_KEYS: tuple[int, ...] = (1, 6, 36, 216)
"""Suit keys for boards: a board's cards of each suit counted in base 6 (at most five), in :data:`BOARD_SUIT_BITS`."""

BOARD_SUIT_BITS = 11
"""Width of the suit-count field of a board key: ``5 × 216 < 2¹¹``."""
BOARD_SUIT_MASK = (1 << BOARD_SUIT_BITS) - 1

_CHUNK = 512
"""Boards per NumPy step of the build, to keep its intermediate arrays small."""


class SplitTables(NamedTuple):
    """The lookup tables of 2-own + 3-board hands for one :class:`~domain.cards.ranking.HandRanking`."""

    board_keys: tuple[int, ...]
    """By card code: the card's board key, ``BOARD_RANK_KEYS[rank] << BOARD_SUIT_BITS | BOARD_SUIT_KEYS[suit]``."""
    marks: tuple[int, ...]
    """By card code: the mark of the card's rank (0 for a card not in the deck)."""
    rows: tuple[dict[int, array[int]], ...]
    """By board size, then by the board's rank-key sum (its key sum ``>> BOARD_SUIT_BITS``): the best non-flush
    strength by the sum of two own marks."""
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
    river: array[int]
    """Omaha at the river, one entry per 5-card board and 4 own ranks: the best non-flush strength of the six pairs
    (each pair's entry of the board's row); at ``river_boards[board] + river_hands[own]``."""
    river_boards: dict[int, int]
    """By a 5-card board's rank-key sum: where its entries of :attr:`river` start."""
    river_hands: dict[int, int]
    """By the rank-key sum of four own cards (board keys too): the entry's offset in a board's part of :attr:`river`."""


def build_split_tables(ranking: Ranking) -> SplitTables:
    """Build the tables for ``ranking``'s deck and R-CARD-5 setting (about 0.3 s for 52 cards, docs/evaluator.md)."""
    count = len(ranking.ranks)
    low = ranking.ranks[0].index
    marks = np.array(MARKS[:count], dtype=np.int64)
    board_rank_keys = np.array(BOARD_RANK_KEYS[:count], dtype=np.int64)
    rows: list[dict[int, array[int]]] = [{} for _ in range(max(BOARD_SIZES) + 1)]
    tables: dict[int, NDArray[np.uint16]] = {}
    for size in BOARD_SIZES:
        boards = np.array(list(ranking.rank_multisets(size)), dtype=np.int64)  # (boards, ranks): counts
        tables[size] = _pair_table(ranking, boards, marks)
        sums = (boards @ board_rank_keys).tolist()
        rows[size] = dict(zip(sums, _arrays(tables[size]), strict=True))
        if len(rows[size]) != len(boards):
            raise ValueError(f"BOARD_RANK_KEYS do not tell every {size}-card board apart")
    river, river_boards, river_hands = _river(tables[5], list(rows[5]), marks, board_rank_keys)

    in_deck = [code >> 2 >= low for code in range(52)]
    card_marks = tuple(int(marks[(code >> 2) - low]) if in_deck[code] else 0 for code in range(52))
    board_keys = tuple(
        (BOARD_RANK_KEYS[(code >> 2) - low] if in_deck[code] else 0) << BOARD_SUIT_BITS | BOARD_SUIT_KEYS[code & 3]
        for code in range(52)
    )
    suit_fields = range(1 << BOARD_SUIT_BITS)
    board_suit = tuple(next((s for s in range(4) if f // BOARD_SUIT_KEYS[s] % 6 >= 3), -1) for f in suit_fields)
    in_suit = tuple(tuple(int(code & 3 == suit) for code in range(52)) for suit in range(4))
    suit_bits = tuple(tuple(1 << (code >> 2) if code & 3 == suit else 0 for code in range(52)) for suit in range(4))
    flush_rows = _flush_rows(ranking, marks)
    return SplitTables(board_keys, card_marks, tuple(rows), board_suit, in_suit, suit_bits, flush_rows,
                       river, river_boards, river_hands)


def _pair_table(ranking: Ranking, boards: NDArray[np.int64], marks: NDArray[np.int64]) -> NDArray[np.uint16]:
    """For boards given as counts per rank: the best non-flush strength of three board cards with each pair of
    ranks, at the sum of the pair's marks (0 where the pair cannot be held: a fifth card of a rank, or no pair)."""
    count = len(ranking.ranks)
    rank_keys = np.array(ranking.rank_keys[:count], dtype=np.int64)
    plain = ranking.without_flush[5]
    dense = np.zeros(max(plain) + 1, dtype=np.int16)
    dense[np.fromiter(plain.keys(), dtype=np.int64)] = np.fromiter(plain.values(), dtype=np.int16)
    first, second = np.triu_indices(count)  # every pair of ranks, a rank twice included
    pair_sum = rank_keys[first] + rank_keys[second]
    pair_counts = np.zeros((len(first), count), dtype=np.int64)
    np.add.at(pair_counts, (np.arange(len(first)), first), 1)
    np.add.at(pair_counts, (np.arange(len(first)), second), 1)
    size = int(boards[0].sum())
    subsets = np.array(list(combinations(range(size), 3)), dtype=np.intp)
    table = np.zeros((len(boards), 2 * int(marks[-1]) + 1), dtype=np.uint16)
    for start in range(0, len(boards), _CHUNK):
        counts = boards[start:start + _CHUNK]
        ranks = np.array([np.repeat(np.arange(count), row) for row in counts], dtype=np.intp)
        triple_sum = rank_keys[ranks[:, subsets]].sum(axis=2)  # (boards, triples)
        keys = np.minimum(triple_sum[:, :, None] + pair_sum[None, None, :], len(dense) - 1)
        best = dense[keys].max(axis=1)  # (boards, pairs)
        possible = (counts[:, None, :] + pair_counts[None, :, :] <= 4).all(axis=2)  # four cards of a rank
        table[start:start + _CHUNK, marks[first] + marks[second]] = np.where(possible, best, 0)
    return table


def _river(
    table: NDArray[np.uint16], board_sums: list[int], marks: NDArray[np.int64], board_rank_keys: NDArray[np.int64]
) -> tuple[array[int], dict[int, int], dict[int, int]]:
    """:attr:`SplitTables.river`, ``river_boards`` and ``river_hands`` from the 5-card boards' pair table."""
    hands = np.array(list(combinations_with_replacement(range(len(marks)), 4)), dtype=np.intp)  # (hands, 4)
    pairs = np.array(list(combinations(range(4), 2)), dtype=np.intp)
    hand_pairs = marks[hands[:, pairs]].sum(axis=2)  # (hands, 6): each pair's place in a row
    river = np.empty((len(table), len(hands)), dtype=np.uint16)
    for start in range(0, len(table), _CHUNK):
        boards, best = table[start:start + _CHUNK], river[start:start + _CHUNK]
        np.take(boards, hand_pairs[:, 0], axis=1, out=best)
        for pair in range(1, len(pairs)):
            np.maximum(best, np.take(boards, hand_pairs[:, pair], axis=1), out=best)
    hand_sums = board_rank_keys[hands].sum(axis=1).tolist()
    river_hands = dict(zip(hand_sums, range(len(hands)), strict=True))
    if len(river_hands) != len(hands):
        raise ValueError("BOARD_RANK_KEYS do not tell every 4 own ranks apart")
    river_boards = dict(zip(board_sums, range(0, len(table) * len(hands), len(hands)), strict=True))
    return _array(river), river_boards, river_hands


def by_pairs(own: Sequence[int], board: Sequence[int], tables: SplitTables) -> int:
    """The best hand of 2 of ``own`` and 3 of 3–5 ``board`` cards through the board's row, one lookup per own pair
    (sintético; Omaha on the flop and the turn).  Unchecked."""
    keys, marks, rows, board_suit, in_suit, _, _, _, _, _ = tables
    total = 0
    for code in board:
        total += keys[code]
    row = rows[len(board)][total >> BOARD_SUIT_BITS]
    suit = board_suit[total & BOARD_SUIT_MASK]
    if len(own) == 2:  # sintético
        a, b = own
        best = row[marks[a] + marks[b]]
        if suit < 0 or a & 3 != suit or b & 3 != suit:
            return best
    elif len(own) == 4:  # Omaha
        a, b, c, d = own
        ma, mb, mc, md = marks[a], marks[b], marks[c], marks[d]
        best = max(row[ma + mb], row[ma + mc], row[ma + md], row[mb + mc], row[mb + md], row[mc + md])
        if suit < 0 or in_suit[suit][a] + in_suit[suit][b] + in_suit[suit][c] + in_suit[suit][d] < 2:
            return best
    else:
        best = max(row[marks[x] + marks[y]] for x, y in combinations(own, 2))
        if suit < 0:
            return best
    return with_flush(best, own, board, suit, tables)


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


def _flush_rows(ranking: Ranking, marks: NDArray[np.int64]) -> dict[int, array[int]]:
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
    return [_array(values) for values in table]


def _array(values: NDArray[np.uint16]) -> array[int]:
    """``values`` as an ``array('H')``."""
    flat = array("H")
    flat.frombytes(values.tobytes())
    return flat
