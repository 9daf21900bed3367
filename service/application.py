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

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError

from domain.cards import Card
from domain.decks import BackColour, DeckIdentity  # noqa: F401  (BackColour: doctest)
from domain.hand import Hand
from domain.hand_state import LegalActions
from domain.table import Table
from domain.table_settings import BettingStructure, TableSettings  # noqa: F401  (BettingStructure: doctest)

COMMANDS_NAMESPACE = uuid5(NAMESPACE_URL, "https://pokertable.invalid/commands")


class ServiceError(Exception):
    """An application error, with the rule it concerns when there is one."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{message} ({rule})" if rule else message)
        self.message, self.rule = message, rule


class NotFoundError(ServiceError):
    """No such table or hand."""


class ConflictError(ServiceError):
    """Another command changed the table first; nothing was applied: retry (optimistic concurrency)."""


class AccessDeniedError(ServiceError):
    """The station's role does not allow this command, or not at this table."""


class Role(Enum):
    """What a station may do (issue 6): the dealer runs his own table; the pit boss voids and corrects; the games
    director approves; an observer only reads."""

    DEALER = "dealer"
    PIT_BOSS = "pit-boss"
    GAMES_DIRECTOR = "games-director"
    OBSERVER = "observer"


@dataclass(frozen=True)
class Viewer:
    """Who asks: a station's name, role and, for a dealer, its table."""

    station: str
    role: Role
    table: str | None = None

    def sees_down_cards(self, table: str) -> bool:
        """Face-down cards are shown to the table's own dealer and to the pit; never to observers or other tables."""
        return (self.role is Role.DEALER and self.table == table) or self.role in (Role.PIT_BOSS, Role.GAMES_DIRECTOR)


class ProcessedCommand(Aggregate):
    """The record of an applied command and its result, saved with its changes (idempotency)."""

    @staticmethod
    def create_id(command_id: str, **_: Any) -> UUID:
        """One record per command id."""
        return uuid5(COMMANDS_NAMESPACE, command_id)

    @event("Processed")
    def __init__(self, *, command_id: str, result: dict[str, Any]) -> None:
        self.command_id = command_id
        self.result = dict(result)


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

PIT_ONLY = frozenset({"void"})


def _seat(command: HandCommand) -> int:
    if command.seat is None:
        raise ServiceError(f"{command.action} needs a seat")
    return command.seat


def _amount(command: HandCommand) -> int:
    if command.amount is None:
        raise ServiceError(f"{command.action} needs an amount")
    return command.amount


def _card(command: HandCommand) -> Card:
    if command.card is None:
        raise ServiceError(f"{command.action} needs a card")
    return command.card


@dataclass
class _Locks:
    """One lock per table: a table's commands apply one at a time, in order, within this process."""

    guard: threading.Lock = field(default_factory=threading.Lock)
    tables: dict[str, threading.Lock] = field(default_factory=dict)

    def __call__(self, table: str) -> threading.Lock:
        with self.guard:
            return self.tables.setdefault(table, threading.Lock())


