"""The pokertable application: circle tables and their hands, stored as events (SQLite or PostgreSQL).

Every command carries a client-chosen command id.  A command's changes and a record of the command (with its result)
are saved in one transaction, so a retried command returns the first result and is never applied twice, and two
service instances on one PostgreSQL never both apply conflicting commands: the loser gets :class:`ConflictError`
(retryable) and changes nothing.

>>> app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
>>> settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
>>> app.open_table("c1", "Mesa 1", settings)["table"]
'Mesa 1'
>>> _ = app.sit("c2", "Mesa 1", 1, 100), app.sit("c3", "Mesa 1", 2, 100)
>>> app.start_hand("c4", "Mesa 1", DeckIdentity(52, BackColour.RED))["number"]
1
>>> app.start_hand("c4", "Mesa 1", DeckIdentity(52, BackColour.RED))["number"]  # the same command id: same result
1
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar, cast
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.domain import Aggregate, DomainEventProtocol, event
from eventsourcing.persistence import IntegrityError, Recording

from domain.banked_table import BankedTable
from domain.cards import Card
from domain.cdp import CdpHand, CdpSettings
from domain.decks import BackColour, DeckIdentity  # noqa: F401  (BackColour: doctest)
from domain.device_reports import DeckAlternationError, DeviceReport
from domain.games import HAND_CLASSES, OUTCOMES, game_of
from domain.hand import Hand
from domain.hand_state import LegalActions
from domain.reconstruction import Step, reconstruct
from domain.table import Table
from domain.table_settings import BettingStructure, TableSettings  # noqa: F401  (BettingStructure: doctest)
from domain.thb import ThbHand, ThbSettings
from service.group_commit import GroupCommit
from service.persistence import notifications
from service.visibility import banked_cards, circle_snapshot, house_cards, reconstruction_step

V = TypeVar("V")

COMMANDS_NAMESPACE = uuid5(NAMESPACE_URL, "https://pokertable.invalid/commands")
MAX_CHIPS = 10**12
"""The most chips a request names and a stack holds (R-CIRC-6): a trillion, far past any table, far below int64."""


class ServiceError(Exception):
    """An application error, with the rule it concerns when there is one."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{message} ({rule})" if rule else message)
        self.message, self.rule = message, rule


class NotFoundError(ServiceError):
    """No such table or hand."""


class ConflictError(ServiceError):
    """Another command changed the table first; nothing was applied: retry (optimistic concurrency)."""


class DuplicateCommandError(ServiceError):
    """A command id already used for a different command or table (only an identical retry is answered)."""


class AccessDeniedError(ServiceError):
    """The station's role does not allow this command, or not at this table."""


class PreconditionError(ServiceError):
    """A well-formed command the state of the table refuses now (no hand in progress, a stack at the chip cap)."""


class Role(Enum):
    """What a station may do (issue 6): the dealer runs his own table; the pit boss voids and corrects; the games
    director approves; an observer only reads."""

    DEALER = "dealer"
    PIT_BOSS = "pit-boss"
    GAMES_DIRECTOR = "games-director"
    OBSERVER = "observer"
    DEVICE = "device"


@dataclass(frozen=True)
class Viewer:
    """Who asks: a station's name, role and, for a dealer, its table."""

    station: str
    role: Role
    table: str | None = None

    def sees_down_cards(self, table: str) -> bool:
        """Face-down cards are shown to the table's own dealer and to the pit; never to observers or other tables."""
        return (self.role is Role.DEALER and self.table == table) or self.role in (Role.PIT_BOSS, Role.GAMES_DIRECTOR)


