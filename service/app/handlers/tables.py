"""The handlers of a table's own commands: open it, seat players and their chips, its settings, corrections and
close, its devices' reports, a card exposed at the cut, a dispute's reconstruction, and the start of each hand."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from uuid import uuid4

from domain.cards.decks import DeckIdentity
from domain.circle.table import Table
from domain.device_reports import DeckAlternationError
from domain.games import GAMES
from domain.tables import NextDeck
from service.app.access import PreconditionError, Viewer
from service.app.commands import (
    MAX_CHIPS,
    AddChips,
    CloseTable,
    Command,
    ConfigureTable,
    CorrectStack,
    Leave,
    OpenTable,
    ReconstructHand,
    RecordCutExposure,
    RecordDeviceReport,
    Sit,
    StartHand,
)
from service.app.results import Result

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from service.app.handlers.context import Tables


def open_table(app: Tables, command: OpenTable, viewer: Viewer) -> Result:
    """Open a table of any game (its name is its identity, one name space for every game, R-AUD-1)."""
    game = GAMES[command.game]

    def change() -> tuple[Result, list[Aggregate]]:
        app.reads.verify_name_free(command.table)
        table = game.open(command.table, command.settings, command.seat_count, command.language,
                          uuid4().hex)  # its hands' key: issue 29, item 5
        return Result(table=command.table, table_id=str(table.id)), [table]

    return app.unit.execute(command.command_id, command.table, change, command.what(None))


def table_change(app: Tables, command: Command, apply: Callable[[Any], None], *, circle: str = "") -> Result:
    """A change of the command's table itself (its devices, its alerts, its dealer): its version after it.
    ``circle``: a change of a circle table's own (its seats and stacks, settings, close), refused at a banked table,
    whose boxes take bets hand by hand, naming this rule."""
    def change() -> tuple[Result, list[Aggregate]]:
        record = app.reads.table(command.table, circle) if circle else app.reads.any_table(command.table)
        apply(record)
        return Result(table=command.table, version=record.version), [record]

    return app.unit.execute(command.command_id, command.table, change, command.what(None))


def _circle_change(app: Tables, command: Command, apply: Callable[[Table], None],
                   rule: str = "R-CIRC-2") -> Result:
    """A change of a circle table's own (:func:`table_change`), refused at a banked table naming ``rule``."""
    return table_change(app, command, apply, circle=rule)


def sit(app: Tables, command: Sit, viewer: Viewer) -> Result:
    """A player takes a seat with his chips."""
    return _circle_change(app, command, lambda t: t.sit(command.seat, command.stack))


def leave(app: Tables, command: Leave, viewer: Viewer) -> Result:
    """A player leaves between hands."""
    return _circle_change(app, command, lambda t: t.leave(command.seat))


def add_chips(app: Tables, command: AddChips, viewer: Viewer) -> Result:
    """A player buys more chips between hands; a stack never passes :data:`MAX_CHIPS` (R-CIRC-6)."""
    def apply(record: Table) -> None:
        stack = record.stacks.get(command.seat, 0)
        if stack + command.amount > MAX_CHIPS:
            raise PreconditionError(f"seat {command.seat} would hold {stack + command.amount} chips, past the cap "
                                    f"of {MAX_CHIPS}", rule="R-CIRC-6")
        record.add_chips(command.seat, command.amount)

    return _circle_change(app, command, apply)


def configure_table(app: Tables, command: ConfigureTable, viewer: Viewer) -> Result:
    """New settings between hands (the pit boss)."""
    return _circle_change(app, command, lambda t: t.configure(command.settings), rule="R-CIRC-5")


def correct_stack(app: Tables, command: CorrectStack, viewer: Viewer) -> Result:
    """A pit boss's correction of a stack between hands, recorded with who and why."""
    return _circle_change(app, command, lambda t: t.correct_stack(command.seat, command.stack, command.reason,
                                                                 viewer.station))


def close_table(app: Tables, command: CloseTable, viewer: Viewer) -> Result:
    """Close a table of any game between hands (the pit boss)."""
    return table_change(app, command, lambda t: t.close(viewer.station))


def record_device_report(app: Tables, command: RecordDeviceReport, viewer: Viewer) -> Result:
    """A shuffle, deck check, delivery or fault of a device at a table, as an event of the table."""
    return table_change(app, command, lambda t: t.record_device_report(command.report))


def record_cut_exposure(app: Tables, command: RecordCutExposure, viewer: Viewer) -> Result:
    """R-CIRC-2: a card exposed at the cut, recorded with who reported it; the deal waits for a new shuffle."""
    return _circle_change(app, command, lambda t: t.record_cut_exposure(command.card, command.colour, viewer.station))


def reconstruct_hand(app: Tables, command: ReconstructHand, viewer: Viewer) -> Result:
    """A hand (of any game) reconstructed for a dispute: the request is recorded at the table first (who, when,
    why; R-THB-13, R-AUD-1); the result names the hand, whose steps the application's ``reconstruction`` reads."""
    def change() -> tuple[Result, list[Aggregate]]:
        record = app.reads.any_table(command.table)
        record.record_reconstruction(command.number, viewer.station, command.reason)
        return Result(table=command.table, version=record.version,
                      hand_id=str(record.hand_id(command.number))), [record]

    return app.unit.execute(command.command_id, command.table, change, command.what(None))


def start_hand(app: Tables, command: StartHand, viewer: Viewer) -> Result:
    """Start the next hand of a table of any game with the deck in play (the shuffler's red or blue deck); a
    :class:`NextDeck`: of the size the table's next hand needs.  A deck refused (R-DECK-2) is recorded."""
    dealt: DeckIdentity | None = None  # the deck resolved with the table (a refusal names it, R-DECK-2)

    def change() -> tuple[Result, list[Aggregate]]:
        nonlocal dealt
        record = app.reads.any_table(command.table)
        deck = command.deck
        dealt = deck.identity(record) if isinstance(deck, NextDeck) else deck
        hand = record.start_hand(dealt, app.holds.casino_holds(command.table))  # R-HOLD-1: the audit's findings too
        return Result(table=command.table, hand_id=str(hand.id), number=hand.number), [record, hand]

    try:
        return app.unit.execute(command.command_id, command.table, change, command.what)
    except DeckAlternationError as error:
        assert dealt is not None  # the refusal came from the table, with the deck resolved
        _record_refused_deck(app, command, dealt, error)
        raise


def _record_refused_deck(app: Tables, command: StartHand, deck: DeckIdentity,
                         error: DeckAlternationError) -> None:
    """R-DECK-2: the refused start recorded nothing; the refusal itself is recorded at the table as the
    shuffler's fault, once per refused command (a retry of it is refused again, and not recorded twice)."""
    def change() -> tuple[Result, list[Aggregate]]:
        record = app.reads.any_table(command.table)
        record.record_refused_deck(deck.colour.value, str(error))
        return Result(table=command.table, version=record.version), [record]

    digest = hashlib.sha256(command.command_id.encode()).hexdigest()[:40]
    app.unit.execute(f"refused-deck-{digest}", command.table, change, ("refused_deck", command.command_id, deck))


HANDLERS: Mapping[type[Command], Callable[[Tables, Any, Viewer], Result]] = {
    OpenTable: open_table, Sit: sit, Leave: leave, AddChips: add_chips, ConfigureTable: configure_table,
    CorrectStack: correct_stack, CloseTable: close_table, RecordDeviceReport: record_device_report,
    RecordCutExposure: record_cut_exposure, ReconstructHand: reconstruct_hand, StartHand: start_hand,
}
"""The table's commands' handlers."""
