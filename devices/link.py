"""The link layer, shared by the adapters and the simulators: frames over a byte port, acknowledged and retransmitted.

Every frame but ACK, NAK and HEARTBEAT is acknowledged by the receiver with ``Ack(seq)``; the sender retransmits it
after ``ack_timeout`` up to ``retries`` times.  A frame received twice (same sequence number as the last one delivered)
is acknowledged again and not delivered again, except a HELLO: a device that restarts numbers its frames from 1 again,
and its HELLO must not be taken for a repeat of whatever frame 1 was.  A lost connection is reported once to
``on_lost``; the link then tries to reopen the port with a growing backoff until it is closed.  A port that cannot be
opened at the start (a device not plugged in yet) is no error: ``open_error`` says why, and the reader opens it once
it is there (``on_back``).  ``last_heard`` is when
the last valid frame of any kind arrived (heartbeats included): the adapters' watchdogs read it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from devices.framing import Frame, FrameParser, encode
from devices.protocol import Ack, Heartbeat, Message, MessageType, ProtocolError, decode
from devices.protocol import encode as encode_message

IDLE_RESYNC_SECONDS = 0.2


def _read_some(port: Port) -> bytes:
    """What has arrived, as soon as anything has.  pyserial's ``read(n)`` waits for all ``n`` bytes or its timeout,
    which would hold every frame back 50 ms; so a pyserial port is asked for one byte, then for what is waiting.
    The simulators' ends return whatever is there."""
    if not hasattr(port, "in_waiting"):
        return port.read(256)
    data = port.read(1)
    if data and (waiting := int(getattr(port, "in_waiting", 0))):
        data += port.read(waiting)
    return data


class Port(Protocol):
    """A byte port: a pyserial ``Serial`` (any port URL), or a simulator's end of a pseudo-terminal."""

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


class LinkError(Exception):
    """A frame was not acknowledged after every retry, or the link is closed."""


@dataclass
class LinkStats:
    """What the link saw: for the station's device panel and for tests."""

    frames_in: int = 0
    frames_out: int = 0
    retransmissions: int = 0
    duplicates: int = 0
    heartbeats: int = 0
    bad_frames: int = 0
    bad_messages: int = 0
    reconnects: int = 0


