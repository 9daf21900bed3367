"""What the application answers without changing anything (issue 31: the application's ``app.views``): tables of
every game as a station may see them (through the one visibility policy, :mod:`service.app.visibility`), what the
hand in progress takes now (its game's answer), the hands of a table found by a search, a table at a past moment."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from domain.actions import NOTHING, Legal
from domain.banked.cdp import CdpHand
from domain.banked.table import BankedTable
from domain.banked.thb import ThbHand
from domain.circle.state import LegalActions
from domain.circle.table import Table
from domain.games import OUTCOMES, game_of
from service.app import past
from service.app.access import Role, ServiceError, Viewer
from service.app.floor_log import hand_summary, started_at
from service.app.visibility import banked_cards, circle_snapshot, house_cards, shows_down_cards

if TYPE_CHECKING:
    from service.app.floor_log import FloorLog
    from service.app.holds import Holds
    from service.app.reads import Reads


class Host(Protocol):
    """The application as its views see it (:class:`service.app.application.PokerTables` is one): its reads, its
    holds, its floor's projection, its store and the casino's delay policy (``hole_cards_live``)."""

    hole_cards_live: bool

    @property
    def reads(self) -> Reads: ...
    @property
    def holds(self) -> Holds: ...
    @property
    def floor_log(self) -> FloorLog: ...
    @property
    def recorder(self) -> Any: ...
    @property
    def mapper(self) -> Any: ...
    @property
    def events(self) -> Any: ...


def _next_card(hand: ThbHand | CdpHand) -> str:
    """Where a banked hand's next card goes, as a station shows it."""
    due = hand.next_card
    if due is None:
        return ""
    if isinstance(due, int):  # Casino Draw Poker: a box, or 0 for the bank
        return f"box {due}" if due else "bank"
    return f"box {due.box}" if due.kind == "box" else due.kind


class TableViews:
    """What the application answers without changing anything (``app.views``): tables of every game as a station
    may see them, what a hand takes now, the hands of a table found by a search, a table at a past moment."""

    def __init__(self, app: Host) -> None:
        self.app = app
        self.reads = app.reads

    def view(self, table: str, viewer: Viewer) -> dict[str, Any]:
        """A table of any game as a station may see it: face-down cards hidden unless the viewer may see them
        (a circle table's players' cards, a banked table's boxes' and the house's); with the colour of its last
        hand's deck and when it was opened."""
        with self.reads.peeking(table):
            record = self.reads.any_table(table)
            return VIEWS[type(record)](self, record, viewer)

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
                     game: str | None = None) -> list[dict[str, Any]]:
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
            summaries: Iterable[dict[str, Any]] = (
                row.summary if row.summary is not None else hand_summary(self.app, dealt, UUID(row.hand_id))
                for row in rows)
        else:  # a store opened read-only: the hands started in the range, each read
            summaries = (hand_summary(self.app, dealt, hand_id)
                         for hand_id in past.hands_started_within(self.app, table, since, until))
        found = []
        for summary in summaries:
            started = started_at(summary)
            if (since is not None and started < since) or (until is not None and started > until):
                continue
            if seat is not None and seat not in summary["seats"]:
                continue
            if outcome is None or summary["outcome"] == outcome:
                found.append(summary)
        return found

    def table_at(self, table: str, *, position: int | None = None,
                 moment: datetime | None = None) -> dict[str, Any]:
        """A table of any game as it stood at a past moment, from the events alone (issue 8): after the log
        position ``position`` (as on the watch stream), or at the time ``moment``; the hand in progress then, as it
        stood (the pit's copy: every card). Read from the table's own history (:mod:`service.app.past`)."""
        return past.table_at(self.app, table, position, moment)

    def _banked(self, record: BankedTable, viewer: Viewer) -> dict[str, Any]:
        """A banked table: players' down cards only for the pit; the dealer's cards for the pit, or for everyone
        once the hand is settled."""
        table = record.name
        out: dict[str, Any] = {"table": record.name, "game": record.game, "hands_started": record.hands_started,
                               "bank_result": record.bank_result, "hand": None,
                               "reshuffle_required": record.reshuffle_pending or "", "dealer": record.dealer_id,
                               "language": record.language, "deck_colour": record.last_deck_colour or "",
                               "opened": str(record.created_on), "holds": self.app.holds.holds_of(record),
                               "decks_out": sorted(record.decks_out)}
        out["chips_in_play"], out["seats"] = 0, 0
        if record.hand_in_progress is None:
            return out
        hand: ThbHand | CdpHand = self.reads.any_hand(record.hand_in_progress)
        out["chips_in_play"] = sum(sum(spots.values()) for spots in hand.bets.values())  # every chip staked
        out["seats"] = len(hand.bets)  # the boxes that bet
        # the hand is in progress: the pit sees its face-down cards only if the casino shows them live
        own = shows_down_cards(viewer.sees_down_cards(table), hand_live=True, hole_cards_live=self.app.hole_cards_live)
        pit = own and viewer.role in (Role.PIT_BOSS, Role.GAMES_DIRECTOR)
        state = game_of(record).state(hand)  # the pit's copy, shown below through the visibility policy
        dealer_cards = state["dealer"] if "dealer" in state else state["bank"]
        settled = bool(hand.results)
        out["hand"] = {
            "stage": hand.stage.value,
            "bets": {box: dict(spots) for box, spots in hand.bets.items()},
            "cards": banked_cards({box: [str(c) for c in cards] for box, cards in hand.cards.items()},
                                  sees_down_cards=own),
            "dealer": house_cards(dealer_cards, pit=pit, settled=settled),
            "board": state.get("board", []),
            "to_decide": hand.to_decide,
            "next_card": _next_card(hand),
            "results": {box: dict(result) for box, result in hand.results.items()},
        }
        return out


    def _circle(self, record: Table, viewer: Viewer) -> dict[str, Any]:
        """A circle table: its players' face-down cards only for the pit."""
        table = record.name
        out: dict[str, Any] = {
            "table": record.name, "variant": record.settings.variant, "stacks": dict(record.stacks),
            "button_seat": record.button_seat, "hands_started": record.hands_started, "hand": None,
            "closed": record.closed, "dealer": record.dealer_id, "language": record.language,
            "reshuffle_required": record.reshuffle_required["colour"] if record.reshuffle_required else "",
            "deck_colour": record.last_deck_colour or "", "opened": str(record.created_on),
            "holds": self.app.holds.holds_of(record), "decks_out": sorted(record.decks_out),
            "chips_in_play": 0, "seats": len(record.stacks),
        }
        if record.hand_in_progress is not None:
            snapshot = self.reads.hand(record.hand_in_progress).snapshot()
            out["chips_in_play"] = sum(snapshot["contributed"]) + snapshot["carried_in"]  # with a carried pot, R-DRAW-3
            out["hand"] = circle_snapshot(snapshot, sees_down_cards=shows_down_cards(
                viewer.sees_down_cards(table), hand_live=True, hole_cards_live=self.app.hole_cards_live))
        return out


VIEWS: Mapping[type[Any], Callable[[TableViews, Any, Viewer], dict[str, Any]]] = {
    Table: TableViews._circle, BankedTable: TableViews._banked}
"""A table's view by its aggregate's class."""


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
