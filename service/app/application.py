"""The pokertable application: circle tables and their hands, stored as events (SQLite or PostgreSQL).

Every command carries a client-chosen command id.  A command's changes and a record of the command (with its result)
are saved in one transaction, so a retried command returns the first result and is never applied twice, and two
service instances on one PostgreSQL never both apply conflicting commands: the loser is run once more on fresh copies
(:mod:`service.app.unit`), and if it still conflicts gets :class:`ConflictError` (retryable) and changes nothing.

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

import hashlib
import threading
from collections.abc import Callable, Mapping
from typing import Any, ClassVar
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

from eventsourcing.application import ProcessingEvent
from eventsourcing.domain import Aggregate, DomainEventProtocol, event
from eventsourcing.persistence import EventStore, InfrastructureFactory, JSONTranscoder, Recording
from eventsourcing.utils import Environment, get_topic

from domain.banked.cdp import CdpSettings
from domain.banked.table import BankedTable
from domain.banked.thb import ThbSettings
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity  # noqa: F401  (BackColour: doctest)
from domain.circle.settings import BettingStructure, TableSettings  # noqa: F401  (BettingStructure: doctest)
from domain.circle.table import Table
from domain.device_reports import DeckAlternationError, DeviceReport
from domain.games import game_of
from domain.reconstruction import Step, reconstruct
from domain.tables import LANGUAGES
from service.app.access import (
    AccessDeniedError,
    ConflictError,
    DuplicateCommandError,
    NotFoundError,
    PreconditionError,
    Role,
    ServiceError,
    Viewer,
    authorize,
)
from service.app.accounts import TableAccountsBook
from service.app.alerts import AlertAcknowledgements
from service.app.commands import (
    BANKED_ACTIONS,
    BANKED_PERMISSIONS,
    BANKED_TABLE_ACTIONS,
    CDP_ACTIONS,
    CORRECTION_ACTIONS,
    HAND_ACTIONS,
    HAND_PERMISSIONS,
    MAX_CHIPS,
    THB_ACTIONS,
    BankedCommand,
    HandCommand,
    NextDeck,
    fingerprint,
)
from service.app.dealers import DealerSignIn
from service.app.floor_log import FloorLog
from service.app.holds import AlertHolds
from service.app.hole_card_views import HoleCardWatch
from service.app.queries import TableQueries, parse_moment
from service.app.reads import _Locks
from service.app.tampering import LogAudit
from service.app.unit import CommandUnit
from service.app.visibility import reconstruction_step
from service.store.group_commit import GroupCommit
from service.store.log_time import OrderedEventStore
from service.store.persistence import READ_ONLY, read_only_connections
from service.store.snapshots import SNAPSHOT_EVERY, SignedSnapshots, TableSnapshot
from service.store.state_transcodings import register_state_transcodings
from service.store.topics import register_moved_topics

__all__ = [  # what is imported from here, as before the split into access, commands and queries
    "BANKED_ACTIONS", "BANKED_PERMISSIONS", "BANKED_TABLE_ACTIONS", "CDP_ACTIONS", "CORRECTION_ACTIONS",
    "HAND_ACTIONS", "HAND_PERMISSIONS", "MAX_CHIPS", "THB_ACTIONS", "AccessDeniedError", "BankedCommand",
    "ConflictError", "DuplicateCommandError", "HandCommand", "NextDeck", "NotFoundError", "PokerTables",
    "PreconditionError", "ProcessedCommand", "Role", "ServiceError", "Viewer", "authorize", "fingerprint",
    "parse_moment",
]

COMMANDS_NAMESPACE = uuid5(NAMESPACE_URL, "https://pokertable.invalid/commands")


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
        dealer: str = ""
        class_version = 3

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Records stored before fingerprints: any payload retries them (as it did then)."""
            state["fingerprint"] = ""

        @staticmethod
        def upcast_v2_v3(state: dict[str, Any]) -> None:
            """Records stored before dealer sign-in (issue 15): no dealer recorded."""
            state["dealer"] = ""

    @classmethod
    def recorded(cls, command_id: str, result: dict[str, Any], fingerprint: str, dealer: str) -> Processed:
        """The record's one event, as ``ProcessedCommand(...)`` would make it, without building the aggregate: a
        command stores it and never reads it back (only a retry reads the record, from the store)."""
        fields: dict[str, Any] = {  # the event class is a dataclass at run time only (eventsourcing's metaclass)
            "originator_topic": _PROCESSED_TOPIC, "originator_id": cls.create_id(command_id),
            "originator_version": cls.INITIAL_VERSION, "timestamp": cls.Processed.create_timestamp(),
            "command_id": command_id, "result": dict(result), "fingerprint": fingerprint, "dealer": dealer}
        return cls.Processed(**fields)

    @event(Processed)
    def __init__(self, command_id: str, result: dict[str, Any], fingerprint: str, dealer: str = "") -> None:
        self.command_id = command_id
        self.result = dict(result)
        self.fingerprint = fingerprint
        self.dealer = dealer
        """R-AUD-1: the dealer signed in at the table when its station sent this command ("" for none, and for the
        pit's and the director's commands)."""


