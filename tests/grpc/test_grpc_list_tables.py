"""Issue 16 — the floor: ListTables lists every table of the casino, of any game, with a live summary, in the order
the tables were opened, over a real server (SQLite as sole writer, and PostgreSQL): the hand in progress (its number,
the chips in play, the deck's colour), the tables between hands, a closed table only when asked for, a game filter,
the same list for every role (a summary has no card), and a position a Watch resumes from. The names come from the
log's creation events only, read once and then only what was stored since (service/app/floor.py), in memory too, and
from the database of before issue 14's move, whose events carry the old topics."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest

from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.circle.settings import BettingStructure, TableSettings
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables, Role, Viewer
from service.app.commands import CloseTable, OpenTable, Sit
from service.app.floor import OPENED_TOPICS
from service.bootstrap import open_store
from tests.support import grpc_support
from tests.support.before_move import DATABASE, RECORD
from tests.support.grpc_support import (
    TOKENS,
    Client,
    act,
    deal,
    open_banked,
    open_circle,
    rule_of,
    seat,
    start,
    violations,
)

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

HOLE = "As Kd Qh Ac Kc Qs"
"""Mesa 1's first hand: seats 1 and 2 fold, the hand is won uncontested."""
SECOND = "2c 3d 4h 5s 6c 7d"
"""Mesa 1's second hand, in progress: the hole cards dealt, preflop betting open."""
OPENED = ["Mesa 1", "Omaha 1", "Cerrada", "THB 1", "CDP 1"]
"""The tables :func:`_floor` opens, in that order."""


def _floor(port: int) -> tuple[Client, Client]:
    """Mesa 1 (Hold'em) with hand 1 played on a red deck; Omaha 1 (in English) with two players and no hand yet;
    Cerrada (Hold'em) closed by the pit; THB 1 with a hand taking bets on two boxes; CDP 1 with no hand. The pit
    boss's client and Mesa 1's croupier's (kept: a client's command ids are its own)."""
    pit, dealer, thb = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["thb"])
    open_circle(pit, "Mesa 1", no_burns=True)
    pit.OpenTable(svc.OpenTableRequest(command_id=pit.next_id(), table="Omaha 1", game=pb.GAME_OMAHA, language="en",
                                       circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_POT_LIMIT,
                                                                blinds=[1, 2])))
    open_circle(pit, "Cerrada")
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    open_banked(pit, "CDP 1", pb.GAME_CASINO_DRAW)
    for number in (1, 2, 3):
        seat(dealer, "Mesa 1", number)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", HOLE)
    for number in (1, 2):
        act(dealer, "Mesa 1", fold=cmd.Fold(seat=number))
    for number in (4, 7):
        seat(pit, "Omaha 1", number, chips=500)
    pit.CloseTable(svc.CloseTableRequest(command_id=pit.next_id(), table="Cerrada"))
    start(thb, "THB 1", pb.DECK_COLOUR_BLUE)
    act(thb, "THB 1", ante=cmd.Ante(seat=1, amount=10))
    act(thb, "THB 1", bonus=cmd.Bonus(seat=1, amount=5))
    act(thb, "THB 1", ante=cmd.Ante(seat=3, amount=20))
    return pit, dealer


def _tables(client: Client, **request: Any) -> list[pb.TableSummary]:
    return list(client.ListTables(svc.ListTablesRequest(**request)).tables)


def _by_name(tables: Sequence[pb.TableSummary]) -> dict[str, pb.TableSummary]:
    return {summary.table: summary for summary in tables}


def _second_hand(dealer: Client) -> int:
    """Mesa 1's second hand started on the blue deck, dealt, and the first to speak calls the big blind: the pot."""
    start(dealer, "Mesa 1", pb.DECK_COLOUR_BLUE)
    deal(dealer, "Mesa 1", SECOND)
    legal = dealer.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1"))
    act(dealer, "Mesa 1", call=cmd.Call(seat=legal.seat))
    return 1 + 2 + 2  # the blinds and the call


