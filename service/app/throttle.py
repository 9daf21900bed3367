"""Failed attempts counted by key (a station, a browser's address) within a window of time (issue 32): after
``allowed`` failures within ``window`` seconds the key waits until the oldest of them is ``window`` seconds old.
Used by the service's sign-ins at a station (:mod:`service.app.sign_in_records`).  The dashboard's sign-in page
keeps its own count by address (:mod:`service.web.sessions`): the dashboard may import nothing of the application.

>>> now = [0.0]
>>> throttle = Throttle(2, 60.0, lambda: now[0])
>>> throttle.failed("tv"); throttle.failed("tv"); throttle.wait("tv"), throttle.wait("pit")
(61, 0)
>>> now[0] = 60.0
>>> throttle.wait("tv")
0
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

MAX_KEYS = 10_000
"""The most keys remembered (then all are forgotten: a flood of addresses cannot fill the memory)."""


class Throttle:
    """Failures by key within a window."""

    def __init__(self, allowed: int, window: float, clock: Callable[[], float]) -> None:
        self.allowed, self.window, self.clock = allowed, window, clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def failed(self, key: str) -> None:
        """A failure of ``key`` now."""
        now = self.clock()
        with self._lock:
            if key not in self._failures and len(self._failures) >= MAX_KEYS:
                self._failures.clear()
            self._failures.setdefault(key, deque(maxlen=self.allowed)).append(now)

    def wait(self, key: str) -> int:
        """Seconds ``key`` still waits before it may try again (0: it may)."""
        now = self.clock()
        with self._lock:
            recent = self._failures.get(key)
            if recent is None or len(recent) < self.allowed or now - recent[0] >= self.window:
                return 0
            return int(self.window - (now - recent[0])) + 1

    def forgive(self, key: str) -> None:
        """``key`` succeeded: its failures are forgotten."""
        with self._lock:
            self._failures.pop(key, None)