class PokerTables(Application[UUID]):
    """Tables and hands of circle poker."""

    name = "pokertable"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        super().__init__(env)
        self._locks = _Locks()

    # -- commands -----------------------------------------------------------------------------------

    def open_table(self, command_id: str, name: str, settings: TableSettings, seat_count: int = 10) -> dict[str, Any]:
        """Open a table (its name is its identity)."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            if self._exists(Table.create_id(name)):
                raise ServiceError(f"table {name!r} is already open", rule="R-AUD-1")
            table = Table.open(name, settings, seat_count)
            return {"table": name, "table_id": str(table.id)}, [table]

        return self._execute(command_id, name, change)

    def sit(self, command_id: str, table: str, seat: int, stack: int) -> dict[str, Any]:
        """Seat a player with his chips."""
        return self._table_change(command_id, table, lambda t: t.sit(seat, stack))

    def leave(self, command_id: str, table: str, seat: int) -> dict[str, Any]:
        """A player leaves between hands."""
        return self._table_change(command_id, table, lambda t: t.leave(seat))

    def add_chips(self, command_id: str, table: str, seat: int, amount: int) -> dict[str, Any]:
        """A player buys more chips between hands."""
        return self._table_change(command_id, table, lambda t: t.add_chips(seat, amount))

    def start_hand(self, command_id: str, table: str, deck: DeckIdentity) -> dict[str, Any]:
        """Start the next hand with the deck in play (the shuffler's red or blue deck)."""
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.table(table)
            hand = record.start_hand(deck)
            return {"table": table, "hand_id": str(hand.id), "number": hand.number}, [record, hand]

        return self._execute(command_id, table, change)

    def hand_command(self, command_id: str, table: str, command: HandCommand, viewer: Viewer) -> dict[str, Any]:
        """Apply a command to the hand in progress; when it ends the hand, the table takes the final stacks."""
        if command.action not in HAND_ACTIONS:
            raise ServiceError(f"unknown hand command {command.action!r}")
        self.authorize(viewer, table, pit=command.action in PIT_ONLY)

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

        return self._execute(command_id, table, change)

    # -- queries ------------------------------------------------------------------------------------

    def table(self, name: str) -> Table:
        """The table, or :class:`NotFoundError`."""
        try:
            record: object = self.repository.get(Table.create_id(name))
        except AggregateNotFoundError:
            raise NotFoundError(f"no table {name!r}") from None
        assert isinstance(record, Table)
        return record

    def current_hand(self, table: Table) -> Hand:
        """The hand in progress at a table, or :class:`ServiceError` naming R-CIRC-2."""
        if table.hand_in_progress is None:
            raise ServiceError("no hand is in progress at this table", rule="R-CIRC-2")
        return self.hand(table.hand_in_progress)

    def hand(self, hand_id: UUID, version: int | None = None) -> Hand:
        """A hand by id (as of ``version`` if given), or :class:`NotFoundError`."""
        try:
            record: object = self.repository.get(hand_id, version=version)
        except AggregateNotFoundError:
            raise NotFoundError(f"no hand {hand_id}") from None
        assert isinstance(record, Hand)
        return record

    def hands_of(self, table: str) -> list[UUID]:
        """The ids of a table's hands, oldest first."""
        record = self.table(table)
        return [Hand.create_id(record.id, number) for number in range(1, record.hands_started + 1)]

    def legal_actions(self, table: str) -> LegalActions | None:
        """What the player to act may do at the table now."""
        record = self.table(table)
        if record.hand_in_progress is None:
            return None
        return self.current_hand(record).legal_actions()

    def view(self, table: str, viewer: Viewer) -> dict[str, Any]:
        """The table as a station may see it: face-down cards hidden unless the viewer may see them."""
        record = self.table(table)
        out: dict[str, Any] = {
            "table": record.name, "variant": record.settings.variant, "stacks": dict(record.stacks),
            "button_seat": record.button_seat, "hands_started": record.hands_started, "hand": None,
        }
        if record.hand_in_progress is not None:
            hand = self.hand(record.hand_in_progress)
            snapshot = hand.snapshot()
            if not viewer.sees_down_cards(table):
                snapshot["hole"] = [[(card if up else "??", up) for card, up in cards] for cards in snapshot["hole"]]
                snapshot["discards"] = ["??" for _ in snapshot["discards"]]
                snapshot["opener_discards"] = ["??" for _ in snapshot["opener_discards"]]
                snapshot["burned"] = ["??" for _ in snapshot["burned"]]
            out["hand"] = snapshot
        return out

    # -- access -------------------------------------------------------------------------------------

    @staticmethod
    def authorize(viewer: Viewer, table: str, *, pit: bool = False) -> None:
        """Dealers command their own table; voids and corrections are the pit boss's; observers only read."""
        if viewer.role is Role.OBSERVER:
            raise AccessDeniedError(f"{viewer.station} is an observer: read-only")
        if pit and viewer.role is not Role.PIT_BOSS:
            raise AccessDeniedError("voids and corrections are the pit boss's")
        if viewer.role is Role.DEALER and viewer.table != table:
            raise AccessDeniedError(f"{viewer.station} deals at {viewer.table!r}, not {table!r}")

    # -- machinery ----------------------------------------------------------------------------------

    def _table_change(self, command_id: str, table: str, apply: Callable[[Table], None]) -> dict[str, Any]:
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.table(table)
            apply(record)
            return {"table": table, "version": record.version}, [record]

        return self._execute(command_id, table, change)

    def _execute(self, command_id: str, table: str,
                 change: Callable[[], tuple[dict[str, Any], list[Aggregate]]]) -> dict[str, Any]:
        """Apply a change once per command id, atomically with the record of it."""
        if not command_id or len(command_id) > 128:
            raise ServiceError("a command id has 1 to 128 characters")
        with self._locks(table):
            done = self._processed(command_id)
            if done is not None:
                return done
            result, changed = change()  # a RuleError here has recorded nothing
            record = ProcessedCommand(command_id=command_id, result=result)
            try:
                self.save(*changed, record)
            except IntegrityError:
                done = self._processed(command_id)
                if done is not None:
                    return done
                raise ConflictError("the table changed meanwhile; nothing was applied: retry", rule="R-AUD-1") \
                    from None
            return result

    def _processed(self, command_id: str) -> dict[str, Any] | None:
        try:
            record: object = self.repository.get(ProcessedCommand.create_id(command_id))
        except AggregateNotFoundError:
            return None
        assert isinstance(record, ProcessedCommand)
        return record.result

    def _exists(self, aggregate_id: UUID) -> bool:
        try:
            self.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return False
        return True

