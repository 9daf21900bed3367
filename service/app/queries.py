"""What the application answers without changing anything: tables and hands of every game, views as a station may
see them, search, the table at a past moment; and the machinery its commands share (per-table locks, aggregate
fetches, the storing of a command's events)."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, ProcessingEvent
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import Recording

from domain.banked.cdp import CdpHand
from domain.banked.table import BankedTable
from domain.banked.thb import ThbHand
from domain.circle.hand import Hand
from domain.circle.state import LegalActions
from domain.circle.table import Table
from domain.games import HAND_CLASSES, OUTCOMES, game_of
from service.app import past
from service.app.access import NotFoundError, PreconditionError, Role, ServiceError, Viewer, authorize
from service.app.floor import TableFloor
from service.app.floor_log import FloorLog, hand_summary, started_at
from service.app.reads import CachedReads, _Locks
from service.app.visibility import HOLE_CARDS_LIVE, banked_cards, circle_snapshot, house_cards, shows_down_cards
from service.store.group_commit import GroupCommit
from service.store.log_time import retimed


def _next_card(hand: ThbHand | CdpHand) -> str:
    """Where a banked hand's next card goes, as a station shows it."""
    due = hand.next_card
    if due is None:
        return ""
    if isinstance(due, int):  # Casino Draw Poker: a box, or 0 for the bank
        return f"box {due}" if due else "bank"
    return f"box {due.box}" if due.kind == "box" else due.kind



FINISHED_HANDS = (Hand, ThbHand, CdpHand)
"""Hands that leave the aggregate cache once complete: the cache keeps what commands change (the tables and their
hands in progress), not the hands of the last hours, which the collector walked through on every full collection
(40 to 130 ms pauses on PostgreSQL with 200 tables, the tail of the commands' latency)."""
_table_id = functools.lru_cache(maxsize=4096)(Table.create_id)
"""A circle table's id by its name (a UUID of the name, made once per name: every command reads its table)."""
_banked_table_id = functools.lru_cache(maxsize=4096)(BankedTable.create_id)
"""A banked table's id by its name (as :data:`_table_id`)."""


