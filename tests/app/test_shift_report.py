"""Issue 34, item 6 — the shift report from the floor's projection (:mod:`service.app.shift_report`), through the
application on SQLite: every table's figures are what its hands' summaries say (the search's path, summed as the
dashboard summed them before); a theoretical win counted hand by hand as the shift goes is the one counted from its
first hand, to the last bit; an open banked shift whose hands already left the band is flagged live (R-ACC-6); a
store written before the house's take had its column reads the same and its floor check finds nothing, while a take
written wrong is found."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.cards import Card
from domain.circle.settings import BettingStructure, RakePolicy, TableSettings
from service.app.accounts import Accounts
from service.app.application import PokerTables
from service.app.commands import CloseShift, OpenShift, OpenTable, Sit
from service.app.shift_report import TableFigures, shift_report
from service.store.persistence import environment
from tests.support.app_play import (
    PIT,
    Ids,
    dealer,
    play_banked_hand,
    play_circle_hand,
    start_banked_hand,
    start_circle_hand,
)
from tests.support.app_tables import banked_table

RAKED = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False,
                             rake=RakePolicy(percent=10, cap=5))
DRAW = TableSettings.create("draw", BettingStructure.POT_LIMIT, antes=1, small_bet=2, big_bet=4, burn_cards=False)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[PokerTables]:
    tables = PokerTables(env=environment(f"sqlite:///{tmp_path / 'report.db'}"))
    yield tables
    tables.close()


def _report(app: PokerTables, since: datetime) -> dict[str, TableFigures]:
    _, lines = shift_report(app, since, datetime.now(UTC), lambda table: True)
    return {line.table: line for line in lines}


def _from_the_search(app: PokerTables, table: str, since: datetime) -> tuple[int, int, int, list[tuple[int, int]]]:
    """Hands, voids, rake and bank results of a table as the dashboard summed them before (SearchHands)."""
    hands = app.views.search_hands(table, since=since, until=datetime.now(UTC))
    voids = sum(1 for hand in hands if hand.outcome == "voided")
    rake = sum(hand.rake or 0 for hand in hands if hand.outcome in ("showdown", "uncontested"))
    results = [(hand.number, -sum(hand.net.values())) for hand in hands if hand.outcome == "settled"]
    return len(hands), voids, rake, results


def _play_a_floor(app: PokerTables, rng: random.Random) -> None:
    """A raked Hold'em table, a five-card draw table (blank hands carry their pot, R-DRAW-3) and a Texas Hold'em
    Bonus table, a few hands each, one voided at each."""
    ids = Ids("floor")
    app.handle(OpenTable(ids(), "Mesa R", RAKED))
    app.handle(OpenTable(ids(), "Draw 1", DRAW))
    app.handle(OpenTable(ids(), "THB 1", ThbSettings(STANDARD_LIMITS[5])))
    for table in ("Mesa R", "Draw 1"):
        for seat in (1, 2, 3):
            app.handle(Sit(ids(), table, seat, 300))
        app.handle(OpenShift(ids(), table, {1: 1_000}), PIT)
    app.handle(OpenShift(ids(), "THB 1", {1: 10_000}), dealer("THB 1"))
    for number in range(4):
        for table in ("Mesa R", "Draw 1"):
            deck, _ = start_circle_hand(app, table, ids)
            play_circle_hand(app, table, deck, rng, ids, passive=table == "Draw 1" and number == 1,
                             void_after=3 if number == 2 else None)
        start_banked_hand(app, "THB 1", ids, {1: 10, 3: 20}, {1: 5})
        play_banked_hand(app, "THB 1", rng, ids, void_after=4 if number == 3 else None)


def test_every_table_s_figures_are_what_its_hands_say(app: PokerTables) -> None:
    since = datetime.now(UTC) - timedelta(minutes=1)
    _play_a_floor(app, random.Random(5))
    report = _report(app, since)
    assert sorted(report) == ["Draw 1", "Mesa R", "THB 1"]
    for table, line in report.items():
        hands, voids, rake, results = _from_the_search(app, table, since)
        assert (line.hands.hands, line.hands.voids, line.hands.rake, list(line.hands.results)) == \
            (hands, voids, rake, results), table
        assert line.hands.voids == 1 and line.hands.hands == 4, table
        # the irregularities: every alert but the void's (a void is counted apart)
        alerts = app.floor_log.store.alerts_between(table, since, datetime.now(UTC))
        assert line.irregularities == sum(1 for alert in alerts if alert.kind != "void")
        assert line.accounts is not None and line.accounts.open
    assert report["Mesa R"].hands.rake > 0
    assert report["THB 1"].accounts is not None
    assert report["THB 1"].accounts.result == sum(result for _, result in report["THB 1"].hands.results) \
        == banked_table(app, "THB 1").bank_result
    assert report["THB 1"].game.family == "banked" and report["Mesa R"].game.family == "circle"
    # a reader who may not read the accounts (R-ACC-5) has the figures without them
    _, lines = shift_report(app, since, datetime.now(UTC), lambda table: False)
    assert all(line.accounts is None for line in lines) and len(lines) == 3


def test_a_theoretical_win_counted_as_the_shift_goes_is_the_one_counted_from_its_first_hand(
        app: PokerTables) -> None:
    """The report remembers what it counted of a shift (the hands finished), and adds up only the hands since, from
    the hands index where it has them (a settled banked hand's stakes, its bank result) and from the log where not;
    asked after every hand and in the middle of hands, it says exactly what a reader counting every hand from the
    log, from the first, says."""
    ids, table, rng = Ids("memo"), "THB 2", random.Random(11)
    app.handle(OpenTable(ids(), table, ThbSettings(STANDARD_LIMITS[5])))
    app.handle(OpenShift(ids(), table, {1: 10_000}), PIT)
    for number in range(6):
        start_banked_hand(app, table, ids, {box: 5 + 5 * box for box in range(1, 2 + number % 3)},
                          {1: 2} if number % 2 else {})
        middle = app.accounts.shift_accounts(table)  # a hand in progress: counted for this answer only
        assert middle == Accounts(app.reads, app.accounts.name_of).shift_accounts(table)
        assert middle.result == banked_table(app, table).bank_result  # the hand in progress is not in it yet
        play_banked_hand(app, table, rng, ids, void_after=2 if number == 4 else None)
        if number % 2:  # the hands index caught up: the hands added up from it (else from the log)
            app.floor_log.catch_up()
        after = app.accounts.shift_accounts(table)
        fresh = Accounts(app.reads, app.accounts.name_of).shift_accounts(table)
        assert after == fresh
        assert after.result == banked_table(app, table).bank_result
    assert after.theoretical.box_hands > 6


def test_an_open_banked_shift_whose_hands_left_the_band_is_flagged_live(app: PokerTables) -> None:
    """R-ACC-6 before any count: four aces (two to the box, two to the house) pay the 1000:1 bonus; the bank's
    result of the shift's hands is far below the band of their theoretical win, and the report says so while the
    shift is open; once closed, its flag is the close's."""
    ids, table = Ids("live"), "THB 3"
    app.handle(OpenTable(ids(), table, ThbSettings(STANDARD_LIMITS[5])))
    app.handle(OpenShift(ids(), table, {1: 30_000}), PIT)
    start_banked_hand(app, table, ids, {1: 10}, {1: 5})
    play_banked_hand(app, table, random.Random(2), ids, cards=[Card.parse(code) for code in ("Ah", "Ad", "As", "Ac")],
                     approve=True)
    line = _report(app, datetime.now(UTC) - timedelta(minutes=1))[table]
    assert line.accounts is not None
    accounts = line.accounts
    assert accounts.result <= -5_000 and accounts.result < accounts.theoretical.low
    assert accounts.outside_band_now and accounts.open and not accounts.outside_band
    app.handle(CloseShift(ids(), table, {1: 30_000 + accounts.result}), PIT)
    closed = app.accounts.shift_accounts(table)
    assert not closed.outside_band_now and closed.outside_band and closed.flag is not None


def test_a_store_written_before_the_house_s_column_reads_the_same_and_a_wrong_take_is_found(
        app: PokerTables) -> None:
    since = datetime.now(UTC) - timedelta(minutes=1)
    _play_a_floor(app, random.Random(9))
    before = {table: line.hands for table, line in _report(app, since).items()}
    store = app.floor_log.store
    accounts = {table: line.accounts for table, line in _report(app, since).items()}
    with store._cursor(commit=True) as cursor:  # as an earlier version left it: no take, no stakes kept
        cursor.execute("UPDATE {hands} SET house = NULL, stakes = NULL")
    app.accounts = Accounts(app.reads, app.accounts.name_of)  # nothing remembered: every hand added up again
    app.accounts.indexed = store.hands_index.ended_since
    again = _report(app, since)
    assert {table: line.hands for table, line in again.items()} == before
    assert {table: line.accounts for table, line in again.items()} == accounts
    assert app.floor_log.check() == []  # never a false alarm on an upgraded store
    with store._cursor(commit=True) as cursor:  # an attacker raises one hand's take in the projection
        cursor.execute("UPDATE {hands} SET house = 1000 WHERE outcome = 'settled' AND number = 1")
    found = app.floor_log.check()
    assert len([line for line in found if line.startswith("hands: not what the log says")]) == 1, found
    app.floor_log.rebuild()
    assert app.floor_log.check() == []
    with store._cursor(commit=True) as cursor:  # and one box's stakes, to move the band
        cursor.execute("UPDATE {hands} SET stakes = ? WHERE outcome = 'settled' AND number = 2", ('[{"ante": 1}]',))
    found = app.floor_log.check()
    assert len([line for line in found if line.startswith("hands: not what the log says")]) == 1, found
