"""Hand ranking tables for one deck size and R-CARD-5 setting, and the single-hand evaluator.

Every 5-card hand class of the deck gets a dense *strength*, 1 for the weakest,
so that a larger strength is a better hand and equal strengths tie (R-CARD-4).
Tables are built once per :class:`RankingRules` and then only looked up.

How a lookup works: each card has an integer key, the sum of a *rank key*
shifted left by 12 bits and a *suit key* (``1 << 3 * suit``).  The rank keys
(:data:`RANK_KEYS`) are chosen so that the sums of any multiset of up to seven
ranks, with at most four of each, are all different; the low 12 bits count the
cards of each suit.  Summing the keys of a hand therefore tells, with one table
lookup, the best non-flush hand and whether five cards share a suit; only for
the few hands with a flush are the ranks of that suit looked at.

>>> ranking = hand_ranking(52)
>>> value = ranking.evaluate(parse_cards("9s 9h 9d Ac Ah 2c 3d"))
>>> value.describe(), value.describe("es"), format_cards(value.best_five)
('full house, nines over aces', 'full de nueves y ases', '9s 9h 9d Ah Ac')
>>> hand_ranking(32).evaluate(parse_cards("As 7d 8c 9h Td")).describe()
'straight, ten high'
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from domain.cards.cards import Card, Rank, format_cards, parse_cards  # noqa: F401  (used in doctests)
from domain.cards.decks import deck_ranks, lowest_rank
from domain.cards.hand_classes import Category, HandClass, Language
from domain.cards.ranking_build import (
    MAX_CARDS,
    MIN_CARDS,
    RANK_KEYS,
    SUIT_BITS,
    RankingTables,
    build,
    rank_multisets,
    straights,
    taken,
)
from domain.cards.split_tables import (
    BOARD_SUIT_BITS,
    BOARD_SUIT_MASK,
    SplitTables,
    build_split_tables,
    by_pairs,
    with_flush,
)
from domain.errors import InvalidCardsError

SUIT_MASK = (1 << SUIT_BITS) - 1

__all__ = ["MAX_CARDS", "MIN_CARDS", "RANK_KEYS", "SUIT_BITS", "SUIT_MASK", "HandRanking", "HandValue", "RankingRules",
           "RankingTables", "hand_ranking", "in_use", "provide"]

_building_split = threading.Lock()
"""Held while a ranking's :attr:`HandRanking.split_tables` are built, so that threads wait for them, not rebuild."""


@dataclass(frozen=True, slots=True)
class RankingRules:
    """Which deck the hands come from (R-CARD-2) and whether a flush beats a full house (R-CARD-5).

    ``flush_beats_full_house`` defaults to true for the reduced decks and false for 52 cards.
    """

    deck_size: int = 52
    flush_beats_full_house: bool | None = None

    def __post_init__(self) -> None:
        lowest_rank(self.deck_size)  # validates the size (R-CARD-2)
        if self.flush_beats_full_house is None:
            object.__setattr__(self, "flush_beats_full_house", self.deck_size < 52)

    @property
    def flush_over_full(self) -> bool:
        """The resolved R-CARD-5 setting."""
        return bool(self.flush_beats_full_house)


@dataclass(frozen=True, slots=True, order=True)
class HandValue:
    """The value of a hand: its strength orders hands totally (equal strengths tie).

    Values compare by ``strength`` alone; the other fields explain it.
    """

    strength: int
    hand_class: HandClass = field(compare=False)
    best_five: tuple[Card, ...] = field(compare=False)

    @property
    def category(self) -> Category:
        """The hand's category (R-CARD-4)."""
        return self.hand_class.category

    def describe(self, language: Language = "en") -> str:
        """E.g. ``full house, nines over aces`` or, in Spanish, ``full de nueves y ases``."""
        return self.hand_class.describe(language)

    def __str__(self) -> str:
        return f"{self.describe()} ({format_cards(self.best_five)})"


