"""A table's accounts for one shift (issue 19, item 3): the chips in the tray at the opening and the closing, the
fills and credits between the table and the cage, and the drop; the win and the hold.

RULES.md has no rule for the accounts; these are pokertable's **decisions** (``R-ACC-n``, docs/accounts.md):

- R-ACC-1 A table's shift opens with the opener, the count of its tray, and closes with the closer; one shift of a
  table is open at a time; both counts are recorded between hands (no hand in progress), by the table's croupier
  or by the pit.
- R-ACC-2 A count (opener, closer, fill, credit) is by denomination: whole positive denominations, whole
  non-negative numbers of chips, at most :data:`MAX_DENOMINATIONS` denominations and :data:`MAX_AMOUNT` in value.
- R-ACC-3 A fill (chips from the cage to the tray) or a credit (chips from the tray to the cage) is asked for by one
  side (the croupier's station, or the pit) and signed off by the other; it counts only once both signed, is signed
  once, may be withdrawn before its sign-off, and the shift does not close while one waits for its sign-off.
- R-ACC-4 The drop (what the players bought in at the table, counted by the count team) is recorded by the pit
  (pit boss or games director), during the shift or after its close: whole, positive amounts that add up.
- R-ACC-5 Win = closer − opener + credits − fills (signed ones only); hold = win / drop.  The tray's chips change by
  the bank's results, fills and credits (players buy their chips at the cage or with the drop: docs/accounts.md).
- R-ACC-6 At its close a shift's win is compared with the theoretical win of the bets actually made and its band
  (:mod:`domain.banked.hold`); a win outside the band is recorded as ``HoldOutsideBand``, an event of the shift.

>>> shift = TableAccounts.open_shift("THB 1", 1, {100: 50, 25: 40}, first_hand=1, by="pit-1")
>>> shift.opener_value
6000
>>> shift.request_transfer("F1", "fill", {100: 10}, by="croupier-1", side="croupier")
>>> shift.sign_transfer("F1", by="pit-1", side="pit")
>>> shift.record_drop(2500, by="pit-1")
>>> shift.close_shift({100: 65, 25: 44}, last_hand=12, by="pit-1")
>>> shift.win, shift.hold
(600, Fraction(6, 25))
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.errors import RuleError
from domain.ids import TABLES_NAMESPACE

MAX_DENOMINATIONS = 30
"""The most denominations a count lists."""
MAX_AMOUNT = 10**12
"""The largest value of a count, a fill, a credit or a drop, in chips."""
KINDS = ("fill", "credit")
"""A fill brings chips from the cage to the tray; a credit takes them back."""
SIDES = ("croupier", "pit")
"""Who signs a fill or a credit: the table's croupier (his station) and the pit (pit boss or games director)."""
MAX_TEXT = 200


class AccountsError(RuleError):
    """An accounts command the rules (R-ACC-n, pokertable's decisions) do not allow."""


def count_value(chips: Mapping[int, int]) -> int:
    """The value of a count by denomination (R-ACC-2).

    >>> count_value({500: 2, 25: 4})
    1100
    """
    return sum(denomination * number for denomination, number in chips.items())


CHIP_TEXT = re.compile(r"^(\d{1,9})[x*](\d{1,6})$", re.IGNORECASE)
"""A count of one denomination as a person types it: ``DENOMINATIONxCHIPS``."""


def typed_count(text: str) -> tuple[tuple[int, int], ...] | None:
    """Chips by denomination as the croupier or the pit types them (``100x20 25x40``: twenty chips of 100 and forty
    of 25, R-ACC-2), each denomination once, at least one; None for anything else.

    >>> typed_count("100x20 25X4"), typed_count("100x2 100x3"), typed_count("0x5"), typed_count("")
    (((100, 20), (25, 4)), None, None, None)
    """
    counts = []
    for word in text.split():
        match = CHIP_TEXT.match(word)
        if match is None or int(match.group(1)) < 1:
            return None
        counts.append((int(match.group(1)), int(match.group(2))))
    if not counts or len({denomination for denomination, _ in counts}) != len(counts):
        return None
    return tuple(counts)


