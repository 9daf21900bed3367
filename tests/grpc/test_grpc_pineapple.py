"""Pineapple (house game, R-PINE-1) through the gRPC service, a real server on a free port (SQLite and PostgreSQL):
``OpenTable`` takes the game (GAME_PINEAPPLE), and a hand is dealt, bet, discarded and shown down with the same
``Act`` commands as every circle game; an observer never sees a discard."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import json_format

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support import grpc_support
from tests.support.circle_grpc import TABLE, _clients, _command, _deal, _open, _start, _table, _view
from tests.support.grpc_support import TOKENS, Client, rule_of

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

PINEAPPLE = {"structure": pb.BETTING_STRUCTURE_NO_LIMIT, "blinds": [1, 2]}
HOLE = "Qc 7d Ah Qd 6d Ad 3h 3c 5c"  # the button is seat 1: seat 2: Qc Qd 3h; seat 3: 7d 6d 3c; seat 1: Ah Ad 5c


def _cards(view: pb.CircleTableView, seat: int) -> list[str]:
    return list(next(player for player in view.players if player.seat == seat).cards)


def test_r_pine_1_a_pineapple_hand_is_played_over_a_real_server(port: int) -> None:
    pit, dealer = _clients(port)
    _open(pit, dealer, pb.GAME_PINEAPPLE, PINEAPPLE, {1: 50, 2: 50, 3: 50})
    table = _table(pit)
    assert table.game == pb.GAME_PINEAPPLE and table.family == pb.GAME_FAMILY_CIRCLE
    _start(dealer)
    _deal(dealer, HOLE)
    assert _cards(_view(pit), 1) == ["Ah", "Ad", "5c"], "three down cards each"
    with pytest.raises(grpc.RpcError) as early:
        _command(dealer, discard=cmd.Discard(seat=1, cards=["Ad"]))
    assert early.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(early.value) == "R-PINE-1"
    _command(dealer, call=cmd.Call(seat=1))
    _command(dealer, call=cmd.Call(seat=2))
    _command(dealer, fold=cmd.Fold(seat=3))  # the big blind
    _deal(dealer, "Js Kd 8h 2c")  # a burn, then the flop
    _command(dealer, check=cmd.Check(seat=2))
    _command(dealer, check=cmd.Check(seat=1))
    assert _view(pit).phase == pb.HAND_PHASE_DRAWING
    _command(dealer, discard=cmd.Discard(seat=2, cards=["3h"]))  # all at once: the big blind may throw first
    with pytest.raises(grpc.RpcError) as twice:
        _command(dealer, discard=cmd.Discard(seat=2, cards=["Qd"]))
    assert twice.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(twice.value) == "R-PINE-1"
    _command(dealer, discard=cmd.Discard(seat=1, cards=["Ad"]))
    view = _view(pit)
    assert (_cards(view, 1), _cards(view, 2)) == (["Ah", "5c"], ["Qc", "Qd"]), "no card replaces a discard"
    observer = Client(port, TOKENS["tv"])
    assert _cards(_view(observer), 1) == ["??", "??"]
    _deal(dealer, "Jh 9s")  # the turn's burn and the turn
    _command(dealer, check=cmd.Check(seat=2))
    _command(dealer, check=cmd.Check(seat=1))
    _deal(dealer, "Jc 4s")
    _command(dealer, check=cmd.Check(seat=2))
    _command(dealer, check=cmd.Check(seat=1))
    _command(dealer, show=cmd.Show(seat=2))
    reply = _command(dealer, show=cmd.Show(seat=1))
    assert reply.result.hand_complete
    assert dict(_view(pit).stacks) == {1: 48, 2: 54, 3: 48}, "queens beat ace high: the thrown ace does not play"
    stream = observer.Watch(svc.WatchRequest(table=TABLE))
    events, discards = [], 0
    for change in stream:
        events.append(json_format.MessageToJson(change.event))
        if change.event.WhichOneof("event") == "hand_discarded":
            discards += 1
            assert list(change.event.hand_discarded.cards) == ["??"], "one card thrown, face down"
        if discards == 2:
            break
    stream.cancel()
    text = " ".join(events)
    assert '"Ad"' not in text and '"3h"' not in text, "an observer never sees a discard"
