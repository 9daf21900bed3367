"""Messages of the shuffler and shoe protocol (docs/devices.md), to and from frame payloads.  Pure: no I/O.

>>> message = CardDrawn(read_seq=12, rank=14, suit=3, colour=Colour.RED, face_up=False)
>>> decode(encode(message, seq=5))
CardDrawn(read_seq=12, rank=14, suit=3, colour=<Colour.RED: 0>, face_up=False)
>>> message.card
Card(rank=<Rank.ACE: 14>, suit=<Suit.SPADES: 3>)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from devices.framing import Frame
from domain.cards import Card, Rank, Suit


class ProtocolError(ValueError):
    """A frame whose type or payload is not a message of the protocol."""


class MessageType(IntEnum):
    """The TYPE byte of a frame."""

    HELLO = 0x01
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
    """Device → host on connection: identity."""

    kind: DeviceKind
    model: str
    serial: str
    firmware: str


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


Message = (Hello | Ack | Nak | CardDrawn | ShoeFault | Shuffle | DeckCheck | Deliver | ShufflerState
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


def encode(message: Message, seq: int) -> Frame:
    """The frame of a message."""
    match message:
        case Hello(kind, model, serial, firmware):
            return Frame(seq, MessageType.HELLO, bytes([kind]) + _text(model) + _text(serial) + _text(firmware))
        case Ack(acked):
            return Frame(seq, MessageType.ACK, bytes([acked]))
        case Nak(nacked, reason):
            return Frame(seq, MessageType.NAK, bytes([nacked, reason]))
        case CardDrawn(read_seq, rank, suit, colour, face_up):
            return Frame(seq, MessageType.CARD_DRAWN, struct.pack(">IBBBB", read_seq, rank, suit, colour, face_up))
        case ShoeFault(code, read_seq):
            return Frame(seq, MessageType.SHOE_FAULT, struct.pack(">BI", code, read_seq))
        case Shuffle(colour, size):
            return Frame(seq, MessageType.SHUFFLE, bytes([colour, size]))
        case DeckCheck(colour):
            return Frame(seq, MessageType.DECK_CHECK, bytes([colour]))
        case Deliver(colour):
            return Frame(seq, MessageType.DELIVER, bytes([colour]))
        case ShufflerState(state, colour):
            return Frame(seq, MessageType.SHUFFLER_STATE, bytes([state, colour]))
        case DeckCheckResult(colour, counted, missing, duplicates, foreign):
            payload = bytes([colour, counted]) + _codes(missing) + _codes(duplicates) + _codes(foreign)
            return Frame(seq, MessageType.DECK_CHECK_RESULT, payload)
        case ShufflerFault(code, colour):
            return Frame(seq, MessageType.SHUFFLER_FAULT, bytes([code, colour]))
    raise ProtocolError(f"not a message: {message!r}")  # pragma: no cover


def decode(frame: Frame) -> Message:
    """The message a frame carries, or :class:`ProtocolError`."""
    p = frame.payload
    try:
        match frame.type:
            case MessageType.HELLO:
                kind = DeviceKind(p[0])
                texts, rest = _read_texts(p[1:], 3)
                _done(rest)
                return Hello(kind, *texts)
            case MessageType.ACK:
                _size(p, 1)
                return Ack(p[0])
            case MessageType.NAK:
                _size(p, 2)
                return Nak(p[0], NakReason(p[1]))
            case MessageType.CARD_DRAWN:
                _size(p, 8)
                read_seq, rank, suit, colour, face_up = struct.unpack(">IBBBB", p)
                if not (rank == 0 or (2 <= rank <= 14 and suit <= 3)) or face_up > 1:
                    raise ProtocolError("a card is rank 2–14 and suit 0–3, or rank 0 when unreadable")
                return CardDrawn(read_seq, rank, suit if rank else 0, Colour(colour), bool(face_up))
            case MessageType.SHOE_FAULT:
                _size(p, 5)
                code, read_seq = struct.unpack(">BI", p)
                return ShoeFault(ShoeFaultCode(code), read_seq)
            case MessageType.SHUFFLE:
                _size(p, 2)
                return Shuffle(Colour(p[0]), p[1])
            case MessageType.DECK_CHECK:
                _size(p, 1)
                return DeckCheck(Colour(p[0]))
            case MessageType.DELIVER:
                _size(p, 1)
                return Deliver(Colour(p[0]))
            case MessageType.SHUFFLER_STATE:
                _size(p, 2)
                return ShufflerState(ShufflerStateCode(p[0]), Colour(p[1]))
            case MessageType.DECK_CHECK_RESULT:
                colour, counted = Colour(p[0]), p[1]
                lists, rest = _read_codes(p[2:], 3)
                _done(rest)
                return DeckCheckResult(colour, counted, *lists)
            case MessageType.SHUFFLER_FAULT:
                _size(p, 2)
                return ShufflerFault(ShufflerFaultCode(p[0]), Colour(p[1]))
    except (IndexError, ValueError, struct.error) as error:
        raise ProtocolError(f"bad payload for type 0x{frame.type:02x}: {error}") from None
    raise ProtocolError(f"unknown message type 0x{frame.type:02x}")


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
