"""Trusted time, the clock's part (issue 29, item 4): the service checks that its host's clock is synchronised.

Every event the service stores carries the host's time, and the casino's records (shifts, the audit's findings, the
accounts, disputes) are read by it: a clock that drifts, or that nothing keeps in step, makes them wrong without a
sound. So the service reads the kernel's own account of its synchronisation, at start and every
``clock_check_every`` seconds (docs/ops/monitoring.md, "The clock"):

* :func:`read_adjtimex`: ``adjtimex(2)`` with ``modes = 0``, which only *reads* the kernel's NTP state (no
  privilege needed, nothing changed): the status bit ``STA_UNSYNC`` (set when no NTP daemon — chrony, ntpd,
  systemd-timesyncd — keeps the clock in step) and the clock's maximum and estimated errors in microseconds; the
  call's return value ``TIME_ERROR`` (5) says unsynchronised too;
* :func:`read_timedatectl`: ``timedatectl show -p NTPSynchronized --value``, only when ``adjtimex`` cannot be called
  (no such function, or the kernel refuses it); it says synchronised or not, and nothing of the error.

A :class:`ClockWatch` keeps the last reading (the metrics read it at scrape time, cheaply) and logs on
``pokertable.clock`` when the clock's state changes: an ERROR when the clock becomes unsynchronised or its maximum
error goes above ``clock_max_error`` seconds, once (not at every check while it stays so), an INFO when it is good
again (and at the first check, good). A clock finding never holds play: it is an alert for the casino's IT engineer
and the pit, not a stop of the floor.

>>> reading = ClockReading(synchronised=True, max_error_us=750_000, est_error_us=2_000, source="adjtimex")
>>> trouble(reading, max_error=0.5)
'the clock may be off by up to 0.750 s (more than clock_max_error 0.5 s; adjtimex)'
>>> trouble(reading, max_error=1.0) is None
True
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import math
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Protocol

__all__ = [
    "DEFAULT_CLOCK_CHECK_EVERY", "DEFAULT_CLOCK_MAX_ERROR", "STA_UNSYNC", "TIME_ERROR", "ClockReader", "ClockReading",
    "ClockUnreadableError", "ClockWatch", "max_error_gauge", "read_adjtimex", "read_clock", "read_timedatectl",
    "synchronised_gauge", "trouble", "watch_clock",
]

DEFAULT_CLOCK_CHECK_EVERY = 300.0
"""Seconds between two checks of the clock (``pokertable serve --clock-check-every``; 0: never)."""
DEFAULT_CLOCK_MAX_ERROR = 0.5
"""Seconds: the largest maximum error of the clock taken as good (``pokertable serve --clock-max-error``)."""
STA_UNSYNC = 0x0040
"""``struct timex``'s status bit: the clock is not synchronised (linux/timex.h)."""
TIME_ERROR = 5
"""``adjtimex``'s return value when the clock is not synchronised (linux/timex.h: ``TIME_BAD``)."""
TIMEDATECTL = ("timedatectl", "show", "-p", "NTPSynchronized", "--value")
"""systemd's answer to "is the clock synchronised?", when ``adjtimex`` cannot be called."""
_log = logging.getLogger("pokertable.clock")


class ClockUnreadableError(RuntimeError):
    """The clock's synchronisation cannot be read (no ``adjtimex``, no ``timedatectl`` that answers)."""


@dataclass(frozen=True)
class ClockReading:
    """What the host says of its clock: synchronised or not, its maximum and estimated errors in microseconds (None
    when the source does not say: ``timedatectl``), and where this came from (``adjtimex``, ``timedatectl``)."""

    synchronised: bool
    max_error_us: int | None
    est_error_us: int | None
    source: str

    @property
    def max_error(self) -> float | None:
        """The maximum error in seconds (None: not known)."""
        return None if self.max_error_us is None else self.max_error_us / 1e6


class ClockReader(Protocol):
    """Something that reads the clock's state (:func:`read_clock`; the tests feed readings of their own)."""

    def __call__(self) -> ClockReading:
        """The clock's state now (:class:`ClockUnreadableError` when it cannot be read)."""
        ...


class _Timeval(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long)]


