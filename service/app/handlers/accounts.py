"""The handlers of a shift's accounts (issue 19, item 3; R-ACC-1 … R-ACC-6, docs/accounts.md): the opener and the
closer counted between hands, the fills and credits asked by one side and signed off by the other, the drop.  Their
events are the shift's (:class:`domain.accounts.TableAccounts`, with the table's :class:`domain.accounts.ShiftBook`),
never the table's own; the reads are :class:`service.app.accounts.Accounts`'."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from domain.accounts import TableAccounts
from domain.banked.hold import CONFIDENCE
from service.app.access import NotFoundError, PreconditionError, Viewer
from service.app.accounts import side
from service.app.commands import (
    CloseShift,
    Command,
    OpenShift,
    RecordDrop,
    RequestTransfer,
    SignTransfer,
    WithdrawTransfer,
)
from service.app.results import Result

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from service.app.handlers.context import Tables


def _by(viewer: Viewer) -> str:
    """Who counts, asks or signs: the person signed in at the station (issue 33), else the station."""
    return viewer.person or viewer.station


def open_shift(app: Tables, command: OpenShift, viewer: Viewer) -> Result:
    """R-ACC-1: the table's next shift opens with the opener (its tray's count by denomination), between hands."""
    accounts = app.accounts

    def change() -> tuple[Result, list[Aggregate]]:
        record = app.reads.any_table(command.table)
        accounts.verify_between_hands(record)
        book = accounts.book(command.table)
        shift = TableAccounts.open_shift(command.table, book.shifts + 1, command.opener,
                                         first_hand=record.hands_started + 1,
                                         by=_by(viewer))  # the opener checked (R-ACC-2) before the book moves
        book.begin()
        return Result(table=command.table, shift=shift.number), [book, shift]

    return app.unit.execute(command.command_id, command.table, change, command.what(None))


def close_shift(app: Tables, command: CloseShift, viewer: Viewer) -> Result:
    """R-ACC-1: the closer, between hands; R-ACC-6: a win outside the band of the theoretical win of the shift's
    bets is recorded (``HoldOutsideBand``) with the close."""
    accounts = app.accounts

    def change() -> tuple[Result, list[Aggregate]]:
        record = app.reads.any_table(command.table)
        accounts.verify_between_hands(record)
        book = accounts.book(command.table)
        shift = accounts.shift(command.table, book.open_shift)
        shift.close_shift(command.closer, last_hand=record.hands_started, by=_by(viewer))
        book.end(shift.number)
        theory = accounts.shift_theory(record, shift)
        win = shift.win
        assert win is not None
        if theory.outside(win):
            shift.flag_hold(expected=round(theory.expected), low=theory.low, high=theory.high, confidence=CONFIDENCE)
        return Result(table=command.table, shift=shift.number, win=win, flagged=shift.flag is not None), \
            [book, shift]

    return app.unit.execute(command.command_id, command.table, change, command.what(None))


def request_transfer(app: Tables, command: RequestTransfer, viewer: Viewer) -> Result:
    """R-ACC-3: a fill or a credit asked for by this side (croupier or pit); it counts once the other signs."""
    return _shift_change(app, command, lambda shift: shift.request_transfer(
        command.transfer, command.kind, command.chips, by=_by(viewer), side=side(viewer)))


def sign_transfer(app: Tables, command: SignTransfer, viewer: Viewer) -> Result:
    """R-ACC-3: the other side signs a waiting slip off."""
    return _shift_change(app, command, lambda shift: shift.sign_transfer(command.transfer, by=_by(viewer),
                                                                         side=side(viewer)))


def withdraw_transfer(app: Tables, command: WithdrawTransfer, viewer: Viewer) -> Result:
    """R-ACC-3: a slip not signed off is withdrawn, with the reason."""
    return _shift_change(app, command, lambda shift: shift.withdraw_transfer(command.transfer, by=_by(viewer),
                                                                             reason=command.reason))


def record_drop(app: Tables, command: RecordDrop, viewer: Viewer) -> Result:
    """R-ACC-4: a drop count of shift ``shift`` (default: the open one, or else the last), by the pit."""
    return _shift_change(app, command, lambda accounts: accounts.record_drop(command.amount, by=_by(viewer)),
                         shift=command.shift, closed_too=True)


def _shift_change(app: Tables, command: Command, apply: Callable[[TableAccounts], None], *,
                  shift: int | None = None, closed_too: bool = False) -> Result:
    accounts = app.accounts

    def change() -> tuple[Result, list[Aggregate]]:
        app.reads.any_table(command.table)
        try:
            book = accounts.book(command.table, create=False)
        except NotFoundError:
            raise PreconditionError(f"no shift of {command.table!r} was opened", rule="R-ACC-1") from None
        number = shift if shift is not None else book.open_shift
        if number is None and closed_too:
            number = book.shifts
        if number is None:
            raise PreconditionError(f"no shift of {command.table!r} is open", rule="R-ACC-1")
        changed = accounts.shift(command.table, number)
        apply(changed)
        return Result(table=command.table, shift=changed.number, version=changed.version), [changed]

    return app.unit.execute(command.command_id, command.table, change, command.what(None))


HANDLERS: Mapping[type[Command], Callable[[Tables, Any, Viewer], Result]] = {
    OpenShift: open_shift, CloseShift: close_shift, RequestTransfer: request_transfer,
    SignTransfer: sign_transfer, WithdrawTransfer: withdraw_transfer, RecordDrop: record_drop}
"""The accounts' handlers."""
