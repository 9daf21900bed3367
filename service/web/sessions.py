"""Sign-in and sessions of the pit's web dashboard (issue 16, item 7).

The pit boss, the games director and an observer sign in with their station's name and token — the same credentials
and roles as on gRPC (the stations file) — and get a session: a random id in a cookie that is ``HttpOnly`` (no script
reads it), ``SameSite=Strict`` (no other site's page sends it), ``Secure`` when the service has TLS, and ``Path=/``.
The session keeps the station's token server-side: every read and every decision the dashboard makes is a gRPC call
with that token, so the service's own role matrix and visibility policy decide what each session may see and do (a
session of one role can never act as another).

Every state-changing request carries the session's CSRF token (a form field or the ``X-CSRF-Token`` header, compared
in constant time) and, when the browser says where it comes from (``Origin``), comes from this dashboard: a forged
cross-site POST is refused.  Croupiers' stations and devices do not sign in here: the dashboard is the pit's.

>>> sessions = Sessions(lambda name, token: ("pit-boss", None) if (name, token) == ("pit", "t" * 16) else None)
>>> sessions.sign_in("pit", "wrong") is None
True
>>> session = sessions.sign_in("pit", "t" * 16)
>>> session is not None and sessions.get(session.id) is session and session.role
'pit-boss'
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

Authenticate = Callable[[str, str], "tuple[str, str | None] | None"]
"""A station's role and table from its name and token, or None (the stations file's check, given by the service)."""

ROLES = ("pit-boss", "games-director", "observer")
"""The roles that sign in to the dashboard; the observer only reads."""
DECIDERS = ("pit-boss", "games-director")
"""The roles that may decide (approve, refuse, acknowledge); the service checks each decision's own rule again."""
COOKIE = "pit_session"
IDLE_SECONDS = 8 * 3600
"""A session unused for a shift ends."""


@dataclass
class Session:
    """A signed-in station."""

    id: str
    station: str
    role: str
    token: str
    csrf: str
    seen: float = field(default_factory=time.monotonic)

    @property
    def decides(self) -> bool:
        """May this session approve, refuse and acknowledge (the pit boss, the games director)."""
        return self.role in DECIDERS

    def csrf_ok(self, presented: str | None) -> bool:
        """The CSRF token presented with a state-changing request is this session's."""
        return presented is not None and hmac.compare_digest(presented.encode(), self.csrf.encode())


class Sessions:
    """The dashboard's sessions, in memory (a restart signs everyone out)."""

    def __init__(self, authenticate: Authenticate, *, idle_seconds: float = IDLE_SECONDS) -> None:
        self.authenticate, self.idle_seconds = authenticate, idle_seconds
        self._by_id: dict[str, Session] = {}
        self._lock = threading.Lock()

    def sign_in(self, station: str, token: str) -> Session | None:
        """A new session for a pit station whose name and token match; None otherwise (whatever was wrong)."""
        found = self.authenticate(station, token)
        if found is None or found[0] not in ROLES:
            return None
        session = Session(secrets.token_urlsafe(32), station, found[0], token, secrets.token_urlsafe(32))
        with self._lock:
            self._by_id[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        """The live session of a cookie's id (None: none, unknown, or idle too long)."""
        if not session_id:
            return None
        now = time.monotonic()
        with self._lock:
            session = self._by_id.get(session_id)
            if session is None:
                return None
            if now - session.seen > self.idle_seconds:
                del self._by_id[session_id]
                return None
            session.seen = now
            return session

    def sign_out(self, session_id: str) -> None:
        """End a session."""
        with self._lock:
            self._by_id.pop(session_id, None)