class _Timex(ctypes.Structure):
    """glibc's ``struct timex`` (sys/timex.h): ``long`` fields, eleven ``int`` of padding at the end."""

    _fields_ = [
        ("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long), ("maxerror", ctypes.c_long),
        ("esterror", ctypes.c_long), ("status", ctypes.c_int), ("constant", ctypes.c_long),
        ("precision", ctypes.c_long), ("tolerance", ctypes.c_long), ("time", _Timeval), ("tick", ctypes.c_long),
        ("ppsfreq", ctypes.c_long), ("jitter", ctypes.c_long), ("shift", ctypes.c_int), ("stabil", ctypes.c_long),
        ("jitcnt", ctypes.c_long), ("calcnt", ctypes.c_long), ("errcnt", ctypes.c_long), ("stbcnt", ctypes.c_long),
        ("tai", ctypes.c_int), ("_padding", ctypes.c_int * 11),
    ]


@cache
def _adjtimex() -> Callable[[ctypes._Pointer[_Timex]], int]:
    """The C library's ``adjtimex`` (:class:`ClockUnreadableError` when this system has none)."""
    try:
        function = ctypes.CDLL(None, use_errno=True).adjtimex
    except (OSError, AttributeError) as error:
        raise ClockUnreadableError(f"adjtimex is not available here: {error}") from None
    function.argtypes = [ctypes.POINTER(_Timex)]
    function.restype = ctypes.c_int
    return function


def read_adjtimex() -> ClockReading:
    """The kernel's NTP state, from ``adjtimex(2)`` with ``modes = 0`` (a read: it changes nothing)."""
    timex = _Timex()
    timex.modes = 0
    state = _adjtimex()(ctypes.pointer(timex))
    if state == -1:
        errno = ctypes.get_errno()
        raise ClockUnreadableError(f"adjtimex refused: errno {errno}")
    synchronised = state != TIME_ERROR and not timex.status & STA_UNSYNC
    return ClockReading(synchronised, int(timex.maxerror), int(timex.esterror), "adjtimex")


def read_timedatectl(run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run) -> ClockReading:
    """systemd's ``NTPSynchronized`` (``yes`` or ``no``): whether the clock is synchronised, not its error."""
    try:
        done = run(list(TIMEDATECTL), capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        raise ClockUnreadableError(f"timedatectl could not be run: {error}") from None
    answer = done.stdout.strip()
    if done.returncode != 0 or answer not in ("yes", "no"):
        said = (done.stderr.strip() or answer or f"exit status {done.returncode}").splitlines()[-1]
        raise ClockUnreadableError(f"timedatectl did not say: {said}")
    return ClockReading(answer == "yes", None, None, "timedatectl")


def read_clock() -> ClockReading:
    """The clock's state from ``adjtimex``, or from ``timedatectl`` when ``adjtimex`` cannot be called
    (:class:`ClockUnreadableError` naming both when neither answers)."""
    try:
        return read_adjtimex()
    except ClockUnreadableError as first:
        try:
            return read_timedatectl()
        except ClockUnreadableError as second:
            raise ClockUnreadableError(f"{first}; {second}") from None


def trouble(reading: ClockReading, max_error: float) -> str | None:
    """What is wrong with the clock by ``reading`` (None: nothing): unsynchronised, or a maximum error above
    ``max_error`` seconds."""
    if not reading.synchronised:
        return f"the clock is not synchronised ({reading.source})"
    if reading.max_error is not None and reading.max_error > max_error:
        return (f"the clock may be off by up to {reading.max_error:.3f} s (more than clock_max_error {max_error:g} s; "
                f"{reading.source})")
    return None


class ClockWatch:
    """The clock's last check and its state: ``reader`` reads the clock, ``max_error`` (seconds) is the largest
    maximum error taken as good. :meth:`check` reads it and logs when the state changes; the metrics read
    :attr:`last` (:func:`synchronised_gauge`, :func:`max_error_gauge`)."""

    def __init__(self, max_error: float = DEFAULT_CLOCK_MAX_ERROR, reader: ClockReader = read_clock) -> None:
        if not max_error > 0:
            raise ValueError(f"max_error: seconds above 0, not {max_error!r}")
        self.max_error = max_error
        self.reader = reader
        self.last: ClockReading | None = None
        """The last reading (None: none yet, or the clock could not be read at the last check)."""
        self.state: str | None = None
        """``good``, ``unsynchronised``, ``max-error`` or ``unreadable`` (None: not checked yet)."""
        self.on_change: Callable[[str, str], None] | None = None
        """Told of each change of state (the new state and its words), after it is logged: the service records it
        as a significant event (``clock``, :mod:`service.app.significant`). A failure to record it is logged and
        told again at the next check."""

    def check(self) -> ClockReading | None:
        """Read the clock, keep the reading and log if its state changed (see the module); the reading (None: it
        could not be read). Never raises for a clock that cannot be read: that is a state, logged once."""
        try:
            reading = self.reader()
        except ClockUnreadableError as error:
            self.last = None
            self._become("unreadable", logging.WARNING, "clock: its synchronisation cannot be read: %s", str(error),
                         {"cause": str(error)})
            return None
        self.last = reading
        fields: dict[str, object] = {"synchronised": reading.synchronised, "max_error_us": reading.max_error_us,
                                     "est_error_us": reading.est_error_us, "source": reading.source}
        found = trouble(reading, self.max_error)
        if found is not None:
            state = "unsynchronised" if not reading.synchronised else "max-error"
            self._become(state, logging.ERROR, "clock: %s: the times the service records cannot be trusted; see "
                         "docs/ops/monitoring.md, The clock", found, fields)
        else:
            bound = "unknown" if reading.max_error is None else f"{reading.max_error:.3f} s"
            self._become("good", logging.INFO, "clock: %s", f"synchronised, maximum error {bound} ({reading.source})",
                         fields)
        return reading

    def _become(self, state: str, level: int, message: str, said: str, fields: dict[str, object]) -> None:
        if state == self.state:
            return
        _log.log(level, message, said, extra={"fields": {"event": f"clock-{state}", **fields}})
        if self.on_change is not None:
            try:
                self.on_change(state, said)
            except Exception as error:  # the store does not answer: the state is told again at the next check
                _log.error("clock: the finding could not be recorded in the log: %s", error)
                return
        self.state = state


def synchronised_gauge(watch: ClockWatch | None) -> float:
    """``pokertable_clock_synchronised``: 1 synchronised, 0 not, NaN not known (no check, or unreadable)."""
    last = watch.last if watch is not None else None
    return math.nan if last is None else float(last.synchronised)


def max_error_gauge(watch: ClockWatch | None) -> float:
    """``pokertable_clock_max_error_seconds``: the clock's maximum error at the last check (NaN: not known)."""
    last = watch.last if watch is not None else None
    error = last.max_error if last is not None else None
    return math.nan if error is None else error


async def watch_clock(watch: ClockWatch, every: float) -> None:
    """Check the clock at once, then every ``every`` seconds until cancelled, each check on a thread of its own; a
    check that fails unexpectedly is logged and made again at the next interval."""
    while True:
        try:
            await asyncio.to_thread(watch.check)
        except Exception as error:
            _log.error("clock: the check could not be made: %s", error)
        await asyncio.sleep(every)