def verify_count(chips: object, what: str, *, empty: bool = True) -> dict[int, int]:
    """A count by denomination as R-ACC-2 wants it, keyed by whole denominations (text keys from events accepted)."""
    if not isinstance(chips, Mapping) or len(chips) > MAX_DENOMINATIONS:
        raise AccountsError(f"the {what} is a count by denomination (at most {MAX_DENOMINATIONS})", rule="R-ACC-2")
    count: dict[int, int] = {}
    for key, number in chips.items():
        denomination = int(key) if isinstance(key, str) and key.isdigit() else key
        if isinstance(denomination, bool) or not isinstance(denomination, int) or not 0 < denomination <= MAX_AMOUNT:
            raise AccountsError(f"the {what} names a denomination {key!r}: a whole positive value", rule="R-ACC-2")
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise AccountsError(f"the {what} counts {number!r} chips of {denomination}: a whole number, not negative",
                                rule="R-ACC-2")
        if number:
            count[denomination] = count.get(denomination, 0) + number
    if count_value(count) > MAX_AMOUNT:
        raise AccountsError(f"the {what} is worth more than {MAX_AMOUNT}", rule="R-ACC-2")
    if not empty and not count:
        raise AccountsError(f"the {what} moves at least one chip", rule="R-ACC-2")
    return count


def _stored(chips: Mapping[int, int]) -> dict[str, int]:
    return {str(denomination): number for denomination, number in sorted(chips.items(), reverse=True)}


def _loaded(chips: Mapping[str, int]) -> dict[int, int]:
    return {int(denomination): number for denomination, number in chips.items()}


def _verify_text(value: object, what: str, rule: str) -> None:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise AccountsError(f"{what} is recorded (1–{MAX_TEXT} characters)", rule=rule)


