"""The pokertable application: tables and hands of every game, stored as events (SQLite or PostgreSQL).

One entry for every change: :meth:`PokerTables.handle` takes a command (:mod:`service.app.commands`, one class per
intent) and who gives it, checks the role matrix, and runs the command's handler (:mod:`service.app.handlers`, one
per command type) in a unit of work (:mod:`service.app.unit`).  Every command carries a client-chosen command id.  A
command's changes and a record of the command (with its result) are saved in one transaction, so a retried command
returns the first result and is never applied twice, and two service instances on one PostgreSQL never both apply
conflicting commands: the loser is run once more on fresh copies, and if it still conflicts gets
:class:`ConflictError` (retryable) and changes nothing.

The application is composed, not mixed: ``reads`` (aggregates by name and id, :mod:`service.app.reads`), ``unit``
(the unit of work), ``views`` (what a station sees, :mod:`service.app.views`), ``holds`` (what holds a table,
:mod:`service.app.holds`), ``audit`` (its check of its own log, :mod:`service.app.tampering`), ``accounts`` (the
shifts' accounts, :mod:`service.app.accounts`), ``floor_log`` (the floor's projection) and ``hole_cards`` (the
views of face-down cards).

>>> app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
>>> settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
>>> app.handle(OpenTable("c1", "Mesa 1", settings)).table
'Mesa 1'
>>> _ = app.handle(Sit("c2", "Mesa 1", 1, 100)), app.handle(Sit("c3", "Mesa 1", 2, 100))
>>> app.handle(StartHand("c4", "Mesa 1", DeckIdentity(52, BackColour.RED))).number
1
>>> app.handle(StartHand("c4", "Mesa 1", DeckIdentity(52, BackColour.RED))).number  # the same id: the same result
1
"""


from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import EventStore, InfrastructureFactory, JSONTranscoder, Recording
from eventsourcing.utils import Environment, get_topic

from domain.banked.table import BankedTable
from domain.cards.decks import BackColour, DeckIdentity  # noqa: F401  (doctest)
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, TableSettings  # noqa: F401  (doctest)
from domain.circle.table import Table
from domain.reconstruction import Step, reconstruct
from domain.staff import StaffMember, StationSessions
from domain.tables import NextDeck
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
from service.app.accounts import Accounts
from service.app.commands import MAX_CHIPS, Command, OpenTable, Sit, StartHand, fingerprint
from service.app.floor import TableNames
from service.app.floor_log import FloorLog
from service.app.handlers import HANDLERS
from service.app.holds import Holds
from service.app.hole_card_views import HoleCardWatch
from service.app.log_reads import LogReads
from service.app.reads import Reads
from service.app.results import Result
from service.app.sessions import Sessions
from service.app.staff import HOUSE_STATION, Staff
from service.app.tampering import LogAudit
from service.app.unit import UnitOfWork
from service.app.views import TableViews, parse_moment
from service.app.visibility import HOLE_CARDS_LIVE, reconstruction_step
from service.store.chain import TamperedLogError
from service.store.follower import LogFollower
from service.store.log_time import OrderedEventStore
from service.store.persistence import READ_ONLY, read_only_connections
from service.store.snapshots import SNAPSHOT_EVERY, SignedSnapshots, TableSnapshot
from service.store.state_transcodings import register_state_transcodings
from service.store.topics import register_moved_topics

