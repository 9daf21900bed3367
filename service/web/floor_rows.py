"""What the floor shows of each table (issue 16, item 1; issue 34, item 2): a table's :class:`Row` as the floor keeps
it, the alerts the pit must acknowledge, and the row drawn for a page — what needs the pit first
(:func:`priority`), with since when it has waited.  :mod:`service.web.floor` keeps the rows current."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from service.api import types_pb2 as pb

HOUR = 3600.0
ATTENTION = ("held", "alert", "waiting", "threshold")
"""What puts a table first on the floor, most urgent first: held by an alert (R-HOLD-1), an open alert, a decision
waiting for the pit (a 1000:1 bonus, a correction; the floor's page adds a slip waiting for its signature), a
threshold the casino set crossed (:class:`Thresholds`)."""


@dataclass(frozen=True)
class Thresholds:
    """What the casino wants the floor to flag (the service's settings; 0: never): an alert open this many minutes
    is escalated to the games director; a hand lasting more minutes; hands an hour below (at a table open an hour
    at least) or above a count."""

    escalate_after_minutes: int = 10
    hand_minutes: int = 10
    per_hour_below: int = 0
    per_hour_above: int = 0

    def escalated(self, alert: Alert, now: float) -> bool:
        """An alert open longer than the casino lets it wait for the pit boss: now the games director's too.

        >>> Thresholds(escalate_after_minutes=10).escalated(Alert("T", 1, "", "device", "", raised=0.0), 601.0)
        True
        """
        return bool(self.escalate_after_minutes) and now - alert.raised > 60 * self.escalate_after_minutes


DEFAULT_THRESHOLDS = Thresholds()
"""The settings' defaults."""
STATUS_ORDER = ("hand-in-progress", "between-hands", "closed")


@dataclass
class Alert:
    """Something the pit must see and acknowledge: raised by the event at ``position`` of ``table``; on the floor
    while it is open (an acknowledged alert leaves it)."""

    table: str
    position: int
    at: str
    """When it was raised, in the casino's time (``2026-11-25 22:00:05``)."""
    kind: str
    text: str
    raised: float = 0.0
    """When it was raised (seconds since the epoch): how long it has waited."""


@dataclass
class Row:
    """A table on the floor."""

    table: str
    game: int = 0
    family: int = 0
    status: str = "between-hands"
    hand_number: int = 0
    hands_started: int = 0
    chips_in_play: int = 0
    deck: str = ""
    shuffler: str = ""
    shoe: str = ""
    waiting: str = ""
    bonus_box: int = 0
    """The box whose 1000:1 bonus waits for the games director (R-THB-10), 0 when none."""
    correction: str = ""
    """The correction the croupier asked for, while it waits for the pit (R-AUD-1)."""
    position: int = 0
    holds: int = 0
    """The alerts holding the table (R-HOLD-1)."""
    dealer: str = ""
    """The dealer signed in: his name on the staff, or his id."""
    seats: int = 0
    seat_count: int = 0
    waiting_since: float = 0.0
    """When the decision now waiting began to wait (the floor saw it; seconds since the epoch), 0 when none."""
    started: deque[float] = field(default_factory=deque)
    """When each hand of the last hour started (wall clock, seconds)."""
    opened: float = 0.0
    """When the table opened (seconds since the epoch; 0: not known yet)."""

    def crossed(self, now: float, thresholds: Thresholds) -> list[tuple[str, str]]:
        """The casino's thresholds this table crosses now, each in words, in English and in Spanish (issue 34,
        item 3).

        >>> row = Row("Mesa 1", status="hand-in-progress", hand_number=7, opened=1.0, started=deque([4000.0]))
        >>> [english for english, _ in row.crossed(4000.0 + 11 * 60, Thresholds(hand_minutes=10, per_hour_below=20))]
        ['hand 7 has lasted 11 min (more than 10)', '1 hands in the last hour (fewer than 20)']
        """
        found = []
        if thresholds.hand_minutes and self.status.startswith("hand-in-progress") and self.started:
            lasted, most = int((now - self.started[-1]) // 60), thresholds.hand_minutes
            if lasted > most:
                found.append((f"hand {self.hand_number} has lasted {lasted} min (more than {most})",
                              f"la mano {self.hand_number} dura ya {lasted} min (más de {most})"))
        per_hour = self.hands_per_hour(now)
        if thresholds.per_hour_above and per_hour > thresholds.per_hour_above:
            found.append((f"{per_hour} hands in the last hour (more than {thresholds.per_hour_above})",
                          f"{per_hour} manos en la última hora (más de {thresholds.per_hour_above})"))
        elif (thresholds.per_hour_below and per_hour < thresholds.per_hour_below and self.opened
              and now - self.opened >= HOUR and not self.status.startswith("closed")):
            found.append((f"{per_hour} hands in the last hour (fewer than {thresholds.per_hour_below})",
                          f"{per_hour} manos en la última hora (menos de {thresholds.per_hour_below})"))
        return found

    def hands_per_hour(self, now: float) -> int:
        while self.started and now - self.started[0] > HOUR:
            self.started.popleft()
        return len(self.started)

    def note_waiting(self, now: float) -> None:
        """What waits for the pit now (a 1000:1 bonus, a correction), and since when (``now`` when it begins).

        >>> row = Row("THB 1", bonus_box=1)
        >>> row.note_waiting(100.0); row.note_waiting(160.0); (row.waiting, row.waiting_since)
        ('bonus', 100.0)
        >>> row.bonus_box = 0; row.note_waiting(200.0); (row.waiting, row.waiting_since)
        ('', 0.0)
        """
        self.waiting = ", ".join(name for name, waits in (("bonus", self.bonus_box), ("correction", self.correction))
                                 if waits)
        self.waiting_since = (self.waiting_since or now) if self.waiting else 0.0

    def drawn(self, order: int, now: float, alerts: list[Alert],
              thresholds: Thresholds = DEFAULT_THRESHOLDS) -> dict[str, Any]:
        """The row as the floor page and its stream show it (``alerts``: the table's open ones; ``order``: its place
        in the order the tables were opened)."""
        crossed = self.crossed(now, thresholds)
        escalated = any(thresholds.escalated(alert, now) for alert in alerts)
        attention = "held" if self.holds else "alert" if alerts else "waiting" if self.waiting else \
            "threshold" if crossed else ""
        since = min((alert.raised for alert in alerts), default=0.0) if attention in ("held", "alert") \
            else self.waiting_since
        return {"table": self.table, "game": pb.Game.Name(self.game).removeprefix("GAME_").lower(),
                "status": self.status, "hand": self.hand_number, "hands": self.hands_started,
                "chips": self.chips_in_play, "per_hour": self.hands_per_hour(now), "deck": self.deck,
                "shuffler": self.shuffler, "alerts": len(alerts), "waiting": self.waiting,
                "position": self.position, "dealer": self.dealer,
                "seats": f"{self.seats}/{self.seat_count}" if self.seat_count else str(self.seats or ""),
                "attention": attention, "priority": priority(attention, self.status), "since": since, "order": order,
                "thresholds": "; ".join(english for english, _ in crossed),
                "thresholds_es": "; ".join(spanish for _, spanish in crossed), "escalated": escalated}


def priority(attention: str, status: str) -> int:
    """Where a table's row sorts on the floor (lowest first): what needs the pit first, most urgent first, then the
    tables dealing, then those between hands, the closed ones last.

    >>> priority("held", "between-hands"), priority("waiting", "hand-in-progress"), priority("", "closed")
    (0, 2, 6)
    """
    if attention in ATTENTION:
        return ATTENTION.index(attention)
    base = status.split(",", maxsplit=1)[0]
    return len(ATTENTION) + (STATUS_ORDER.index(base) if base in STATUS_ORDER else 1)


def by_table(alerts: Iterable[Alert]) -> dict[str, list[Alert]]:
    """Open alerts grouped by their table."""
    grouped: dict[str, list[Alert]] = {}
    for alert in alerts:
        grouped.setdefault(alert.table, []).append(alert)
    return grouped
