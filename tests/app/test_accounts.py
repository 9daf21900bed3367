"""A table's accounts per shift (issue 19, item 3; R-ACC-1 … R-ACC-6, docs/accounts.md), through the application on
SQLite: the win from the accounts is the sum of the bank's results recorded hand by hand (a property, over random
shifts with fills and credits), a shift whose win leaves its band is flagged, and every refusal records nothing."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.accounts import AccountsError, TableAccounts
from domain.banked.cdp import CdpSettings
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.circle.settings import BettingStructure, RakePolicy, TableSettings
from service.app.application import AccessDeniedError, PokerTables, PreconditionError, Role, ServiceError, Viewer
from service.app.commands import (
    CloseShift,
    OpenShift,
    OpenTable,
    RecordDrop,
    RequestTransfer,
    SignTransfer,
    Sit,
    WithdrawTransfer,
)
from service.store.persistence import environment
from tests.support.app_play import (
    DIRECTOR,
    PIT,
    Ids,
    dealer,
    play_banked_hand,
    play_circle_hand,
    start_banked_hand,
    start_circle_hand,
)
from tests.support.app_tables import banked_table

DENOMINATIONS = (100, 25, 5, 1)
OBSERVER = Viewer("obs", Role.OBSERVER)
GAMES: dict[str, ThbSettings | CdpSettings] = {"holdem-bonus": ThbSettings(STANDARD_LIMITS[5]),
                                               "casino-draw": CdpSettings(5, 100)}


def sqlite_app(folder: str) -> PokerTables:
    return PokerTables(env=environment(f"sqlite:///{Path(folder) / 'accounts.db'}"))


@pytest.fixture
def app(tmp_path: Path) -> Iterator[PokerTables]:
    tables = sqlite_app(str(tmp_path))
    yield tables
    tables.close()


class Tray:
    """The chips in a table's tray, by denomination, as the croupier handles them: he takes in what a box loses and
    pays what it wins, with the largest chips he has; when he cannot pay, he asks for a fill."""

    def __init__(self, chips: dict[int, int]) -> None:
        self.chips = dict(chips)

    @property
    def value(self) -> int:
        return sum(d * n for d, n in self.chips.items())

    def take_in(self, amount: int) -> None:
        for d in DENOMINATIONS:
            self.chips[d] = self.chips.get(d, 0) + amount // d
            amount %= d

    def payable(self, amount: int) -> dict[int, int] | None:
        """The chips that pay ``amount`` from the tray, or ``None`` if it cannot."""
        paid: dict[int, int] = {}
        for d in DENOMINATIONS:
            paid[d] = min(self.chips.get(d, 0), amount // d)
            amount -= paid[d] * d
        return paid if amount == 0 else None

    def remove(self, chips: dict[int, int]) -> None:
        for d, n in chips.items():
            assert self.chips.get(d, 0) >= n
            self.chips[d] -= n

    def add(self, chips: dict[int, int]) -> None:
        for d, n in chips.items():
            self.chips[d] = self.chips.get(d, 0) + n


def bank_results_recorded(app: PokerTables, table: str, first: int, last: int) -> int:
    """The house's result of hands ``first`` to ``last`` as their events recorded it, box by box: each
    ``BoxSettled`` (the box's net per spot), less a refused 1000:1 (``BonusRefused``, R-THB-10: the stake returned)."""
    record = app.any_table(table)
    total = 0
    for number in range(first, last + 1):
        results: dict[int, dict[str, int]] = {}
        for stored in app.events.get(record.hand_id(number)):
            kind = type(stored).__name__
            if kind == "BoxSettled":
                results[stored.box] = dict(stored.result)  # type: ignore[attr-defined]
            elif kind == "BonusRefused":
                results[stored.box]["bonus"] = 0  # type: ignore[attr-defined]
        total -= sum(sum(spots.values()) for spots in results.values())
    return total


def transfer(app: PokerTables, ids: Ids, table: str, kind: str, chips: dict[int, int], *, slip: str,
             croupier_asks: bool) -> None:
    """A fill or credit asked by one side and signed off by the other (R-ACC-3)."""
    asks, signs = (dealer(table), PIT) if croupier_asks else (DIRECTOR, dealer(table))
    app.handle(RequestTransfer(ids(), table, slip, kind, chips), asks)
    app.handle(SignTransfer(ids(), table, slip), signs)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1), hands=st.integers(1, 4),
       data=st.data())