_PROCESSED_TOPIC = get_topic(ProcessedCommand)


class PokerTables(CommandUnit, TableAccountsBook, AlertAcknowledgements, AlertHolds, LogAudit, DealerSignIn,
                  TableQueries):
    """Tables and hands of circle poker."""

    name = "pokertable"
    COMMAND_RECORD = ProcessedCommand
    CACHE_SIZE = "2000"
    """Aggregates kept in memory (copied out for each command, fast-forwarded from the store), so that a command's
    cost does not grow with a table's history."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        register_moved_topics()  # events stored before issue 14's move name the old modules
        super().__init__({"AGGREGATE_CACHE_MAXSIZE": self.CACHE_SIZE, **(env or {})})
        self._locks = _Locks()
        self.floor_log = FloorLog(self)
        """The floor's projection: its alerts and the hands index (issue 30, :mod:`service.app.floor_log`)."""
        self.hole_cards = HoleCardWatch(self)
        """The delay policy and the record of live views of face-down cards (issue 29, item 7)."""
        self._local = threading.local()  # per command: the aggregates it fetched
        self._absent: set[UUID] = set()
        """Aggregates a command found not to exist (the casino's record of audit findings, most often: every
        StartHand asks for it): not asked of the store again by the next command (:meth:`TableQueries._fetch`)."""
        self.on_stored: Callable[[str], None] | None = None
        """Told the table's name each time a command of it is stored (from the storing thread): watchers look then."""
        self.after_save: Callable[[list[Recording[UUID]]], None] | None = None
        """Told of each batch of events stored (from the storing thread): the head signer counts them
        (:mod:`service.store.signing`)."""
        self._group_commit: GroupCommit[DomainEventProtocol[UUID], Recording[UUID]] = GroupCommit(self._put)
        self._checked_reads = bool(getattr(self.recorder, "checks_reads", False)) and self.repository.fastforward
        """Commands use the cached aggregates as they are and the store checks, in the insert, that none has changed
        since (PostgreSQL; :mod:`service.store.chain`): no read before a command. SQLite's sole writer needs no check:
        its cache is the truth."""

    def construct_factory(self, env: Environment) -> InfrastructureFactory[Any]:
        """eventsourcing's store factory; on a store opened read-only (:data:`READ_ONLY`), PostgreSQL's sessions made
        read-only before the recorder opens its first connection (R-AUD-1: an inspection never writes)."""
        factory = super().construct_factory(env)
        if env.get(READ_ONLY):
            read_only_connections(factory)
        return factory

    snapshotting_intervals: ClassVar[dict[Any, int]] = {Table: SNAPSHOT_EVERY, BankedTable: SNAPSHOT_EVERY}
    """Tables are snapshotted every so many events (issue 30, item 2; :mod:`service.store.snapshots`)."""
    snapshot_class = TableSnapshot

    def construct_snapshot_store(self) -> EventStore[UUID]:
        """The tables' snapshots, signed (:class:`service.store.snapshots.SignedSnapshots`): none is stored or read
        until the service gives it its key and the keys it trusts."""
        return SignedSnapshots(mapper=self.mapper, recorder=self.factory.aggregate_recorder(purpose="snapshots"))

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        """eventsourcing's, and what a table's state holds besides plain data (its snapshots store it)."""
        super().register_transcodings(transcoder)
        register_state_transcodings(transcoder)

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        """The tables due a snapshot, taken as the command left them (:meth:`SignedSnapshots.take_due`)."""
        if isinstance(self.snapshots, SignedSnapshots):
            self.snapshots.take_due(processing_event.aggregates, processing_event.events, self.snapshotting_intervals)

    def construct_event_store(self) -> EventStore[UUID]:
        """The events' store: each write timed after the log's last event (issue 29, item 4;
        :class:`service.store.log_time.OrderedEventStore`)."""
        return OrderedEventStore(mapper=self.mapper, recorder=self.recorder)

    # -- commands -----------------------------------------------------------------------------------

    def open_table(self, command_id: str, name: str, settings: TableSettings, seat_count: int = 10,
                   language: str = LANGUAGES[0]) -> dict[str, Any]:
        """Open a table (its name is its identity) and its stations' language."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            self._verify_name_free(name)
            table = Table.open(name, settings, seat_count, language, hands_key=uuid4().hex)  # issue 29, item 5
            return {"table": name, "table_id": str(table.id)}, [table]

        return self._execute(command_id, name, change, ("open_table", settings, seat_count, language))

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
        # a hand still in progress is shown to the pit only if the casino shows hole cards live (issue 29, item 7)
        sees = self.hole_cards.shows_down_cards(viewer, table,
                                                hand_live=UUID(result["hand_id"]) in self.hole_cards.live_hands(table))
        return [reconstruction_step(step, sees_down_cards=sees) for step in reconstruct(self.events.get(
            UUID(result["hand_id"])))]

    def start_hand(self, command_id: str, table: str, deck: DeckIdentity | NextDeck) -> dict[str, Any]:
        """Start the next hand with the deck in play (the shuffler's red or blue deck); a :class:`NextDeck`: of the
        size the table's next hand needs."""
        dealt: DeckIdentity | None = None  # the deck resolved with the table (a refusal names it, R-DECK-2)

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            nonlocal dealt
            record = self.table(table)
            dealt = deck if isinstance(deck, DeckIdentity) else deck.identity(record)
            hand = record.start_hand(dealt, self.casino_holds(table))  # R-HOLD-1: the audit's findings too
            return {"table": table, "hand_id": str(hand.id), "number": hand.number}, [record, hand]

        try:
            return self._execute(command_id, table, change, ("start_hand", deck))
        except DeckAlternationError as error:
            assert dealt is not None  # the refusal came from the table, with the deck resolved
            self._record_refused_deck(command_id, table, dealt, error)
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
        """Apply a command to the hand in progress; when it ends the hand, the table takes the final stacks.  While
        a correction is pending (R-AUD-1) the hand takes only its decision."""
        if command.action not in HAND_ACTIONS and command.action not in CORRECTION_ACTIONS:
            raise ServiceError(f"unknown hand command {command.action!r}")
        authorize(viewer, table, HAND_PERMISSIONS.get(command.action, "play"))
        if viewer.role is Role.DEVICE and command.source != "shoe":
            raise AccessDeniedError(f"{viewer.station} is a device: it deals only what the shoe reads", rule="R-DECK-4")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.table(table)
            hand = self.current_hand(record)
            if command.action in CORRECTION_ACTIONS:
                CORRECTION_ACTIONS[command.action](hand, command, viewer)
            else:
                hand.verify_no_pending_correction()
                HAND_ACTIONS[command.action](hand, command)
            changed: list[Aggregate] = [hand]
            if hand.is_complete:
                record.finish_hand(hand)
                changed.append(record)
            return {"table": table, "hand_id": str(hand.id), "version": hand.version,
                    "complete": hand.is_complete}, changed

        return self._execute(command_id, table, change, ("hand_command", command))

    # -- banked tables ------------------------------------------------------------------------------

    def open_banked_table(self, command_id: str, name: str, game: str, settings: ThbSettings | CdpSettings,
                          language: str = LANGUAGES[0]) -> dict[str, Any]:
        """Open a Texas Hold'em Bonus or Casino Draw Poker table, and its stations' language."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            self._verify_name_free(name)
            table = BankedTable.open(name, game, settings, language, hands_key=uuid4().hex)
            return {"table": name, "table_id": str(table.id)}, [table]

        return self._execute(command_id, name, change, ("open_banked_table", game, settings, language))

    def start_banked_hand(self, command_id: str, table: str, deck: DeckIdentity) -> dict[str, Any]:
        """Open the next banked hand for bets."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.banked_table(table)
            hand = record.start_hand(deck, self.casino_holds(table))  # R-HOLD-1: the audit's findings too
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

    # -- machinery ----------------------------------------------------------------------------------

    def _table_change(self, command_id: str, table: str, apply: Callable[[Table], None],
                      what: tuple[object, ...]) -> dict[str, Any]:
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.table(table)
            apply(record)
            return {"table": table, "version": record.version}, [record]

        return self._execute(command_id, table, change, what)
