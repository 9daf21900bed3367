"""Messages of the shuffler and shoe protocol (docs/devices.md), to and from frame payloads.  Pure: no I/O.

>>> message = CardDrawn(read_seq=12, rank=14, suit=3, colour=Colour.RED, face_up=False)
>>> decode(encode(message, seq=5))
CardDrawn(read_seq=12, rank=14, suit=3, colour=<Colour.RED: 0>, face_up=False)
>>> message.card
Card(rank=<Rank.ACE: 14>, suit=<Suit.SPADES: 3>)
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from devices.framing import Frame
from domain.cards.cards import Card, Rank, Suit


class ProtocolError(ValueError):
    """A frame whose type or payload is not a message of the protocol."""


class MessageType(IntEnum):
    """The TYPE byte of a frame."""

    HELLO = 0x01
    HEARTBEAT = 0x05
    ACK = 0x06
    NAK = 0x15
    CARD_DRAWN = 0x20
    SHOE_FAULT = 0x21
    SHUFFLE = 0x30
    DECK_CHECK = 0x31
    DELIVER = 0x32
    SHUFFLER_STATE = 0x40
    DECK_CHECK_RESULT = 0x41
    SHUFFLER_FAULT = 0x42


class Colour(IntEnum):
    """A deck's back colour (R-DECK-2)."""

    RED = 0
    BLUE = 1


class DeviceKind(IntEnum):
    """What a device is."""

    SHOE = 1
    SHUFFLER = 2


class ShoeFaultCode(IntEnum):
    """Shoe faults."""

    UNREADABLE_CARD = 1
    DOUBLE_FEED = 2
    SHOE_EMPTY = 3


class ShufflerFaultCode(IntEnum):
    """Shuffler faults."""

    JAM = 1
    DOOR_OPEN = 2
    MISCOUNT = 3


class ShufflerStateCode(IntEnum):
    """Shuffler states."""

    READY = 1
    SHUFFLING = 2
    DECK_READY = 3
    FAULT = 4


class NakReason(IntEnum):
    """Why a frame was refused."""

    UNKNOWN_TYPE = 1
    BAD_PAYLOAD = 2
    NOT_NOW = 3


@dataclass(frozen=True)
class Hello:
    """Device → host on connection: identity; a shoe (protocol 2) adds the read sequence of the last card it reported
    and had acknowledged (0 after power-on), so that a restart of its numbering is announced, not guessed."""

    kind: DeviceKind
    model: str
    serial: str
    firmware: str
    last_read: int | None = None


@dataclass(frozen=True)
class Heartbeat:
    """Device → host, every second while connected: "I am here".  Like ACK it is not acknowledged; a host that hears
    nothing from a device for a few seconds reports it silent."""


@dataclass(frozen=True)
class Ack:
    """Either way: frame ``acked_seq`` was received."""

    acked_seq: int


@dataclass(frozen=True)
class Nak:
    """Either way: frame ``nacked_seq`` was received but refused."""

    nacked_seq: int
    reason: NakReason


@dataclass(frozen=True)
class CardDrawn:
    """Shoe → host: a card was drawn.  ``rank`` 0 means the card could not be read."""

    read_seq: int
    rank: int
    suit: int
    colour: Colour
    face_up: bool

    @property
    def card(self) -> Card | None:
        """The card read, or ``None`` if it was unreadable."""
        if self.rank == 0:
            return None
        return Card(Rank(self.rank), Suit(self.suit))


@dataclass(frozen=True)
class ShoeFault:
    """Shoe → host: a fault."""

    code: ShoeFaultCode
    read_seq: int


@dataclass(frozen=True)
class Shuffle:
    """Host → shuffler: load and shuffle the deck of this colour."""

    colour: Colour
    deck_size: int


@dataclass(frozen=True)
class DeckCheck:
    """Host → shuffler: count and recognise every card of the deck of this colour (R-DECK-3)."""

    colour: Colour


@dataclass(frozen=True)
class Deliver:
    """Host → shuffler: deliver the shuffled deck of this colour to the shoe."""

    colour: Colour


@dataclass(frozen=True)
class ShufflerState:
    """Shuffler → host: its state."""

    state: ShufflerStateCode
    colour: Colour


@dataclass(frozen=True)
class DeckCheckResult:
    """Shuffler → host: the count, and the missing, duplicated and foreign cards (codes 0–51)."""

    colour: Colour
    counted: int
    missing: tuple[int, ...]
    duplicates: tuple[int, ...]
    foreign: tuple[int, ...]


@dataclass(frozen=True)
class ShufflerFault:
    """Shuffler → host: a fault."""

    code: ShufflerFaultCode
    colour: Colour


Message = (Hello | Heartbeat | Ack | Nak | CardDrawn | ShoeFault | Shuffle | DeckCheck | Deliver | ShufflerState
           | DeckCheckResult | ShufflerFault)


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    if len(data) > 60:
        raise ProtocolError("identity texts have at most 60 bytes")
    return bytes([len(data)]) + data


def _codes(codes: tuple[int, ...]) -> bytes:
    if len(codes) > 52 or any(not 0 <= c < 64 for c in codes):
        raise ProtocolError("card lists hold at most 52 codes below 64")
    return bytes([len(codes), *codes])


def _hello(m: Hello) -> bytes:
    last = b"" if m.last_read is None else struct.pack(">I", m.last_read)
    return bytes([m.kind]) + _text(m.model) + _text(m.serial) + _text(m.firmware) + last


def _check_result(m: DeckCheckResult) -> bytes:
    return bytes([m.colour, m.counted]) + _codes(m.missing) + _codes(m.duplicates) + _codes(m.foreign)