class HandRanking:
    """Lookup tables and the single-hand evaluator for one set of :class:`RankingRules`.

    Get instances from :func:`hand_ranking`, which builds each one once.
    """

    rank_keys: tuple[int, ...] = RANK_KEYS
    """:data:`RANK_KEYS`, for the tables of :mod:`domain.cards.split_tables`, which reads them here."""

    def __init__(self, rules: RankingRules, tables: RankingTables | None = None) -> None:
        """Build the tables of ``rules``; or take them from ``tables`` (:meth:`tables` of a ranking built before, as
        the service keeps them: a start then costs milliseconds, not 1.4 s of a core), checked for their shape."""
        self.rules = rules
        self.ranks: tuple[Rank, ...] = deck_ranks(rules.deck_size)
        self.straights = straights(self.ranks)
        low = self.ranks[0]
        self.card_keys: list[int] = [
            ((RANK_KEYS[card_rank - low] << SUIT_BITS) if card_rank >= low else 0) | (1 << 3 * (code & 3))
            for code in range(52)
            for card_rank in [Rank(2 + (code >> 2))]
        ]
        self.in_deck: tuple[bool, ...] = tuple(Rank(2 + (code >> 2)) >= low for code in range(52))

        # The suit holding five or more cards, by the suit-count field, or -1.
        self.flush_suit: list[int] = [
            next((s for s in range(4) if (field_ >> 3 * s) & 7 >= 5), -1) for field_ in range(1 << SUIT_BITS)
        ]
        self._split_tables: SplitTables | None = None
        made = (build(self.ranks, self.straights, rules.flush_over_full) if tables is None
                else taken(tables, rules.deck_size, rules.flush_over_full))
        self.classes, self.without_flush, self.flush_by_bits, self.flush5_by_key = made
        """``classes``: every 5-card hand class of the deck, weakest first (``classes[strength - 1]``);
        ``without_flush``: by card count (5 to 7), the best non-flush strength by rank-key sum; ``flush_by_bits``: the
        best straight flush or flush by the bit set of the flush suit's ranks; ``flush5_by_key``: the 5-card flushes
        by rank-key sum (five distinct ranks: the sum identifies them), for Omaha-style hands."""

    def tables(self) -> RankingTables:
        """The built tables as plain integers (what :meth:`__init__` takes back): the classes weakest first, each as
        its category and ranks; the non-flush strengths by rank-key sum for 5, 6 and 7 cards; the flush strengths by
        rank bits; the 5-card flushes by rank-key sum."""
        return RankingTables(
            self.rules.deck_size, self.rules.flush_over_full,
            tuple((int(c.category), *(int(rank) for rank in c.ranks)) for c in self.classes),
            tuple((tuple(self.without_flush[size]), tuple(self.without_flush[size].values()))
                  for size in range(MIN_CARDS, MAX_CARDS + 1)),
            tuple(self.flush_by_bits), (tuple(self.flush5_by_key), tuple(self.flush5_by_key.values())))

    def __deepcopy__(self, memo: dict[int, object]) -> HandRanking:
        return self  # built once and never changed: shared, not copied

    def rank_multisets(self, size: int) -> Iterator[tuple[int, ...]]:
        """Every way to hold ``size`` cards as counts per deck rank (at most four of a rank)."""
        return rank_multisets(len(self.ranks), size)

    # -- single-hand evaluation ---------------------------------------------------------------------

    def strength(self, codes: Sequence[int]) -> int:
        """Strength of the best five of 5–7 cards given as codes (see :attr:`Card.code`).

        The fast path: it trusts that the codes are distinct and in the deck.  Use
        :meth:`evaluate` (or :meth:`check`) for cards that come from outside.
        """
        keys = self.card_keys
        total = 0
        for code in codes:
            total += keys[code]
        best = self.without_flush[len(codes)][total >> SUIT_BITS]
        suit = self.flush_suit[total & SUIT_MASK]
        if suit < 0:
            return best
        bits = 0
        for code in codes:
            if code & 3 == suit:
                bits |= 1 << (code >> 2)
        return max(best, self.flush_by_bits[bits])

    def strength_split(self, own: Sequence[int], board: Sequence[int], own_used: int = 2, board_used: int = 3) -> int:
        """Strength of the best hand using exactly ``own_used`` own cards and ``board_used`` board cards.

        Omaha and póquer sintético use exactly 2 own and 3 board cards (R-CARD-6, R-SYNTH-1): for those, the
        tables of :mod:`domain.cards.split_tables` (Omaha at the river: one lookup; otherwise one per pair of own
        cards), and a look at one suit when three board cards and two own cards have it.  Fast path, unchecked.
        """
        if own_used != 2 or board_used != 3:
            return self.strength_split_by_fives(own, board, own_used, board_used)
        tables = self._split_tables or self.split_tables
        if len(board) == 5 and len(own) == 4:  # Omaha at the river: one lookup, unrolled
            keys, _, _, board_suit, in_suit, _, _, river, boards, hands = tables
            v, w, x, y, z = board
            total = keys[v] + keys[w] + keys[x] + keys[y] + keys[z]
            a, b, c, d = own
            mine = keys[a] + keys[b] + keys[c] + keys[d]
            best = river[boards[total >> BOARD_SUIT_BITS] + hands[mine >> BOARD_SUIT_BITS]]
            suit = board_suit[total & BOARD_SUIT_MASK]  # three or more board cards of this suit, or -1
            if suit < 0:
                return best
            one = in_suit[suit]
            if one[a] + one[b] + one[c] + one[d] < 2:
                return best
            return with_flush(best, own, board, suit, tables)
        if 3 <= len(board) <= 5:
            return by_pairs(own, board, tables)
        return self.strength_split_by_fives(own, board)

    @property
    def split_tables(self) -> SplitTables:
        """The tables of 2-own + 3-board hands (:mod:`domain.cards.split_tables`), built on first use, once a
        process."""
        tables = self._split_tables
        if tables is None:
            with _building_split:
                tables = self._split_tables
                if tables is None:
                    tables = self._split_tables = build_split_tables(self)
        return tables

    def strength_split_by_fives(
        self, own: Sequence[int], board: Sequence[int], own_used: int = 2, board_used: int = 3
    ) -> int:
        """:meth:`strength_split` for any split, by looking up every 5-card hand it allows: the reference the
        tables of :mod:`domain.cards.split_tables` are tested against.  Fast path, unchecked."""
        keys = self.card_keys
        own_sums = [sum(chosen) for chosen in combinations([keys[c] for c in own], own_used)]
        board_sums = [sum(chosen) for chosen in combinations([keys[c] for c in board], board_used)]
        plain = self.without_flush[own_used + board_used]
        if not self._flush_possible(own, board, own_used, board_used):
            own_ranks = [total >> SUIT_BITS for total in own_sums]
            board_ranks = [total >> SUIT_BITS for total in board_sums]
            return max([plain[mine + shared] for shared in board_ranks for mine in own_ranks])
        flush, suit_of = self.flush5_by_key, self.flush_suit
        best = 0
        for mine in own_sums:
            for shared in board_sums:
                total = mine + shared
                key = total >> SUIT_BITS
                best = max(best, flush[key] if suit_of[total & SUIT_MASK] >= 0 else plain[key])
        return best

    @staticmethod
    def _flush_possible(own: Sequence[int], board: Sequence[int], own_used: int, board_used: int) -> bool:
        """Whether some suit has ``own_used`` own cards and ``board_used`` board cards."""
        own_counts = [0, 0, 0, 0]
        for code in own:
            own_counts[code & 3] += 1
        board_counts = [0, 0, 0, 0]
        for code in board:
            board_counts[code & 3] += 1
        return any(own_counts[s] >= own_used and board_counts[s] >= board_used for s in range(4))

    def hand_class(self, strength: int) -> HandClass:
        """The hand class of a strength (for its category and description)."""
        return self.classes[strength - 1]

    def check(self, cards: Sequence[Card], counts: Sequence[int] = (5, 6, 7)) -> None:
        """Reject cards that cannot form a hand here: a card twice (R-DECK-4), not in this deck (R-CARD-2),
        or a number of cards not in ``counts`` (R-CARD-6)."""
        if len(cards) not in counts:
            allowed = ", ".join(str(n) for n in counts)
            raise InvalidCardsError(f"{len(cards)} cards given, {allowed} expected", rule="R-CARD-6")
        seen: set[Card] = set()
        for card in cards:
            if card in seen:
                raise InvalidCardsError(f"{card} appears twice", rule="R-DECK-4")
            seen.add(card)
            if not self.in_deck[card.code]:
                raise InvalidCardsError(f"{card} is not in a {self.rules.deck_size}-card deck", rule="R-CARD-2")

    def evaluate(self, cards: Sequence[Card]) -> HandValue:
        """The best five of 5–7 cards (R-CARD-6, R-CARD-7), checked, with the five cards that make it."""
        self.check(cards)
        best = self.strength([card.code for card in cards])
        return self._value(best, (five for five in combinations(cards, 5)))

    def evaluate_split(
        self, own: Sequence[Card], board: Sequence[Card], own_used: int = 2, board_used: int = 3
    ) -> HandValue:
        """The best hand of exactly ``own_used`` own and ``board_used`` board cards (Omaha, sintético), checked."""
        self.check([*own, *board], counts=(len(own) + len(board),))
        if len(own) < own_used or len(board) < board_used:
            raise InvalidCardsError(
                f"{own_used} own and {board_used} board cards are needed, {len(own)} and {len(board)} given",
                rule="R-CARD-6",
            )
        best = self.strength_split([c.code for c in own], [c.code for c in board], own_used, board_used)
        fives = ((*a, *b) for a in combinations(own, own_used) for b in combinations(board, board_used))
        return self._value(best, fives)

    def _value(self, best: int, fives: Iterator[tuple[Card, ...]]) -> HandValue:
        hand_class = self.hand_class(best)
        for five in fives:
            if self.strength([card.code for card in five]) == best:
                return HandValue(best, hand_class, self._display_order(five, hand_class))
        raise AssertionError("no five cards make the best hand")  # pragma: no cover

    def _display_order(self, five: tuple[Card, ...], hand_class: HandClass) -> tuple[Card, ...]:
        """The five cards as announced: the most copies and highest ranks first; a straight from its top."""
        if hand_class.category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
            top = hand_class.ranks[0]
            return tuple(sorted(five, key=lambda c: (c.rank <= top, c.rank, c.suit), reverse=True))
        count = {rank: sum(1 for c in five if c.rank == rank) for rank in {c.rank for c in five}}
        return tuple(sorted(five, key=lambda c: (count[c.rank], c.rank, c.suit), reverse=True))