class TableAccounts(Aggregate):
    """One shift's accounts of one table (one aggregate per table and shift, apart from the table's own record)."""

    @staticmethod
    def create_id(table: str, number: int, **_: Any) -> UUID:
        """Shift ``number`` of ``table``."""
        return uuid5(TABLES_NAMESPACE, f"accounts/{table}/{number}")

    @event("ShiftOpened")
    def __init__(self, *, table: str, number: int, opener: dict[str, int], first_hand: int, by: str) -> None:
        self.table, self.number, self.first_hand, self.opened_by = table, number, first_hand, by
        self.opener: dict[int, int] = _loaded(opener)
        self.closer: dict[int, int] | None = None
        self.last_hand: int | None = None
        self.closed_by = ""
        self.transfers: dict[str, dict[str, Any]] = {}
        self.drop = 0
        self.drops = 0
        self.flag: dict[str, Any] | None = None

    @classmethod
    def open_shift(cls, table: str, number: int, opener: Mapping[int, int], *, first_hand: int,
                   by: str) -> TableAccounts:
        """R-ACC-1: shift ``number`` of ``table`` opens with the opener (R-ACC-2); ``first_hand`` is its first hand's
        number; ``by`` is the station that counted."""
        count = verify_count(opener, "opener")
        _verify_text(by, "who counted the opener", "R-ACC-1")
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise AccountsError("shifts are numbered from 1", rule="R-ACC-1")
        return cls(table=table, number=number, opener=_stored(count), first_hand=first_hand, by=by)

    # -- queries ------------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        """Not closed yet."""
        return self.closer is None

    @property
    def opener_value(self) -> int:
        """The opener's value."""
        return count_value(self.opener)

    @property
    def closer_value(self) -> int | None:
        """The closer's value, once closed."""
        return None if self.closer is None else count_value(self.closer)

    def signed_total(self, kind: str) -> int:
        """The value of the fills (or credits) signed by both sides (R-ACC-3); unsigned ones do not count."""
        return sum(count_value(_loaded(t["chips"])) for t in self.transfers.values()
                   if t["kind"] == kind and t["signed_by"] and not t["withdrawn"])

    @property
    def waiting(self) -> list[str]:
        """The transfers that wait for their sign-off."""
        return [tid for tid, t in self.transfers.items() if not t["signed_by"] and not t["withdrawn"]]

    @property
    def win(self) -> int | None:
        """R-ACC-5: closer − opener + credits − fills, once the shift is closed."""
        closer = self.closer_value
        if closer is None:
            return None
        return closer - self.opener_value + self.signed_total("credit") - self.signed_total("fill")

    @property
    def hold(self) -> Fraction | None:
        """R-ACC-5: win / drop, once closed and with a drop recorded."""
        win = self.win
        return None if win is None or not self.drop else Fraction(win, self.drop)

    # -- commands -----------------------------------------------------------------------------------

    def verify_request_transfer(self, transfer: str, kind: str, chips: Mapping[int, int], by: str,
                                side: str) -> dict[int, int]:
        """R-ACC-3: a new transfer id, a fill or a credit, a count (R-ACC-2), asked by one side of an open shift."""
        if not self.is_open:
            raise AccountsError(f"shift {self.number} of {self.table!r} is closed", rule="R-ACC-1")
        _verify_text(transfer, "the slip's id", "R-ACC-3")
        if transfer in self.transfers:
            raise AccountsError(f"slip {transfer!r} is already recorded in this shift", rule="R-ACC-3")
        if kind not in KINDS:
            raise AccountsError(f"a transfer is a fill or a credit, not {kind!r}", rule="R-ACC-3")
        if side not in SIDES:
            raise AccountsError(f"a transfer is asked by the croupier or the pit, not {side!r}", rule="R-ACC-3")
        _verify_text(by, "who asked", "R-ACC-3")
        return verify_count(chips, kind, empty=False)

    def request_transfer(self, transfer: str, kind: str, chips: Mapping[int, int], *, by: str, side: str) -> None:
        """R-ACC-3: a fill or a credit asked for by ``side``; it waits for the other side's sign-off."""
        count = self.verify_request_transfer(transfer, kind, chips, by, side)
        self._transfer_requested(transfer=transfer, kind=kind, chips=_stored(count), by=by, side=side)

    def verify_sign_transfer(self, transfer: str, by: str, side: str) -> None:
        """R-ACC-3: a waiting transfer of this open shift, signed by the side that did not ask for it."""
        if transfer not in self.transfers:
            raise AccountsError(f"no slip {transfer!r} in shift {self.number} of {self.table!r}", rule="R-ACC-3")
        slip = self.transfers[transfer]
        if slip["signed_by"]:
            raise AccountsError(f"slip {transfer!r} is already signed off by {slip['signed_by']}", rule="R-ACC-3")
        if slip["withdrawn"]:
            raise AccountsError(f"slip {transfer!r} was withdrawn", rule="R-ACC-3")
        if not self.is_open:
            raise AccountsError(f"shift {self.number} of {self.table!r} is closed", rule="R-ACC-1")
        if side not in SIDES or side == slip["side"]:
            raise AccountsError(f"slip {transfer!r} was asked by the {slip['side']}: the other side signs it off",
                                rule="R-ACC-3")
        _verify_text(by, "who signed", "R-ACC-3")

    def sign_transfer(self, transfer: str, *, by: str, side: str) -> None:
        """R-ACC-3: the other side signs the slip off: from now on it counts."""
        self.verify_sign_transfer(transfer, by, side)
        self._transfer_signed(transfer=transfer, by=by, side=side)

    def withdraw_transfer(self, transfer: str, *, by: str, reason: str) -> None:
        """R-ACC-3: a slip not signed off yet is withdrawn (either side), with the reason; it never counts."""
        if transfer not in self.transfers:
            raise AccountsError(f"no slip {transfer!r} in shift {self.number} of {self.table!r}", rule="R-ACC-3")
        slip = self.transfers[transfer]
        if slip["signed_by"] or slip["withdrawn"]:
            raise AccountsError(f"slip {transfer!r} is signed off or withdrawn already", rule="R-ACC-3")
        _verify_text(by, "who withdrew", "R-ACC-3")
        _verify_text(reason, "why", "R-ACC-3")
        self._transfer_withdrawn(transfer=transfer, by=by, reason=reason)

    def record_drop(self, amount: int, *, by: str) -> None:
        """R-ACC-4: a drop count (whole, positive), added to the shift's, open or closed."""
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_AMOUNT - self.drop:
            raise AccountsError(f"a drop is a whole, positive amount (the shift's at most {MAX_AMOUNT})",
                                rule="R-ACC-4")
        _verify_text(by, "who counted the drop", "R-ACC-4")
        self._drop_recorded(amount=amount, by=by)

    def verify_close_shift(self, closer: Mapping[int, int], last_hand: int, by: str) -> dict[int, int]:
        """R-ACC-1, R-ACC-3: an open shift, no slip waiting, the closer's count (R-ACC-2)."""
        if not self.is_open:
            raise AccountsError(f"shift {self.number} of {self.table!r} is closed already", rule="R-ACC-1")
        if self.waiting:
            raise AccountsError(f"slips {', '.join(self.waiting)} wait for their sign-off: sign or withdraw them",
                                rule="R-ACC-3")
        if last_hand < self.first_hand - 1:
            raise AccountsError("the shift's last hand is before its first", rule="R-ACC-1")
        _verify_text(by, "who counted the closer", "R-ACC-1")
        return verify_count(closer, "closer")

    def close_shift(self, closer: Mapping[int, int], *, last_hand: int, by: str) -> None:
        """R-ACC-1: the closer; the shift's hands are ``first_hand`` to ``last_hand``."""
        count = self.verify_close_shift(closer, last_hand, by)
        self._shift_closed(closer=_stored(count), last_hand=last_hand, by=by)

    def flag_hold(self, *, expected: int, low: int, high: int, confidence: str) -> None:
        """R-ACC-6: the closed shift's win is outside the band ``[low, high]`` of its theoretical win ``expected``."""
        win = self.win
        if win is None or low <= win <= high or self.flag is not None:
            raise AccountsError("only a closed shift whose win is outside its band is flagged, once", rule="R-ACC-6")
        self._hold_outside_band(win=win, expected=expected, low=low, high=high, confidence=confidence)

    # -- events -------------------------------------------------------------------------------------

    @event("TransferRequested")
    def _transfer_requested(self, *, transfer: str, kind: str, chips: dict[str, int], by: str, side: str) -> None:
        self.transfers[transfer] = {"kind": kind, "chips": dict(chips), "requested_by": by, "side": side,
                                    "signed_by": "", "withdrawn": False}

    @event("TransferSigned")
    def _transfer_signed(self, *, transfer: str, by: str, side: str) -> None:
        del side
        self.transfers[transfer]["signed_by"] = by

    @event("TransferWithdrawn")
    def _transfer_withdrawn(self, *, transfer: str, by: str, reason: str) -> None:
        del by, reason
        self.transfers[transfer]["withdrawn"] = True

    @event("DropRecorded")
    def _drop_recorded(self, *, amount: int, by: str) -> None:
        del by
        self.drop += amount
        self.drops += 1

    @event("ShiftClosed")
    def _shift_closed(self, *, closer: dict[str, int], last_hand: int, by: str) -> None:
        self.closer, self.last_hand, self.closed_by = _loaded(closer), last_hand, by

    @event("HoldOutsideBand")
    def _hold_outside_band(self, *, win: int, expected: int, low: int, high: int, confidence: str) -> None:
        self.flag = {"win": win, "expected": expected, "low": low, "high": high, "confidence": confidence}


