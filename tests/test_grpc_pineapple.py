"""Pineapple (house game, R-PINE-1) through the gRPC service, a real server on a free port (SQLite and PostgreSQL):
``OpenTable`` takes the variant, and a hand is dealt, bet, discarded and shown down with the same commands as every
circle game; an observer never sees a discard."""

from __future__ import annotations

import grpc
import pytest

from service.api import pokertable_pb2 as pb
from tests import test_grpc_service
from tests.test_grpc_circle_decisions import _clients, _command, _deal, _open, _start, _view
from tests.test_grpc_service import TOKENS, Client, rule_of

port = test_grpc_service.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

PINEAPPLE = pb.Settings(variant="pineapple", structure="no-limit", blinds=[1, 2])
HOLE = "Qc 7d Ah Qd 6d Ad 3h 3c 5c"  # the button is seat 1: seat 2: Qc Qd 3h; seat 3: 7d 6d 3c; seat 1: Ah Ad 5c


def _cards(view: pb.TableView, seat: int) -> list[str]:
    return list(next(player for player in view.players if player.seat == seat).cards)


def test_r_pine_1_a_pineapple_hand_is_played_over_a_real_server(port: int) -> None:
    pit, dealer = _clients(port)
    _open(pit, dealer, PINEAPPLE, {1: 50, 2: 50, 3: 50})
    assert _view(pit).variant == "pineapple"
    _start(dealer)
    _deal(dealer, HOLE)
    assert _cards(_view(pit), 1) == ["Ah", "Ad", "5c"], "three down cards each"
    with pytest.raises(grpc.RpcError) as early:
        _command(dealer, "discard", seat=1, cards=["Ad"])
    assert early.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(early.value) == "R-PINE-1"
    _command(dealer, "call", seat=1)
    _command(dealer, "call", seat=2)
    _command(dealer, "fold", seat=3)  # the big blind
    _deal(dealer, "Js Kd 8h 2c")  # a burn, then the flop
    _command(dealer, "check", seat=2)
    _command(dealer, "check", seat=1)
    assert _view(pit).phase == "drawing"
    _command(dealer, "discard", seat=2, cards=["3h"])  # all at once: the big blind may throw first
    with pytest.raises(grpc.RpcError) as twice:
        _command(dealer, "discard", seat=2, cards=["Qd"])
    assert twice.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(twice.value) == "R-PINE-1"
    _command(dealer, "discard", seat=1, cards=["Ad"])
    view = _view(pit)
    assert (_cards(view, 1), _cards(view, 2)) == (["Ah", "5c"], ["Qc", "Qd"]), "no card replaces a discard"
    observer = Client(port, TOKENS["tv"])
    assert _cards(_view(observer), 1) == ["??", "??"]
    _deal(dealer, "Jh 9s")  # the turn's burn and the turn
    _command(dealer, "check", seat=2)
    _command(dealer, "check", seat=1)
    _deal(dealer, "Jc 4s")
    _command(dealer, "check", seat=2)
    _command(dealer, "check", seat=1)
    _command(dealer, "show", seat=2)
    reply = _command(dealer, "show", seat=1)
    assert reply.hand_complete
    assert dict(_view(pit).stacks) == {1: 48, 2: 54, 3: 48}, "queens beat ace high: the thrown ace does not play"
    stream = observer.Watch(pb.WatchRequest(table="Mesa 1"))
    payloads, discards = [], 0
    for change in stream:
        payloads.append(change.payload_json)
        discards += change.event == "Hand.Discarded"
        if discards == 2:
            break
    stream.cancel()
    text = " ".join(payloads)
    assert '"Ad"' not in text and '"3h"' not in text, "an observer never sees a discard"
