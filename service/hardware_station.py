"""The hardware-aware dealer station: the shuffler and the shoe are cabled to it (by port URL), and it forwards every
checked shoe read to the service as the next deal, with its source and read sequence.

Reads that cannot be right never become deals (R-DECK-4): the adapter refuses them, and the service refuses what the
adapter could not know (a card already dealt, not in the deck in play, read while no card is due).  Everything is shown
to the croupier.  The red and blue decks alternate hand by hand: one in the shoe, the other in the shuffler (R-DECK-2).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

from devices.adapters import CardRead, DeviceStatus, Irregularity, ShoeAdapter, ShoeEvent, ShufflerAdapter
from devices.protocol import Colour
from service.api import pokertable_pb2 as pb
from service.station import Station


@dataclass
class HardwareStation:
    """A station with a shoe (and optionally a shuffler) attached."""

    station: Station
    table: str
    shoe_url: str
    shuffler_url: str | None = None
    banked: bool = False
    show: Callable[[str], None] = print
    dealt: list[tuple[str, int]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    irregularities: list[Irregularity] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.hands = 0
        self.changed = threading.Condition()
        self.shoe = ShoeAdapter(self.shoe_url, self._on_shoe)
        self.shuffler = ShufflerAdapter(self.shuffler_url) if self.shuffler_url else None

    def colour_of_hand(self, number: int) -> Colour:
        """Odd hands are dealt from the red deck, even hands from the blue one (R-DECK-2)."""
        return Colour.RED if number % 2 else Colour.BLUE

    def start_hand(self) -> Colour:
        """Start the next hand with the deck in the shoe; the shuffler prepares the other one meanwhile."""
        self.hands += 1
        colour = self.colour_of_hand(self.hands)
        self.shoe.expect_colour(colour)
        request = pb.StartHandRequest(command_id=self.station.command_id(), table=self.table,
                                      deck_colour=colour.name.lower())
        self.station.call("StartBankedHand" if self.banked else "StartHand", request)
        if self.shuffler is not None:
            other = self.colour_of_hand(self.hands + 1)
            self.shuffler.shuffle(other)
            self._report("shuffle", other, "deck ready")
            check = self.shuffler.deck_check(other)
            complete = not (check.missing or check.duplicates or check.foreign)
            self._report("deck-check", other, f"{check.counted} counted, {'complete' if complete else 'INCOMPLETE'}")
        return colour

    def _report(self, kind: str, colour: Colour, result: str) -> None:
        identity = self.shuffler.identity if self.shuffler else None
        self.station.call("RecordDeviceReport", pb.DeviceReportRequest(
            command_id=self.station.command_id(), table=self.table, device=identity.model if identity else "shuffler",
            serial=identity.serial if identity else "unknown", kind=kind, colour=colour.name.lower(), result=result))

    def _on_shoe(self, event: ShoeEvent) -> None:
        match event:
            case CardRead(card, _, read_seq):
                self._deal(str(card), read_seq)
            case Irregularity():
                self.irregularities.append(event)
                self.show(f"shoe: {event.message} ({event.rule})")
                if event.rule == "R-THB-11" and self.banked and event.card is not None:
                    self._call(lambda: self.station.banked(self.table, "face-up-card", card=str(event.card)))
            case DeviceStatus(message):
                self.show(message)
        with self.changed:
            self.changed.notify_all()

    def _deal(self, card: str, read_seq: int) -> None:
        def deal() -> object:
            if self.banked:
                return self.station.banked(self.table, "deal", card=card, source="shoe", sequence=read_seq)
            return self.station.hand(self.table, "deal", card=card, source="shoe", sequence=read_seq)

        if self._call(deal):
            self.dealt.append((card, read_seq))

    def _call(self, command: Callable[[], object]) -> bool:
        try:
            command()
        except grpc.RpcError as error:
            message = f"refused: {error.code().name}: {error.details()}"
            self.refused.append(message)
            self.show(message)
            return False
        return True

    def wait(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait until the shoe's reports make ``predicate`` true."""
        with self.changed:
            return self.changed.wait_for(predicate, timeout)

    def close(self) -> None:
        """Release the devices."""
        self.shoe.close()
        if self.shuffler is not None:
            self.shuffler.close()