def test_the_win_from_the_accounts_is_the_sum_of_the_banks_results_hand_by_hand(
        game: str, seed: int, hands: int, data: st.DataObject) -> None:
    rng = random.Random(seed)
    ids = Ids(f"acc-{seed}")
    with tempfile.TemporaryDirectory() as folder:
        app = sqlite_app(folder)
        try:
            table = "Mesa A"
            app.handle(OpenTable(ids(), table, GAMES[game]))
            tray = Tray({100: data.draw(st.integers(0, 20)), 25: data.draw(st.integers(0, 40)),
                         5: data.draw(st.integers(0, 40)), 1: data.draw(st.integers(0, 60))})
            app.handle(OpenShift(ids(), table, tray.chips), dealer(table))
            slips = 0
            for _ in range(hands):
                boxes = data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=3, unique=True))
                antes = {box: data.draw(st.integers(5, 40)) for box in boxes}
                bonuses = {box: data.draw(st.integers(1, 10)) for box in boxes if game == "holdem-bonus"
                           and data.draw(st.booleans())}
                start_banked_hand(app, table, ids, antes, bonuses)
                hand = play_banked_hand(app, table, rng, ids)
                for _, spots in sorted(hand.results.items()):
                    net = sum(spots.values())
                    if net < 0:
                        tray.take_in(-net)
                        continue
                    paid = tray.payable(net)
                    if paid is None:  # the tray is short: a fill of ones, asked and signed, then the payment
                        slips += 1
                        fill = {1: net + data.draw(st.integers(0, 50))}
                        asks = data.draw(st.booleans())
                        transfer(app, ids, table, "fill", fill, slip=f"F{slips}", croupier_asks=asks)
                        tray.add(fill)
                        paid = tray.payable(net)
                        assert paid is not None
                    tray.remove(paid)
                if data.draw(st.booleans()):  # a fill or a credit between hands; some slips withdrawn
                    slips += 1
                    kind = data.draw(st.sampled_from(["fill", "credit"]))
                    chips = {25: data.draw(st.integers(1, 8))}
                    if kind == "credit" and tray.chips.get(25, 0) < chips[25]:
                        continue
                    if data.draw(st.booleans()):
                        app.handle(RequestTransfer(ids(), table, f"S{slips}", kind, chips), PIT)
                        app.handle(WithdrawTransfer(ids(), table, f"S{slips}", "counted twice"), dealer(table))
                        continue
                    transfer(app, ids, table, kind, chips, slip=f"S{slips}", croupier_asks=data.draw(st.booleans()))
                    (tray.add if kind == "fill" else tray.remove)(chips)
            drop = data.draw(st.integers(1, 5_000))
            app.handle(RecordDrop(ids(), table, drop), PIT)
            closed = app.handle(CloseShift(ids(), table, tray.chips), dealer(table))
            report = app.accounts.shift_accounts(table)
            recorded = bank_results_recorded(app, table, 1, hands)
            assert closed.win == report.win == recorded == banked_table(app, table).bank_result
            assert report.hold == pytest.approx(recorded / drop)
            assert report.closer_value == tray.value
            assert report.flag is None or report.outside_band
        finally:
            app.close()


def test_a_shift_short_of_chips_is_flagged_outside_its_band(app: PokerTables) -> None:
    ids, table = Ids("short"), "THB 1"
    app.handle(OpenTable(ids(), table, GAMES["holdem-bonus"]))
    app.handle(OpenShift(ids(), table, {1: 10_000}), dealer(table))
    rng = random.Random(7)
    for _ in range(3):
        start_banked_hand(app, table, ids, {1: 10, 2: 10})
        play_banked_hand(app, table, rng, ids, approve=True)
    bank = banked_table(app, table).bank_result
    # 3,000 chips gone from the tray: no fair shift of three hands of antes of 10 loses that much
    closed = app.handle(CloseShift(ids(), table, {1: 10_000 + bank - 3000}), PIT)
    report = app.accounts.shift_accounts(table)
    assert closed.flagged and report.outside_band
    assert report.win == bank - 3000 < report.theoretical.low
    assert report.flag is not None and report.flag["win"] == bank - 3000 and report.flag["confidence"] == "99%"
    kinds = [type(e).__name__ for e in app.events.get(TableAccounts.create_id(table, 1))]
    assert kinds[-2:] == ["ShiftClosed", "HoldOutsideBand"]


