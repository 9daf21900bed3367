"""A Hold'em table dealt by a shoe, whose two decks a shuffler the test chooses shuffles (a fair one, or one that
passes the deck through), played through the application."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from domain.actions import Action, Call, Check, Deal, Show
from domain.cards.cards import Card
from domain.cards.decks import composition
from domain.circle.settings import BettingStructure, TableSettings
from domain.device_reports import DeviceReport
from service.app.application import PokerTables
from service.app.commands import Act, AddChips, OpenTable, RecordDeviceReport, Sit, StartHand
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
        app.handle(OpenTable(self.ids(), table, SETTINGS))
        for seat in (1, 2, 3):
            app.handle(Sit(self.ids(), table, seat, 100))

    def hand(self, shuffler: Shuffler, *, serial: str = "SN-7", device: str = "PT-SHUF",
             keyed_at: int | None = None) -> None:
        """Shuffle the next deck (reported by ``device``), then play a hand to its end, every card read by the shoe
        (but the ``keyed_at``-th, keyed in by the croupier); the deck keeps its order for its next shuffle."""
        deck = next_deck(self.app, self.table)
        colour = deck.colour.value
        order = self.decks.get(colour) or _uniform(list(composition(52)), self.rng)
        self.decks[colour] = order = shuffler(order, self.rng)
        self.app.handle(RecordDeviceReport(self.ids(), self.table, DeviceReport(device, serial, "shuffle", colour,
                                                                                "ok")), PIT)
        for seat, stack in self.app.table(self.table).stacks.items():
            if stack < 10:
                self.app.handle(AddChips(self.ids(), self.table, seat, 100))
        self.app.handle(StartHand(self.ids(), self.table, deck))
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
                command: Action = Deal(next(cards)) if dealt == keyed_at else Deal(next(cards), "shoe", next(self.read))
            elif legal is not None:
                command = Check(legal.seat) if legal.check else Call(legal.seat)
            else:
                turn = state.to_show
                seat = hand.seat_of(turn) if turn is not None else hand.seat_of(
                    next(p for p in state.in_hand if p not in state.shown))
                command = Show(seat=seat)
            self.app.handle(Act(self.ids(), self.table, command), dealer(self.table))
        raise AssertionError("the hand did not end")


def _app() -> PokerTables:
    return PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