class TableQueries(CachedReads, TableFloor):
    """The reads of :class:`service.app.application.PokerTables` (which sets ``_locks``, ``_local``,
    ``_group_commit`` and ``after_save``; how aggregates are read: :class:`CachedReads`), the list of its tables
    (:class:`TableFloor`), and the storing of a command's events."""

    floor_log: FloorLog
    """The floor's projection of the log: alerts, notes and the hands index (issue 30; set by the application)."""

    _locks: _Locks
    _local: threading.local
    _group_commit: GroupCommit[DomainEventProtocol[UUID], Recording[UUID]]
    _checked_reads: bool
    _absent: set[UUID]
    after_save: Callable[[list[Recording[UUID]]], None] | None
    holds_of: Callable[[Table | BankedTable], list[dict[str, Any]]]  # service.app.holds.AlertHolds (R-HOLD-1)
    hole_cards_live: bool = HOLE_CARDS_LIVE
    """The casino's delay policy (issue 29, item 7; :func:`service.app.visibility.shows_down_cards`): True, the
    default, shows the pit a hand's face-down cards as they are dealt; False only once the hand has ended (the
    service's ``hole_cards_live`` setting; :func:`service.grpc.server.create_server` sets it)."""

    @property
    def sole_writer(self) -> bool:
        """Whether this instance is its store's only writer (an SQLite file claimed by
        :class:`service.store.persistence.SoleWriter`): then its cached aggregates are the truth, not fast-forwarded."""
        return not self.repository.fastforward

    def search_hands(self, table: str, *, since: datetime | None = None, until: datetime | None = None,
                     seat: int | None = None, outcome: str | None = None,
                     game: str | None = None) -> list[dict[str, Any]]:
        """The hands of a table of any game started in a time range, with a seat (a box, at a banked table) dealt
        in, of a game, or ending a given way (circle: ``showdown``, ``uncontested``, ``voided``, ``blank``,
        ``in-progress``; banked: ``settled``, ``voided``, ``in-progress``): a summary of each, oldest first."""
        if outcome is not None and outcome not in OUTCOMES:
            raise ServiceError(f"an outcome is one of {', '.join(OUTCOMES)}")
        dealt = game_of(self.any_table(table))
        if game is not None and game != dealt.code:
            return []  # a table deals one game (R-CIRC-5)
        if self.floor_log.usable:  # the hands index (issue 30): the hands it finds, not every hand of the table
            self.floor_log.catch_up()
            rows = self.floor_log.store.hands_index.hands(table, since=since, until=until, outcome=outcome, seat=seat)
            summaries: Iterable[dict[str, Any]] = (
                row.summary if row.summary is not None else hand_summary(self, dealt, UUID(row.hand_id))
                for row in rows)
        else:  # a store opened read-only: the hands started in the range, each read
            summaries = (hand_summary(self, dealt, hand_id)
                         for hand_id in past.hands_started_within(self, table, since, until))
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
        return past.table_at(self, table, position, moment)

    def any_table(self, name: str) -> Table | BankedTable:
        """A circle or a banked table by its name (one name space), or :class:`NotFoundError`."""
        try:
            return self.table(name)
        except NotFoundError:
            return self.banked_table(name)

    def banked_table(self, name: str) -> BankedTable:
        """A banked table, or :class:`NotFoundError`."""
        try:
            with self._locks(name):
                record = self._fetch(_banked_table_id(name))
        except AggregateNotFoundError:
            raise NotFoundError(f"no banked table {name!r}") from None
        assert isinstance(record, BankedTable)
        return record

    def banked_hand(self, hand_id: UUID) -> ThbHand | CdpHand:
        """A banked hand by id."""
        return cast(ThbHand | CdpHand, self.any_hand(hand_id))

    def any_hand(self, hand_id: UUID, version: int | None = None) -> Any:
        """A hand of any game by id (as of ``version`` if given), or :class:`NotFoundError`."""
        try:
            record = self._fetch(hand_id, version)
        except AggregateNotFoundError:
            raise NotFoundError(f"no hand {hand_id}") from None
        if type(record) not in HAND_CLASSES:
            raise NotFoundError(f"{hand_id} is not a hand")
        return record

    def banked_view(self, table: str, viewer: Viewer) -> dict[str, Any]:
        """A banked table as a station may see it: players' down cards only for the table's dealer and the pit;
        the dealer's cards for the pit, or for everyone once the hand is settled; with the colour of its last hand's
        deck and when it was opened."""
        with self._peeking(table):
            return self._banked_view(table, viewer)

    def _banked_view(self, table: str, viewer: Viewer) -> dict[str, Any]:
        record = self.banked_table(table)
        out: dict[str, Any] = {"table": record.name, "game": record.game, "hands_started": record.hands_started,
                               "bank_result": record.bank_result, "hand": None,
                               "reshuffle_required": record.reshuffle_pending or "", "dealer": record.dealer_id,
                               "language": record.language, "deck_colour": record.last_deck_colour or "",
                               "opened": str(record.created_on), "holds": self.holds_of(record),
                               "decks_out": sorted(record.decks_out)}
        if record.hand_in_progress is None:
            return out
        hand = self.banked_hand(record.hand_in_progress)
        # the hand is in progress: the pit sees its face-down cards only if the casino shows them live
        own = shows_down_cards(viewer.sees_down_cards(table), hand_live=True, hole_cards_live=self.hole_cards_live)
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

    # -- queries ------------------------------------------------------------------------------------

    def table(self, name: str) -> Table:
        """The table, or :class:`NotFoundError`."""
        try:
            with self._locks(name):  # a copy for a reader is not taken halfway through a command's change
                record = self._fetch(_table_id(name))
        except AggregateNotFoundError:
            raise NotFoundError(f"no table {name!r}") from None
        assert isinstance(record, Table)
        return record

    def current_hand(self, table: Table) -> Hand:
        """The hand in progress at a table, or :class:`ServiceError` naming R-CIRC-2."""
        if table.hand_in_progress is None:
            raise PreconditionError("no hand is in progress at this table", rule="R-CIRC-2")
        return self.hand(table.hand_in_progress)

    def hand(self, hand_id: UUID, version: int | None = None) -> Hand:
        """A hand by id (as of ``version`` if given), or :class:`NotFoundError`."""
        return cast(Hand, self.any_hand(hand_id, version))

    def hands_of(self, table: str) -> list[UUID]:
        """The ids of a table's hands, oldest first."""
        with self._locks(table):
            return self._hands_of(table)

    def _hands_of(self, table: str) -> list[UUID]:
        record = self.any_table(table)
        return [record.hand_id(number) for number in range(1, record.hands_started + 1)]

    def legal_actions(self, table: str) -> LegalActions | None:
        """What the player to act may do at the table now."""
        with self._locks(table):
            return self._legal_actions(table)

    def _legal_actions(self, table: str) -> LegalActions | None:
        record = self.table(table)
        if record.hand_in_progress is None:
            return None
        return self.current_hand(record).legal_actions()

    def correction(self, table: str) -> str:
        """A circle table's hand and its corrections (R-AUD-1): ``"pending"`` while one waits for the pit,
        ``"possible"`` while its last action is a betting action that may be corrected, else ``""``."""
        with self._locks(table):
            record = self.table(table)
            if record.hand_in_progress is None:
                return ""
            hand = self.current_hand(record)
            if hand.pending_correction is not None:
                return "pending"
            return "possible" if hand.correctable() is not None else ""

    def view(self, table: str, viewer: Viewer) -> dict[str, Any]:
        """The table as a station may see it: face-down cards hidden unless the viewer may see them; with the colour
        of its last hand's deck and when it was opened."""
        with self._peeking(table):
            return self._view(table, viewer)

    def _view(self, table: str, viewer: Viewer) -> dict[str, Any]:
        record = self.table(table)
        out: dict[str, Any] = {
            "table": record.name, "variant": record.settings.variant, "stacks": dict(record.stacks),
            "button_seat": record.button_seat, "hands_started": record.hands_started, "hand": None,
            "closed": record.closed, "dealer": record.dealer_id, "language": record.language,
            "reshuffle_required": record.reshuffle_required["colour"] if record.reshuffle_required else "",
            "deck_colour": record.last_deck_colour or "", "opened": str(record.created_on),
            "holds": self.holds_of(record), "decks_out": sorted(record.decks_out),
        }
        if record.hand_in_progress is not None:
            hand = self.hand(record.hand_in_progress)
            out["hand"] = circle_snapshot(hand.snapshot(), sees_down_cards=shows_down_cards(
                viewer.sees_down_cards(table), hand_live=True, hole_cards_live=self.hole_cards_live))
        return out

    # -- access -------------------------------------------------------------------------------------

    @staticmethod
    def authorize(viewer: Viewer, table: str, action: str = "read") -> None:
        """The role matrix (:data:`service.app.access.PERMISSIONS`): may this station do ``action`` at ``table``?"""
        authorize(viewer, table, action)

    # -- machinery ----------------------------------------------------------------------------------

    def save(self, *objs: Any, reads: Mapping[UUID, int] | None = None,
             records: Sequence[DomainEventProtocol[UUID]] = (), **kwargs: Any) -> list[Recording[UUID]]:
        """Store the pending events of ``objs`` (aggregates only) in one transaction.

        What :meth:`Application.save` does, less its test of every object against the library's runtime-checkable
        protocols (on Python 3.11 each such ``isinstance`` costs ≈ 40 µs, a fifth of a command, in a profile of
        ``benchmarks/service.py``'s commands; everything this application saves is an :class:`Aggregate`), and
        with the events of commands of other tables that are ready at the same moment written in the same
        transaction (:mod:`service.store.group_commit`): still atomic per command, and returned only once durable.
        ``reads``: the aggregates a command read, and their versions then, for the store to check that none has
        changed since (PostgreSQL; a save made while the command's is told, such as a signed head, has none).
        ``records``: events stored after the aggregates' of aggregates not kept (a command's record, whose aggregate
        only a retry reads, from the store), so neither built nor cached.
        """
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        for aggregate in objs:
            if aggregate is not None:
                processing_event.events.extend(aggregate.collect_events())
                processing_event.aggregates[aggregate.id] = aggregate
                self._absent.discard(aggregate.id)
        for record in records:
            processing_event.events.append(record)
            self._absent.discard(record.originator_id)
        if kwargs:
            processing_event.saved_kwargs.update(kwargs)
            recordings = self._record(processing_event)
            retimed(processing_event.aggregates, recordings)
        else:  # the usual case: in one transaction with the other commands ready now (service.store.group_commit)
            recordings = self._group_commit.write(processing_event.events, reads)
            retimed(processing_event.aggregates, recordings)
            cache = self.repository.cache
            if cache and (self._checked_reads or not self.repository.fastforward):
                for aggregate_id, aggregate in processing_event.aggregates.items():
                    if isinstance(aggregate, FINISHED_HANDS) and aggregate.is_complete:
                        with contextlib.suppress(KeyError):  # no command changes it again: a read loads it
                            cache.get(aggregate_id, evict=True)
                    else:
                        cache.put(aggregate_id, aggregate)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        if self.after_save is not None:
            self.after_save(recordings)
        return recordings

    def _verify_name_free(self, name: str) -> None:
        """One name space for circle and banked tables: a name is taken by a table of either kind (R-AUD-1)."""
        for kind, aggregate_id in (("circle table", Table.create_id(name)),
                                   ("banked table", BankedTable.create_id(name))):
            if self._exists(aggregate_id):
                raise ServiceError(f"table {name!r} is already open (a {kind})", rule="R-AUD-1")

    def _exists(self, aggregate_id: UUID) -> bool:
        try:
            self.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return False
        return True


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