def test_a_fair_shift_is_not_flagged(app: PokerTables) -> None:
    ids, table = Ids("fair"), "CDP 1"
    app.handle(OpenTable(ids(), table, GAMES["casino-draw"]))
    app.handle(OpenShift(ids(), table, {1: 10_000}), PIT)
    rng = random.Random(3)
    start_banked_hand(app, table, ids, {1: 10, 3: 20})
    play_banked_hand(app, table, rng, ids)
    bank = banked_table(app, table).bank_result
    closed = app.handle(CloseShift(ids(), table, {1: 10_000 + bank}), PIT)
    report = app.accounts.shift_accounts(table, 1)
    assert closed.win == bank and not closed.flagged and report.flag is None
    assert report.theoretical.box_hands == 2 and report.theoretical.wagered["ante"] == 30


@pytest.mark.parametrize(("refused", "rule"), [
    (lambda app, t: app.handle(RequestTransfer("r1", t, "F1", "fill", {25: -4}), PIT), "R-ACC-2"),
    (lambda app, t: app.handle(RequestTransfer("r2", t, "F1", "fill", {0: 4}), PIT), "R-ACC-2"),
    (lambda app, t: app.handle(RequestTransfer("r3", t, "F1", "fill", {}), PIT), "R-ACC-2"),
    (lambda app, t: app.handle(RequestTransfer("r4", t, "F1", "loan", {25: 4}), PIT), "R-ACC-3"),
    (lambda app, t: app.handle(RequestTransfer("r5", t, "W1", "fill", {25: 4}), PIT), "R-ACC-3"),  # slip id taken
    (lambda app, t: app.handle(SignTransfer("r6", t, "W1"), DIRECTOR), "R-ACC-3"),  # the pit asked: the croupier signs
    (lambda app, t: app.handle(SignTransfer("r7", t, "S1"), dealer(t)), "R-ACC-3"),  # a second sign-off
    (lambda app, t: app.handle(SignTransfer("r8", t, "X9"), dealer(t)), "R-ACC-3"),
    (lambda app, t: app.handle(RecordDrop("r9", t, -100), PIT), "R-ACC-4"),
    (lambda app, t: app.handle(RecordDrop("r10", t, 100), dealer(t)),
     "R-ACC-4"),  # the croupier does not record the drop
    (lambda app, t: app.handle(RequestTransfer("r11", t, "F2", "fill", {25: 1}), OBSERVER), "R-ACC-3"),
    (lambda app, t: app.handle(RequestTransfer("r12", t, "F2", "fill", {25: 1}), dealer("Other")), "R-ACC-3"),
    (lambda app, t: app.handle(CloseShift("r13", t, {25: 10}), PIT), "R-ACC-3"),  # slip W1 waits for its sign-off
    (lambda app, t: app.handle(OpenShift("r14", t, {25: 10}), PIT), "R-ACC-1"),  # a shift is open already
    (lambda app, t: app.handle(OpenShift("r15", t, {25: 10}), DIRECTOR), "R-ACC-1"),  # the director does not count
])
def test_refusals_name_their_rule_and_record_nothing(app: PokerTables, refused: Any, rule: str) -> None:
    ids, table = Ids("ref"), "THB 2"
    app.handle(OpenTable(ids(), table, GAMES["holdem-bonus"]))
    app.handle(OpenShift(ids(), table, {25: 100}), PIT)
    transfer(app, ids, table, "fill", {25: 4}, slip="S1", croupier_asks=True)
    app.handle(RequestTransfer(ids(), table, "W1", "credit", {25: 2}), PIT)
    before = app.accounts.shift_accounts(table)
    head = app.recorder.max_notification_id()
    with pytest.raises((AccountsError, ServiceError)) as error:
        refused(app, table)
    assert getattr(error.value, "rule", "") == rule, error.value
    assert app.recorder.max_notification_id() == head
    assert app.accounts.shift_accounts(table) == before
    assert before.fills == 100 and before.credits == 0  # the unsigned credit W1 does not count


