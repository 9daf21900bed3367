"""The handler of :class:`service.app.commands.Act`: an action on the hand in progress at a table of any game (or,
for a table's own action, on the table between hands), as the table's game maps it (:attr:`domain.games.Game.
actions`).  No game is named here: an action the game does not take is refused naming the game's rule."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from domain.actions import Deal
from domain.games import game_of
from service.app.access import AccessDeniedError, PreconditionError, Role, Viewer
from service.app.commands import Act, Command
from service.app.results import Result

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from service.app.handlers.context import Tables


def act(app: Tables, command: Act, viewer: Viewer) -> Result:
    """Apply an action to the table's hand in progress; when it ends the hand, the table takes the hand's outcome
    (the final stacks, the house's result).  A device only deals what the shoe reads (R-DECK-4)."""
    action = command.action
    if viewer.role is Role.DEVICE and not (isinstance(action, Deal) and action.source == "shoe"):
        raise AccessDeniedError(f"{viewer.station} is a device: it deals only what the shoe reads", rule="R-DECK-4")

    def change() -> tuple[Result, list[Aggregate]]:
        record = app.reads.any_table(command.table)
        game = game_of(record)
        taken = game.actions.get(type(action))
        if taken is None:
            raise PreconditionError(f"{action.name} is not a command of {game.code}", rule=game.foreign_rule)
        if action.between_hands:
            taken(record, action, viewer.station)
            return Result(table=command.table, version=record.version), [record]
        if record.hand_in_progress is None and action.after_hand and record.hands_started:
            hand = app.reads.any_hand(record.hand_id(record.hands_started))  # the last hand (R-THB-13)
        else:
            hand = app.reads.current_hand(record)
        taken(hand, action, viewer.station)
        changed: list[Aggregate] = [hand]
        if hand.is_complete and record.hand_in_progress == hand.id:
            record.finish_hand(hand)
            changed.append(record)
        return Result(table=command.table, hand_id=str(hand.id), version=hand.version,
                      complete=hand.is_complete), changed

    return app.unit.execute(command.command_id, command.table, change, command.what)


HANDLERS: Mapping[type[Command], Callable[[Tables, Any, Viewer], Result]] = {Act: act}
"""The hands' handler."""
