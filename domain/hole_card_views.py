"""Who watched the hole cards (issue 29, item 7; R-AUD-1): the casino's record of live views of face-down cards.

The pit boss and the games director see every face-down card of a hand in progress (the dashboard's table page, the
pit's station); that channel is the one known live-stream cheating cases went through, so each person's first look
at a hand's face-down cards is recorded: who (the station the service authenticated, and its role), which table and
which hand, through which call, and when (the event's time).

The record is kept a day at a time (UTC), one aggregate a day for the whole casino, so that a report reads the days it
asks for and nothing else of the log; a view is recorded once a day record (the service's command id, made of the
viewer, the table and the hand, records it once over every day and every instance).

>>> views = HoleCardViews(day="2026-11-27")
>>> views.record_view(viewer="pit", role="pit-boss", table="Mesa 1", hand_number=12, hand_id="h-12", via="GetTable")
True
>>> views.record_view(viewer="pit", role="pit-boss", table="Mesa 1", hand_number=12, hand_id="h-12", via="Watch")
False
>>> [(view.viewer, view.table, view.hand_number, view.via) for view in views.views]
[('pit', 'Mesa 1', 12, 'GetTable')]
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.errors import RuleError
from domain.ids import TABLES_NAMESPACE

VIEWS_NAMESPACE = uuid5(TABLES_NAMESPACE, "hole-card-views")
"""The namespace of the day records' ids."""
TOPICS = f"{__name__}:"
"""How the stored topics of this module's aggregate and events begin (a Watch stream passes them by: no table's)."""
MAX_TEXT = 64
"""The longest viewer, role, table, hand id or call name a view keeps (station and table names are at most 64)."""


@dataclass(frozen=True)
class HoleCardView:
    """One person's first live look at a hand's face-down cards."""

    at: datetime
    """When (the event's time, UTC)."""
    viewer: str
    """The station the service authenticated (the dashboard's sessions sign in with a station's name and token)."""
    role: str
    """The station's role (``pit-boss``, ``games-director``)."""
    table: str
    hand_number: int
    hand_id: str
    via: str
    """The call that showed the cards (``GetTable``, ``Watch``, ``ExportHand``)."""


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise RuleError(f"a view names {what} (1–{MAX_TEXT} characters)", rule="R-AUD-1")
    return value


class HoleCardViews(Aggregate):
    """The live views of face-down cards of one day (UTC), for the whole casino."""

    @staticmethod
    def create_id(day: str, **_: Any) -> UUID:
        """One record per day."""
        return uuid5(VIEWS_NAMESPACE, day)

    @event("Opened")
    def __init__(self, *, day: str) -> None:
        date.fromisoformat(day)  # a day, YYYY-MM-DD (ValueError otherwise)
        self.day = day
        self.views: list[HoleCardView] = []
        self._seen: set[tuple[str, str, str]] = set()

    def has_view(self, viewer: str, table: str, hand_id: str) -> bool:
        """Whether this person's view of this hand is recorded already (in this day's record)."""
        return (viewer, table, hand_id) in self._seen

    def record_view(self, *, viewer: str, role: str, table: str, hand_number: int, hand_id: str,
                    via: str) -> bool:
        """R-AUD-1: record ``viewer``'s live view of the face-down cards of hand ``hand_number`` at ``table``, once
        (False: recorded already, nothing new)."""
        for value, what in ((viewer, "who looked"), (role, "the viewer's role"), (table, "the table"),
                            (hand_id, "the hand"), (via, "the call")):
            _text(value, what)
        if isinstance(hand_number, bool) or not isinstance(hand_number, int) or hand_number < 1:
            raise RuleError("a view names the hand's number (1 = the table's first)", rule="R-AUD-1")
        if self.has_view(viewer, table, hand_id):
            return False
        self._viewed(viewer=viewer, role=role, table=table, hand_number=hand_number, hand_id=hand_id, via=via)
        return True

    @event("Viewed")
    def _viewed(self, *, viewer: str, role: str, table: str, hand_number: int, hand_id: str, via: str) -> None:
        """R-AUD-1: ``viewer`` (of ``role``) saw the face-down cards of ``table``'s hand ``hand_number`` live,
        through ``via``; the event's time is the when."""
        self.views.append(HoleCardView(self.modified_on, viewer, role, table, hand_number, hand_id, via))
        self._seen.add((viewer, table, hand_id))