PERMISSIONS: Mapping[str, tuple[frozenset[Role], str]] = {
    "read": (frozenset(Role), ""),
    "open-table": (frozenset({Role.PIT_BOSS}), ""),
    "seat": (frozenset({Role.DEALER, Role.PIT_BOSS}), ""),
    "configure": (frozenset({Role.PIT_BOSS}), ""),
    "correct": (frozenset({Role.PIT_BOSS}), ""),
    "close": (frozenset({Role.PIT_BOSS}), ""),
    "start-hand": (frozenset({Role.DEALER, Role.PIT_BOSS}), ""),
    "play": (frozenset({Role.DEALER, Role.PIT_BOSS}), ""),
    "deal": (frozenset({Role.DEALER, Role.PIT_BOSS, Role.DEVICE}), ""),
    "device-report": (frozenset({Role.DEALER, Role.PIT_BOSS, Role.DEVICE}), ""),
    "cut-exposure": (frozenset({Role.DEALER, Role.PIT_BOSS}), ""),
    "void": (frozenset({Role.PIT_BOSS}), ""),
    "approve": (frozenset({Role.GAMES_DIRECTOR}), "R-THB-10"),
    "reconstruct": (frozenset({Role.PIT_BOSS, Role.GAMES_DIRECTOR}), "R-THB-13"),
}
"""The role matrix (docs/service.md): what each role may do, and the rule a refusal names.  A croupier's station
(``dealer``) and a device's act only at their own table; a device only deals from the shoe and reports; the pit boss
runs the floor (voids, corrections); the games director approves, refuses and reconstructs, and never deals; an
observer only reads, and never sees a face-down card."""


def authorize(viewer: Viewer, table: str, action: str) -> None:
    """:class:`AccessDeniedError` unless the viewer's role may do ``action`` (a key of :data:`PERMISSIONS`) here."""
    roles, rule = PERMISSIONS[action]
    if viewer.role not in roles:
        raise AccessDeniedError(f"{viewer.station} ({viewer.role.value}) may not {action} here", rule=rule)
    if viewer.role in (Role.DEALER, Role.DEVICE) and viewer.table != table:
        raise AccessDeniedError(f"{viewer.station} works at {viewer.table!r}, not {table!r}", rule=rule)