def test_the_floor_lists_every_open_table_of_every_game_in_opening_order_with_its_summary(port: int) -> None:
    pit, dealer = _floor(port)
    between = _by_name(_tables(pit))["Mesa 1"]  # hand 1 finished, hand 2 not started: the last hand's number and deck
    assert between.status == pb.TABLE_STATUS_BETWEEN_HANDS
    assert (between.hand_number, between.hands_started, between.chips_in_play) == (1, 1, 0)
    assert between.HasField("deck_colour") and between.deck_colour == pb.DECK_COLOUR_RED
    pot = _second_hand(dealer)
    tables = _tables(pit)
    assert [summary.table for summary in tables] == [name for name in OPENED if name != "Cerrada"]
    assert [summary.opened.ToDatetime() for summary in tables] == sorted(s.opened.ToDatetime() for s in tables)
    floor = _by_name(tables)
    mesa = floor["Mesa 1"]
    assert (mesa.game, mesa.family, mesa.status) == (pb.GAME_HOLDEM, pb.GAME_FAMILY_CIRCLE,
                                                     pb.TABLE_STATUS_HAND_IN_PROGRESS)
    assert (mesa.hand_number, mesa.hands_started, mesa.seats) == (2, 2, 3)
    view = pit.GetTable(svc.GetTableRequest(table="Mesa 1")).view
    assert mesa.chips_in_play == pot == view.circle.pot  # the pot and the bets of the hand in progress
    assert mesa.deck_colour == pb.DECK_COLOUR_BLUE and mesa.language == "es"
    omaha = floor["Omaha 1"]
    assert (omaha.game, omaha.status, omaha.hand_number, omaha.hands_started) == (
        pb.GAME_OMAHA, pb.TABLE_STATUS_BETWEEN_HANDS, 0, 0)
    assert (omaha.seats, omaha.chips_in_play, omaha.language) == (2, 0, "en")
    assert not omaha.HasField("deck_colour")  # no hand yet
    thb = floor["THB 1"]
    assert (thb.game, thb.family, thb.status) == (pb.GAME_HOLDEM_BONUS, pb.GAME_FAMILY_BANKED,
                                                  pb.TABLE_STATUS_HAND_IN_PROGRESS)
    assert (thb.hand_number, thb.seats, thb.chips_in_play, thb.deck_colour) == (1, 2, 10 + 5 + 20,
                                                                                pb.DECK_COLOUR_BLUE)
    cdp = floor["CDP 1"]
    assert (cdp.game, cdp.family, cdp.status, cdp.seats, cdp.chips_in_play) == (
        pb.GAME_CASINO_DRAW, pb.GAME_FAMILY_BANKED, pb.TABLE_STATUS_BETWEEN_HANDS, 0, 0)
    assert all(summary.opened.seconds > 0 for summary in tables)


def test_a_closed_table_is_listed_only_when_asked_for_and_the_game_filter_lists_one_game(port: int) -> None:
    pit, _ = _floor(port)
    everything = _tables(pit, include_closed=True)
    assert [summary.table for summary in everything] == OPENED
    closed = _by_name(everything)["Cerrada"]
    assert (closed.status, closed.game, closed.seats, closed.chips_in_play) == (
        pb.TABLE_STATUS_CLOSED, pb.GAME_HOLDEM, 0, 0)
    assert [summary.table for summary in _tables(pit, game=pb.GAME_HOLDEM)] == ["Mesa 1"]
    assert [summary.table for summary in _tables(pit, game=pb.GAME_HOLDEM, include_closed=True)] == [
        "Mesa 1", "Cerrada"]
    assert [summary.table for summary in _tables(pit, game=pb.GAME_CASINO_DRAW)] == ["CDP 1"]
    assert _tables(pit, game=pb.GAME_STUD7) == []


def test_every_role_lists_the_same_floor_and_a_summary_has_no_card(port: int) -> None:
    pit, dealer = _floor(port)
    _second_hand(dealer)
    fields = {field.name for field in pb.TableSummary.DESCRIPTOR.fields}
    assert fields == {"table", "game", "family", "status", "hand_number", "hands_started", "chips_in_play", "seats",
                      "deck_colour", "opened", "position", "language", "holds",
                      "decks_out_of_play", "dealer_id", "dealer_name",
                      "seat_count"}  # nothing to hide: no card, no stack

    def unpositioned(client: Client) -> list[pb.TableSummary]:
        tables = _tables(client, include_closed=True)
        for summary in tables:
            summary.ClearField("position")
        return tables

    seen = unpositioned(pit)
    for who in ("dealer", "other", "tv", "director", "shoe", "thb"):
        assert unpositioned(Client(port, TOKENS[who])) == seen, who


@pytest.mark.parametrize("game", [99, -1])
def test_r_circ_5_an_unknown_game_is_invalid_argument_naming_the_field(port: int, game: int) -> None:
    pit = Client(port, TOKENS["pit"])
    with pytest.raises(grpc.RpcError) as refused:
        pit.ListTables(svc.ListTablesRequest(game=game))  # type: ignore[arg-type]
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert violations(refused.value) == ["game"] and rule_of(refused.value) == "R-CIRC-5"


def _watch(client: Client, table: str, after: int) -> list[svc.WatchResponse]:
    changes: list[svc.WatchResponse] = []
    try:
        # read until it waits for more (its deadline ends it); what is stored comes at once
        for change in client.Watch(svc.WatchRequest(table=table, after_position=after), timeout=1):
            changes.append(change)
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED, error
    return changes


