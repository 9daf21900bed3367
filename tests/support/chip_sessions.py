"""A circle table played hand after hand at random (voids, blank hands, absences, exposed cards, rebuys and players
leaving), counting every chip brought to it and taken away."""

from __future__ import annotations

import random

from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.table import Table
from tests.support.circle_support import Stock, _random_action, shuffled
from tests.support.circle_tables import Table as Setup
from tests.support.circle_tables import chips_in_play


class Session:
    """A table played hand after hand; ``bought`` counts every chip brought to it, ``taken`` every chip taken away."""

    def __init__(self, setup: Setup, rng: random.Random) -> None:
        self.rng = rng
        self.table = Table.open("Mesa P", setup.settings)
        self.bought = self.taken = self.raked = 0
        self.counts = {"void": 0, "blank": 0, "absent": 0, "exposed": 0, "rebuy": 0, "left": 0}
        for seat, stack in enumerate(setup.stacks, start=1):
            self.table.sit(seat, stack)
            self.bought += stack
        self.min_players = setup.settings.variant_rules.min_players
        self.max_players = setup.settings.variant_rules.max_players
        self.hands: list[Hand] = []

    def on_table(self) -> int:
        """Every chip at the table: stacks, the carried pot, and what the house raked."""
        return sum(self.table.stacks.values()) + self.table.carried_pot + self.raked

    def between_hands(self) -> None:
        table, rng = self.table, self.rng
        for seat, stack in sorted(table.stacks.items()):
            if stack == 0 or rng.random() < 0.05:  # a busted player (or one now and then) buys more chips
                amount = rng.randint(1, 120)
                table.add_chips(seat, amount)
                self.bought += amount
                self.counts["rebuy"] += 1
        if len(table.stacks) > self.min_players and rng.random() < 0.08:  # a player leaves with his chips
            seat = rng.choice(sorted(table.stacks))
            self.taken += table.stacks[seat]
            table.leave(seat)
            self.counts["left"] += 1
        free = [s for s in range(1, table.seat_count + 1) if s not in table.stacks]
        if free and len(table.stacks) < self.max_players and rng.random() < 0.1:
            stack = rng.randint(1, 150)
            table.sit(rng.choice(free), stack)
            self.bought += stack

    def playable(self) -> bool:
        """Whether the game deals a hand to the players with chips."""
        players = sum(1 for stack in self.table.stacks.values() if stack)
        return max(2, self.min_players) <= players <= self.max_players

    def play_hand(self) -> Hand:
        table, rng = self.table, self.rng
        total = self.on_table()
        hand = table.start_hand(DeckIdentity(table.deck_size_for_next_hand(), BackColour.RED))
        self.hands.append(hand)
        stock = Stock(shuffled(hand.state.deck_size, rng), rng)
        for _ in range(2000):
            if hand.is_complete:
                break
            self._one_step(hand, stock)
            assert chips_in_play(hand) + self._off_hand() == total, "chips appeared or vanished during the hand"
        assert hand.is_complete
        self.raked += sum(award.rake for award in hand.state.awards)
        self.counts["void"] += hand.state.void_rule is not None
        self.counts["blank"] += hand.state.passed_rule == "R-DRAW-3"
        table.finish_hand(hand)
        assert self.on_table() == total, "chips appeared or vanished at the end of the hand"
        return hand

    def _off_hand(self) -> int:
        """Chips at the table outside the hand: stacks of players not dealt in, and earlier hands' rake."""
        dealt = set(self.hands[-1].seats)
        return sum(s for seat, s in self.table.stacks.items() if seat not in dealt) + self.raked

    def _irregularity(self, hand: Hand) -> bool:
        """Now and then a void, an exposed card or an absent player; whether one happened."""
        rng, state = self.rng, hand.state
        roll = rng.random()
        if roll < 0.01:
            hand.void("R-CIRC-14", "random void in a property test")
            return True
        if roll < 0.04:  # a player exposes a down card by mistake
            candidates = [(hand.seat_of(p), card) for p in state.in_hand for card, up in state.hole[p] if not up]
            if candidates:
                seat, card = rng.choice(candidates)
                hand.expose_card(seat, card)
                self.counts["exposed"] += 1
                return True
        if roll < 0.07 and hand.actor_seat is not None:
            hand.declare_absent(hand.actor_seat)
            self.counts["absent"] += 1
            return True
        return False

    def _one_step(self, hand: Hand, stock: Stock) -> None:
        rng, state = self.rng, hand.state
        if self._irregularity(hand):
            return
        if state.next_slot is not None:
            if hand.can_reshuffle_discards():
                stock.reshuffle(hand)
            hand.deal(next(stock), source="test")
        elif (drawer := hand.drawer_seat) is not None:
            position = hand.position_of(drawer)
            held = state.cards_of(position)
            count = rng.randint(state.min_discard(position), state.max_discard(position))
            hand.discard(drawer, rng.sample(held, count))
        elif (legal := hand.legal_actions()) is not None:
            if state.street.needs_openers and state.opener is None and rng.random() < 0.6:
                hand.check(legal.seat)  # players open only now and then, so blank hands come in runs
            else:
                _random_action(hand, legal.seat, rng)
        else:
            seat = hand.next_to_show_seat or hand.seat_of(
                next(p for p in state.in_hand if p not in state.shown))
            if rng.random() < 0.2 and hand.can_muck(seat):
                hand.muck(seat)
            else:
                hand.show(seat)


def _setup(variant: str, rng: random.Random) -> Setup:
    if variant == "stud7":
        settings_ = TableSettings.create("stud7", BettingStructure.FIXED_LIMIT, antes=1, bring_in=2, small_bet=5,
                                         big_bet=10)
        players = 5
    elif variant == "stud5":
        settings_ = TableSettings.create("stud5", BettingStructure.FIXED_LIMIT, antes=1, bring_in=2, small_bet=5,
                                         big_bet=10)
        players = 5
    elif variant == "draw":
        settings_ = TableSettings.create("draw", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4)
        players = 5
    elif variant == "sintetico":
        settings_ = TableSettings.create("sintetico", BettingStructure.POT_LIMIT, antes=1, min_bet=2)
        players = 5
    elif variant == "pineapple":  # R-PINE-1 (house game): three down cards, one thrown after the flop betting
        settings_ = TableSettings.create("pineapple", BettingStructure.FIXED_LIMIT, blinds=(1, 2), small_bet=2,
                                         big_bet=4)
        players = 7
    else:
        settings_ = TableSettings.create(variant, BettingStructure.NO_LIMIT, blinds=(1, 2))
        players = 6
    return Setup(settings_, [rng.randint(5, 120) for _ in range(players)])
