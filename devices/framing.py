"""Framing of the device wire protocol (docs/devices.md): bytes in, frames out.  Pure: no I/O.

A frame is ``STX LEN SEQ TYPE PAYLOAD… CRC_HI CRC_LO ETX`` where LEN counts SEQ, TYPE and PAYLOAD (2 to 250 bytes) and
the CRC is CRC-16/CCITT-FALSE over LEN, SEQ, TYPE and PAYLOAD.  The parser scans for STX, and drops one byte and
scans again whenever a length, CRC or ETX does not check out, so noise never becomes a frame and a good frame after
noise is still found.

>>> frame = encode(Frame(seq=7, type=0x20, payload=b"\\x01\\x02"))
>>> frame.hex()
'0204072001025c9203'
>>> parser = FrameParser()
>>> parser.feed(b"\\xff\\x00" + frame[:3]), parser.feed(frame[3:])
([], [Frame(seq=7, type=32, payload=b'\\x01\\x02')])
"""

from __future__ import annotations

from dataclasses import dataclass, field

STX, ETX = 0x02, 0x03
MIN_LEN, MAX_LEN = 2, 250
MAX_PAYLOAD = MAX_LEN - 2


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table.append(crc)
    return tuple(table)


_TABLE = _crc_table()


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection, no final xor).

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[(crc >> 8) ^ byte]
    return crc


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: its sequence number (0–255, wrapping), its message type and its payload."""

    seq: int
    type: int
    payload: bytes = b""

    def __post_init__(self) -> None:
        if not 0 <= self.seq <= 255 or not 0 <= self.type <= 255:
            raise ValueError("seq and type are single bytes")
        if len(self.payload) > MAX_PAYLOAD:
            raise ValueError(f"a payload has at most {MAX_PAYLOAD} bytes")


def encode(frame: Frame) -> bytes:
    """The bytes of a frame."""
    body = bytes([len(frame.payload) + 2, frame.seq, frame.type]) + frame.payload
    crc = crc16(body)
    return bytes([STX]) + body + bytes([crc >> 8, crc & 0xFF, ETX])


@dataclass
class FrameParser:
    """Turns a byte stream, in pieces of any size, into frames; counts what it had to discard."""

    buffer: bytearray = field(default_factory=bytearray)
    discarded: int = 0
    bad_frames: int = 0

    def feed(self, data: bytes) -> list[Frame]:
        """Add bytes; return every complete, valid frame they finish, in order."""
        self.buffer.extend(data)
        frames: list[Frame] = []
        while True:
            start = self.buffer.find(STX)
            if start < 0:
                self.discarded += len(self.buffer)
                self.buffer.clear()
                return frames
            if start:
                self.discarded += start
                del self.buffer[:start]
            if len(self.buffer) < 2:
                return frames
            length = self.buffer[1]
            if not MIN_LEN <= length <= MAX_LEN:
                self._skip()
                continue
            total = length + 5  # STX, LEN, body, CRC (2), ETX
            if len(self.buffer) < total:
                return frames
            body = bytes(self.buffer[1:2 + length])
            crc = (self.buffer[2 + length] << 8) | self.buffer[3 + length]
            if self.buffer[4 + length] != ETX or crc16(body) != crc:
                self._skip()
                continue
            frames.append(Frame(seq=body[1], type=body[2], payload=body[3:]))
            del self.buffer[:total]

    def resync(self) -> list[Frame]:
        """The line went quiet with an incomplete frame in the buffer (a corrupted length makes the parser wait for
        bytes that never come): drop its STX and look again.  Called by the transport after an idle gap."""
        if not self.buffer:
            return []
        self._skip()
        return self.feed(b"")

    def _skip(self) -> None:
        """The STX at the front did not start a good frame: drop it and look for the next."""
        self.bad_frames += 1
        self.discarded += 1
        del self.buffer[:1]
