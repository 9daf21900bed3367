"""Sign-in and sessions of the pit's web dashboard (issue 16, item 7; issue 32).

Once the casino's staff are in force (docs/staff.md), **a person signs in**: his employee number and his password (his
PIN).  The dashboard is a station of the service's own (``pit-dashboard``, a shared one of kind ``pit``, whose token
never leaves the service's memory), and each person signs in there over gRPC (``SignIn``) with a session of his
own; his session at the service and the station's token stay server-side.  Before the staff are in
force the pit boss, the games director and an observer sign in with their station's name and token — the same
credentials and roles as on gRPC (the stations file).

Either way the browser gets a session: a random id in a cookie that is ``HttpOnly`` (no script reads it),
``SameSite=Strict`` (no other site's page sends it), ``Secure`` when the service has TLS, and ``Path=/``. Every read
and every decision the dashboard makes is a gRPC call as that person (or station), so the service's own role matrix
and visibility policy decide what each session may see and do (a session of one role can never act as another).

Failed sign-ins are throttled by the browser's address: after :data:`FAILURES_ALLOWED` within
:data:`FAILURE_WINDOW` seconds, the next are refused unread until the window has passed, and each refusal is logged
(``pokertable.access``); a person's wrong passwords are also counted at the service and lock his badge there.

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
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Authenticate = Callable[[str, str], "tuple[str, str | None] | None"]
"""A station's role and table from its name and token, or None (the stations file's check, given by the service)."""

ROLES = ("pit-boss", "games-director", "observer", "auditor", "administrator")
"""The roles that sign in to the dashboard; the observer only reads, the auditor reads the reports and the
authentication log, the administrator keeps the staff."""
DECIDERS = ("pit-boss", "games-director")
"""The roles that may decide (approve, refuse, acknowledge); the service checks each decision's own rule again."""
COOKIE = "pit_session"
IDLE_SECONDS = 8 * 3600
"""A session unused for a shift ends."""


FAILURES_ALLOWED = 5
FAILURE_WINDOW = 60.0
"""Failed sign-ins from one address within this many seconds after which its sign-ins wait out the window."""


@dataclass
class Session:
    """A signed-in person (or, before the staff are in force, a station)."""

    id: str
    station: str
    role: str
    token: Any
    """What the session's calls are made as: the station's token, or the dashboard's station and the person's
    session (:class:`service.web.api.Caller`); kept server-side only."""
    csrf: str
    seen: float = field(default_factory=time.monotonic)
    person: str = ""
    name: str = ""
    lang: str = "en"
    """The language its pages are drawn in (``en`` or ``es``: :mod:`service.web.i18n`)."""

    @property
    def who(self) -> str:
        """Who is signed in, as the page names him."""
        return f"{self.name} ({self.person})" if self.person else self.station

    @property
    def decides(self) -> bool:
        """May this session approve, refuse and acknowledge (the pit boss, the games director)."""
        return self.role in DECIDERS

    def may_decide(self, kind: str) -> bool:
        """May this session take a decision of ``kind``: a 1000:1 bonus is the games director's alone (R-THB-10); a
        correction, the pit boss's or the director's (R-AUD-1). The page offers only these buttons (issue 34)."""
        if kind == "bonus":
            return self.role == "games-director"
        return self.decides

    def csrf_ok(self, presented: str | None) -> bool:
        """The CSRF token presented with a state-changing request is this session's."""
        return presented is not None and hmac.compare_digest(presented.encode(), self.csrf.encode())


class Sessions:
    """The dashboard's sessions, in memory (a restart signs everyone out)."""

    def __init__(self, authenticate: Authenticate, *, idle_seconds: float = IDLE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.authenticate, self.idle_seconds, self.clock = authenticate, idle_seconds, clock
        self._by_id: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._failures: dict[str, deque[float]] = {}  # by address: the times of its recent failed sign-ins
        self.ended: Callable[[Session], None] = lambda session: None
        """Told of each session that ends (signed out, or idle): its person signs out at the service."""

    def throttled(self, address: str) -> int:
        """Seconds the address still waits before it may try again (0: it may)."""
        now = self.clock()
        with self._lock:
            recent = self._failures.get(address)
            if recent is None or len(recent) < FAILURES_ALLOWED or now - recent[0] >= FAILURE_WINDOW:
                return 0
            return int(FAILURE_WINDOW - (now - recent[0])) + 1

    def failed(self, address: str) -> None:
        """A failed sign-in from ``address`` (kept for the window; at most so many addresses)."""
        now = self.clock()
        with self._lock:
            if len(self._failures) > 10_000:
                self._failures.clear()
            self._failures.setdefault(address, deque(maxlen=FAILURES_ALLOWED)).append(now)

    def open(self, station: str, role: str, token: Any, *, person: str = "", name: str = "") -> Session | None:
        """A new session for whoever signed in (a person at the dashboard's station, or a pit station); None for a
        role the dashboard does not serve."""
        if role not in ROLES:
            return None
        session = Session(secrets.token_urlsafe(32), station, role, token, secrets.token_urlsafe(32),
                          person=person, name=name)
        with self._lock:
            self._by_id[session.id] = session
        return session

    def sign_in(self, station: str, token: str) -> Session | None:
        """A new session for a pit station whose name and token match; None otherwise (whatever was wrong)."""
        found = self.authenticate(station, token)
        return None if found is None else self.open(station, found[0], token)

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
                self.ended(session)
                return None
            session.seen = now
            return session

    def sign_out(self, session_id: str) -> None:
        """End a session."""
        with self._lock:
            session = self._by_id.pop(session_id, None)
        if session is not None:
            self.ended(session)
