"""A no-limit Hold'em table through the application: its settings, fresh command ids, a table opened with its seats
and a hand played to its end; and a count of the store's reads."""

from __future__ import annotations

import contextlib
import random
import uuid
from collections.abc import Iterator

from domain.actions import Call, Check, Deal, Show
from domain.banked.table import BankedTable
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from service.app.application import (
    PokerTables,
    Role,
    Viewer,
)
from service.app.commands import Act, OpenTable, Sit

SETTINGS = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
RED = DeckIdentity(52, BackColour.RED)


def ids() -> Iterator[str]:
    """Fresh command ids (stores are shared between tests on PostgreSQL)."""
    prefix = uuid.uuid4().hex
    n = 0
    while True:
        n += 1
        yield f"{prefix}-{n}"


def open_table(app: PokerTables, command: Iterator[str], seats: int = 3) -> str:
    name = f"mesa-{uuid.uuid4().hex[:8]}"
    app.handle(OpenTable(next(command), name, SETTINGS))
    for seat in range(1, seats + 1):
        app.handle(Sit(next(command), name, seat, 100))
    return name


def dealer_for(table: str) -> Viewer:
    return Viewer("station-1", Role.DEALER, table)


def play_to_the_end(app: PokerTables, table: str, command: Iterator[str], rng: random.Random) -> None:
    """Deal from a shuffled deck and call or check down; show at the end."""
    viewer = dealer_for(table)
    cards = iter(rng.sample(range(52), 52))
    while True:
        record = app.table(table)
        if record.hand_in_progress is None:
            return
        hand = app.reads.current_hand(record)
        if hand.state.next_slot is not None:
            app.handle(Act(next(command), table, Deal(card=Card.from_code(next(cards)))), viewer)
        elif (legal := hand.legal_actions()) is not None:
            app.handle(Act(next(command), table, Check(legal.seat) if legal.check else Call(legal.seat)), viewer)
        else:
            seat = hand.seat_of(next(p for p in hand.state.in_hand if p not in hand.state.shown))
            app.handle(Act(next(command), table, Show(seat=seat)), viewer)


@contextlib.contextmanager
def counting_reads(app: PokerTables) -> Iterator[list[object]]:
    """Every read of an aggregate's events from the store while inside, noted in the list yielded."""
    reads: list[object] = []
    recorder = app.recorder
    original = recorder.select_events

    def counted(*args: object, **kwargs: object) -> object:
        reads.append(args)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    recorder.select_events = counted  # type: ignore[method-assign,assignment]
    try:
        yield reads
    finally:
        recorder.select_events = original  # type: ignore[method-assign]


def banked_table(app: PokerTables, name: str) -> BankedTable:
    """A banked table of ``app`` by name (a test that knows the table's game)."""
    record = app.any_table(name)
    assert isinstance(record, BankedTable)
    return record