class ShiftBook(Aggregate):
    """The shifts of one table, in order (the index the reports read): shift ``n`` is
    ``TableAccounts.create_id(table, n)``."""

    @staticmethod
    def create_id(table: str, **_: Any) -> UUID:
        """One book per table."""
        return uuid5(TABLES_NAMESPACE, f"shift-book/{table}")

    @event("Started")
    def __init__(self, *, table: str) -> None:
        self.table = table
        self.shifts = 0
        self.open_shift: int | None = None

    def begin(self) -> int:
        """R-ACC-1: the next shift's number; one shift of a table is open at a time."""
        if self.open_shift is not None:
            raise AccountsError(f"shift {self.open_shift} of {self.table!r} is still open", rule="R-ACC-1")
        self._shift_begun(number=self.shifts + 1)
        return self.shifts

    def end(self, number: int) -> None:
        """R-ACC-1: shift ``number`` closed."""
        if self.open_shift != number:
            raise AccountsError(f"shift {number} of {self.table!r} is not the open one", rule="R-ACC-1")
        self._shift_ended(number=number)

    @event("ShiftBegun")
    def _shift_begun(self, *, number: int) -> None:
        self.shifts = number
        self.open_shift = number

    @event("ShiftEnded")
    def _shift_ended(self, *, number: int) -> None:
        del number
        self.open_shift = None
