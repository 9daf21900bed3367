"""The application on real stores: SQLite files and PostgreSQL (required in CI; locally a visible skip without it)."""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Iterator
from copy import deepcopy
from pathlib import Path

import pytest

from domain.actions import BetTo, Check, Deal, Fold, Void
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.table import Table
from domain.errors import RuleError
from service.app.application import (
    AccessDeniedError,
    ConflictError,
    NotFoundError,
    PokerTables,
    Role,
    Viewer,
)
from service.app.commands import Act, Leave, Sit, StartHand
from service.app.table_views import CircleHandView
from service.store.persistence import StoreInUseError, claim_sole_writer, environment
from tests.support.app_tables import RED, dealer_for, ids, open_table, play_to_the_end
from tests.support.stores import store as store  # noqa: PLC0414  (a fixture)

DEALER = Viewer("station-1", Role.DEALER)


def start_and_deal(app: PokerTables, table: str, command: Iterator[str]) -> None:
    """Start a hand and deal the six hole cards: 2c 3c 4c / 5c 6c 7c, one at a time from the seat after the button."""
    app.handle(StartHand(next(command), table, RED))
    for code in range(6):
        app.handle(Act(next(command), table, Deal(card=Card.from_code(code * 4))), dealer_for(table))


def test_hands_are_stored_and_a_new_instance_continues_exactly_where_the_table_was(store: dict[str, str]) -> None:
    command = ids()
    app = PokerTables(env=store)
    table = open_table(app, command)
    start_and_deal(app, table, command)
    app.handle(Act(next(command), table, BetTo(seat=1, amount=10)), dealer_for(table))  # the button
    before = app.views.view(table, dealer_for(table))
    restarted = PokerTables(env=store)  # a new process on the same store
    assert restarted.views.view(table, dealer_for(table)) == before
    restarted.handle(Act(next(command), table, Fold(seat=2)), dealer_for(table))
    restarted.handle(Act(next(command), table, Fold(seat=3)), dealer_for(table))
    assert restarted.table(table).stacks == {1: 103, 2: 99, 3: 98}
    restarted.handle(StartHand(next(command), table, DeckIdentity(52, BackColour.BLUE)))
    play_to_the_end(restarted, table, command, random.Random(1))


def test_a_retried_command_returns_the_first_result_and_applies_once(store: dict[str, str]) -> None:
    command = ids()
    app = PokerTables(env=store)
    table = open_table(app, command)
    start_and_deal(app, table, command)
    bet_id = next(command)
    first = app.handle(Act(bet_id, table, BetTo(seat=1, amount=10)), dealer_for(table))
    again = app.handle(Act(bet_id, table, BetTo(seat=1, amount=10)), dealer_for(table))
    other_instance = PokerTables(env=store).handle(Act(bet_id, table, BetTo(seat=1, amount=10)), dealer_for(table))
    assert first == again == other_instance
    hand = app.reads.current_hand(app.table(table))
    assert hand.version == first.version and hand.state.bets == [1, 2, 10]


def test_an_illegal_command_is_refused_with_its_rule_and_stores_nothing(store: dict[str, str]) -> None:
    command = ids()
    app = PokerTables(env=store)
    table = open_table(app, command)
    app.handle(StartHand(next(command), table, RED))
    version = app.reads.current_hand(app.table(table)).version
    with pytest.raises(RuleError) as error:
        app.handle(Act(next(command), table, Check(seat=1)), dealer_for(table))
    assert error.value.rule == "R-CIRC-3"  # no card dealt yet: no betting interval is open
    assert app.reads.current_hand(app.table(table)).version == version
    with pytest.raises(NotFoundError):
        app.handle(Sit(next(command), "no such table", 1, 100))


class StaleReads(PokerTables):
    """A second service instance whose reads of the table are already out of date when it writes (each read of
    ``stale`` in turn, then the store's)."""

    name = "pokertable"  # the same events as PokerTables

    def __init__(self, env: dict[str, str]) -> None:
        super().__init__(env=env)
        self.stale: list[Table] = []
        read = self.reads.table

        def table(name: str, rule: str = "R-CIRC-2") -> Table:
            if self.stale:
                return self.stale.pop(0)
            return read(name, rule)

        self.reads.table = table  # type: ignore[method-assign]


