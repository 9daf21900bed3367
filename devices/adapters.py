"""Adapters: device messages in, checked events out for the dealer station; station needs in, device commands out.

The service never trusts a device blindly (R-DECK-4): a read out of sequence, read twice, of the other colour's deck,
face up, or unreadable never becomes a plain card read; it becomes an :class:`Irregularity` naming the rule.

Read numbers.  The shoe numbers its reads from 1 after power-on; its HELLO (protocol 2) says the number of its last
acknowledged read, so a restart is announced: the adapter then goes on numbering where it was, and the reads it hands
on stay contiguous across power cycles (``read_seq`` is the station's number: the shoe's plus the reads before its last
restart).  A read out of sequence — a gap, a number already seen, a wild number such as 2³²−1 — is an irregularity and
is not dealt, and it does not move the expected number: the next read in sequence is dealt as usual.  Only when the
read after it continues the stray number (the shoe's count really did jump) is the new numbering taken.
"""

from __future__ import annotations

import queue
import threading
import time
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
from domain.cards.cards import Card


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
    """The card-reading shoe, by port URL.  ``silence_seconds``: with nothing heard from the shoe for that long (it
    sends a heartbeat every second), the shoe is reported silent, as a fault; ``None`` turns the watchdog off."""

    def __init__(self, url: str, on_event: Callable[[ShoeEvent], None], *, baudrate: int = 115200,
                 colour: Colour = Colour.RED, silence_seconds: float | None = 3.0) -> None:
        self.on_event, self.colour = on_event, colour
        self.last_seq: int | None = None  # the shoe's number of the last read taken in sequence
        self.offset = 0  # station number = shoe number + offset (grows when the shoe restarts its numbering)
        self.floor = 0  # the highest station number handed on: numbers never go back
        self.stray: int | None = None  # the shoe's number of the last read out of sequence
        self.identity: Hello | None = None
        self.silent_since: float | None = None
        self.silence_seconds = silence_seconds
        self._closed = threading.Event()
        self.link = Link(lambda: open_url(url, baudrate), self._on_message,
                         on_lost=lambda error: on_event(DeviceStatus(f"shoe connection lost: {error}", fault=True)),
                         on_back=lambda: on_event(DeviceStatus("shoe connection back")),
                         on_fault=lambda message: on_event(DeviceStatus(f"shoe link: {message}", fault=True)))
        if silence_seconds is not None:
            threading.Thread(target=self._watch, args=(silence_seconds,), daemon=True, name="shoe-watchdog").start()

    def expect_colour(self, colour: Colour) -> None:
        """The deck in play changed (the red and blue decks alternate, R-DECK-2)."""
        self.colour = colour

    def _watch(self, silence: float) -> None:
        """A shoe that stops talking (no heartbeat, no frame) is a fault: cards drawn meanwhile are not read."""
        while not self._closed.wait(min(silence / 4, 0.5)):
            quiet = time.monotonic() - self.link.last_heard
            if self.silent_since is None and quiet > silence and self.link.connected:
                self.silent_since = self.link.last_heard
                self.on_event(DeviceStatus(f"shoe silent: nothing heard for {quiet:.1f} s (no heartbeat); cards "
                                           "drawn now are not read: check the shoe (R-AUD-1)", fault=True))
            elif self.silent_since is not None and self.link.last_heard > self.silent_since:
                self.silent_since = None
                self.on_event(DeviceStatus("shoe heard again after its silence"))

    def _on_message(self, message: Message) -> None:
        match message:
            case Hello():
                self._on_hello(message)
            case CardDrawn():
                self._on_card(message)
            case ShoeFault(code, read_seq):
                self.on_event(Irregularity("R-DECK-4", f"shoe fault: {code.name.lower().replace('_', ' ')}",
                                           read_seq + self.offset))
            case _:
                self.on_event(DeviceStatus(f"unexpected message from the shoe: {type(message).__name__}"))

    def _on_hello(self, hello: Hello) -> None:
        """Identity; and a restart of the read numbering, announced by the last read the shoe says it made."""
        self.identity = hello
        self.on_event(DeviceStatus(f"shoe {hello.model} {hello.serial} firmware {hello.firmware}"))
        last, self.stray = self.last_seq, None
        if hello.last_read is None:  # protocol 1: whether it restarted is unknown; the next read sets the count
            self.last_seq = None
        elif last is None:
            self.last_seq = hello.last_read
        elif hello.last_read < last:
            self.offset += last - hello.last_read
            self.last_seq = hello.last_read
            self.on_event(DeviceStatus(f"shoe restarted (power cycle): its reads are numbered from "
                                       f"{hello.last_read + 1} again; the station counts on from "
                                       f"{hello.last_read + 1 + self.offset}", fault=True))

    def _on_card(self, read: CardDrawn) -> None:
        seq, previous = read.read_seq, self.last_seq
        if previous is None:  # the first read the adapter sees (no HELLO yet, or a protocol-1 HELLO)
            self.offset = max(self.offset, self.floor - seq + 1)
        elif seq != previous + 1:
            if self.stray is None or seq != self.stray + 1:
                self.stray = seq
                number = seq + self.offset
                message = (f"reads {previous + 1 + self.offset}–{number - 1} are missing" if seq > previous
                           else "a card read twice")  # a number already seen
                shoe = f" (shoe read {seq})" if self.offset else ""
                self.on_event(Irregularity("R-DECK-4", message + shoe, number, read.card))
                return
            if seq <= previous:  # the shoe's count went back and goes on from there: keep the station's rising
                self.offset += previous - seq + 1
        self.last_seq, self.stray = seq, None
        number = seq + self.offset
        self.floor = max(self.floor, number)
        card = read.card
        if card is None:
            self.on_event(Irregularity("R-DECK-4", "an unreadable card: key it in by hand", number))
        elif read.colour != self.colour:
            self.on_event(Irregularity("R-DECK-4", f"a card of the {read.colour.name.lower()} deck, while the "
                                       f"{self.colour.name.lower()} deck is in play", number, card))
        elif read.face_up:
            self.on_event(Irregularity("R-THB-11", "a card found face up in the deck", number, card))
        else:
            self.on_event(CardRead(card, read.colour, number))

    def close(self) -> None:
        """Close the port."""
        self._closed.set()
        self.link.close()


