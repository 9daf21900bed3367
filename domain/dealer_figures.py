"""The dealers' figures over a period (issue 19, item 4; R-AUD-1): hands dealt per hour and irregularities per dealer,
projected from the event log alone.

A dealer deals at a table from his sign-in (``DealerSignedIn``) until he signs out (``DealerSignedOut``), the next
dealer signs in (a rotation: the sign-in names whom it replaces), or the table closes; each is an event with its time.
What happens at the table meanwhile is his:

- **hands**: every hand started (``HandStarted``, a voided one too: he dealt it);
- **voids**: a whole hand void (R-CIRC-14, R-THB-11) or a box's (R-THB-11 d);
- **corrections**: a correction of his hand approved by the pit (R-AUD-1), a stack corrected by the pit between hands,
  the dealer's card count corrected (R-THB-11 d);
- **exposed cards**: a card exposed at the cut (R-CIRC-2), a player's card exposed (R-CIRC-9), a card found face up in
  the deck (R-THB-11 b).

Only what happened in the period ``[start, end)`` counts, and his time at the tables is clipped to it; a dealer still
signed in when the log ends deals until ``now`` (the caller's clock, never read here).  Hands started with no dealer
signed in count under the dealer ``""``.  Hands per hour are hands over hours at the tables (0 with no time).

>>> from datetime import datetime, timedelta
>>> t0 = datetime(2026, 11, 25, 20, 0)
>>> log = [LogEntry(1, t0, "t1", "Table.Opened", {"name": "Mesa 1"}),
...        LogEntry(2, t0, "t1", "Table.DealerSignedIn", {"dealer_id": "D-7", "previous": ""}),
...        LogEntry(3, t0 + timedelta(minutes=10), "t1", "Table.HandStarted", {"hand_id": "h1"}),
...        LogEntry(4, t0 + timedelta(minutes=11), "h1", "Hand.CardExposed", {"seat": 2}),
...        LogEntry(5, t0 + timedelta(minutes=30), "t1", "Table.DealerSignedIn", {"dealer_id": "D-9",
...                                                                                 "previous": "D-7"})]
>>> report = dealer_figures(log, start=t0, end=t0 + timedelta(hours=1), now=t0 + timedelta(hours=2))
>>> [(f.dealer, f.tables, f.hours, f.hands, f.hands_per_hour, f.exposed) for f in report.figures]
[('D-7', ('Mesa 1',), 0.5, 1, 2.0, 1), ('D-9', ('Mesa 1',), 0.5, 0, 0.0, 0)]
>>> [(r.table, r.dealer, r.previous, r.kind) for r in report.rotations]
[('Mesa 1', 'D-7', '', 'sign-in'), ('Mesa 1', 'D-9', 'D-7', 'sign-in')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

TABLES = ("Table", "BankedTable")
"""The aggregates that are tables (their events name the table)."""
HANDS = ("Hand", "ThbHand", "CdpHand")
"""The aggregates that are hands (their events are a table's by its ``HandStarted``)."""
IRREGULARITIES: Mapping[str, str] = {
    "Hand.Voided": "voids", "ThbHand.Voided": "voids", "CdpHand.Voided": "voids", "ThbHand.BoxVoided": "voids",
    "Hand.CorrectionApproved": "corrections", "Table.StackCorrected": "corrections",
    "ThbHand.DealerCountCorrected": "corrections",
    "Table.CutCardExposed": "exposed", "Hand.CardExposed": "exposed", "ThbHand.FaceUpCardDiscarded": "exposed",
}
"""Each irregularity event (``Aggregate.Event``) and what it counts as."""
ROTATIONS = ("DealerSignedIn", "DealerSignedOut")
EVENTS = (*(f"{table}.{name}" for table in TABLES for name in ("Opened", "HandStarted", "Closed", *ROTATIONS)),
          *IRREGULARITIES)
"""Every event the projection reads (the rest of the log is not its business)."""


@dataclass(frozen=True)
class LogEntry:
    """One event of the log: its position, time, originator (an aggregate id), ``Aggregate.Event`` and data."""

    position: int
    time: datetime
    originator: str
    event: str
    data: Mapping[str, Any]


@dataclass(frozen=True)
class Rotation:
    """A dealer signed in at (or out of) a table, when, and whom a sign-in replaced ("" for nobody)."""

    time: datetime
    table: str
    dealer: str
    previous: str
    kind: str  # "sign-in" or "sign-out"


@dataclass
class DealerFigures:
    """One dealer's figures over the period."""

    dealer: str
    tables: tuple[str, ...] = ()
    seconds: float = 0.0
    hands: int = 0
    voids: int = 0
    corrections: int = 0
    exposed: int = 0

    @property
    def hours(self) -> float:
        """Hours at the tables within the period."""
        return round(self.seconds / 3600, 6)

    @property
    def hands_per_hour(self) -> float:
        """Hands started per hour at the tables (0 with no time)."""
        return round(self.hands / (self.seconds / 3600), 2) if self.seconds > 0 else 0.0

    @property
    def irregularities(self) -> int:
        """Voids, corrections and exposed cards together."""
        return self.voids + self.corrections + self.exposed


@dataclass(frozen=True)
class DealerReport:
    """The dealers' figures (by dealer id) and the rotations of the period, in time order."""

    figures: list[DealerFigures]
    rotations: list[Rotation] = field(default_factory=list)


class _Projection:
    def __init__(self, start: datetime, end: datetime) -> None:
        self.start, self.end = start, end
        self.names: dict[str, str] = {}
        self.hand_table: dict[str, str] = {}
        self.on_duty: dict[str, tuple[str, datetime]] = {}
        self.figures: dict[str, DealerFigures] = {}
        self.tables: dict[str, set[str]] = {}
        self.rotations: list[Rotation] = []

    def _of(self, dealer: str) -> DealerFigures:
        return self.figures.setdefault(dealer, DealerFigures(dealer))

    def _in_period(self, time: datetime) -> bool:
        return self.start <= time < self.end

    def _close(self, table: str, time: datetime) -> None:
        if (duty := self.on_duty.pop(table, None)) is None:
            return
        dealer, since = duty
        begin, finish = max(since, self.start), min(time, self.end)
        if finish > begin or self._in_period(since):
            figures = self._of(dealer)
            figures.seconds += max((finish - begin).total_seconds(), 0.0)
            self.tables.setdefault(dealer, set()).add(self.names.get(table, table))

    def _count(self, table: str, time: datetime, what: str) -> None:
        if not self._in_period(time):
            return
        dealer = self.on_duty.get(table, ("", time))[0]
        setattr(self._of(dealer), what, getattr(self._of(dealer), what) + 1)
        self.tables.setdefault(dealer, set()).add(self.names.get(table, table))

    def take(self, entry: LogEntry) -> None:
        aggregate, _, name = entry.event.partition(".")
        if aggregate in HANDS:
            table = self.hand_table.get(entry.originator)
            if table is not None and entry.event in IRREGULARITIES:
                self._count(table, entry.time, IRREGULARITIES[entry.event])
            return
        table = entry.originator
        if name == "Opened":
            self.names[table] = str(entry.data.get("name", table))
        elif name == "HandStarted":
            self.hand_table[str(entry.data.get("hand_id", ""))] = table
            self._count(table, entry.time, "hands")
        elif name in ROTATIONS or name == "Closed":
            self._close(table, entry.time)
            if name == "DealerSignedIn":
                self.on_duty[table] = (str(entry.data["dealer_id"]), entry.time)
            if name in ROTATIONS and self._in_period(entry.time):
                self.rotations.append(Rotation(entry.time, self.names.get(table, table), str(entry.data["dealer_id"]),
                                               str(entry.data.get("previous", "")),
                                               "sign-in" if name == "DealerSignedIn" else "sign-out"))
        elif entry.event in IRREGULARITIES:
            self._count(table, entry.time, IRREGULARITIES[entry.event])

    def report(self, now: datetime) -> DealerReport:
        for table in list(self.on_duty):
            self._close(table, max(now, self.on_duty[table][1]))
        figures = sorted(self.figures.values(), key=lambda f: f.dealer)
        for figure in figures:
            figure.tables = tuple(sorted(self.tables.get(figure.dealer, ())))
        return DealerReport(figures, self.rotations)


def dealer_figures(log: Iterable[LogEntry], *, start: datetime, end: datetime, now: datetime) -> DealerReport:
    """The dealers' figures over ``[start, end)`` from the log in log order (entries of :data:`EVENTS`; others are
    passed over); a dealer still signed in at the end of the log deals until ``now``."""
    if end <= start:
        raise ValueError("a period ends after it starts")
    projection = _Projection(start, end)
    for entry in log:
        projection.take(entry)
    return projection.report(now)
