"""Helpers for circle-poker tests: settings, hands dealt from a known order, and random legal play."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.application import Application

from domain.cards.cards import Card, Rank, parse_cards
from domain.cards.decks import BackColour, DeckIdentity, composition
from domain.circle.hand import TABLES_NAMESPACE, Hand
from domain.circle.seating import button_of
from domain.circle.settings import BettingStructure, RakePolicy, TableSettings
from domain.circle.state import Phase
from domain.circle.table import Table


def holdem(blinds: tuple[int, ...] = (1, 2), *, structure: BettingStructure = BettingStructure.NO_LIMIT,
           burn: bool = False, rake: RakePolicy | None = None, **stakes: Any) -> TableSettings:
    """Hold'em settings (no burns by default, so a test deals only the cards it names)."""
    return TableSettings.create("holdem", structure, blinds=blinds, burn_cards=burn, rake=rake, **stakes)


def omaha(blinds: tuple[int, ...] = (1, 2), *, burn: bool = False) -> TableSettings:
    """Pot-limit Omaha settings."""
    return TableSettings.create("omaha", BettingStructure.POT_LIMIT, blinds=blinds, burn_cards=burn)


def stud(ante: int = 1, bring_in: int = 2, small: int = 5, big: int = 10, *, burn: bool = False) -> TableSettings:
    """Fixed-limit seven-card stud settings."""
    return TableSettings.create("stud7", BettingStructure.FIXED_LIMIT, antes=ante, bring_in=bring_in,
                                small_bet=small, big_bet=big, burn_cards=burn)


def start(settings: TableSettings, stacks: Sequence[int], number: int = 1, *, openers: Rank = Rank.JACK,
          carried_pot: int = 0) -> Hand:
    """A hand with seats 1…n in dealing order (the button is the last seat; at a table where la mano speaks
    first, its holder is the first)."""
    seats = list(range(1, len(stacks) + 1))
    return Hand.start(TABLES_NAMESPACE, number, settings, seats=seats, stacks=list(stacks),
                      button_seat=button_of(settings, seats),
                      deck=DeckIdentity(settings.deck_for(len(stacks)), BackColour.BLUE), openers=openers,
                      carried_pot=carried_pot)


def deal(hand: Hand, cards: str | Iterable[Card]) -> None:
    """Deal these cards, in order, to wherever each is due."""
    for card in parse_cards(cards) if isinstance(cards, str) else cards:
        hand.deal(card, source="test")


def deal_while_due(hand: Hand, deck: Iterator[Card]) -> None:
    """Deal from ``deck`` until no card is due."""
    while hand.state.next_slot is not None:
        hand.deal(next(deck), source="test")


class Stock:
    """The cards not yet dealt, in order, as the test's shuffler prepared them; reshuffled discards rejoin it."""

    def __init__(self, cards: Iterable[Card], rng: random.Random) -> None:
        self.cards = list(cards)
        self.rng = rng

    def __iter__(self) -> Iterator[Card]:
        return self

    def __next__(self) -> Card:
        if not self.cards:
            raise StopIteration
        return self.cards.pop(0)

    def reshuffle(self, hand: Hand) -> None:
        """R-DRAW-8: the hand's reshufflable discards, shuffled, become the stock."""
        back = hand.state.reshufflable()
        hand.reshuffle_discards()
        self.rng.shuffle(back)
        self.cards.extend(back)


def play_randomly(hand: Hand, rng: random.Random, deck: Iterator[Card]) -> None:
    """Play the hand to its end with random legal actions; cards come from ``deck``."""
    stock = deck if isinstance(deck, Stock) else Stock(deck, rng)
    for _ in range(1000):
        if hand.is_complete:
            return
        if hand.state.next_slot is not None:
            if hand.can_reshuffle_discards():
                stock.reshuffle(hand)
            hand.deal(next(stock), source="test")
            continue
        drawer = hand.drawer_seat
        if drawer is not None:
            position = hand.position_of(drawer)
            held = hand.state.cards_of(position)
            hand.discard(drawer, rng.sample(held, rng.randint(hand.state.min_discard(position),
                                                              hand.state.max_discard(position))))
            continue
        legal = hand.legal_actions()
        if legal is not None:
            _random_action(hand, legal.seat, rng)
            continue
        if hand.state.phase is Phase.SHOWDOWN or hand.state.betting_closed:
            contenders = [hand.seat_of(p) for p in hand.state.in_hand if p not in hand.state.shown]
            turn = hand.state.to_show  # R-CIRC-13: at the showdown, in order; all-in before it, any order
            seat = rng.choice(contenders) if turn is None else hand.seat_of(turn)
            if rng.random() < 0.2 and hand.can_muck(seat):
                hand.muck(seat)
            else:
                hand.show(seat)
            continue
        raise AssertionError(f"stuck: {hand.snapshot()}")
    raise AssertionError("the hand did not end in 1000 steps")


def _random_action(hand: Hand, seat: int, rng: random.Random) -> None:
    legal = hand.legal_actions()
    assert legal is not None
    roll = rng.random()
    if legal.bring_in is not None and (roll < 0.6 or legal.raise_min is None):
        hand.post_bring_in(seat)
    elif legal.raise_min is not None and legal.raise_max is not None and (roll < 0.3 or legal.bring_in is not None):
        amounts = [legal.raise_min, legal.raise_max]
        if hand.state.settings.structure is not BettingStructure.FIXED_LIMIT:  # fixed-limit: one size or the other
            amounts.append(rng.randint(legal.raise_min, legal.raise_max))
        amount = rng.choice(amounts)
        hand.bet_or_raise_to(seat, amount)
    elif legal.call is not None and roll < 0.45 and legal.fold:
        hand.fold(seat)
    elif legal.check:
        hand.check(seat)
    else:
        hand.call(seat)


def shuffled(size: int, rng: random.Random) -> Iterator[Card]:
    """A deck in a random order (the test plays the shuffler)."""
    cards = list(composition(size))
    rng.shuffle(cards)
    return iter(cards)


class Hands(Application[UUID]):
    """An in-memory eventsourcing application, to store and reload hands in tests."""

    env = {"PERSISTENCE_MODULE": "eventsourcing.popo"}  # noqa: RUF012 (eventsourcing reads this mapping)


DRAW = TableSettings.create("draw", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4)


def _draw_table(players: int = 3, settings: TableSettings = DRAW) -> Table:
    table = Table.open("Mesa D", settings)
    for seat in range(1, players + 1):
        table.sit(seat, 50)
    return table


def _deck(table: Table, colour: BackColour = BackColour.RED) -> DeckIdentity:
    return DeckIdentity(table.deck_size_for_next_hand(), colour)
