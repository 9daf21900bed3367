"""Casino Draw Poker's rules as pure functions and data (RULES §7): the table's settings, the bank's qualification
and house way, and the settlement.  The tables' hands (:class:`domain.banked.cdp.CdpHand`) and the odds simulator
(``pokertable odds casino-draw``) both use these.

Every **decision** of RULES.md §7 is a setting of :class:`CdpSettings`, the decision as its default
(docs/banked.md lists them): ``house_way`` (R-CDP-4), ``unqualified_play_bet`` (R-CDP-5) and ``pay_table``
(R-CDP-6).

>>> house_way(parse_cards("5c 5d Kh 9s 2c"))  # a pair below eights: keep it and the king, change two
[Card(rank=<Rank.NINE: 9>, suit=<Suit.SPADES: 3>), Card(rank=<Rank.TWO: 2>, suit=<Suit.CLUBS: 0>)]
>>> [str(c) for c in house_way(parse_cards("5h 6h 7h 8h Kc"))]  # a four-card flush: change one
['Kc']
>>> qualifies(parse_cards("8c 8d 2h 3s 4c")), qualifies(parse_cards("7c 7d Ah Ks Qc"))
(True, False)
>>> settings = CdpSettings(5, 100)
>>> box_result({"ante": 10, "play": 20}, folded=False, bank_qualified=False, player=None, bank=None,
...            settings=settings)  # R-CDP-5: the ante pays 1:1, the play bet comes back
{'ante': 10, 'play': 0}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from domain.banked.paytables import STANDARD_CASINO_DRAW, CasinoDrawPayTable
from domain.cards.cards import Card, Rank, parse_cards  # noqa: F401  (parse_cards: doctest)
from domain.cards.hand_classes import Category
from domain.cards.ranking import HandValue, hand_ranking
from domain.errors import RuleError

UNQUALIFIED_PLAY_BET = ("returned", "paid")
"""R-CDP-5 (decision): the play bet of a box when the bank does not qualify: returned, or paid 1:1."""


class CdpRuleError(RuleError):
    """A Casino Draw Poker command the rules do not allow now; nothing changed."""


def qualifies(cards: Sequence[Card]) -> bool:
    """R-CDP-4: the bank qualifies with a pair of eights or better."""
    value = hand_ranking(52).evaluate(list(cards))
    if value.category is Category.PAIR:
        return value.hand_class.ranks[0] >= Rank.EIGHT
    return value.category > Category.PAIR


def house_way(cards: Sequence[Card]) -> list[Card]:
    """R-CDP-4 (decision, a table setting): the cards a non-qualifying bank changes.

    With a pair below eights, keep the pair and the highest other card and change two; with no pair, keep a
    four-card flush or an open-ended four-card straight and change one, else keep the three highest and change two.
    """
    hand = sorted(cards, key=lambda c: (c.rank, c.suit), reverse=True)
    counts = Counter(card.rank for card in hand)
    pairs = [rank for rank, n in counts.items() if n == 2]
    if pairs:
        kept = [c for c in hand if c.rank == pairs[0]] + [c for c in hand if c.rank != pairs[0]][:1]
        return [c for c in hand if c not in kept]
    suits = Counter(card.suit for card in hand)
    suit, n = suits.most_common(1)[0]
    if n == 4:
        return [c for c in hand if c.suit != suit]
    for odd in hand:
        rest = sorted(c.rank for c in hand if c is not odd)
        if all(b - a == 1 for a, b in pairwise(rest)) and rest[-1] < Rank.ACE:
            return [odd]
    return hand[3:]


HOUSE_WAYS: dict[str, Callable[[Sequence[Card]], list[Card]]] = {"regulation": house_way}
"""House ways by name (R-CDP-4 is a table setting); ``regulation`` is the decision written in RULES.md."""


@dataclass(frozen=True, slots=True)
class CdpSettings:
    """A Casino Draw Poker table: ante limits (R-CDP-1), and the decisions: house way (R-CDP-4), the play bet
    when the bank does not qualify (R-CDP-5), pay table (R-CDP-6)."""

    ante_min: int
    ante_max: int
    pay_table: CasinoDrawPayTable = STANDARD_CASINO_DRAW
    house_way: str = "regulation"
    unqualified_play_bet: str = "returned"

    def __post_init__(self) -> None:
        if not 0 < self.ante_min <= self.ante_max:
            raise CdpRuleError("the ante has a positive minimum not above its maximum", rule="R-CDP-1")
        if self.house_way not in HOUSE_WAYS:
            raise CdpRuleError(f"decision: unknown house way {self.house_way!r}", rule="R-CDP-4")
        if self.unqualified_play_bet not in UNQUALIFIED_PLAY_BET:
            raise CdpRuleError(f"decision: when the bank does not qualify the play bet is "
                               f"{' or '.join(UNQUALIFIED_PLAY_BET)}, not {self.unqualified_play_bet!r}",
                               rule="R-CDP-5")

    def to_dict(self) -> dict[str, Any]:
        """Plain data, for events."""
        return {"ante_min": self.ante_min, "ante_max": self.ante_max, "pay_table": self.pay_table.to_dict(),
                "house_way": self.house_way, "unqualified_play_bet": self.unqualified_play_bet}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CdpSettings:
        """Settings from :meth:`to_dict`'s form (settings stored before ``unqualified_play_bet`` take its
        default, the behaviour of that time)."""
        return cls(data["ante_min"], data["ante_max"], CasinoDrawPayTable.from_dict(data["pay_table"]),
                   data["house_way"], data.get("unqualified_play_bet", "returned"))


def box_result(bets: Mapping[str, int], *, folded: bool, bank_qualified: bool | None, player: HandValue | None,
               bank: HandValue | None, settings: CdpSettings) -> dict[str, int]:
    """A box's net result on its ante and play bet.

    Folded: the ante is lost (R-CDP-3).  The bank does not qualify: the ante pays 1:1 and, by the decision of
    R-CDP-5 (setting ``unqualified_play_bet``), the play bet is returned (or paid 1:1).  The bank qualifies: the
    higher hand wins (R-CDP-6): the player's ante pays 1:1 and his play bet by the pay table; the bank's win takes
    both; a tie returns both.
    """
    ante = bets["ante"]
    if folded:
        return {"ante": -ante}
    play = bets["play"]
    if not bank_qualified:
        return {"ante": ante, "play": play if settings.unqualified_play_bet == "paid" else 0}
    if player is None or bank is None:
        raise CdpRuleError("a qualified bank is compared with the player's hand", rule="R-CDP-6")
    if player.strength > bank.strength:
        return {"ante": ante, "play": play * settings.pay_table.pay_for(player.category, player.hand_class.is_royal)}
    if player.strength < bank.strength:
        return {"ante": -ante, "play": -play}
    return {"ante": 0, "play": 0}


def box_results(bets: Mapping[int, Mapping[str, int]], cards: Mapping[int, Sequence[Card]], bank: Sequence[Card], *,
                folded: Collection[int], bank_qualified: bool | None,
                settings: CdpSettings) -> dict[int, dict[str, int]]:
    """Every box's net result (:func:`box_result`), in box order: a box still in is compared with the bank only
    when the bank qualified (R-CDP-5, R-CDP-6)."""
    ranking = hand_ranking(52)
    house = ranking.evaluate(list(bank)) if bank_qualified else None
    return {box: box_result(bets[box], folded=box in folded, bank_qualified=bank_qualified,
                            player=ranking.evaluate(list(cards[box])) if bank_qualified and box not in folded
                            else None, bank=house, settings=settings)
            for box in sorted(bets)}
