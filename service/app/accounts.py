"""A table's accounts per shift (issue 19, item 3; R-ACC-1 … R-ACC-6, pokertable's decisions, docs/accounts.md):
the opener and closer, the fills and credits signed off by the croupier and the pit, the drop, the win and hold, and
the theoretical win of the bets actually made with its band.

:class:`Accounts` reads them (``app.accounts``); the commands (:class:`service.app.commands.OpenShift` and the
others) are handled by :mod:`service.app.handlers.accounts`: each is a table command like the others (executed once
per command id, with its record, under the table's lock), but its events are the shift's
(:class:`domain.accounts.TableAccounts`, with the table's :class:`domain.accounts.ShiftBook`), never the table's
own.  Who signs: a croupier's station (role ``dealer``, at its own table) is the croupier's side, the pit boss and the
games director the pit's.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from domain.accounts import AccountsError, ShiftBook, TableAccounts
from domain.banked.hold import CONFIDENCE, GameFigures, ShiftTheory, figures_for, fixed_theory
from domain.banked.table import BankedTable
from service.app.access import NotFoundError, PreconditionError, Role, Viewer

if TYPE_CHECKING:
    from domain.circle.table import Table
    from service.app.reads import Reads
    from service.store.hands_index import IndexedHand


@dataclass(frozen=True)
class TransferSlip:
    """A fill or credit slip of a shift (R-ACC-3): its chips' value, who asked (which side), who signed it off, or
    whether it was withdrawn."""

    slip: str
    kind: str
    value: int
    requested_by: str
    side: str
    signed_by: str
    withdrawn: bool


@dataclass(frozen=True)
class TheoreticalWin:
    """R-ACC-6: the theoretical win of the shift's bets and its band (a circle table's: its rake, exactly)."""

    expected: float
    low: int
    high: int
    sd: float
    confidence: str
    box_hands: int
    wagered: Mapping[str, int]
    hold: float | None
    """The theoretical win over the drop (None before a drop is recorded)."""
    note: str


@dataclass(frozen=True)
class ShiftReport:
    """A shift's accounts (R-ACC-1 … R-ACC-6): its counts and slips, drop, win and hold, and the theoretical win of
    its bets with the band a fair game keeps to (``flag``: the hold found outside it when the shift closed)."""

    table: str
    game: str
    """The banked game's code, or ``circle``."""
    shift: int
    open: bool
    opened_at: str
    opened_by: str
    closed_by: str
    first_hand: int
    last_hand: int
    opener: Mapping[str, int]
    opener_value: int
    closer: Mapping[str, int] | None
    closer_value: int | None
    fills: int
    credits: int
    transfers: tuple[TransferSlip, ...]
    drop: int | None
    win: int | None
    hold: float | None
    """The win over the drop (a ratio, shown as a percentage; chips are never floats)."""
    theoretical: TheoreticalWin
    outside_band: bool
    flag: Mapping[str, Any] | None
    result: int = 0
    """The house's result of the shift's finished hands: a banked table's bank results, a circle table's rake."""
    outside_band_now: bool = False
    """An open banked shift whose finished hands' result is already outside the band of their theoretical win
    (R-ACC-6), before any count: the pit sees it live (issue 34); a hand still in progress (a 1000:1 waiting for
    the games director) is judged once it ends."""


THEORIES_KEPT = 4096
"""The shifts whose theoretical win so far is remembered (a floor of 200 tables, twenty times over)."""


@dataclass
class _Counted:
    """A shift's theoretical win summed over its finished hands up to ``last`` (under the figures ``of``)."""

    of: str
    last: int
    expected: float = 0.0
    variance: float = 0.0
    box_hands: int = 0
    wagered: dict[str, int] = field(default_factory=dict)
    result: int = 0
    """The house's result of the hands counted: the bank's (banked), the rake (circle)."""

    def copy(self) -> _Counted:
        return _Counted(self.of, self.last, self.expected, self.variance, self.box_hands, dict(self.wagered),
                        self.result)

    def add_box(self, stakes: Mapping[str, int], figures: GameFigures) -> None:
        """A settled box's stakes by spot, its moments added as :func:`domain.banked.hold.shift_theory` adds them."""
        mean, variance = figures.box_moments(stakes)
        self.expected, self.variance, self.box_hands = self.expected + mean, self.variance + variance, \
            self.box_hands + 1
        for spot, amount in stakes.items():
            self.wagered[spot] = self.wagered.get(spot, 0) + amount


