"""Issue 16: the floor's Watch stream — ``Watch`` naming no table streams every table's changes in log order, each
naming its table, from one read of the log: circle and banked tables, hands started after the stream began, a table
opened after it; each change as the caller may see it (an observer never gets a face-down card, the pit does); and
``ListTables`` reads again only the tables named (the floor's refresh of the tables that changed)."""

from __future__ import annotations

import threading
from typing import Any

import grpc

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, act, deal, open_banked, open_circle, seat, start

port = grpc_support.port


def _follow(client: Client, after: int, into: list[svc.WatchResponse], stop: threading.Event) -> Any:
    """Read the floor's stream on a thread until ``stop``; the call (to cancel)."""
    call = client.Watch(svc.WatchRequest(after_position=after), timeout=30)

    def read() -> None:
        try:
            for change in call:
                into.append(change)
                if stop.is_set():
                    return
        except grpc.RpcError:
            return

    threading.Thread(target=read, daemon=True).start()
    return call


def _until(ready: Any, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_the_floors_stream_names_each_change_s_table_and_hides_down_cards_from_an_observer(port: int) -> None:
    pit, dealer, observer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["tv"])
    open_circle(pit, "Mesa 1", pb.GAME_HOLDEM)
    for number in (1, 2, 3):
        seat(dealer, "Mesa 1", number)
    seen_by_pit: list[svc.WatchResponse] = []
    seen_by_tv: list[svc.WatchResponse] = []
    stop = threading.Event()
    calls = [_follow(pit, 0, seen_by_pit, stop), _follow(observer, 0, seen_by_tv, stop)]
    try:
        start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)  # a hand started after the streams began
        deal(dealer, "Mesa 1", "As Kd Qh")
        open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)  # a table opened after the streams began
        thb = Client(port, TOKENS["thb"])
        start(thb, "THB 1", pb.DECK_COLOUR_BLUE)
        act(thb, "THB 1", ante=cmd.Ante(seat=1, amount=10))

        def dealt(changes: list[svc.WatchResponse]) -> list[tuple[str, str]]:
            return [(c.table, c.event.hand_card_dealt.card) for c in changes
                    if c.event.WhichOneof("event") == "hand_card_dealt"]

        _until(lambda: len(dealt(seen_by_pit)) == 3 and any(c.table == "THB 1" for c in seen_by_pit)
               and any(c.event.WhichOneof("event") == "thb_hand_bet_placed" for c in seen_by_tv))
        assert dealt(seen_by_pit) == [("Mesa 1", "As"), ("Mesa 1", "Kd"), ("Mesa 1", "Qh")]
        assert dealt(seen_by_tv) == [("Mesa 1", "??")] * 3  # the visibility policy, per table
        positions = [c.position for c in seen_by_pit]
        assert positions == sorted(positions) and len(set(positions)) == len(positions)
        assert {c.table for c in seen_by_pit} == {"Mesa 1", "THB 1"}
        assert all(c.table for c in seen_by_tv)
    finally:
        stop.set()
        for call in calls:
            call.cancel()


def test_list_tables_reads_again_only_the_tables_named(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    for name in ("Mesa 1", "Mesa 2", "Mesa 3"):
        open_circle(pit, name, pb.GAME_HOLDEM)
    named = pit.ListTables(svc.ListTablesRequest(tables=["Mesa 3", "Mesa 1"])).tables
    assert [summary.table for summary in named] == ["Mesa 1", "Mesa 3"]  # in opening order
    assert len(pit.ListTables(svc.ListTablesRequest()).tables) == 3
    try:
        pit.ListTables(svc.ListTablesRequest(tables=[""]))
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    else:
        raise AssertionError("an empty table name is not a table")