_ENCODERS: dict[type, tuple[MessageType, Callable[[Any], bytes]]] = {
    Hello: (MessageType.HELLO, _hello),
    Heartbeat: (MessageType.HEARTBEAT, lambda m: b""),
    Ack: (MessageType.ACK, lambda m: bytes([m.acked_seq])),
    Nak: (MessageType.NAK, lambda m: bytes([m.nacked_seq, m.reason])),
    CardDrawn: (MessageType.CARD_DRAWN,
                lambda m: struct.pack(">IBBBB", m.read_seq, m.rank, m.suit, m.colour, m.face_up)),
    ShoeFault: (MessageType.SHOE_FAULT, lambda m: struct.pack(">BI", m.code, m.read_seq)),
    Shuffle: (MessageType.SHUFFLE, lambda m: bytes([m.colour, m.deck_size])),
    DeckCheck: (MessageType.DECK_CHECK, lambda m: bytes([m.colour])),
    Deliver: (MessageType.DELIVER, lambda m: bytes([m.colour])),
    ShufflerState: (MessageType.SHUFFLER_STATE, lambda m: bytes([m.state, m.colour])),
    DeckCheckResult: (MessageType.DECK_CHECK_RESULT, _check_result),
    ShufflerFault: (MessageType.SHUFFLER_FAULT, lambda m: bytes([m.code, m.colour])),
}


def encode(message: Message, seq: int) -> Frame:
    """The frame of a message."""
    kind, payload = _ENCODERS[type(message)]
    return Frame(seq, kind, payload(message))


def _decode_hello(p: bytes) -> Hello:
    kind = DeviceKind(p[0])
    texts, rest = _read_texts(p[1:], 3)
    if not rest:  # protocol 1: no last read
        return Hello(kind, *texts)
    _size(rest, 4)
    return Hello(kind, *texts, last_read=struct.unpack(">I", rest)[0])


def _decode_card(p: bytes) -> CardDrawn:
    _size(p, 8)
    read_seq, rank, suit, colour, face_up = struct.unpack(">IBBBB", p)
    if not (rank == 0 or (2 <= rank <= 14 and suit <= 3)) or face_up > 1:
        raise ProtocolError("a card is rank 2–14 and suit 0–3, or rank 0 when unreadable")
    return CardDrawn(read_seq, rank, suit if rank else 0, Colour(colour), bool(face_up))


def _decode_shoe_fault(p: bytes) -> ShoeFault:
    _size(p, 5)
    code, read_seq = struct.unpack(">BI", p)
    return ShoeFault(ShoeFaultCode(code), read_seq)


def _decode_check_result(p: bytes) -> DeckCheckResult:
    colour, counted = Colour(p[0]), p[1]
    lists, rest = _read_codes(p[2:], 3)
    _done(rest)
    return DeckCheckResult(colour, counted, *lists)


def _fixed(size: int, build: Callable[[bytes], Message]) -> Callable[[bytes], Message]:
    def decoder(p: bytes) -> Message:
        _size(p, size)
        return build(p)

    return decoder


_DECODERS: dict[int, Callable[[bytes], Message]] = {
    MessageType.HELLO: _decode_hello,
    MessageType.HEARTBEAT: _fixed(0, lambda p: Heartbeat()),
    MessageType.ACK: _fixed(1, lambda p: Ack(p[0])),
    MessageType.NAK: _fixed(2, lambda p: Nak(p[0], NakReason(p[1]))),
    MessageType.CARD_DRAWN: _decode_card,
    MessageType.SHOE_FAULT: _decode_shoe_fault,
    MessageType.SHUFFLE: _fixed(2, lambda p: Shuffle(Colour(p[0]), p[1])),
    MessageType.DECK_CHECK: _fixed(1, lambda p: DeckCheck(Colour(p[0]))),
    MessageType.DELIVER: _fixed(1, lambda p: Deliver(Colour(p[0]))),
    MessageType.SHUFFLER_STATE: _fixed(2, lambda p: ShufflerState(ShufflerStateCode(p[0]), Colour(p[1]))),
    MessageType.DECK_CHECK_RESULT: _decode_check_result,
    MessageType.SHUFFLER_FAULT: _fixed(2, lambda p: ShufflerFault(ShufflerFaultCode(p[0]), Colour(p[1]))),
}


def decode(frame: Frame) -> Message:
    """The message a frame carries, or :class:`ProtocolError`."""
    decoder = _DECODERS.get(frame.type)
    if decoder is None:
        raise ProtocolError(f"unknown message type 0x{frame.type:02x}")
    try:
        return decoder(frame.payload)
    except (IndexError, ValueError, struct.error) as error:
        if isinstance(error, ProtocolError):
            raise
        raise ProtocolError(f"bad payload for type 0x{frame.type:02x}: {error}") from None


def _size(payload: bytes, size: int) -> None:
    if len(payload) != size:
        raise ProtocolError(f"payload of {len(payload)} bytes, {size} expected")


def _done(rest: bytes) -> None:
    if rest:
        raise ProtocolError(f"{len(rest)} bytes after the payload")


def _read_texts(data: bytes, count: int) -> tuple[tuple[str, str, str], bytes]:
    texts = []
    for _ in range(count):
        size = data[0]
        if len(data) < 1 + size:
            raise ProtocolError("a text runs past the payload")
        texts.append(data[1:1 + size].decode("utf-8"))
        data = data[1 + size:]
    return (texts[0], texts[1], texts[2]), data


def _read_codes(data: bytes, count: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], bytes]:
    lists = []
    for _ in range(count):
        size = data[0]
        if len(data) < 1 + size:
            raise ProtocolError("a card list runs past the payload")
        lists.append(tuple(data[1:1 + size]))
        data = data[1 + size:]
    return (lists[0], lists[1], lists[2]), data