class Accounts:
    """The shifts' accounts of the tables, as the application reads them."""

    def __init__(self, reads: Reads, name_of: Callable[[str], str] = lambda person: "") -> None:
        self.reads = reads
        self.name_of = name_of
        """A person's name from his employee number (the staff's register)."""
        self._counted: OrderedDict[tuple[str, int], _Counted] = OrderedDict()
        """Each shift's theoretical win so far (the last :data:`THEORIES_KEPT`): a report reads the hands finished
        since it last asked, not every hand of the shift again (a floor's report at a shift's end had read 48,000)."""
        self._counting = threading.Lock()
        self.indexed: Callable[[str, datetime], Mapping[int, IndexedHand]] | None = None
        """The hands of a table that ended since a moment, as the floor's hands index keeps them
        (:meth:`service.store.hands_index.HandsIndex.ended_since`): a shift's hands are added up from it, each hand
        it keeps less of read from the log (none: every hand read)."""

    def who(self, by: str) -> str:
        """Who counted, asked or signed, as a report names him: ``Name (employee number)`` for a person (issue 33),
        the station's name for a record made before persons signed in."""
        name = self.name_of(by) if by else ""
        return f"{name} ({by})" if name else by



    def shift_accounts(self, table: str, shift: int | None = None) -> ShiftReport:
        """A shift's accounts (default: the open one, or else the last) with its win, hold and theoretical hold."""
        record = self.reads.any_table(table)
        accounts = self.shift(table, shift if shift is not None else self.book(table, create=False).shifts)
        return self._report(record, accounts)

    def shifts_between(self, table: str, since: datetime | None = None,
                       until: datetime | None = None) -> list[ShiftReport]:
        """The accounts of the table's shifts opened in ``[since, until)`` (either open-ended), first to last."""
        record = self.reads.any_table(table)
        try:
            book = self.book(table, create=False)
        except NotFoundError:
            return []
        # A table's shifts open one after another: those of the range are found by bisection over their numbers
        # (a read of each shift probed), not by reading every shift of the table's life (issue 30).
        def first_opened_at_or_after(moment: datetime) -> int:
            low, high = 1, book.shifts + 1
            while low < high:
                middle = (low + high) // 2
                if self.shift(table, middle).created_on < moment:
                    low = middle + 1
                else:
                    high = middle
            return low

        first = first_opened_at_or_after(since) if since is not None else 1
        last = first_opened_at_or_after(until) - 1 if until is not None else book.shifts
        return [self._report(record, self.shift(table, number)) for number in range(first, last + 1)]

    def shift_theory(self, record: Table | BankedTable, shift: TableAccounts) -> ShiftTheory:
        """R-ACC-6: the theoretical win of the shift's hands: a banked table's from the stakes of every box
        settled (:mod:`domain.banked.hold`); a circle table's is its rake, exactly (R-CIRC-12)."""
        return self._so_far(record, shift)[0]

    def _so_far(self, record: Table | BankedTable, shift: TableAccounts) -> tuple[ShiftTheory, ShiftTheory, int]:
        """The shift's theoretical win (the hand in progress's settled boxes too), and that of its finished hands
        with the house's result of them (the bank's results; the rake), from what was counted when it was last
        asked (:attr:`_counted`) and the hands finished since."""
        last = shift.last_hand if shift.last_hand is not None else record.hands_started
        figures = figures_for(record.settings) if isinstance(record, BankedTable) else None
        of, key = repr(record.settings), (shift.table, shift.number)
        with self._counting:
            kept = self._counted.get(key)
            if kept is not None:
                self._counted.move_to_end(key)
        counted = _Counted(of, shift.first_hand - 1)
        if kept is not None and kept.of == of and kept.last <= last:
            counted = kept.copy()
        live = record.hand_in_progress
        indexed = self.indexed(shift.table, shift.created_on) if self.indexed is not None and last > counted.last \
            else {}
        for number in range(counted.last + 1, last + 1):
            hand_id = record.hand_id(number)
            if live is not None and hand_id == live:  # its boxes may settle yet: counted in this answer only
                current = counted.copy()
                _count(current, self.reads.any_hand(hand_id).snapshot(), figures)
                return _theory(current, figures), _theory(counted, figures), counted.result
            row = indexed.get(number)
            if row is None or not _counted_from(counted, row, figures):  # not in the index: read from the log
                _count(counted, self.reads.any_hand(hand_id).snapshot(), figures)
            counted.last = number
        with self._counting:
            self._counted[key] = counted
            self._counted.move_to_end(key)
            while len(self._counted) > THEORIES_KEPT:
                self._counted.popitem(last=False)
        finished = _theory(counted, figures)
        return finished, finished, counted.result

    def _report(self, record: Table | BankedTable, shift: TableAccounts) -> ShiftReport:
        theory, finished, result = self._so_far(record, shift)
        win, drop = shift.win, shift.drop
        banked = isinstance(record, BankedTable)
        return ShiftReport(
            table=shift.table, game=record.game if banked else "circle", shift=shift.number, open=shift.is_open,
            opened_at=shift.created_on.isoformat(), opened_by=self.who(shift.opened_by),
            closed_by=self.who(shift.closed_by),
            first_hand=shift.first_hand,
            last_hand=shift.last_hand if shift.last_hand is not None else record.hands_started,
            opener={str(d): n for d, n in sorted(shift.opener.items())}, opener_value=shift.opener_value,
            closer=None if shift.closer is None else {str(d): n for d, n in sorted(shift.closer.items())},
            closer_value=shift.closer_value, fills=shift.signed_total("fill"), credits=shift.signed_total("credit"),
            transfers=tuple(TransferSlip(slip, t["kind"], sum(int(d) * n for d, n in t["chips"].items()),
                                         self.who(t["requested_by"]), t["side"], self.who(t["signed_by"] or ""),
                                         t["withdrawn"])
                            for slip, t in shift.transfers.items()),
            drop=drop, win=win, hold=None if shift.hold is None else float(shift.hold),
            theoretical=TheoreticalWin(
                expected=round(theory.expected, 2), low=theory.low, high=theory.high, sd=round(theory.sd, 2),
                confidence=CONFIDENCE if banked else "exact (rake)", box_hands=theory.box_hands,
                wagered=dict(theory.wagered), hold=round(theory.expected / drop, 6) if drop else None,
                note=theory.note),
            outside_band=win is not None and theory.outside(win), flag=shift.flag, result=result,
            outside_band_now=banked and shift.is_open and finished.box_hands > 0 and finished.outside(result))

    def book(self, table: str, *, create: bool = True) -> ShiftBook:
        try:
            book = self.reads.fetch(ShiftBook.create_id(table))
        except AggregateNotFoundError:
            if not create:
                raise NotFoundError(f"no shift of {table!r} was opened", rule="R-ACC-1") from None
            return ShiftBook(table=table)
        assert isinstance(book, ShiftBook)
        return book

    def shift(self, table: str, number: int | None) -> TableAccounts:
        if number is None:
            raise PreconditionError(f"no shift of {table!r} is open", rule="R-ACC-1")
        try:
            shift = self.reads.fetch(TableAccounts.create_id(table, number))
        except AggregateNotFoundError:
            raise NotFoundError(f"no shift {number} of {table!r}", rule="R-ACC-1") from None
        assert isinstance(shift, TableAccounts)
        return shift

    @staticmethod
    def verify_between_hands(record: Table | BankedTable) -> None:
        if record.hand_in_progress is not None:
            raise AccountsError("the tray is counted between hands: a hand is in progress", rule="R-ACC-1")