@dataclass
class Link:
    """One end of a device link."""

    open_port: Callable[[], Port]
    on_message: Callable[[Message], None]
    on_lost: Callable[[Exception], None] = lambda error: None
    on_back: Callable[[], None] = lambda: None
    on_fault: Callable[[str], None] = lambda message: None
    ack_timeout: float = 0.25
    retries: int = 5
    stats: LinkStats = field(default_factory=LinkStats)

    def __post_init__(self) -> None:
        try:
            self._port: Port | None = self.open_port()
            first_open_failed: Exception | None = None
        except (OSError, ValueError) as error:  # the device is not there yet (unplugged, off, a wrong path)
            self._port, first_open_failed = None, error
        self._parser = FrameParser()
        self._seq = 0
        self._last_delivered: int | None = None
        self._acks: dict[int, threading.Event] = {}
        self._write_lock = threading.Lock()
        self._io_lock = threading.Lock()  # one frame at a time on the wire (heartbeats come from their own thread)
        self._closed = threading.Event()
        self._connected = threading.Event()
        if first_open_failed is None:
            self._connected.set()
        self.last_heard = time.monotonic()
        self.open_error = first_open_failed
        """Why the port could not be opened at the start (None: it was); the reader opens it once it is there."""
        self._reader = threading.Thread(target=self._read_loop, daemon=True, name="device-link")
        self._reader.start()

    # -- sending ------------------------------------------------------------------------------------

    def send(self, message: Message) -> None:
        """Send a message and wait for its acknowledgement, retransmitting as needed."""
        with self._write_lock:
            self._seq = (self._seq + 1) % 256
            seq = self._seq
            acked = self._acks[seq] = threading.Event()
        raw = encode(encode_message(message, seq))
        try:
            for attempt in range(self.retries + 1):
                if self._closed.is_set():
                    raise LinkError("the link is closed")
                if attempt:
                    self.stats.retransmissions += 1
                self._write(raw)
                if acked.wait(self.ack_timeout):
                    return
                self._connected.wait(timeout=5)
            raise LinkError(f"frame {seq} was not acknowledged after {self.retries} retries")
        finally:
            self._acks.pop(seq, None)

    def send_heartbeat(self) -> None:
        """A heartbeat: not acknowledged, never retransmitted (a device sends one every second)."""
        self._write(encode(encode_message(Heartbeat(), 0)))

    def restart_numbering(self) -> None:
        """The device restarted (power cycle): its frames are numbered from 1 again (simulators)."""
        with self._write_lock:
            self._seq = 0

    @property
    def connected(self) -> bool:
        """Whether the port is open (not lost and waiting to be reopened)."""
        return self._port is not None and self._connected.is_set()

    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are (simulators use this to inject faults)."""
        self._write(data)

    def next_frame(self, message: Message) -> bytes:
        """The bytes of the next frame for a message, without sending it (for fault injection)."""
        with self._write_lock:
            self._seq = (self._seq + 1) % 256
            return encode(encode_message(message, self._seq))

    def _write(self, data: bytes) -> None:
        port = self._port
        if port is None:
            return
        try:
            with self._io_lock:
                port.write(data)
            self.stats.frames_out += 1
        except Exception as error:
            self._lose(error, port)

    # -- receiving ----------------------------------------------------------------------------------

    def _read_loop(self) -> None:
        quiet_since = time.monotonic()
        while not self._closed.is_set():
            port = self._port
            if port is None:
                self._reconnect()
                continue
            try:
                data = _read_some(port)
            except Exception as error:
                self._lose(error, port)
                continue
            if not data:
                if self._parser.buffer and time.monotonic() - quiet_since > IDLE_RESYNC_SECONDS:
                    before = self._parser.bad_frames
                    self._handle(self._parser.resync())
                    self._count_bad_frames(before)
                continue
            quiet_since = time.monotonic()
            before = self._parser.bad_frames
            self._handle(self._parser.feed(data))
            self._count_bad_frames(before)

    def _count_bad_frames(self, before: int) -> None:
        if bad := self._parser.bad_frames - before:
            self.stats.bad_frames += bad
            self.on_fault(f"{bad} corrupt frame(s) discarded (CRC, length or end byte); the device resends")

    def _handle(self, frames: list[Frame]) -> None:
        for frame in frames:
            self.stats.frames_in += 1
            self.last_heard = time.monotonic()
            if frame.type == MessageType.HEARTBEAT:
                self.stats.heartbeats += 1
                continue
            if frame.type == MessageType.ACK and frame.payload:
                event = self._acks.get(frame.payload[0])
                if event is not None:
                    event.set()
                continue
            if frame.type == MessageType.NAK:
                continue
            self._write(encode(encode_message(Ack(frame.seq), 0)))
            if frame.seq == self._last_delivered and frame.type != MessageType.HELLO:
                self.stats.duplicates += 1
                self.on_fault(f"frame {frame.seq} received twice, taken once")
                continue
            self._last_delivered = frame.seq
            try:
                message = decode(frame)
            except ProtocolError:
                self.stats.bad_messages += 1
                self.on_fault(f"frame {frame.seq} carries no valid message (type 0x{frame.type:02x}); discarded")
                continue
            self.on_message(message)

    # -- the connection -----------------------------------------------------------------------------

    def _lose(self, error: Exception, port: Port) -> None:
        with self._write_lock:
            if self._port is not port:  # already lost (reported once) or already replaced
                return
            self._port = None
        self._connected.clear()
        with contextlib.suppress(Exception):
            port.close()
        self._parser = FrameParser()  # a frame cut by the loss is never completed by bytes after it
        if not self._closed.is_set():
            self.on_lost(error)

    def _reconnect(self) -> None:
        delay = 0.05
        while not self._closed.is_set():
            try:
                self._port = self.open_port()
            except (OSError, ValueError):
                self._closed.wait(delay)
                delay = min(delay * 2, 2.0)
                continue
            self.stats.reconnects += 1
            self.last_heard = time.monotonic()  # silence is counted from the reconnection, not from the loss
            self._connected.set()
            self.on_back()
            return

    def close(self) -> None:
        """Stop reading and close the port."""
        self._closed.set()
        self._connected.set()
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(OSError, ValueError):
                port.close()
        self._reader.join(timeout=2)