__all__ = [  # what is imported from here besides the application (its errors, its viewer)
    "HOUSE", "MAX_CHIPS", "AccessDeniedError", "ConflictError", "DuplicateCommandError", "NextDeck", "NotFoundError",
    "OpenTable", "PokerTables", "PreconditionError", "ProcessedCommand", "Result", "Role", "ServiceError", "Sit",
    "StartHand", "TamperedLogError", "Viewer", "authorize", "fingerprint", "parse_moment",
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
HOUSE = Viewer(HOUSE_STATION, Role.PIT_BOSS)
"""Who gives a command when no station is named: the house's own tools (the console, a test, a fixture), with the
pit boss's rights; every station's command names its station (``pokertable serve``)."""


class PokerTables(Application[UUID]):
    """Tables and hands of every game, as events."""

    name = "pokertable"
    COMMAND_RECORD = ProcessedCommand
    CACHE_SIZE = "2000"
    """Aggregates kept in memory (copied out for each command, fast-forwarded from the store), so that a command's
    cost does not grow with a table's history."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        register_moved_topics()  # events stored before issue 14's move name the old modules
        super().__init__({"AGGREGATE_CACHE_MAXSIZE": self.CACHE_SIZE, **(env or {})})
        self.reads = Reads(self.repository, self.recorder,
                           checked_reads=bool(getattr(self.recorder, "checks_reads", False))
                           and self.repository.fastforward)
        """Tables and hands by name and id, for commands and views (:mod:`service.app.reads`)."""
        self.unit = UnitOfWork(self.reads, self.repository, self.events, self.COMMAND_RECORD, record=self._record,
                               stored=self._after_write)
        """The unit of work of every command, and the storing of events (:mod:`service.app.unit`)."""
        self.floor_log = FloorLog(self)
        """The floor's projection: its alerts and the hands index (issue 30, :mod:`service.app.floor_log`)."""
        self.names = TableNames(self.recorder, self.mapper, self.floor_log)
        """The name of every table, in opening order (:mod:`service.app.floor`)."""
        self.audit = LogAudit(self.recorder, self.mapper, self.reads, self.unit, self.names)
        """The service's check of its own log, and its findings (R-AUD-1, :mod:`service.app.tampering`)."""
        self.holds = Holds(self.recorder, self.reads, self.unit, self.audit, self.names)
        """What holds each table, and the alerts the service raises (R-HOLD-1, :mod:`service.app.holds`)."""
        self.staff = Staff(self.reads)
        """The staff register and the persons' records (issue 32, :mod:`service.app.staff`)."""
        self.sessions = Sessions(self.reads, self.unit, self.staff)
        """The persons signed in at the stations, and the check of who gives each call and command (issue 32,
        :mod:`service.app.sessions`)."""
        self.unit.verify_actor = self.sessions.verify_actor
        self.accounts = Accounts(self.reads, self.staff.name_of)
        """The shifts' accounts (R-ACC-1 … R-ACC-6, :mod:`service.app.accounts`)."""
        if self.floor_log.usable:  # a shift's hands added up from the hands index (issue 34)
            self.accounts.indexed = self.floor_log.store.hands_index.ended_since
        self.views = TableViews(self)
        """What a station sees (:mod:`service.app.views`)."""
        self.hole_cards_live: bool = HOLE_CARDS_LIVE
        """The casino's delay policy (issue 29, item 7; :func:`service.app.visibility.shows_down_cards`): True, the
        default, shows the pit a hand's face-down cards as they are dealt; False only once the hand has ended (the
        service's ``hole_cards_live`` setting; :func:`service.grpc.server.create_server` sets it)."""
        self.log_reads = LogReads(self.recorder, self.mapper)
        """The log, page by page, for the live readers (:mod:`service.app.log_reads`)."""
        self.hole_cards = HoleCardWatch(self)
        """The delay policy and the record of live views of face-down cards (issue 29, item 7)."""

    # -- commands -----------------------------------------------------------------------------------------------

    def handle(self, command: Command, viewer: Viewer = HOUSE) -> Result:
        """Apply ``command`` for ``viewer``: the role matrix first (:func:`service.app.access.authorize`, the
        command's permission), then its handler, once per command id; its result (a retry's: the first)."""
        authorize(viewer, command.table, command.permission_needed())
        handler = HANDLERS.get(type(command))
        if handler is None:
            raise ServiceError(f"{type(command).__name__} is not a command of this service")
        with self.unit.acting(viewer):
            return handler(self, command, viewer)

    def reconstruction(self, table: str, number: int, viewer: Viewer) -> list[Step]:
        """Hand ``number`` of a table (of any game), event by event, for a dispute, as ``viewer`` may see it, once
        its request is recorded (:class:`ReconstructHand`, R-THB-13, R-AUD-1); a hand still in progress is shown to
        the pit only if the casino shows hole cards live (issue 29, item 7)."""
        hand_id = self.reads.any_table(table).hand_id(number)
        sees = self.hole_cards.shows_down_cards(viewer, table, hand_live=hand_id in self.hole_cards.live_hands(table))
        return [reconstruction_step(step, sees_down_cards=sees) for step in reconstruct(self.events.get(hand_id))]

    # -- reads (the collaborators' most asked) ------------------------------------------------------------------

    def table(self, name: str) -> Table:
        """A circle table by name (:meth:`Reads.table`)."""
        return self.reads.table(name)

    def any_table(self, name: str) -> Table | BankedTable:
        """A table of any game by name (:meth:`Reads.any_table`)."""
        return self.reads.any_table(name)

    def hand(self, hand_id: UUID, version: int | None = None) -> Hand:
        """A circle hand by id (:meth:`Reads.hand`)."""
        return self.reads.hand(hand_id, version)

    def any_hand(self, hand_id: UUID, version: int | None = None) -> Any:
        """A hand of any game by id (:meth:`Reads.any_hand`)."""
        return self.reads.any_hand(hand_id, version)

    def hands_of(self, table: str) -> list[UUID]:
        """The ids of a table's hands, oldest first."""
        return self.reads.hands_of(table)

    def table_names(self) -> list[str]:
        """The name of every table of any game, in opening order (:class:`service.app.floor.TableNames`)."""
        return self.names()

    @property
    def on_stored(self) -> Callable[[str], None] | None:
        """Told the table's name each time a command of it is stored (:attr:`UnitOfWork.on_stored`)."""
        return self.unit.on_stored

    @on_stored.setter
    def on_stored(self, told: Callable[[str], None] | None) -> None:
        self.unit.on_stored = told

    @property
    def after_save(self) -> Callable[[list[Recording[UUID]]], None] | None:
        """Told of each batch of events stored (:attr:`UnitOfWork.after_save`; the head signer counts them)."""
        return self.unit.after_save

    @after_save.setter
    def after_save(self, told: Callable[[list[Recording[UUID]]], None] | None) -> None:
        self.unit.after_save = told

    def follower(self, owner_of: Callable[[UUID, int], str | None], wake: Callable[[str], None],
                 watched: Callable[[], bool]) -> LogFollower | None:
        """A reader of the log that wakes this instance's Watch streams for the other instances' commands (several
        instances on one PostgreSQL, :mod:`service.store.follower`); None for the sole writer of an SQLite file,
        which has no others."""
        return None if self.sole_writer else LogFollower(self.recorder, owner_of, wake, watched)

    @property
    def sole_writer(self) -> bool:
        """Whether this instance is its store's only writer (:attr:`Reads.sole_writer`)."""
        return self.reads.sole_writer

    # -- the store ----------------------------------------------------------------------------------------------

    def construct_factory(self, env: Environment) -> InfrastructureFactory[Any]:
        """eventsourcing's store factory; on a store opened read-only (:data:`READ_ONLY`), PostgreSQL's sessions made
        read-only before the recorder opens its first connection (R-AUD-1: an inspection never writes)."""
        factory = super().construct_factory(env)
        if env.get(READ_ONLY):
            read_only_connections(factory)
        return factory

    snapshotting_intervals: ClassVar[dict[Any, int]] = {Table: SNAPSHOT_EVERY, BankedTable: SNAPSHOT_EVERY,
                                                        StationSessions: SNAPSHOT_EVERY, StaffMember: SNAPSHOT_EVERY}
    """Tables, and the stations' and persons' records (a sign-in at every rotation, for years), are snapshotted every
    so many events (issue 30, item 2; :mod:`service.store.snapshots`)."""
    snapshot_class = TableSnapshot

    def construct_snapshot_store(self) -> EventStore[UUID]:
        """The tables' snapshots, signed (:class:`service.store.snapshots.SignedSnapshots`): none is stored or read
        until the service gives it its key and the keys it trusts."""
        return SignedSnapshots(mapper=self.mapper, recorder=self.factory.aggregate_recorder(purpose="snapshots"))

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        """eventsourcing's, and what a table's state holds besides plain data (its snapshots store it)."""
        super().register_transcodings(transcoder)
        register_state_transcodings(transcoder)

    def construct_event_store(self) -> EventStore[UUID]:
        """The events' store: each write timed after the log's last event (issue 29, item 4;
        :class:`service.store.log_time.OrderedEventStore`)."""
        return OrderedEventStore(mapper=self.mapper, recorder=self.recorder)

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording[UUID]]:
        """Store aggregates' pending events in one transaction (:meth:`UnitOfWork.save`)."""
        return self.unit.save(*objs, **kwargs)

    def _after_write(self, processing_event: ProcessingEvent[UUID], recordings: list[Recording[UUID]]) -> None:
        """What follows a write: the tables due a snapshot, taken as the command left them
        (:meth:`SignedSnapshots.take_due`), and eventsourcing's notification of the recordings."""
        if isinstance(self.snapshots, SignedSnapshots):
            self.snapshots.take_due(processing_event.aggregates, processing_event.events, self.snapshotting_intervals)
        self._notify(recordings)