_rankings: dict[tuple[int, bool | None], HandRanking] = {}
_building = threading.Lock()


def in_use(rules: RankingRules) -> HandRanking | None:
    """The ranking this process already ranks hands of ``rules`` by (built by :func:`hand_ranking` or given to
    :func:`provide`), or None: a kept copy need not be read."""
    return _rankings.get((rules.deck_size, rules.flush_over_full))


def provide(ranking: HandRanking) -> HandRanking:
    """Make ``ranking`` (made from kept tables) the one :func:`hand_ranking` gives for its rules, unless one was
    built already (that one stays: every hand of the process ranks by the same tables); the one in use."""
    rules = ranking.rules
    with _building:
        current = _rankings.setdefault((rules.deck_size, rules.flush_over_full), ranking)
        if rules.flush_over_full == RankingRules(rules.deck_size).flush_over_full:  # the deck's default rule
            _rankings.setdefault((rules.deck_size, None), current)
    return current


def hand_ranking(deck_size: int = 52, flush_beats_full_house: bool | None = None) -> HandRanking:
    """The ranking for a deck size and R-CARD-5 setting, built on first use and then shared by the whole process.

    Thread-safe and built once: threads that need a ranking being built wait for it instead of each building their
    own (seconds of a core each: a service's worker threads did that after a restart, issue 13)."""
    key = (deck_size, flush_beats_full_house)
    ranking = _rankings.get(key)
    if ranking is not None:
        return ranking
    rules = RankingRules(deck_size, flush_beats_full_house)  # validates the deck (R-CARD-2)
    with _building:
        ranking = _rankings.get((deck_size, rules.flush_over_full))
        if ranking is None:
            ranking = HandRanking(rules)
            _rankings[(deck_size, rules.flush_over_full)] = ranking
        _rankings[key] = ranking
    return ranking
