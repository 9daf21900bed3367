"""Batch hand evaluation over NumPy arrays of card codes, for simulations and odds.

The same tables as the single-hand evaluator (:mod:`domain.cards.ranking`), laid out as
dense arrays indexed by rank-key sums, so that a batch is a handful of vectorised
gathers.  Rows are processed in chunks that stay in cache.

>>> import numpy as np
>>> from domain.cards.cards import parse_cards
>>> batch = batch_evaluator(52)
>>> hands = np.array([[c.code for c in parse_cards(h)] for h in ("AsKsQsJsTs2d3d", "2c3d4h5s7c8d9h")])
>>> [batch.ranking.hand_class(int(s)).describe() for s in batch.strengths(hands)]
['royal flush', 'high card, nine']
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from domain.cards.ranking import MAX_CARDS, MIN_CARDS, SUIT_BITS, SUIT_MASK, HandRanking, hand_ranking
from domain.errors import InvalidCardsError

Strengths = NDArray[np.int16]
CHUNK_ROWS = 1 << 15
_CARD_BITS: NDArray[np.uint64] = np.left_shift(np.uint64(1), np.arange(52, dtype=np.uint64))


class BatchEvaluator:
    """Vectorised evaluation for one :class:`HandRanking`; get instances from :func:`batch_evaluator`."""

    def __init__(self, ranking: HandRanking) -> None:
        self.ranking = ranking
        self.card_keys: NDArray[np.int64] = np.array(ranking.card_keys, dtype=np.int64)
        self.lowest_code = ranking.in_deck.index(True)
        self.flush_suit: NDArray[np.int8] = np.array(ranking.flush_suit, dtype=np.int8)
        self.flush_by_bits: Strengths = np.array(ranking.flush_by_bits, dtype=np.int16)
        self._without_flush: dict[int, Strengths] = {}
        self._flush5: Strengths | None = None

    def _dense(self, table: dict[int, int]) -> Strengths:
        dense = np.zeros(max(table) + 1, dtype=np.int16)
        dense[np.fromiter(table.keys(), dtype=np.int64)] = np.fromiter(table.values(), dtype=np.int16)
        return dense

    def without_flush(self, size: int) -> Strengths:
        """Dense table: best non-flush strength of ``size`` cards by rank-key sum."""
        if size not in self._without_flush:
            self._without_flush[size] = self._dense(self.ranking.without_flush[size])
        return self._without_flush[size]

    def flush5(self) -> Strengths:
        """Dense table: strength of a 5-card flush or straight flush by rank-key sum."""
        if self._flush5 is None:
            self._flush5 = self._dense(self.ranking.flush5_by_key)
        return self._flush5

    def check(self, cards: NDArray[np.integer], first_row: int = 0) -> None:
        """Reject rows with a card twice (R-DECK-4) or a card not in the deck (R-CARD-2); names the first bad row."""
        self._check_range(cards, first_row)
        self._check_repeats(cards, first_row, [_CARD_BITS[cards[:, i]] for i in range(cards.shape[1])])

    def _check_range(self, cards: NDArray[np.integer], first_row: int) -> None:
        if not cards.size:
            return
        low, high = int(cards.min()), int(cards.max())
        if low < 0 or high > 51:
            raise InvalidCardsError("card codes must be 0–51", rule="R-CARD-1")
        if low < self.lowest_code:
            row = first_row + int(np.argmax((cards < self.lowest_code).any(axis=1)))
            size = self.ranking.rules.deck_size
            raise InvalidCardsError(f"row {row} has a card not in a {size}-card deck", rule="R-CARD-2")

    @staticmethod
    def _check_repeats(cards: NDArray[np.integer], first_row: int, bits: list[NDArray[np.uint64]]) -> None:
        """A row repeats a card when the sum of its cards' bits differs from their union."""
        union, total = bits[0].copy(), bits[0].copy()
        for column in bits[1:]:
            union |= column
            total += column
        repeated = union != total
        if repeated.any():
            raise InvalidCardsError(f"row {first_row + int(np.argmax(repeated))} has a card twice", rule="R-DECK-4")

    def strengths(self, cards: NDArray[np.integer], *, check: bool = True) -> Strengths:
        """Strengths of the best five of each row of an ``(N, 5|6|7)`` array of card codes.

        With ``check=False`` the rows are trusted (distinct cards of the deck), for simulations that deal
        them from a deck themselves.
        """
        cards = np.asarray(cards)
        if cards.ndim != 2 or not MIN_CARDS <= cards.shape[1] <= MAX_CARDS:
            message = f"expected an (N, 5–7) array of card codes, got shape {cards.shape}"
            raise InvalidCardsError(message, rule="R-CARD-6")
        if check:
            self._check_range(cards, 0)
        out = np.empty(len(cards), dtype=np.int16)
        for start in range(0, len(cards), CHUNK_ROWS):
            chunk = cards[start:start + CHUNK_ROWS]
            out[start:start + len(chunk)] = self._strengths_chunk(chunk, first_row=start if check else None)
        return out

    def _strengths_chunk(self, cards: NDArray[np.integer], first_row: int | None) -> Strengths:
        """Strengths of one chunk; with ``first_row`` set, also reject repeated cards, reading each column once."""
        card_keys = self.card_keys
        columns = [cards[:, i] for i in range(cards.shape[1])]
        if first_row is not None:
            self._check_repeats(cards, first_row, [_CARD_BITS[column] for column in columns])
        key_sum = card_keys[columns[0]]
        for column in columns[1:]:
            key_sum += card_keys[column]
        best: Strengths = self.without_flush(cards.shape[1])[key_sum >> SUIT_BITS]
        suit = self.flush_suit[key_sum & SUIT_MASK]
        rows = np.flatnonzero(suit >= 0)
        if rows.size:
            held = cards[rows].astype(np.int32)
            in_suit = (held & 3) == suit[rows, None]
            bits = np.where(in_suit, 1 << (held >> 2), 0).sum(axis=1)
            best[rows] = np.maximum(best[rows], self.flush_by_bits[bits])
        return best

    def strengths_split(
        self, own: NDArray[np.integer], board: NDArray[np.integer], own_used: int = 2, board_used: int = 3,
        *, check: bool = True,
    ) -> Strengths:
        """Best hand of exactly ``own_used`` own and ``board_used`` board cards per row (Omaha, sintético; R-CARD-6)."""
        own, board = np.asarray(own), np.asarray(board)
        if own.ndim != 2 or board.ndim != 2 or len(own) != len(board) or own_used + board_used != 5 \
                or own.shape[1] < own_used or board.shape[1] < board_used:
            raise InvalidCardsError(
                f"expected (N, ≥{own_used}) own and (N, ≥{board_used}) board arrays, got {own.shape} and {board.shape}",
                rule="R-CARD-6",
            )
        plain, flush = self.without_flush(5), self.flush5()
        out = np.empty(len(own), dtype=np.int16)
        for start in range(0, len(own), CHUNK_ROWS):
            stop = start + CHUNK_ROWS
            if check:
                self.check(np.concatenate([own[start:stop], board[start:stop]], axis=1), first_row=start)
            own_sums = self._subset_sums(own[start:stop], own_used)
            key_sum = own_sums[:, :, None] + self._subset_sums(board[start:stop], board_used)[:, None, :]
            rank_sum = key_sum >> SUIT_BITS
            is_flush = self.flush_suit[key_sum & SUIT_MASK] >= 0
            values = np.where(is_flush, flush[np.minimum(rank_sum, len(flush) - 1)], plain[rank_sum])
            out[start:start + len(own_sums)] = values.reshape(len(own_sums), -1).max(axis=1)
        return out

    def _subset_sums(self, cards: NDArray[np.integer], k: int) -> NDArray[np.int64]:
        """Card-key sums of every k-card subset of each row: an (N, C(n, k)) array."""
        subsets = np.array(list(combinations(range(cards.shape[1]), k)), dtype=np.intp)
        sums: NDArray[np.int64] = self.card_keys[cards[:, subsets]].sum(axis=2)
        return sums


@cache
def batch_evaluator(deck_size: int = 52, flush_beats_full_house: bool | None = None) -> BatchEvaluator:
    """The batch evaluator for a deck size and R-CARD-5 setting, built once."""
    return BatchEvaluator(hand_ranking(deck_size, flush_beats_full_house))