def test_two_instances_never_both_apply_conflicting_commands(store: dict[str, str]) -> None:
    command = ids()
    first = PokerTables(env=store)
    table = open_table(first, command)
    second = StaleReads(env=store)
    stale = second.table(table)  # it read the table before the first instance seated a player
    first.handle(Sit(next(command), table, 5, 100))
    # every read it makes of the table is stale (on PostgreSQL it reads twice: see below), so it cannot apply
    second.stale = [deepcopy(stale) for _ in range(2 if store.get("POSTGRES_SCHEMA") else 1)]
    with pytest.raises(ConflictError):
        second.handle(Sit(next(command), table, 6, 100))
    assert set(first.table(table).stacks) == {1, 2, 3, 5}  # exactly one applied
    second.handle(Sit(next(command), table, 6, 100))  # the retry, with a fresh read, applies
    assert set(first.table(table).stacks) == {1, 2, 3, 5, 6}
    if store.get("POSTGRES_SCHEMA"):  # issue 18, item 4: a command on a stale copy is run again on a fresh one
        second.stale = [deepcopy(second.table(table))]
        first.handle(Sit(next(command), table, 7, 100))
        second.handle(Sit(next(command), table, 8,
                          100))  # refused by the store, run again on the store's table: applied
        assert set(first.table(table).stacks) == {1, 2, 3, 5, 6, 7, 8}


def test_stations_see_and_do_only_what_their_role_allows(store: dict[str, str]) -> None:
    command = ids()
    app = PokerTables(env=store)
    table = open_table(app, command)
    start_and_deal(app, table, command)
    observer = Viewer("tv-1", Role.OBSERVER)
    other_dealer = Viewer("station-9", Role.DEALER, "another table")
    for viewer in (observer, other_dealer, dealer_for(table)):  # the table's own croupier too (issue 15, item 5)
        hand = app.views.view(table, viewer).hand
        assert isinstance(hand, CircleHandView)
        assert all(card == "??" for player in hand.players for card, up in zip(player.cards, player.face_up,
                                                                                strict=True) if not up)
    pit = app.views.view(table, Viewer("pit-1", Role.PIT_BOSS)).hand
    assert isinstance(pit, CircleHandView) and pit.players[0].cards[0] == "2c"
    for viewer in (observer, other_dealer):
        with pytest.raises(AccessDeniedError):
            app.handle(Act(next(command), table, Fold(seat=1)), viewer)
    with pytest.raises(AccessDeniedError):
        app.handle(Act(next(command), table, Void(rule="R-DECK-4", reason="marked card")), dealer_for(table))
    app.handle(Act(next(command), table, Void(rule="R-DECK-4", reason="a marked card")), Viewer("pit", Role.PIT_BOSS))
    assert app.table(table).stacks == {1: 100, 2: 100, 3: 100} and app.table(table).hand_in_progress is None


def test_an_sqlite_file_has_one_sole_writer_at_a_time(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'one.db'}"
    claim = claim_sole_writer(url)
    assert claim is not None
    with pytest.raises(StoreInUseError, match=f"pokertable process {os.getpid()}"):
        claim_sole_writer(url)
    claim.release()
    again = claim_sole_writer(url)
    assert again is not None
    again.release()
    assert claim_sole_writer("memory:") is None
    assert claim_sole_writer("postgresql://postgres@127.0.0.1/x") is None


def test_a_reader_never_copies_a_table_halfway_through_a_command(tmp_path: Path) -> None:
    """Readers on other threads (watch streams, searches) copy the cached table while commands change it in place:
    each copy is the table before or after a command, never between (seats and stacks agree)."""
    url = f"sqlite:///{tmp_path / 'race.db'}"
    claim = claim_sole_writer(url)
    app = PokerTables(env=environment(url, sole_writer=True))
    command = ids()
    table = open_table(app, command, seats=2)
    done = threading.Event()
    problems: list[str] = []

    def read() -> None:
        while not done.is_set():
            try:
                copy = app.table(table)
            except Exception as error:  # any failure to copy is the finding
                problems.append(repr(error))
                return
            if sum(copy.stacks.values()) != 100 * len(copy.stacks):
                problems.append(f"stacks {copy.stacks}")

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(150):
            for seat in range(3, 10):
                app.handle(Sit(next(command), table, seat, 100))
            for seat in range(3, 10):
                app.handle(Leave(next(command), table, seat))
    finally:
        done.set()
        reader.join()
        assert claim is not None
        claim.release()
    assert problems == []