def test_a_watch_resumed_from_a_summarys_position_streams_only_what_was_stored_since(port: int) -> None:
    pit, dealer = _floor(port)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_BLUE)
    listed = _by_name(_tables(pit))
    position = listed["Mesa 1"].position
    assert position >= max(change.position for change in _watch(pit, "Mesa 1", 0))
    assert _watch(pit, "Mesa 1", position) == []  # nothing older, nothing twice
    deal(dealer, "Mesa 1", "8h")
    resumed = _watch(pit, "Mesa 1", position)
    assert [change.event.WhichOneof("event") for change in resumed] == ["hand_card_dealt"]
    assert all(change.position > position for change in resumed)
    assert [change.position for change in _watch(pit, "Mesa 1", 0) if change.position > position] == \
        [change.position for change in resumed]
    assert _by_name(_tables(pit))["THB 1"].position > position  # the log's position as each list reads it


# -- the application: the names from the creation events alone, then only what was stored since -----------------


def _spied(app: PokerTables) -> list[tuple[int | None, tuple[str, ...]]]:
    """Every notification read the application makes from now on: where it started and the topics it asked for."""
    reads: list[tuple[int | None, tuple[str, ...]]] = []
    recorder: Any = app.recorder
    select = recorder.select_notifications

    def spy(start: int | None, limit: int, stop: int | None = None, topics: Sequence[str] = (),
            **kwargs: Any) -> Any:
        reads.append((start, tuple(topics)))
        return select(start, limit, stop, topics, **kwargs)

    recorder.select_notifications = spy
    return reads


def _open(app: PokerTables, name: str, banked: bool = False) -> None:
    if banked:
        app.handle(OpenTable(f"open-{name}", name, ThbSettings(STANDARD_LIMITS[5])))
    else:
        app.handle(OpenTable(f"open-{name}", name, TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1,
                                                                                                                     2))))


def test_in_memory_the_names_are_read_once_then_only_what_was_stored_since_from_many_threads() -> None:
    app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    reads = _spied(app)
    assert app.table_names() == [] and reads == []
    for number in range(1, 4):
        _open(app, f"Mesa {number}")
        _open(app, f"THB {number}", banked=True)
    app.handle(Sit("sit", "Mesa 1", 1, 100))
    first = app.table_names()
    assert first == ["Mesa 1", "THB 1", "Mesa 2", "THB 2", "Mesa 3", "THB 3"]
    assert reads == [(1, OPENED_TOPICS)]  # the creation events alone, of both families and both eras
    head = int(app.recorder.max_notification_id() or 0)
    assert app.table_names() == first and len(reads) == 1  # nothing stored since: nothing read
    _open(app, "Mesa 4")
    assert app.table_names() == [*first, "Mesa 4"]
    assert reads[1][0] == head + 1
    results: list[list[str]] = []
    _open(app, "THB 4", banked=True)
    workers = [threading.Thread(target=lambda: results.append(app.table_names())) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert results == [[*first, "Mesa 4", "THB 4"]] * 8  # each name once, whoever read it first
    pit = Viewer("pit-1", Role.PIT_BOSS)
    app.handle(CloseTable("close", "Mesa 2"), pit)
    assert app.table_names() == [*first, "Mesa 4", "THB 4"]  # a closed table keeps its name (listed on request)


@pytest.fixture
def before_the_move(tmp_path: Path) -> Iterator[PokerTables]:
    """The application on a copy of the database written before issue 14's move, as ``pokertable serve`` runs it."""
    copy = tmp_path / "before-the-move.db"
    shutil.copyfile(DATABASE, copy)
    with open_store(f"sqlite:///{copy}", writer=True) as store:  # the composition root: the claim, then the app
        yield store.app


def test_the_database_of_before_the_move_lists_its_eight_tables_in_opening_order(
        before_the_move: PokerTables) -> None:
    app = before_the_move
    names = app.table_names()
    assert sorted(names) == sorted(RECORD["tables"]) and len(names) == 8
    assert names == sorted(names, key=lambda name: app.any_table(name).created_on)
    _open(app, "Mesa nueva")
    assert app.table_names() == [*names, "Mesa nueva"]  # stored with the topic of now, after the old ones


def test_a_server_on_the_database_of_before_the_move_lists_its_eight_tables(before_the_move: PokerTables) -> None:
    with grpc_support.serving(before_the_move, grpc_support.STATIONS) as bound:
        tables = _tables(Client(bound, TOKENS["tv"]), include_closed=True)
    assert len(tables) == 8
    for summary in tables:
        recorded = RECORD["tables"][summary.table]
        code = recorded.get("variant") or recorded["game"]
        assert pb.Game.Name(summary.game) == "GAME_" + code.upper().replace("-", "_"), summary.table
        assert summary.family == (pb.GAME_FAMILY_CIRCLE if recorded["kind"] == "circle" else pb.GAME_FAMILY_BANKED)
        assert summary.hands_started == recorded["hands_started"] and summary.language == "es"
        assert summary.status == pb.TABLE_STATUS_BETWEEN_HANDS and summary.chips_in_play == 0