def side(viewer: Viewer) -> str:
    """R-ACC-3: the croupier's station signs for the croupier; the pit boss and games director for the pit."""
    return "croupier" if viewer.role is Role.DEALER else "pit"


def _count(counted: _Counted, hand: Mapping[str, Any], figures: GameFigures | None) -> None:
    """Add a hand's bets settled (banked: each box's stakes, R-ACC-6) or its rake (circle, R-CIRC-12)."""
    if figures is None:
        counted.result += sum(rake for _, rake, _ in hand.get("awards", []))
        return
    counted.result -= sum(sum(result.values()) for result in hand["results"].values())
    for box in hand["results"]:  # box by box, in the order shift_theory adds them: the same sums to the last bit
        counted.add_box(hand["bets"][box], figures)


def _counted_from(counted: _Counted, row: IndexedHand, figures: GameFigures | None) -> bool:
    """Add an ended hand as the hands index keeps it, box by box as :func:`_count` adds the hand itself (the same
    sums to the last bit); False, adding nothing, where the index keeps less than that takes (a void, a blank hand,
    a row kept by an earlier version): the hand is read instead."""
    if row.house is None or row.outcome not in ("showdown", "uncontested", "settled"):
        return False
    if figures is None:
        counted.result += row.house
        return True
    if row.stakes is None:
        return False
    counted.result += row.house
    for stakes in row.stakes:
        counted.add_box(stakes, figures)
    return True


def _theory(counted: _Counted, figures: GameFigures | None) -> ShiftTheory:
    if figures is None:  # a circle table's win is its rake, exactly: the result of its hands
        return fixed_theory(counted.result)
    return ShiftTheory(counted.expected, counted.variance, counted.box_hands, MappingProxyType(dict(counted.wagered)),
                       figures.note)

