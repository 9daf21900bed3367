"""A table's accounts per shift (issue 19, item 3; R-ACC-1 … R-ACC-6, pokertable's decisions, docs/accounts.md):
the opener and closer, the fills and credits signed off by the croupier and the pit, the drop, the win and hold, and
the theoretical win of the bets actually made with its band.

:class:`TableAccountsBook` is a part of :class:`service.app.application.PokerTables`: each command is a table
command like the others (executed once per command id, with its record, under the table's lock), but its events
are the shift's (:class:`domain.accounts.TableAccounts`, with the table's :class:`domain.accounts.ShiftBook`), never
the table's own.  Who signs: a croupier's station (role ``dealer``, at its own table) is the croupier's side, the
pit boss and the games director the pit's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from domain.accounts import AccountsError, ShiftBook, TableAccounts
from domain.banked.hold import CONFIDENCE, ShiftTheory, figures_for, fixed_theory, shift_theory
from domain.banked.table import BankedTable
from service.app.access import NotFoundError, PreconditionError, Role, Viewer, authorize

if TYPE_CHECKING:
    from uuid import UUID

    from eventsourcing.domain import Aggregate

    from domain.circle.table import Table


class TableAccountsBook:
    """The shifts' accounts of the tables."""

    if TYPE_CHECKING:  # provided by service.app.application.PokerTables
        def any_table(self, table: str) -> Table | BankedTable: ...
        def any_hand(self, hand_id: UUID, version: int | None = None) -> Any: ...
        def _fetch(self, aggregate_id: UUID, version: int | None = None) -> object: ...
        def _execute(self, command_id: str, table: str,
                     change: Callable[[], tuple[dict[str, Any], list[Aggregate]]],
                     what: tuple[object, ...]) -> dict[str, Any]: ...

    # -- commands -----------------------------------------------------------------------------------

    def open_shift(self, command_id: str, table: str, opener: Mapping[int, int], viewer: Viewer) -> dict[str, Any]:
        """R-ACC-1: the table's next shift opens with the opener (its tray's count by denomination), between hands."""
        authorize(viewer, table, "accounts-count")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.any_table(table)
            self._verify_between_hands(record)
            book = self._book(table)
            shift = TableAccounts.open_shift(table, book.shifts + 1, opener, first_hand=record.hands_started + 1,
                                             by=viewer.station)  # the opener checked (R-ACC-2) before the book moves
            book.begin()
            return {"table": table, "shift": shift.number}, [book, shift]

        return self._execute(command_id, table, change, ("open_shift", sorted(opener.items())))

    def request_transfer(self, command_id: str, table: str, transfer: str, kind: str, chips: Mapping[int, int], *,
                         viewer: Viewer) -> dict[str, Any]:
        """R-ACC-3: a fill or a credit asked for by this side (croupier or pit); it counts once the other signs."""
        authorize(viewer, table, "accounts-transfer")
        return self._shift_change(command_id, table, lambda shift: shift.request_transfer(
            transfer, kind, chips, by=viewer.station, side=_side(viewer)),
            ("request_transfer", transfer, kind, sorted(chips.items())))

    def sign_transfer(self, command_id: str, table: str, transfer: str, viewer: Viewer) -> dict[str, Any]:
        """R-ACC-3: the other side signs a waiting slip off."""
        authorize(viewer, table, "accounts-transfer")
        return self._shift_change(command_id, table, lambda shift: shift.sign_transfer(
            transfer, by=viewer.station, side=_side(viewer)), ("sign_transfer", transfer))

    def withdraw_transfer(self, command_id: str, table: str, transfer: str, reason: str,
                          viewer: Viewer) -> dict[str, Any]:
        """R-ACC-3: a slip not signed off is withdrawn, with the reason."""
        authorize(viewer, table, "accounts-transfer")
        return self._shift_change(command_id, table, lambda shift: shift.withdraw_transfer(
            transfer, by=viewer.station, reason=reason), ("withdraw_transfer", transfer, reason))

    def record_drop(self, command_id: str, table: str, amount: int, viewer: Viewer,
                    shift: int | None = None) -> dict[str, Any]:
        """R-ACC-4: a drop count of shift ``shift`` (default: the open one, or else the last), by the pit."""
        authorize(viewer, table, "accounts-drop")
        return self._shift_change(command_id, table, lambda accounts: accounts.record_drop(amount, by=viewer.station),
                                  ("record_drop", amount, shift), shift=shift, closed_too=True)

    def close_shift(self, command_id: str, table: str, closer: Mapping[int, int], viewer: Viewer) -> dict[str, Any]:
        """R-ACC-1: the closer, between hands; R-ACC-6: a win outside the band of the theoretical win of the
        shift's bets is recorded (``HoldOutsideBand``) with the close."""
        authorize(viewer, table, "accounts-count")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.any_table(table)
            self._verify_between_hands(record)
            book = self._book(table)
            shift = self._shift(table, book.open_shift)
            shift.close_shift(closer, last_hand=record.hands_started, by=viewer.station)
            book.end(shift.number)
            theory = self.shift_theory(record, shift)
            win = shift.win
            assert win is not None
            if theory.outside(win):
                shift.flag_hold(expected=round(theory.expected), low=theory.low, high=theory.high,
                                confidence=CONFIDENCE)
            return {"table": table, "shift": shift.number, "win": win, "flagged": shift.flag is not None}, \
                [book, shift]

        return self._execute(command_id, table, change, ("close_shift", sorted(closer.items())))

    # -- queries ------------------------------------------------------------------------------------

    def shift_accounts(self, table: str, shift: int | None = None) -> dict[str, Any]:
        """A shift's accounts (default: the open one, or else the last) with its win, hold and theoretical hold."""
        record = self.any_table(table)
        accounts = self._shift(table, shift if shift is not None else self._book(table, create=False).shifts)
        return self._report(record, accounts)

    def shifts_between(self, table: str, since: datetime | None = None,
                       until: datetime | None = None) -> list[dict[str, Any]]:
        """The accounts of the table's shifts opened in ``[since, until)`` (either open-ended), first to last."""
        record = self.any_table(table)
        try:
            book = self._book(table, create=False)
        except NotFoundError:
            return []
        # A table's shifts open one after another: those of the range are found by bisection over their numbers
        # (a read of each shift probed), not by reading every shift of the table's life (issue 30).
        def first_opened_at_or_after(moment: datetime) -> int:
            low, high = 1, book.shifts + 1
            while low < high:
                middle = (low + high) // 2
                if self._shift(table, middle).created_on < moment:
                    low = middle + 1
                else:
                    high = middle
            return low

        first = first_opened_at_or_after(since) if since is not None else 1
        last = first_opened_at_or_after(until) - 1 if until is not None else book.shifts
        return [self._report(record, self._shift(table, number)) for number in range(first, last + 1)]

    def shift_theory(self, record: Table | BankedTable, shift: TableAccounts) -> ShiftTheory:
        """R-ACC-6: the theoretical win of the shift's hands: a banked table's from the stakes of every box
        settled (:mod:`domain.banked.hold`); a circle table's is its rake, exactly (R-CIRC-12)."""
        last = shift.last_hand if shift.last_hand is not None else record.hands_started
        hands = [self.any_hand(record.hand_id(number)).snapshot() for number in range(shift.first_hand, last + 1)]
        if isinstance(record, BankedTable):
            figures = figures_for(record.settings)
            return shift_theory((hand["bets"][box] for hand in hands for box in hand["results"]), figures)
        return fixed_theory(sum(rake for hand in hands for _, rake, _ in hand.get("awards", [])))

    def _report(self, record: Table | BankedTable, shift: TableAccounts) -> dict[str, Any]:
        theory = self.shift_theory(record, shift)
        win, drop = shift.win, shift.drop
        banked = isinstance(record, BankedTable)
        return {
            "table": shift.table, "game": record.game if banked else "circle", "shift": shift.number,
            "open": shift.is_open, "opened_at": shift.created_on.isoformat(), "opened_by": shift.opened_by,
            "closed_by": shift.closed_by, "first_hand": shift.first_hand,
            "last_hand": shift.last_hand if shift.last_hand is not None else record.hands_started,
            "opener": {str(d): n for d, n in sorted(shift.opener.items())}, "opener_value": shift.opener_value,
            "closer": None if shift.closer is None else {str(d): n for d, n in sorted(shift.closer.items())},
            "closer_value": shift.closer_value,
            "fills": shift.signed_total("fill"), "credits": shift.signed_total("credit"),
            "transfers": [{"slip": slip, "kind": t["kind"], "value": sum(int(d) * n for d, n in t["chips"].items()),
                           "requested_by": t["requested_by"], "side": t["side"], "signed_by": t["signed_by"],
                           "withdrawn": t["withdrawn"]} for slip, t in shift.transfers.items()],
            "drop": drop, "win": win, "hold": None if shift.hold is None else float(shift.hold),
            "theoretical": {
                "expected": round(theory.expected, 2), "low": theory.low, "high": theory.high,
                "sd": round(theory.sd, 2), "confidence": CONFIDENCE if banked else "exact (rake)",
                "box_hands": theory.box_hands, "wagered": dict(theory.wagered),
                "hold": round(theory.expected / drop, 6) if drop else None, "note": theory.note,
            },
            "outside_band": win is not None and theory.outside(win),
            "flag": shift.flag,
        }

    # -- machinery ----------------------------------------------------------------------------------

    def _shift_change(self, command_id: str, table: str, apply: Callable[[TableAccounts], None],
                      what: tuple[object, ...], *, shift: int | None = None,
                      closed_too: bool = False) -> dict[str, Any]:
        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            self.any_table(table)
            try:
                book = self._book(table, create=False)
            except NotFoundError:
                raise PreconditionError(f"no shift of {table!r} was opened", rule="R-ACC-1") from None
            number = shift if shift is not None else book.open_shift
            if number is None and closed_too:
                number = book.shifts
            if number is None:
                raise PreconditionError(f"no shift of {table!r} is open", rule="R-ACC-1")
            accounts = self._shift(table, number)
            apply(accounts)
            return {"table": table, "shift": accounts.number, "version": accounts.version}, [accounts]

        return self._execute(command_id, table, change, what)

    def _book(self, table: str, *, create: bool = True) -> ShiftBook:
        try:
            book = self._fetch(ShiftBook.create_id(table))
        except AggregateNotFoundError:
            if not create:
                raise NotFoundError(f"no shift of {table!r} was opened", rule="R-ACC-1") from None
            return ShiftBook(table=table)
        assert isinstance(book, ShiftBook)
        return book

    def _shift(self, table: str, number: int | None) -> TableAccounts:
        if number is None:
            raise PreconditionError(f"no shift of {table!r} is open", rule="R-ACC-1")
        try:
            shift = self._fetch(TableAccounts.create_id(table, number))
        except AggregateNotFoundError:
            raise NotFoundError(f"no shift {number} of {table!r}", rule="R-ACC-1") from None
        assert isinstance(shift, TableAccounts)
        return shift

    @staticmethod
    def _verify_between_hands(record: Table | BankedTable) -> None:
        if record.hand_in_progress is not None:
            raise AccountsError("the tray is counted between hands: a hand is in progress", rule="R-ACC-1")


def _side(viewer: Viewer) -> str:
    """R-ACC-3: the croupier's station signs for the croupier; the pit boss and games director for the pit."""
    return "croupier" if viewer.role is Role.DEALER else "pit"
