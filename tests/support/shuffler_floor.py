"""A Hold'em table dealt by a shoe, whose two decks a shuffler the test chooses shuffles (a fair one, or one that
passes the deck through), played through the application."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from domain.cards.cards import Card
from domain.cards.decks import composition
from domain.circle.settings import BettingStructure, TableSettings
from domain.device_reports import DeviceReport
from service.app.application import HandCommand, PokerTables
from tests.support.app_play import (
    PIT,
    Ids,
    dealer,
    next_deck,
)

SETTINGS = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
Shuffler = Callable[[list[Card], random.Random], list[Card]]


def _uniform(order: list[Card], rng: random.Random) -> list[Card]:
    return rng.sample(order, len(order))


def _pass_through(order: list[Card], rng: random.Random) -> list[Card]:
    del rng
    return list(order)  # a shuffler that does not shuffle: the deck comes out as it went in


class _Floor:
    """A Hold'em table dealt by a shoe, whose two decks a shuffler the test chooses shuffles."""

    def __init__(self, app: PokerTables, table: str = "Mesa S") -> None:
        self.app, self.table, self.ids = app, table, Ids(table)
        self.rng = random.Random(19)
        self.decks: dict[str, list[Card]] = {}
        self.read = itertools.count(1)
        app.open_table(self.ids(), table, SETTINGS)
        for seat in (1, 2, 3):
            app.sit(self.ids(), table, seat, 100)

    def hand(self, shuffler: Shuffler, *, serial: str = "SN-7", device: str = "PT-SHUF",
             keyed_at: int | None = None) -> None:
        """Shuffle the next deck (reported by ``device``), then play a hand to its end, every card read by the shoe
        (but the ``keyed_at``-th, keyed in by the croupier); the deck keeps its order for its next shuffle."""
        deck = next_deck(self.app, self.table)
        colour = deck.colour.value
        order = self.decks.get(colour) or _uniform(list(composition(52)), self.rng)
        self.decks[colour] = order = shuffler(order, self.rng)
        self.app.record_device_report(self.ids(), self.table, DeviceReport(device, serial, "shuffle", colour, "ok"),
                                      PIT)
        for seat, stack in self.app.table(self.table).stacks.items():
            if stack < 10:
                self.app.add_chips(self.ids(), self.table, seat, 100)
        self.app.start_hand(self.ids(), self.table, deck)
        cards = iter(order)
        dealt = 0
        for _ in range(200):
            record = self.app.table(self.table)
            if record.hand_in_progress is None:
                return
            hand = self.app.hand(record.hand_in_progress)
            state, legal = hand.state, hand.legal_actions()
            if state.next_slot is not None:
                dealt += 1
                by_shoe = {} if dealt == keyed_at else {"source": "shoe", "sequence": next(self.read)}
                command = HandCommand("deal", card=next(cards), **by_shoe)  # type: ignore[arg-type]
            elif legal is not None:
                command = HandCommand("check" if legal.check else "call", seat=legal.seat)
            else:
                turn = state.to_show
                seat = hand.seat_of(turn) if turn is not None else hand.seat_of(
                    next(p for p in state.in_hand if p not in state.shown))
                command = HandCommand("show", seat=seat)
            self.app.hand_command(self.ids(), self.table, command, dealer(self.table))
        raise AssertionError("the hand did not end")


def _app() -> PokerTables:
    return PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
