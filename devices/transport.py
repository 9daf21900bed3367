"""Transports: a port URL opened with pyserial (``/dev/ttyUSB0``, a pty path, ``socket://host:port``), and the
simulators' ends: the master side of a pseudo-terminal, or a TCP listener that ``socket://`` clients connect to."""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import socket
import struct
import termios
import threading
import time
import tty
from collections.abc import Callable

import serial

READ_TIMEOUT = 0.05


def open_url(url: str, baudrate: int = 115200) -> serial.SerialBase:
    """A device port by URL, as pyserial opens it (raw, 8N1)."""
    return serial.serial_for_url(url, baudrate=baudrate, timeout=READ_TIMEOUT, write_timeout=2)


def _nobody() -> None:
    """No one to tell that a host opened the line."""


class PtyEnd:
    """The simulator's end of a pseudo-terminal; the adapter opens the other end by its path (the real serial path).

    A pseudo-terminal has no line speed; with ``baudrate`` set, writes take as long as on a real line (10 bits a
    byte: start, 8 data, stop).

    A real device learns that a host opened its port when the host raises DTR (pyserial does on open); a
    pseudo-terminal has no DTR, but a host opening the line flushes what waits in its input (pyserial does, so that
    nothing sent before it listened is taken for new), and the master side in packet mode (``TIOCPKT``) is told of
    that flush: ``on_open`` is called then, so that the device can say HELLO to the host that is now there."""

    def __init__(self, baudrate: int | None = None, on_open: Callable[[], None] = _nobody) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.baudrate = baudrate
        self.on_open = on_open
        fcntl.ioctl(self.master, termios.TIOCPKT, struct.pack("i", 1))

    def read(self, size: int = 1) -> bytes:
        ready, _, _ = select.select([self.master], [], [], READ_TIMEOUT)
        if not ready:
            return b""
        packet = os.read(self.master, size + 1)  # packet mode: a status byte, then the data (TIOCPKT_DATA) if any
        if not packet:
            return b""
        if packet[0] == termios.TIOCPKT_DATA:
            return packet[1:]
        if packet[0] & termios.TIOCPKT_FLUSHREAD:  # the host opened the line (or flushed it): it listens from now
            self.on_open()
        return b""

    def write(self, data: bytes) -> int:
        if self.baudrate:
            time.sleep(len(data) * 10 / self.baudrate)
        return os.write(self.master, data)

    def close(self) -> None:
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class SocketServerEnd:
    """The simulator's end of ``socket://``: it listens on 127.0.0.1 and serves one client at a time; ``on_open`` is
    called as each connects."""

    def __init__(self, on_open: Callable[[], None] = _nobody) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self.listener.getsockname()[1]}"
        self.client: socket.socket | None = None
        self.accepted = threading.Event()
        self.on_open = on_open
        """Called when a client connects (a host opened the line)."""

    def _client(self) -> socket.socket:
        while self.client is None:
            self.listener.settimeout(READ_TIMEOUT)
            try:
                self.client, _ = self.listener.accept()
                self.client.settimeout(READ_TIMEOUT)
                self.accepted.set()
                self.on_open()
            except TimeoutError:
                raise BlockingIOError("no client yet") from None
        return self.client

    def read(self, size: int = 1) -> bytes:
        try:
            client = self._client()
            data = client.recv(size)
        except (BlockingIOError, TimeoutError):
            return b""
        except OSError:  # the client went away (or was dropped meanwhile): wait for the next one
            self.drop()
            return b""
        if not data:
            self.drop()
        return data

    def write(self, data: bytes) -> int:
        try:
            client = self._client()
            client.sendall(data)
        except BlockingIOError:
            return 0
        except OSError:
            self.drop()
            return 0
        return len(data)

    def drop(self) -> None:
        """Disconnect the client (the cable is pulled); the next client may connect."""
        client, self.client = self.client, None
        self.accepted.clear()
        if client is not None:
            client.close()

    def close(self) -> None:
        self.drop()
        self.listener.close()
