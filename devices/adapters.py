"""Adapters: device messages in, checked events out for the dealer station; station needs in, device commands out.

The service never trusts a device blindly (R-DECK-4): a read out of sequence, read twice, of the other colour's deck,
face up, or unreadable never becomes a plain card read; it becomes an :class:`Irregularity` naming the rule.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from devices.link import Link, LinkError
from devices.protocol import (
    CardDrawn,
    Colour,
    DeckCheck,
    DeckCheckResult,
    Deliver,
    Hello,
    Message,
    ShoeFault,
    Shuffle,
    ShufflerFault,
    ShufflerFaultCode,
    ShufflerState,
    ShufflerStateCode,
)
from devices.transport import open_url
from domain.cards import Card


@dataclass(frozen=True)
class CardRead:
    """A card the shoe read, checked: the next in sequence, of the deck in play, face down."""

    card: Card
    colour: Colour
    read_seq: int


@dataclass(frozen=True)
class Irregularity:
    """A device report that cannot be taken as it is, with the rule the table applies."""

    rule: str
    message: str
    read_seq: int | None = None
    card: Card | None = None


@dataclass(frozen=True)
class DeviceStatus:
    """Connection and identity news for the station's device panel; ``fault`` when the table records it as one
    (a lost connection, a corrupt or repeated frame)."""

    message: str
    fault: bool = False


ShoeEvent = CardRead | Irregularity | DeviceStatus


class ShoeAdapter:
    """The card-reading shoe, by port URL."""

    def __init__(self, url: str, on_event: Callable[[ShoeEvent], None], *, baudrate: int = 115200,
                 colour: Colour = Colour.RED) -> None:
        self.on_event, self.colour = on_event, colour
        self.last_seq: int | None = None
        self.identity: Hello | None = None
        self.link = Link(lambda: open_url(url, baudrate), self._on_message,
                         on_lost=lambda error: on_event(DeviceStatus(f"shoe connection lost: {error}", fault=True)),
                         on_back=lambda: on_event(DeviceStatus("shoe connection back")),
                         on_fault=lambda message: on_event(DeviceStatus(f"shoe link: {message}", fault=True)))

    def expect_colour(self, colour: Colour) -> None:
        """The deck in play changed (the red and blue decks alternate, R-DECK-2)."""
        self.colour = colour

    def _on_message(self, message: Message) -> None:
        match message:
            case Hello():
                self.identity = message
                self.on_event(DeviceStatus(f"shoe {message.model} {message.serial} firmware {message.firmware}"))
            case CardDrawn():
                self._on_card(message)
            case ShoeFault(code, read_seq):
                self.on_event(Irregularity("R-DECK-4", f"shoe fault: {code.name.lower().replace('_', ' ')}", read_seq))
            case _:
                self.on_event(DeviceStatus(f"unexpected message from the shoe: {type(message).__name__}"))

    def _on_card(self, read: CardDrawn) -> None:
        previous = self.last_seq
        if previous is not None and read.read_seq <= previous:
            self.on_event(Irregularity("R-DECK-4", "a card read twice", read.read_seq, read.card))
            return
        self.last_seq = read.read_seq
        if previous is not None and read.read_seq != previous + 1:
            self.on_event(Irregularity("R-DECK-4", f"reads {previous + 1}–{read.read_seq - 1} are missing",
                                       read.read_seq, read.card))
            return
        card = read.card
        if card is None:
            self.on_event(Irregularity("R-DECK-4", "an unreadable card: key it in by hand", read.read_seq))
        elif read.colour != self.colour:
            self.on_event(Irregularity("R-DECK-4", f"a card of the {read.colour.name.lower()} deck, while the "
                                       f"{self.colour.name.lower()} deck is in play", read.read_seq, card))
        elif read.face_up:
            self.on_event(Irregularity("R-THB-11", "a card found face up in the deck", read.read_seq, card))
        else:
            self.on_event(CardRead(card, read.colour, read.read_seq))

    def close(self) -> None:
        """Close the port."""
        self.link.close()


class ShufflerError(Exception):
    """The shuffler reported a fault or did not answer."""


class ShufflerAdapter:
    """The automatic shuffler, by port URL: shuffles, deck checks and deliveries as calls that return results."""

    def __init__(self, url: str, *, baudrate: int = 115200, timeout: float = 5.0,
                 on_fault: Callable[[str], None] = lambda message: None) -> None:
        self.timeout = timeout
        self.identity: Hello | None = None
        self.replies: queue.Queue[Message] = queue.Queue()
        self.lock = threading.Lock()
        self.link = Link(lambda: open_url(url, baudrate), self._on_message,
                         on_lost=lambda error: on_fault(f"shuffler connection lost: {error}"),
                         on_fault=lambda message: on_fault(f"shuffler link: {message}"))

    def _on_message(self, message: Message) -> None:
        if isinstance(message, Hello):
            self.identity = message
        else:
            self.replies.put(message)

    def shuffle(self, colour: Colour, size: int = 52) -> None:
        """Load and shuffle a deck; returns when it is ready, or raises :class:`ShufflerError`."""
        with self.lock:
            self._send(Shuffle(colour, size))
            while True:
                reply = self._reply()
                if isinstance(reply, ShufflerFault):
                    raise ShufflerError(f"shuffler fault: {reply.code.name.lower().replace('_', ' ')}")
                if isinstance(reply, ShufflerState) and reply.state is ShufflerStateCode.DECK_READY:
                    return

    def deck_check(self, colour: Colour) -> DeckCheckResult:
        """Count and recognise every card of a deck (R-DECK-3)."""
        with self.lock:
            self._send(DeckCheck(colour))
            while True:
                reply = self._reply()
                if isinstance(reply, DeckCheckResult):
                    break
            if reply.missing or reply.duplicates or reply.foreign:
                # an incomplete deck is followed by its miscount fault: taken here, not by the next command
                while not (isinstance(fault := self._reply(), ShufflerFault)
                           and fault.code is ShufflerFaultCode.MISCOUNT):
                    pass
            return reply

    def deliver(self, colour: Colour) -> None:
        """Send the shuffled deck to the shoe."""
        with self.lock:
            self._send(Deliver(colour))
            while not isinstance(self._reply(), ShufflerState):
                pass

    def _send(self, message: Message) -> None:
        try:
            self.link.send(message)
        except LinkError as error:
            raise ShufflerError(str(error)) from error

    def _reply(self) -> Message:
        try:
            return self.replies.get(timeout=self.timeout)
        except queue.Empty:
            raise ShufflerError("the shuffler did not answer") from None

    def close(self) -> None:
        """Close the port."""
        self.link.close()
