"""Helpers for the banked games: hands with boxes, random legal play."""

from __future__ import annotations

import random

from domain.banked.cdp import CdpHand, CdpSettings, CdpStage
from domain.banked.thb import STANDARD_LIMITS, Stage, ThbHand, ThbSettings
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity, composition
from domain.circle.hand import TABLES_NAMESPACE

RED = DeckIdentity(52, BackColour.RED)


def thb_hand(antes: dict[int, int], bonuses: dict[int, int] | None = None, settings: ThbSettings | None = None,
             number: int = 1) -> ThbHand:
    """A Texas Hold'em Bonus hand with these antes and bonuses, bets closed."""
    hand = ThbHand.start(TABLES_NAMESPACE, number, settings or ThbSettings(STANDARD_LIMITS[5]), RED)
    for box, amount in antes.items():
        hand.place_ante(box, amount)
    for box, amount in (bonuses or {}).items():
        hand.place_bonus(box, amount)
    hand.close_bets()
    return hand


def play_thb_randomly(hand: ThbHand, rng: random.Random, deck: list[Card] | None = None, *,
                      irregular: bool = False) -> None:
    """Random legal decisions; cards from a shuffled deck; 1000:1 bonuses approved or refused at random.  With
    ``irregular``, now and then the irregularities of R-THB-11: a box dealt the wrong number of cards, a dealer card
    shown, the pit's void of the whole play."""
    cards = deck if deck is not None else rng.sample(list(composition(52)), 52)
    stock = iter(cards)
    for _ in range(500):
        if hand.is_complete:
            return
        if irregular and _irregularity(hand, rng):
            continue
        if hand.next_card is not None:
            hand.deal(next(stock))
        elif (box := hand.to_decide) is not None:
            roll = rng.random()
            if hand.stage is Stage.PREFLOP:
                hand.fold(box) if roll < 0.25 else hand.flop_bet(box, 2 * hand.bets[box]["ante"])
            else:
                hand.street_bet(box, hand.bets[box]["ante"]) if roll < 0.5 else hand.check(box)
        elif hand.pending_approval:
            box = min(hand.pending_approval)
            if rng.random() < 0.5:
                hand.approve_bonus(box, "director", "checked")
            else:
                hand.refuse_bonus(box, "director", "test")
        else:
            raise AssertionError(f"stuck at {hand.stage}")
    raise AssertionError("the hand did not end")


def _irregularity(hand: ThbHand, rng: random.Random) -> bool:
    """Maybe one irregularity of R-THB-11, if it can happen now; whether one did."""
    roll = rng.random()
    if roll < 0.03 and hand.live_boxes and hand.stage is not Stage.APPROVAL:
        hand.wrong_card_count(rng.choice(hand.live_boxes))
    elif roll < 0.045 and hand.can_dealer_card_shown():
        hand.dealer_card_shown()
    elif roll < 0.05 and hand.can_void("R-THB-11", "a card turned face up"):
        hand.void("R-THB-11", "a card turned face up")
    else:
        return False
    return True


def cdp_hand(antes: dict[int, int], settings: CdpSettings | None = None, number: int = 1) -> CdpHand:
    """A Casino Draw Poker hand with these antes, bets closed."""
    hand = CdpHand.start(TABLES_NAMESPACE, number, settings or CdpSettings(5, 100), RED)
    for box, amount in antes.items():
        hand.place_ante(box, amount)
    hand.close_bets()
    return hand


def play_cdp_randomly(hand: CdpHand, rng: random.Random) -> None:
    """Random legal exchanges and decisions."""
    stock = iter(rng.sample(list(composition(52)), 52))
    for _ in range(500):
        if hand.is_complete:
            return
        if hand.next_card is not None:
            hand.deal(next(stock))
            continue
        box = hand.to_decide
        assert box is not None, hand.stage
        if hand.stage is CdpStage.EXCHANGE:
            hand.exchange(box, rng.sample(hand.cards[box], rng.randint(0, 2)))
        elif rng.random() < 0.7:
            hand.play(box, 2 * hand.bets[box]["ante"])
        else:
            hand.fold(box)
    raise AssertionError("the hand did not end")