def test_the_tray_is_counted_between_hands_and_an_unsigned_fill_never_counts(app: PokerTables) -> None:
    ids, table = Ids("between"), "THB 3"
    app.handle(OpenTable(ids(), table, GAMES["holdem-bonus"]))
    start_banked_hand(app, table, ids, {1: 10})
    with pytest.raises(AccountsError) as error:
        app.handle(OpenShift(ids(), table, {25: 100}), PIT)
    assert error.value.rule == "R-ACC-1"
    play_banked_hand(app, table, random.Random(1), ids)
    with pytest.raises(PreconditionError):
        app.handle(RequestTransfer(ids(), table, "F1", "fill", {25: 4}), PIT)  # no shift open
    with pytest.raises(AccountsError) as bad:
        app.handle(OpenShift(ids(), table, {25: -100}), PIT)  # R-ACC-2: refused, and the table's book of shifts unmoved
    assert bad.value.rule == "R-ACC-2"
    app.handle(OpenShift(ids(), table, {25: 100}), PIT)
    assert app.accounts.shift_accounts(table).first_hand == 2 and app.accounts.shift_accounts(table).shift == 1
    app.handle(RequestTransfer(ids(), table, "F1", "fill", {25: 4}), PIT)
    app.handle(WithdrawTransfer(ids(), table, "F1", "wrong table"), PIT)
    with pytest.raises(AccountsError):
        app.handle(SignTransfer(ids(), table, "F1"), dealer(table))  # withdrawn: it never counts
    with pytest.raises(AccessDeniedError):
        app.handle(OpenShift(ids(), table, {25: 100}), OBSERVER)
    closed = app.handle(CloseShift(ids(), table, {25: 100}), PIT)
    assert closed.win == 0 and app.accounts.shift_accounts(table).fills == 0
    app.handle(RecordDrop(ids(), table, 400), DIRECTOR)  # the count comes after the close
    assert app.accounts.shift_accounts(table).drop == 400
    assert [s.shift for s in app.accounts.shifts_between(table)] == [1]


def test_a_circle_tables_win_is_its_rake_exactly(app: PokerTables) -> None:
    ids, table = Ids("circle"), "Mesa R"
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False,
                                    rake=RakePolicy(percent=10, cap=5))
    app.handle(OpenTable(ids(), table, settings))
    for seat in (1, 2, 3):
        app.handle(Sit(ids(), table, seat, 200))
    app.handle(OpenShift(ids(), table, {1: 1_000}), PIT)
    rng, raked = random.Random(12), 0
    for _ in range(4):
        deck, _number = start_circle_hand(app, table, ids)
        hand = play_circle_hand(app, table, deck, rng, ids)
        raked += sum(rake for _, rake, _ in hand.snapshot()["awards"])
    assert raked > 0
    report = app.accounts.shift_accounts(table)
    assert (report.game, report.theoretical.low, report.theoretical.high) == ("circle", raked, raked)
    closed = app.handle(CloseShift(ids(), table, {1: 1_000 + raked}), dealer(table))  # the rake went to the tray
    assert closed.win == raked and not closed.flagged
    app.handle(OpenShift(ids(), table, {1: 1_000 + raked}), PIT)
    deck, _number = start_circle_hand(app, table, ids)
    more = sum(rake for _, rake, _ in play_circle_hand(app, table, deck, rng, ids).snapshot()["awards"])
    closed = app.handle(CloseShift(ids(), table, {1: 1_000 + raked + more - 1}), PIT)  # one chip short of the rake
    assert closed.win == more - 1 and closed.flagged


def test_the_shifts_of_a_range_are_found_by_bisection_and_are_those_of_every_shift_filtered(
        app: PokerTables) -> None:
    """Issue 30: the shifts opened in a range are found without reading every shift of the table's life; for ranges
    that start and end before, at and after each shift's opening they are the table's shifts filtered."""
    ids, table = Ids("shifts"), "THB 9"
    app.handle(OpenTable(ids(), table, GAMES["holdem-bonus"]))
    for _ in range(5):
        app.handle(OpenShift(ids(), table, {25: 100}), PIT)
        start_banked_hand(app, table, ids, {1: 10})
        play_banked_hand(app, table, random.Random(2), ids)
        app.handle(CloseShift(ids(), table, {25: 100}), PIT)
    every = app.accounts.shifts_between(table)
    assert [s.shift for s in every] == [1, 2, 3, 4, 5]
    opened = [app.accounts.shift(table, number).created_on for number in range(1, 6)]
    edges = [opened[0] - timedelta(seconds=1), *opened, opened[-1] + timedelta(seconds=1)]
    for since in [None, *edges]:
        for until in [None, *edges]:
            expected = [s for s, at in zip(every, opened, strict=True)
                        if (since is None or at >= since) and (until is None or at < until)]
            assert app.accounts.shifts_between(table, since, until) == expected, (since, until)