class ProcessedCommand(Aggregate):
    """The record of an applied command and its result, saved with its changes (idempotency)."""

    @staticmethod
    def create_id(command_id: str, **_: Any) -> UUID:
        """One record per command id."""
        return uuid5(COMMANDS_NAMESPACE, command_id)

    class Processed(Aggregate.Created):
        """The command id, its result, and the fingerprint of what it asked (table, command, payload)."""

        command_id: str
        result: dict[str, Any]
        fingerprint: str
        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Records stored before fingerprints: any payload retries them (as it did then)."""
            state["fingerprint"] = ""

    @event(Processed)
    def __init__(self, *, command_id: str, result: dict[str, Any], fingerprint: str) -> None:
        self.command_id = command_id
        self.result = dict(result)
        self.fingerprint = fingerprint


def fingerprint(table: str, what: tuple[object, ...]) -> str:
    """What a command asks, as a digest: its table, its kind and every argument (frozen dataclasses and plain values
    have a deterministic ``repr``).  A retry with the same command id must ask exactly this again."""
    return hashlib.sha256(repr((table, what)).encode()).hexdigest()


@dataclass(frozen=True)
class HandCommand:
    """One hand command from a dealer station, as data (what the gRPC layer builds)."""

    action: str
    seat: int | None = None
    amount: int | None = None
    card: Card | None = None
    cards: tuple[Card, ...] = ()
    source: str = "croupier"
    sequence: int | None = None
    rule: str = ""
    reason: str = ""


HAND_ACTIONS: Mapping[str, Callable[[Hand, HandCommand], None]] = {
    "deal": lambda h, c: h.deal(_card(c), c.source, c.sequence),
    "fold": lambda h, c: h.fold(_seat(c)),
    "check": lambda h, c: h.check(_seat(c)),
    "call": lambda h, c: h.call(_seat(c)),
    "bet": lambda h, c: h.bet_or_raise_to(_seat(c), _amount(c)),
    "all-in": lambda h, c: h.all_in(_seat(c)),
    "bring-in": lambda h, c: h.post_bring_in(_seat(c)),
    "discard": lambda h, c: h.discard(_seat(c), list(c.cards)),
    "reshuffle-discards": lambda h, c: h.reshuffle_discards(),
    "show": lambda h, c: h.show(_seat(c)),
    "muck": lambda h, c: h.muck(_seat(c)),
    "expose-card": lambda h, c: h.expose_card(_seat(c), _card(c)),
    "expose-hand": lambda h, c: h.expose_hand(_seat(c)),
    "absent": lambda h, c: h.declare_absent(_seat(c)),
    "void": lambda h, c: h.void(c.rule, c.reason),
}
"""The circle-poker hand commands by name."""


@dataclass(frozen=True)
class BankedCommand:
    """One command at a banked table (Texas Hold'em Bonus or Casino Draw Poker), as data."""

    action: str
    box: int | None = None
    amount: int | None = None
    card: Card | None = None
    cards: tuple[Card, ...] = ()
    source: str = "croupier"
    sequence: int | None = None
    reason: str = ""
    rule: str = ""
    director: str = ""
    correctable: bool = False


def _needs(action: str, value: V | None, what: str) -> V:
    """A field a command cannot do without: its value, or :class:`ServiceError` saying which."""
    if value is None:
        raise ServiceError(f"{action} needs {what}")
    return value


def _box(command: BankedCommand) -> int:
    return _needs(command.action, command.box, "a box")


def _stake(command: BankedCommand) -> int:
    return _needs(command.action, command.amount, "an amount")


def _banked_card(command: BankedCommand) -> Card:
    return _needs(command.action, command.card, "a card")


BankedAction = Callable[[Any, BankedCommand, Viewer], None]
THB_ACTIONS: Mapping[str, BankedAction] = {
    "ante": lambda h, c, v: h.place_ante(_box(c), _stake(c)),
    "bonus": lambda h, c, v: h.place_bonus(_box(c), _stake(c)),
    "close-bets": lambda h, c, v: h.close_bets(),
    "deal": lambda h, c, v: h.deal(_banked_card(c), c.source, c.sequence),
    "fold": lambda h, c, v: h.fold(_box(c)),
    "flop-bet": lambda h, c, v: h.flop_bet(_box(c), _stake(c)),
    "bet": lambda h, c, v: h.street_bet(_box(c), _stake(c)),
    "check": lambda h, c, v: h.check(_box(c)),
    "approve": lambda h, c, v: h.approve_bonus(_box(c), v.station),
    "refuse": lambda h, c, v: h.refuse_bonus(_box(c), v.station, c.reason),
    "dealer-card-shown": lambda h, c, v: h.dealer_card_shown(),
    "face-up-card": lambda h, c, v: h.face_up_card_found(_banked_card(c)),
    "wrong-count": lambda h, c, v: h.wrong_card_count(c.box, correctable=c.correctable),
    "reconstruction": lambda h, c, v: h.request_reconstruction(v.station, c.director, c.reason),
    "void": lambda h, c, v: h.void(c.rule, c.reason),
}
"""Texas Hold'em Bonus commands by name."""
CDP_ACTIONS: Mapping[str, BankedAction] = {
    "ante": lambda h, c, v: h.place_ante(_box(c), _stake(c)),
    "close-bets": lambda h, c, v: h.close_bets(),
    "deal": lambda h, c, v: h.deal(_banked_card(c), c.source, c.sequence),
    "exchange": lambda h, c, v: h.exchange(_box(c), list(c.cards)),
    "play": lambda h, c, v: h.play(_box(c), _stake(c)),
    "fold": lambda h, c, v: h.fold(_box(c)),
    "void": lambda h, c, v: h.void(c.rule, c.reason),
}
"""Casino Draw Poker commands by name."""
BANKED_ACTIONS: Mapping[type[Any], Mapping[str, BankedAction]] = {ThbHand: THB_ACTIONS, CdpHand: CDP_ACTIONS}
"""Each banked game's commands, by its hand aggregate (:data:`domain.games.GAMES` names the game's)."""
BANKED_TABLE_ACTIONS: Mapping[str, Callable[[BankedTable, BankedCommand, Viewer], None]] = {
    "reshuffle": lambda t, c, v: t.record_reshuffle(v.station),
}
"""Commands to a banked table itself, between hands (R-THB-11: the croupier's full reshuffle)."""
BANKED_PERMISSIONS: Mapping[str, str] = {"approve": "approve", "refuse": "approve", "reconstruction": "reconstruct",
                                         "void": "void", "deal": "deal"}
"""Banked commands that are not plain play, by the :data:`PERMISSIONS` they need (R-THB-10, R-THB-13)."""
HAND_PERMISSIONS: Mapping[str, str] = {"void": "void", "deal": "deal"}
"""Circle hand commands that are not plain play, by the :data:`PERMISSIONS` they need."""


def _next_card(hand: ThbHand | CdpHand) -> str:
    """Where a banked hand's next card goes, as a station shows it."""
    due = hand.next_card
    if due is None:
        return ""
    if isinstance(due, int):  # Casino Draw Poker: a box, or 0 for the bank
        return f"box {due}" if due else "bank"
    return f"box {due.box}" if due.kind == "box" else due.kind


def _seat(command: HandCommand) -> int:
    return _needs(command.action, command.seat, "a seat")


def _amount(command: HandCommand) -> int:
    return _needs(command.action, command.amount, "an amount")


def _card(command: HandCommand) -> Card:
    return _needs(command.action, command.card, "a card")


@dataclass
class _Locks:
    """One lock per table: a table's commands apply one at a time, in order, within this process, and a copy of a
    table is never taken while a command changes it (re-entrant: a command reads its own table)."""

    guard: threading.Lock = field(default_factory=threading.Lock)
    tables: dict[str, threading.RLock] = field(default_factory=dict)

    def __call__(self, table: str) -> threading.RLock:
        with self.guard:
            return self.tables.setdefault(table, threading.RLock())


class PokerTables(Application[UUID]):
    """Tables and hands of circle poker."""

    name = "pokertable"
    CACHE_SIZE = "2000"
    """Aggregates kept in memory (copied out for each command, fast-forwarded from the store), so that a command's
    cost does not grow with a table's history."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        super().__init__({"AGGREGATE_CACHE_MAXSIZE": self.CACHE_SIZE, **(env or {})})
        self._locks = _Locks()
        self._local = threading.local()  # per command: the aggregates it fetched
        self.on_stored: Callable[[str], None] | None = None
        """Told the table's name each time a command of it is stored (from the storing thread): watchers look then."""
        self.after_save: Callable[[list[Recording[UUID]]], None] | None = None
        """Told of each batch of events stored (from the storing thread): the head signer counts them
        (:mod:`service.signing`)."""
        self._group_commit: GroupCommit[DomainEventProtocol[UUID], Recording[UUID]] = GroupCommit(self.events.put)

    @property
    def sole_writer(self) -> bool:
        """Whether this instance is its store's only writer (an SQLite file claimed by
        :class:`service.persistence.SoleWriter`): then its cached aggregates are the truth, not fast-forwarded."""
        return not self.repository.fastforward

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording[UUID]]:
        """Store the pending events of ``objs`` (aggregates only) in one transaction.

        What :meth:`Application.save` does, less its test of every object against the library's runtime-checkable
        protocols (on Python 3.11 each such ``isinstance`` costs ≈ 40 µs, a fifth of a command, in a profile of
        ``benchmarks/service.py``'s commands; everything this application saves is an :class:`Aggregate`), and
        with the events of commands of other tables that are ready at the same moment written in the same
        transaction (:mod:`service.group_commit`): still atomic per command, and returned only once durable.
        """
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        for aggregate in objs:
            if aggregate is not None:
                processing_event.events.extend(aggregate.collect_events())
                processing_event.aggregates[aggregate.id] = aggregate
        if kwargs:
            processing_event.saved_kwargs.update(kwargs)
            recordings = self._record(processing_event)
        else:  # the usual case: in one transaction with the other commands ready now (service.group_commit)
            recordings = self._group_commit.write(processing_event.events)
            if self.repository.cache and not self.repository.fastforward:
                for aggregate_id, aggregate in processing_event.aggregates.items():
                    self.repository.cache.put(aggregate_id, aggregate)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        if self.after_save is not None:
            self.after_save(recordings)
        return recordings

    # -- commands -----------------------------------------------------------------------------------

    def open_table(self, command_id: str, name: str, settings: TableSettings, seat_count: int = 10) -> dict[str, Any]:
        """Open a table (its name is its identity)."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            self._verify_name_free(name)
            table = Table.open(name, settings, seat_count)
            return {"table": name, "table_id": str(table.id)}, [table]

        return self._execute(command_id, name, change, ("open_table", settings, seat_count))

    def sit(self, command_id: str, table: str, seat: int, stack: int) -> dict[str, Any]:
        """Seat a player with his chips."""
        return self._table_change(command_id, table, lambda t: t.sit(seat, stack), ("sit", seat, stack))

    def leave(self, command_id: str, table: str, seat: int) -> dict[str, Any]:
        """A player leaves between hands."""
        return self._table_change(command_id, table, lambda t: t.leave(seat), ("leave", seat))

    def add_chips(self, command_id: str, table: str, seat: int, amount: int) -> dict[str, Any]:
        """A player buys more chips between hands; a stack never passes :data:`MAX_CHIPS` (R-CIRC-6)."""
        def apply(record: Table) -> None:
            stack = record.stacks.get(seat, 0)
            if stack + amount > MAX_CHIPS:
                raise PreconditionError(f"seat {seat} would hold {stack + amount} chips, past the cap of {MAX_CHIPS}",
                                        rule="R-CIRC-6")
            record.add_chips(seat, amount)

        return self._table_change(command_id, table, apply, ("add_chips", seat, amount))

    def configure_table(self, command_id: str, table: str, settings: TableSettings, viewer: Viewer) -> dict[str, Any]:
        """New settings between hands (pit boss)."""
        authorize(viewer, table, "configure")
        return self._table_change(command_id, table, lambda t: t.configure(settings), ("configure", settings))

    def correct_stack(self, command_id: str, table: str, seat: int, stack: int, *, reason: str,
                      viewer: Viewer) -> dict[str, Any]:
        """A pit boss's correction of a stack between hands, recorded with who and why."""
        authorize(viewer, table, "correct")
        return self._table_change(command_id, table, lambda t: t.correct_stack(seat, stack, reason, viewer.station),
                                  ("correct_stack", seat, stack, reason))

    def close_table(self, command_id: str, table: str, viewer: Viewer) -> dict[str, Any]:
        """Close a table between hands (pit boss)."""
        authorize(viewer, table, "close")
        return self._table_change(command_id, table, lambda t: t.close(viewer.station), ("close",))

    def record_device_report(self, command_id: str, table: str, report: DeviceReport,
                             viewer: Viewer) -> dict[str, Any]:
        """A shuffle, deck check, delivery or fault of a device at a table, as an event of the table."""
        authorize(viewer, table, "device-report")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.any_table(table)
            record.record_device_report(report)
            return {"table": table, "version": record.version}, [record]

        return self._execute(command_id, table, change, ("device_report", report))

    def record_cut_exposure(self, command_id: str, table: str, card: Card, colour: str,
                            viewer: Viewer) -> dict[str, Any]:
        """R-CIRC-2: a card exposed at the cut, recorded with who reported it; the deal waits for a new shuffle."""
        authorize(viewer, table, "cut-exposure")
        return self._table_change(command_id, table, lambda t: t.record_cut_exposure(card, colour, viewer.station),
                                  ("cut_exposure", card, colour))

    def reconstruct_hand(self, command_id: str, table: str, number: int, viewer: Viewer,
                         reason: str) -> list[Step]:
        """A hand (circle or banked), event by event, for a dispute: the pit boss only, and the request is recorded
        at the table first (who, when, why; R-THB-13, R-AUD-1)."""
        authorize(viewer, table, "reconstruct")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.any_table(table)
            record.record_reconstruction(number, viewer.station, reason)
            return {"table": table, "version": record.version, "hand_id": str(record.hand_id(number))}, [record]

        result = self._execute(command_id, table, change, ("reconstruction", number, reason))
        sees = viewer.sees_down_cards(table)
        return [reconstruction_step(step, sees_down_cards=sees) for step in reconstruct(self.events.get(
            UUID(result["hand_id"])))]

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
        found = []
        for hand_id in self.hands_of(table):
            events: list[Any] = list(self.events.get(hand_id))
            started = events[0].timestamp
            if (since is not None and started < since) or (until is not None and started > until):
                continue
            hand: Any = None
            for stored in events:  # the events just read make the hand: no second read of the store
                hand = stored.mutate(hand)
            summary = dealt.summarise(hand, events)
            if seat is not None and seat not in summary["seats"]:
                continue
            if outcome is None or summary["outcome"] == outcome:
                found.append(summary)
        return found

    def table_at(self, table: str, *, position: int | None = None,
                 moment: datetime | None = None) -> dict[str, Any]:
        """A table of any game as it stood at a past moment, from the events alone (issue 8): after the log
        position ``position`` (as on the watch stream), or at the time ``moment``; the hand in progress then, as it
        stood (the pit's copy: every card)."""
        current = self.any_table(table)
        game = game_of(current)
        ours = {current.id, *self._hands_of(table)}
        rebuilt: dict[UUID, Any] = {}
        last_position, last_time = 0, None
        for notification in notifications(self.recorder, stop=position):
            if notification.originator_id not in ours:
                continue
            event: Any = self.mapper.to_domain_event(notification)
            if moment is not None and event.timestamp > moment:
                break
            rebuilt[event.originator_id] = event.mutate(rebuilt.get(event.originator_id))
            last_position, last_time = notification.id, event.timestamp
        record = rebuilt.get(current.id)
        if record is None:
            raise NotFoundError(f"the table {table!r} did not exist yet then")
        hand = rebuilt.get(record.hand_in_progress) if record.hand_in_progress else None
        return {"table": record.name, "position": last_position, "time": str(last_time), **game.table_state(record),
                "hands_started": record.hands_started, "hand": game.state(hand) if hand is not None else None}

    def start_hand(self, command_id: str, table: str, deck: DeckIdentity) -> dict[str, Any]:
        """Start the next hand with the deck in play (the shuffler's red or blue deck)."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.table(table)
            hand = record.start_hand(deck)
            return {"table": table, "hand_id": str(hand.id), "number": hand.number}, [record, hand]

        try:
            return self._execute(command_id, table, change, ("start_hand", deck))
        except DeckAlternationError as error:
            self._record_refused_deck(command_id, table, deck, error)
            raise

    def _record_refused_deck(self, command_id: str, table: str, deck: DeckIdentity,
                             error: DeckAlternationError) -> None:
        """R-DECK-2: the refused start recorded nothing; the refusal itself is recorded at the table as the
        shuffler's fault, once per refused command (a retry of it is refused again, and not recorded twice)."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.any_table(table)
            record.record_refused_deck(deck.colour.value, str(error))
            return {"table": table, "version": record.version}, [record]

        digest = hashlib.sha256(command_id.encode()).hexdigest()[:40]
        self._execute(f"refused-deck-{digest}", table, change, ("refused_deck", command_id, deck))

    def hand_command(self, command_id: str, table: str, command: HandCommand, viewer: Viewer) -> dict[str, Any]:
        """Apply a command to the hand in progress; when it ends the hand, the table takes the final stacks."""
        if command.action not in HAND_ACTIONS:
            raise ServiceError(f"unknown hand command {command.action!r}")
        authorize(viewer, table, HAND_PERMISSIONS.get(command.action, "play"))
        if viewer.role is Role.DEVICE and command.source != "shoe":
            raise AccessDeniedError(f"{viewer.station} is a device: it deals only what the shoe reads", rule="R-DECK-4")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.table(table)
            hand = self.current_hand(record)
            HAND_ACTIONS[command.action](hand, command)
            changed: list[Aggregate] = [hand]
            if hand.is_complete:
                record.finish_hand(hand)
                changed.append(record)
            return {"table": table, "hand_id": str(hand.id), "version": hand.version,
                    "complete": hand.is_complete}, changed

        return self._execute(command_id, table, change, ("hand_command", command))

    # -- banked tables ------------------------------------------------------------------------------

    def open_banked_table(self, command_id: str, name: str, game: str,
                          settings: ThbSettings | CdpSettings) -> dict[str, Any]:
        """Open a Texas Hold'em Bonus or Casino Draw Poker table."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            self._verify_name_free(name)
            table = BankedTable.open(name, game, settings)
            return {"table": name, "table_id": str(table.id)}, [table]

        return self._execute(command_id, name, change, ("open_banked_table", game, settings))

    def start_banked_hand(self, command_id: str, table: str, deck: DeckIdentity) -> dict[str, Any]:
        """Open the next banked hand for bets."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.banked_table(table)
            hand = record.start_hand(deck)
            return {"table": table, "hand_id": str(hand.id), "number": hand.number}, [record, hand]

        try:
            return self._execute(command_id, table, change, ("start_banked_hand", deck))
        except DeckAlternationError as error:
            self._record_refused_deck(command_id, table, deck, error)
            raise

    def banked_command(self, command_id: str, table: str, command: BankedCommand, viewer: Viewer) -> dict[str, Any]:
        """A command to the banked hand in progress (or, for a reconstruction, the last one)."""
        authorize(viewer, table, BANKED_PERMISSIONS.get(command.action, "play"))
        if viewer.role is Role.DEVICE and command.source != "shoe":
            raise AccessDeniedError(f"{viewer.station} is a device: it deals only what the shoe reads", rule="R-DECK-4")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.banked_table(table)
            if command.action in BANKED_TABLE_ACTIONS:
                BANKED_TABLE_ACTIONS[command.action](record, command, viewer)
                return {"table": table, "version": record.version}, [record]
            actions = BANKED_ACTIONS[game_of(record).hand_class]
            if command.action not in actions:
                raise ServiceError(f"{record.game} has no command {command.action!r}")
            if record.hand_in_progress is None and command.action == "reconstruction" and record.hands_started:
                hand = self.banked_hand(record.hand_id(record.hands_started))
            elif record.hand_in_progress is None:
                raise PreconditionError("no hand is in progress at this table", rule="R-AUD-1")
            else:
                hand = self.banked_hand(record.hand_in_progress)
            actions[command.action](hand, command, viewer)
            changed: list[Aggregate] = [hand]
            if hand.is_complete and record.hand_in_progress == hand.id:
                record.finish_hand(hand)
                changed.append(record)
            return {"table": table, "hand_id": str(hand.id), "version": hand.version,
                    "complete": hand.is_complete}, changed

        return self._execute(command_id, table, change, ("banked_command", command))

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
                record = self._fetch(BankedTable.create_id(name))
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
        the dealer's cards for the pit, or for everyone once the hand is settled."""
        with self._locks(table):
            return self._banked_view(table, viewer)

    def _banked_view(self, table: str, viewer: Viewer) -> dict[str, Any]:
        record = self.banked_table(table)
        out: dict[str, Any] = {"table": record.name, "game": record.game, "hands_started": record.hands_started,
                               "bank_result": record.bank_result, "hand": None,
                               "reshuffle_required": record.reshuffle_pending or ""}
        if record.hand_in_progress is None:
            return out
        hand = self.banked_hand(record.hand_in_progress)
        own = viewer.sees_down_cards(table)
        pit = viewer.role in (Role.PIT_BOSS, Role.GAMES_DIRECTOR)
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
                record = self._fetch(Table.create_id(name))
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

    def view(self, table: str, viewer: Viewer) -> dict[str, Any]:
        """The table as a station may see it: face-down cards hidden unless the viewer may see them."""
        with self._locks(table):
            return self._view(table, viewer)

    def _view(self, table: str, viewer: Viewer) -> dict[str, Any]:
        record = self.table(table)
        out: dict[str, Any] = {
            "table": record.name, "variant": record.settings.variant, "stacks": dict(record.stacks),
            "button_seat": record.button_seat, "hands_started": record.hands_started, "hand": None,
            "reshuffle_required": record.reshuffle_required["colour"] if record.reshuffle_required else "",
        }
        if record.hand_in_progress is not None:
            hand = self.hand(record.hand_in_progress)
            out["hand"] = circle_snapshot(hand.snapshot(), sees_down_cards=viewer.sees_down_cards(table))
        return out

    # -- access -------------------------------------------------------------------------------------

    @staticmethod
    def authorize(viewer: Viewer, table: str, action: str = "read") -> None:
        """The role matrix (:data:`PERMISSIONS`): may this station do ``action`` at ``table``?"""
        authorize(viewer, table, action)

    # -- machinery ----------------------------------------------------------------------------------

    def _table_change(self, command_id: str, table: str, apply: Callable[[Table], None],
                      what: tuple[object, ...]) -> dict[str, Any]:
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.table(table)
            apply(record)
            return {"table": table, "version": record.version}, [record]

        return self._execute(command_id, table, change, what)

    def _execute(self, command_id: str, table: str, change: Callable[[], tuple[dict[str, Any], list[Aggregate]]],
                 what: tuple[object, ...]) -> dict[str, Any]:
        """Apply a change once per command id, atomically with the record of it.  ``what`` is the command and its
        arguments: a retry must ask the same at the same table, or it is refused (:class:`DuplicateCommandError`)."""
        if not command_id or len(command_id) > 128:
            raise ServiceError("a command id has 1 to 128 characters")
        digest = fingerprint(table, what)
        with self._locks(table):
            self._local.fetched = []
            try:
                result, changed = change()  # a RuleError here has recorded nothing
                self.save(*changed, ProcessedCommand(command_id=command_id, result=result, fingerprint=digest))
                if self.on_stored is not None:
                    self.on_stored(table)
            except IntegrityError:
                self._forget_fetched()  # the cached copies are ahead of the store: read them afresh next time
                done = self._processed(command_id, digest)
                if done is not None:  # a retry of a command already applied: its first result
                    return done
                raise ConflictError("the table changed meanwhile; nothing was applied: retry", rule="R-AUD-1") \
                    from None
            except Exception:
                self._forget_fetched()
                done = self._processed(command_id, digest)
                if done is not None:
                    return done
                raise
            finally:
                del self._local.fetched
            return result

    def _fetch(self, aggregate_id: UUID, version: int | None = None) -> object:
        """An aggregate for a command: the cached object itself (no copy), forgotten if the command fails."""
        if version is not None or not hasattr(self._local, "fetched"):
            return self.repository.get(aggregate_id, version=version)
        self._local.fetched.append(aggregate_id)
        return self.repository.get(aggregate_id, deepcopy_from_cache=False)

    def _forget_fetched(self) -> None:
        cache = self.repository.cache
        for aggregate_id in getattr(self._local, "fetched", []):
            if cache is not None:
                with contextlib.suppress(KeyError):
                    cache.get(aggregate_id, evict=True)

    def _processed(self, command_id: str, digest: str) -> dict[str, Any] | None:
        """The first result of a command already applied, if this is a true retry of it; ``None`` if no command
        has this id; :class:`DuplicateCommandError` if the id was used for another command or table."""
        try:
            record: object = self.repository.get(ProcessedCommand.create_id(command_id))
        except AggregateNotFoundError:
            return None
        assert isinstance(record, ProcessedCommand)
        if record.fingerprint and record.fingerprint != digest:
            raise DuplicateCommandError(f"command id {command_id!r} was already used for another command; a retry "
                                        "repeats the same command at the same table, a new command takes a new id",
                                        rule="R-AUD-1")
        return record.result

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
