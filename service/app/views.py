"""What the application answers without changing anything (issue 31: the application's ``app.views``): tables of
every game as a station may see them (through the one visibility policy, :mod:`service.app.visibility`), what the
hand in progress takes now (its game's answer), the hands of a table found by a search, a table at a past moment."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from domain.actions import NOTHING, Legal
from domain.banked.table import BankedTable
from domain.circle.state import LegalActions
from domain.circle.table import Table
from domain.games import GAMES, OUTCOMES, game_of
from service.app import past
from service.app.access import ServiceError, Viewer
from service.app.floor_log import hand_summary
from service.app.table_views import (
    BankedTableView,
    CircleTableView,
    HandSummary,
    NextCard,
    TableView,
    banked_next_card,
    table_part,
)
from service.app.visibility import shows_down_cards

if TYPE_CHECKING:
    from service.app.floor_log import FloorLog
    from service.app.holds import Holds


class Host(past.Store, Protocol):
    """The application as its views see it (:class:`service.app.application.PokerTables` is one): what the past is
    read from (:class:`service.app.past.Store`), its holds, its floor's projection and the casino's delay policy
    (``hole_cards_live``)."""

    hole_cards_live: bool

    @property
    def holds(self) -> Holds: ...
    @property
    def floor_log(self) -> FloorLog: ...


class TableViews:
    """What the application answers without changing anything (``app.views``): tables of every game as a station
    may see them, what a hand takes now, the hands of a table found by a search, a table at a past moment."""

    def __init__(self, app: Host) -> None:
        self.app = app
        self.reads = app.reads

    def view(self, table: str, viewer: Viewer) -> TableView:
        """A table of any game as a station may see it: face-down cards hidden unless the viewer may see them (a
        circle table's players' cards; a banked table's boxes' cards, and the house's until the boxes are settled);
        the pit sees a hand in progress's face-down cards only if the casino shows them live (issue 29, item 7)."""
        with self.reads.peeking(table):
            record = self.reads.any_table(table)
            game = game_of(record)
            hand = None if record.hand_in_progress is None else self.reads.any_hand(record.hand_in_progress)
            sees = shows_down_cards(viewer.sees_down_cards(table), hand_live=True,
                                    hole_cards_live=self.app.hole_cards_live)
            part = table_part(game.table_class, game.table_state(record),
                              None if hand is None else game.state(hand), sees_down_cards=sees,
                              next_card=None if hand is None else NEXT_CARD[game.table_class](hand))
            return TableView(record.name, game.code, record.hands_started, str(record.dealer_id), record.language,
                             record.last_deck_colour or "", str(record.created_on),
                             tuple(self.app.holds.holds_of(record)), tuple(sorted(record.decks_out)),
                             bool(getattr(record, "closed", False)), part,
                             int(getattr(record, "seat_count", 0) or game.boxes))

    def past_view(self, then: past.PastTable, *, sees_down_cards: bool) -> CircleTableView | BankedTableView:
        """The game's part of a table at a past moment (:meth:`table_at`) as a station may see it."""
        return table_part(GAMES[then.game].table_class, then.state, then.hand, sees_down_cards=sees_down_cards)

    def legal(self, table: str) -> Legal:
        """What the hand in progress at a table of any game takes now (its game's answer, :attr:`domain.games.
        Game.legal`): nothing when no hand is in progress."""
        with self.reads.locks(table):
            record = self.reads.any_table(table)
            if record.hand_in_progress is None:
                return NOTHING
            return game_of(record).legal(self.reads.current_hand(record))

    def legal_actions(self, table: str) -> LegalActions | None:
        """What the player to act may bet at a circle table now (None: no one is to bet)."""
        with self.reads.locks(table):
            record = self.reads.table(table)
            if record.hand_in_progress is None:
                return None
            return self.reads.hand(record.hand_in_progress).legal_actions()

    def search_hands(self, table: str, *, since: datetime | None = None, until: datetime | None = None,
                     seat: int | None = None, outcome: str | None = None,
                     game: str | None = None) -> list[HandSummary]:
        """The hands of a table of any game started in a time range, with a seat (a box, at a banked table) dealt
        in, of a game, or ending a given way (circle: ``showdown``, ``uncontested``, ``voided``, ``blank``,
        ``in-progress``; banked: ``settled``, ``voided``, ``in-progress``): a summary of each, oldest first."""
        if outcome is not None and outcome not in OUTCOMES:
            raise ServiceError(f"an outcome is one of {', '.join(OUTCOMES)}")
        dealt = game_of(self.reads.any_table(table))
        if game is not None and game != dealt.code:
            return []  # a table deals one game (R-CIRC-5)
        if self.app.floor_log.usable:  # the hands index (issue 30): the hands it finds, not every hand of the table
            self.app.floor_log.catch_up()
            rows = self.app.floor_log.store.hands_index.hands(table, since=since, until=until, outcome=outcome,
                                                              seat=seat)
            summaries: Iterable[HandSummary] = (
                HandSummary.of(row.summary) if row.summary is not None
                else hand_summary(self.app, dealt, UUID(row.hand_id)) for row in rows)
        else:  # a store opened read-only: the hands started in the range, each read
            summaries = (hand_summary(self.app, dealt, hand_id)
                         for hand_id in past.hands_started_within(self.app, table, since, until))
        found = []
        for summary in summaries:
            if (since is not None and summary.started < since) or (until is not None and summary.started > until):
                continue
            if seat is not None and seat not in summary.seats:
                continue
            if outcome is None or summary.outcome == outcome:
                found.append(summary)
        return found

    def table_at(self, table: str, *, position: int | None = None,
                 moment: datetime | None = None) -> past.PastTable:
        """A table of any game as it stood at a past moment, from the events alone (issue 8): after the log
        position ``position`` (as on the watch stream), or at the time ``moment``; the hand in progress then, as it
        stood (the pit's copy: every card). Read from the table's own history (:mod:`service.app.past`)."""
        return past.table_at(self.app, table, position, moment)


NEXT_CARD: Mapping[type[Any], Callable[[Any], NextCard | None]] = {
    Table: lambda hand: None, BankedTable: banked_next_card}
"""Where a hand's next card goes, beside its state, by its table's aggregate class (a circle hand's state says it)."""


def parse_moment(text: str | None) -> datetime | None:
    """A time given by a station or at the console: ISO 8601 with its offset (a casino's clock changes twice a
    year), or nothing for an empty text."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise ValueError("a time needs its offset, e.g. 2026-11-21T22:15:00+01:00")
    return moment