class ShufflerError(Exception):
    """The shuffler reported a fault or did not answer."""


class ShufflerAdapter:
    """The automatic shuffler, by port URL: shuffles, deck checks and deliveries as calls that return results.

    A shuffle and a delivery return the colour the shuffler *reports*, which the caller records as it is: whether
    it is the deck that should be next is for the table to check (R-DECK-2), not taken on trust here."""

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

    def shuffle(self, colour: Colour, size: int = 52) -> Colour:
        """Load and shuffle a deck; returns the colour of the deck the shuffler reports ready, or raises
        :class:`ShufflerError`."""
        with self.lock:
            self._send(Shuffle(colour, size))
            while True:
                reply = self._reply()
                if isinstance(reply, ShufflerFault):
                    raise ShufflerError(f"shuffler fault: {reply.code.name.lower().replace('_', ' ')}")
                if isinstance(reply, ShufflerState) and reply.state is ShufflerStateCode.DECK_READY:
                    return reply.colour

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
            if reply.colour is not colour:  # never the check of the deck asked for (issue 33)
                raise ShufflerError(f"the deck check answered for the {reply.colour.name.lower()} deck, asked for "
                                    f"the {colour.name.lower()} one (R-DECK-3)")
            return reply

    def deliver(self, colour: Colour) -> Colour:
        """Send the shuffled deck to the shoe; returns the colour of the deck the shuffler reports delivered."""
        with self.lock:
            self._send(Deliver(colour))
            while not isinstance(reply := self._reply(), ShufflerState):
                pass
            return reply.colour

    def _send(self, message: Message) -> None:
        if not self.link.connected:  # nobody to wait for: the croupier is told at once
            raise ShufflerError("the shuffler is not connected")
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
