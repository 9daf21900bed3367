"""The service never trusts the shoe blindly: within a hand a shoe read's sequence number only goes forward (R-DECK-4),
a shoe read carries one (R-AUD-1); a card keyed in by the croupier between two reads is allowed."""

from __future__ import annotations

import pytest

from domain.banked.thb import ThbHand
from domain.cards.cards import Card
from domain.circle.hand import Hand
from domain.errors import RuleError
from tests.support.banked_support import thb_hand
from tests.support.circle_support import holdem, start


def _refused(hand: Hand | ThbHand, card: str, sequence: int | None, rule: str) -> None:
    before = (hand.version, len(hand.pending_events), hand.last_shoe_read)
    with pytest.raises(RuleError) as refused:
        hand.deal(Card.parse(card), source="shoe", sequence=sequence)
    assert refused.value.rule == rule
    assert (hand.version, len(hand.pending_events), hand.last_shoe_read) == before  # no event, nothing changed


@pytest.mark.parametrize("stale", [3, 2, 1])
def test_a_repeated_or_stale_shoe_read_is_never_dealt_in_a_circle_hand(stale: int) -> None:
    hand = start(holdem(), [100, 100, 100])
    hand.deal(Card.parse("As"), source="shoe", sequence=1)
    hand.deal(Card.parse("Kd"), source="croupier")  # read 2 was unreadable: keyed in by hand
    hand.deal(Card.parse("Qh"), source="shoe", sequence=3)
    _refused(hand, "Jc", stale, "R-DECK-4")
    _refused(hand, "Jc", None, "R-AUD-1")
    hand.deal(Card.parse("Jc"), source="shoe", sequence=4)
    sources = [(e.source, e.sequence) for e in hand.collect_events() if isinstance(e, Hand.CardDealt)]
    assert sources == [("shoe", 1), ("croupier", None), ("shoe", 3), ("shoe", 4)]


def test_a_repeated_shoe_read_is_never_dealt_in_a_banked_hand() -> None:
    hand = thb_hand({1: 10})
    hand.deal(Card.parse("As"), source="shoe", sequence=7)
    _refused(hand, "Kd", 7, "R-DECK-4")
    hand.deal(Card.parse("Kd"), source="shoe", sequence=8)
    assert hand.last_shoe_read == 8
