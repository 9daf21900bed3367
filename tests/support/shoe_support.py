"""Hands dealt from the shoe over gRPC (issue 19): a Hold'em table whose red and blue decks are shuffled by a
shuffler the test chooses, each shuffle reported (``RecordDeviceReport``), every card read by the shoe in order
(``CARD_SOURCE_SHOE`` with the next read sequence number), the players checking or calling down to a showdown.

As in tests/app/test_shuffler_monitor.py, through the application: the deck keeps its order between hands (the cards
dealt on top, in the order read, then the stub: the default gathering), and the shuffler is a function of it."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from domain.cards.decks import composition
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support.grpc_support import Client, act, open_circle, seat, start

Shuffler = Callable[[list[str], random.Random], list[str]]
DECK = tuple(str(card) for card in composition(52))


def uniform(order: list[str], rng: random.Random) -> list[str]:
    """A fair shuffler: every order equally likely."""
    return rng.sample(order, len(order))


def pass_through(order: list[str], rng: random.Random) -> list[str]:
    """A shuffler that does not shuffle: the deck comes out as it went in."""
    del rng
    return list(order)


class ShoeTable:
    """A no-limit Hold'em table (blinds 1/2, ``seats`` players with 100 chips each) dealt by its croupier's shoe."""

    def __init__(self, pit: Client, dealer: Client, table: str, *, seats: int = 2, seed: int = 19) -> None:
        self.dealer, self.table = dealer, table
        self.rng = random.Random(seed)
        self.decks: dict[int, list[str]] = {}
        self.sequence = itertools.count(1)
        self.hands = 0
        self.read: list[tuple[int, list[str]]] = []
        """Each hand's deck colour and the cards the shoe read, in order."""
        open_circle(pit, table, pb.GAME_HOLDEM, blinds=[1, 2])
        for number in range(1, seats + 1):
            seat(dealer, table, number, 100)

    def hand(self, shuffler: Shuffler, *, serial: str, device: str = "PT-SHUF") -> None:
        """The next deck (red for odd hands, blue for even, R-DECK-2) shuffled and reported by ``device``, then a
        hand dealt from it by the shoe and played to its end (the cards read: :attr:`read`)."""
        self.hands += 1
        colour = pb.DECK_COLOUR_RED if self.hands % 2 else pb.DECK_COLOUR_BLUE
        order = self.decks.get(colour) or uniform(list(DECK), self.rng)
        self.decks[colour] = order = shuffler(order, self.rng)
        self.dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(
            command_id=self.dealer.next_id(), table=self.table, device=device, serial=serial,
            kind=pb.DEVICE_REPORT_KIND_SHUFFLE, colour=colour, result="ok"))
        start(self.dealer, self.table, colour)
        cards = iter(order)
        read: list[str] = []
        self.read.append((colour, read))
        for _ in range(100):
            legal = self.dealer.GetLegalActions(svc.GetLegalActionsRequest(table=self.table))
            allowed = set(legal.allowed) - {pb.ACTION_KIND_REQUEST_CORRECTION}  # the last action may be corrected
            if not allowed:  # a card is due: the shoe reads the deck's next card
                read.append(next(cards))
                reply = act(self.dealer, self.table, deal=cmd.Deal(card=read[-1], source=pb.CARD_SOURCE_SHOE,
                                                                   sequence=next(self.sequence)))
            elif pb.ACTION_KIND_CHECK in allowed:
                reply = act(self.dealer, self.table, check=cmd.Check(seat=legal.seat))
            elif pb.ACTION_KIND_CALL in allowed:
                reply = act(self.dealer, self.table, call=cmd.Call(seat=legal.seat))
            else:
                assert pb.ACTION_KIND_SHOW in allowed, legal
                reply = act(self.dealer, self.table, show=cmd.Show(seat=legal.seat))
            if reply.result.hand_complete:
                return
        raise AssertionError("the hand did not end")
