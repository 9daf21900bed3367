"""Simulated shoe and shuffler: the same bytes as the devices, through the same framing and link code, over a
pseudo-terminal (the real serial path) or ``socket://``, with faults on demand.  They take a seed.  Like the devices
they say HELLO to every host that opens the line (docs/devices.md: on a pseudo-terminal, when the host's open
flushes the line; on ``socket://``, when it connects), and send a heartbeat every ``heartbeat_seconds`` while
running, until told to go silent."""

from __future__ import annotations

import contextlib
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from devices.framing import Frame, encode
from devices.link import Link, LinkError
from devices.protocol import (
    CardDrawn,
    Colour,
    DeckCheck,
    DeckCheckResult,
    Deliver,
    DeviceKind,
    Hello,
    Message,
    ShoeFault,
    ShoeFaultCode,
    Shuffle,
    ShufflerFault,
    ShufflerFaultCode,
    ShufflerState,
    ShufflerStateCode,
)
from devices.transport import PtyEnd, SocketServerEnd
from domain.cards.cards import Card
from domain.cards.decks import composition


@dataclass
class SimulatedDevice:
    """A device on a pseudo-terminal (default) or a ``socket://`` listener."""

    kind: DeviceKind
    serial_number: str
    seed: int = 0
    use_socket: bool = False
    received: list[Message] = field(default_factory=list)
    baudrate: int | None = None
    heartbeat_seconds: float | None = 1.0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._stopped = threading.Event()
        self.speaking = threading.RLock()
        """Held while a message is built and sent (and acknowledged): what a message says of the device (a shoe's
        last read in its HELLO) is never overtaken on the line by a later one."""
        self.end: PtyEnd | SocketServerEnd = SocketServerEnd(self._host_opened) if self.use_socket else \
            PtyEnd(self.baudrate, self._host_opened)
        self.link = Link(lambda: self.end, self._on_message)
        self.lock = threading.Lock()
        self.silent = threading.Event()
        if self.heartbeat_seconds is not None:
            threading.Thread(target=self._beat, args=(self.heartbeat_seconds,), daemon=True,
                             name="simulated-heartbeat").start()

    def _beat(self, every: float) -> None:
        while not self._stopped.wait(every):
            if not self.silent.is_set():
                self.link.send_heartbeat()

    def go_silent(self) -> None:
        """The device hangs: no heartbeat, no frame (a silent shoe)."""
        self.silent.set()

    @property
    def url(self) -> str:
        """The port URL the adapter opens: a pty path or ``socket://127.0.0.1:PORT``."""
        return self.end.url if isinstance(self.end, SocketServerEnd) else self.end.path

    def hello(self) -> None:
        """Announce the device's identity (on connection)."""
        with self.speaking:
            self.link.send(Hello(self.kind, f"PT-SIM-{self.kind.name}", self.serial_number, "1.4.2"))

    def _host_opened(self) -> None:
        """A host opened the line: say HELLO to it, from a thread of its own (this is the link's reader, which must
        go on reading to take the HELLO's acknowledgement)."""
        def greet() -> None:
            with contextlib.suppress(LinkError):  # the host went away again before it acknowledged
                self.hello()

        if not self._stopped.is_set():
            threading.Thread(target=greet, daemon=True, name="simulated-hello").start()

    def _on_message(self, message: Message) -> None:
        self.received.append(message)

    # -- faults common to every device ----------------------------------------------------------------

    def send_with_bad_crc(self, message: Message) -> None:
        """A frame whose CRC is wrong (noise on the line), then the same message properly."""
        raw = bytearray(encode(Frame(200, 0x20, b"\x00" * 8)))
        raw[-2] ^= 0x5A
        self.link.send_raw(bytes(raw))
        self.link.send(message)

    def send_truncated(self, message: Message) -> None:
        """The first half of a frame, then the message properly."""
        raw = self.link.next_frame(message)
        self.link.send_raw(raw[: len(raw) // 2])
        self.link.send(message)

    def send_twice(self, message: Message) -> None:
        """The same frame twice (a retransmission the adapter already acknowledged)."""
        raw = self.link.next_frame(message)
        self.link.send_raw(raw)
        self.link.send_raw(raw)

    def cut_mid_frame(self, message: Message) -> None:
        """Half a frame, then the connection drops (socket simulators only); like a real device, the simulator
        sends the unacknowledged message again once the adapter has reconnected."""
        raw = self.link.next_frame(message)
        self.link.send_raw(raw[: len(raw) // 2])
        self.disconnect()
        self.link.send(message)

    def disconnect(self) -> None:
        """Pull the cable (socket simulators only); the adapter reconnects."""
        if isinstance(self.end, SocketServerEnd):
            self.end.drop()

    def close(self) -> None:
        """Stop the simulator."""
        self._stopped.set()
        self.link.close()
        self.end.close()


class ShoeSimulator(SimulatedDevice):
    """A card-reading shoe: it reports each card as it is drawn."""

    def __init__(self, serial_number: str = "SHOE-0001", seed: int = 0, *, use_socket: bool = False,
                 baudrate: int | None = None, heartbeat_seconds: float | None = 1.0) -> None:
        super().__init__(DeviceKind.SHOE, serial_number, seed, use_socket, baudrate=baudrate,
                         heartbeat_seconds=heartbeat_seconds)
        self.read_seq = 0
        self.cards: list[Card] = []
        self.colour = Colour.RED

    def hello(self) -> None:
        """Announce the shoe (protocol 2: with the read sequence of its last card, 0 after power-on)."""
        with self.speaking:
            self.link.send(Hello(self.kind, f"PT-SIM-{self.kind.name}", self.serial_number, "1.4.2", self.read_seq))

    def power_cycle(self) -> None:
        """Switch the shoe off and on: frames and reads are numbered from 1 again, announced by its HELLO."""
        with self.speaking:
            self.link.restart_numbering()
            self.read_seq = 0
            self.hello()

    def stray_read(self, read_seq: int) -> Card:
        """A firmware glitch: the next card is reported with a wild read number (the shoe's count does not move)."""
        with self.speaking:
            card = self.cards.pop(0)
            self.link.send(CardDrawn(read_seq, card.rank.value, card.suit.value, self.colour, False))
            return card

    def load(self, colour: Colour, cards: Sequence[Card] | None = None, size: int = 52) -> None:
        """Load a deck (shuffled with the seed unless the order is given)."""
        self.colour = colour
        self.cards = list(cards) if cards is not None else self.rng.sample(list(composition(size)), size)

    def card_message(self, card: Card, *, face_up: bool = False, colour: Colour | None = None,
                     unreadable: bool = False) -> CardDrawn:
        """The next read of a card (advancing the read sequence)."""
        self.read_seq += 1
        if unreadable:
            return CardDrawn(self.read_seq, 0, 0, colour if colour is not None else self.colour, face_up)
        return CardDrawn(self.read_seq, card.rank.value, card.suit.value,
                         colour if colour is not None else self.colour, face_up)

    def draw(self, *, face_up: bool = False, colour: Colour | None = None, unreadable: bool = False) -> Card:
        """Draw the next card and report it."""
        with self.speaking:
            card = self.cards.pop(0)
            self.link.send(self.card_message(card, face_up=face_up, colour=colour, unreadable=unreadable))
            return card

    def fault(self, code: ShoeFaultCode) -> None:
        """Report a fault (double feed, shoe empty, unreadable card)."""
        with self.speaking:
            self.link.send(ShoeFault(code, self.read_seq))

    def skip_sequence(self) -> None:
        """A firmware slip: the next read number jumps (the adapter must notice the gap)."""
        self.read_seq += 1


class ShufflerSimulator(SimulatedDevice):
    """An automatic shuffler that prepares a red and a blue deck alternately (R-DECK-2)."""

    def __init__(self, serial_number: str = "SHUF-0001", seed: int = 0, *, use_socket: bool = False) -> None:
        super().__init__(DeviceKind.SHUFFLER, serial_number, seed, use_socket)
        self.jam_next = False
        self.jam_at = 0
        """A jam at the shuffle of this number (1: the first this simulator is asked for; 0: none)."""
        self.shuffles = 0
        self.door_open_next = False
        self.miscount_next: list[int] = []
        self.miscount_colour: Colour | None = None
        """Only a check of this deck counts ``miscount_next`` wrong (None: the next check, whichever deck)."""
        self.wrong_colour_next = False
        self.wrong_check_next = False
        """A fault: the next deck check is answered for the other deck than the one asked for."""
        self.sizes: dict[Colour, int] = {}
        """The size of the deck of each colour it last shuffled (a deck check counts that many)."""

    def _on_message(self, message: Message) -> None:
        super()._on_message(message)
        threading.Thread(target=self._answer, args=(message,), daemon=True).start()

    def _answer(self, message: Message) -> None:
        with contextlib.suppress(LinkError):  # the host went away before the answer: it answers into the void
            self._reply(message)

    def _state(self, state: ShufflerStateCode, colour: Colour) -> ShufflerState:
        """A state report; with ``wrong_colour_next`` (a fault) it names the other deck, once."""
        if self.wrong_colour_next:
            self.wrong_colour_next = False
            colour = Colour.BLUE if colour is Colour.RED else Colour.RED
        return ShufflerState(state, colour)

    def _reply(self, message: Message) -> None:
        with self.lock:
            match message:
                case Shuffle(colour, size):
                    self.sizes[colour] = size
                    self.shuffles += 1
                    if self.shuffles == self.jam_at:
                        self.jam_next = True
                    if self.jam_next or self.door_open_next:
                        code = ShufflerFaultCode.JAM if self.jam_next else ShufflerFaultCode.DOOR_OPEN
                        self.jam_next = self.door_open_next = False
                        self.link.send(ShufflerFault(code, colour))
                        return
                    self.link.send(ShufflerState(ShufflerStateCode.SHUFFLING, colour))
                    self.link.send(self._state(ShufflerStateCode.DECK_READY, colour))
                case DeckCheck(colour):
                    missing: tuple[int, ...] = ()
                    if self.miscount_colour in (None, colour):
                        missing, self.miscount_next = tuple(self.miscount_next), []
                    if self.wrong_check_next:
                        self.wrong_check_next = False
                        colour = Colour.BLUE if colour is Colour.RED else Colour.RED
                    self.link.send(DeckCheckResult(colour, self.sizes.get(colour, 52) - len(missing), missing, (), ()))
                    if missing:
                        self.link.send(ShufflerFault(ShufflerFaultCode.MISCOUNT, colour))
                case Deliver(colour):
                    self.link.send(self._state(ShufflerStateCode.READY, colour))
                case _:
                    pass
