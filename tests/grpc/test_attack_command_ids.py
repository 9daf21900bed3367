"""Issue 13, item 5 — attack: reuse a command id for another command, or at another table (pokertable.v1, issue 14).

Only an identical retry is answered with the first reply; anything else under a used id — another payload, another
RPC, another Act command case, another table — is refused with ALREADY_EXISTS naming the id, and applies nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from eventsourcing.persistence import StoredEvent

from domain.actions import Fold
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.table import Table
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables, ProcessedCommand, fingerprint
from service.app.commands import Act
from service.app.results import Result
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, act, deal, open_circle, rule_of, seat, start

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""


def _view(client: Client, table: str = "Mesa 1") -> svc.GetTableResponse:
    view: svc.GetTableResponse = client.GetTable(svc.GetTableRequest(table=table))
    return view


def _stacks(client: Client, table: str = "Mesa 1") -> dict[int, int]:
    return dict(_view(client, table).view.circle.stacks)


def _opened(port: int) -> tuple[Client, Client]:
    """Mesa 1 (no-limit Hold'em 1/2, no burns) with seats 1 to 3 at 100 chips; the pit boss's and dealer's clients."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1", no_burns=True)
    for number in (1, 2, 3):
        seat(dealer, "Mesa 1", number)
    return pit, dealer


def _already_used(call: Callable[[Any], Any], request: Any, command_id: str) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        call(request)
    error = refused.value
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS, (error.code(), error.details())
    assert command_id in (error.details() or ""), error.details()
    assert rule_of(error) == "R-AUD-1"


def test_a_command_id_reused_with_another_payload_is_refused_and_applies_nothing(port: int) -> None:
    _, dealer = _opened(port)
    first = dealer.AddChips(svc.AddChipsRequest(command_id="chips-1", table="Mesa 1", seat=1, chips=50))
    assert dealer.AddChips(svc.AddChipsRequest(command_id="chips-1", table="Mesa 1", seat=1, chips=50)) == first
    assert _stacks(dealer)[1] == 150, "an identical retry is answered, not applied twice"
    for attack in (svc.AddChipsRequest(command_id="chips-1", table="Mesa 1", seat=1, chips=5000),
                   svc.AddChipsRequest(command_id="chips-1", table="Mesa 1", seat=2, chips=50)):
        _already_used(dealer.AddChips, attack, "chips-1")
    _already_used(dealer.SeatPlayer, svc.SeatPlayerRequest(command_id="chips-1", table="Mesa 1", seat=4, chips=100),
                  "chips-1")  # another RPC under a used id
    _already_used(dealer.Act, svc.ActRequest(command_id="chips-1", table="Mesa 1", command=cmd.Command(
        fold=cmd.Fold(seat=1))), "chips-1")  # Act under an id AddChips used
    assert _stacks(dealer) == {1: 150, 2: 100, 3: 100}


def test_a_command_id_reused_at_another_table_is_refused(port: int) -> None:
    pit, _ = _opened(port)
    open_circle(pit, "Mesa 2")
    pit.SeatPlayer(svc.SeatPlayerRequest(command_id="same-id", table="Mesa 1", seat=5, chips=80))
    _already_used(pit.SeatPlayer, svc.SeatPlayerRequest(command_id="same-id", table="Mesa 2", seat=5, chips=80),
                  "same-id")
    assert _stacks(pit, "Mesa 2") == {}


def test_act_is_applied_exactly_once_and_its_id_is_not_reusable(port: int) -> None:
    """Act (every hand command of every game) keeps the guarantee: an identical retry of a bet is answered with the
    first reply and bets nothing more; the same id with another amount, another seat, another command case, another
    RPC or at another table is ALREADY_EXISTS, and the hand is as the first bet left it."""
    pit, dealer = _opened(port)
    open_circle(pit, "Mesa 2")
    start(dealer, "Mesa 1", pb.DECK_COLOUR_BLUE)
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    bet = cmd.Command(bet=cmd.Bet(seat=1, amount=10))
    first = dealer.Act(svc.ActRequest(command_id="bet-1", table="Mesa 1", command=bet))
    after_bet = _view(pit)
    assert dealer.Act(svc.ActRequest(command_id="bet-1", table="Mesa 1", command=bet)) == first
    assert _view(pit) == after_bet, "the retried bet was applied again"
    legal = dealer.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1"))
    assert legal.HasField("seat") and legal.seat == 2 and legal.call == 9
    for other in (cmd.Command(bet=cmd.Bet(seat=1, amount=20)), cmd.Command(bet=cmd.Bet(seat=2, amount=10)),
                  cmd.Command(call=cmd.Call(seat=2)), cmd.Command(fold=cmd.Fold(seat=2)),
                  cmd.Command(all_in=cmd.AllIn(seat=1)), cmd.Command(deal=cmd.Deal(card="2c"))):
        _already_used(dealer.Act, svc.ActRequest(command_id="bet-1", table="Mesa 1", command=other), "bet-1")
    _already_used(pit.Act, svc.ActRequest(command_id="bet-1", table="Mesa 2", command=bet), "bet-1")
    _already_used(dealer.AddChips, svc.AddChipsRequest(command_id="bet-1", table="Mesa 1", seat=1, chips=1), "bet-1")
    _already_used(dealer.StartHand, svc.StartHandRequest(command_id="bet-1", table="Mesa 1"), "bet-1")
    assert _view(pit) == after_bet
    fold = act(dealer, "Mesa 1", command_id="fold-2", fold=cmd.Fold(seat=2))
    assert dealer.Act(svc.ActRequest(command_id="fold-2", table="Mesa 1", command=cmd.Command(
        fold=cmd.Fold(seat=2)))) == fold
    done = act(dealer, "Mesa 1", fold=cmd.Fold(seat=3))
    assert done.result.hand_complete
    assert _stacks(pit) == {1: 103, 2: 99, 3: 98}, "each command applied exactly once"


def test_a_reconstruction_request_is_recorded_once_under_its_id(port: int) -> None:
    """ReconstructHand records the request before streaming: a retry under its id streams again and records nothing
    more; the id reused for another hand or reason is ALREADY_EXISTS."""
    pit, dealer = _opened(port)
    start(dealer, "Mesa 1")
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    for number in (1, 2):
        act(dealer, "Mesa 1", fold=cmd.Fold(seat=number))
    request = svc.ReconstructHandRequest(command_id="rc-1", table="Mesa 1", hand_number=1, reason="seat 3 disputes")
    first = list(pit.ReconstructHand(request))
    recorded = _view(pit).view.position
    assert first and list(pit.ReconstructHand(request)) == first
    assert _view(pit).view.position == recorded, "the retried request was recorded again"
    with pytest.raises(grpc.RpcError) as refused:
        list(pit.ReconstructHand(svc.ReconstructHandRequest(command_id="rc-1", table="Mesa 1", hand_number=1,
                                                             reason="another dispute")))
    assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS and "rc-1" in (refused.value.details() or "")
    assert _view(pit).view.position == recorded


def test_command_records_stored_before_fingerprints_still_answer_their_retries() -> None:
    """Stored-event compatibility: a ProcessedCommand written by the previous version (no fingerprint) loads, and a
    retry of it is answered with its result."""
    app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    record = ProcessedCommand(command_id="old-1", result={"table": "Mesa 1", "version": 3}, fingerprint="x")
    stored = app.mapper.to_stored_event(record.collect_events()[0])
    state = json.loads(stored.state)
    del state["fingerprint"], state["class_version"]
    app.recorder.insert_events([StoredEvent(stored.originator_id, stored.originator_version, stored.topic,
                                            json.dumps(state).encode())])
    loaded: object = app.repository.get(record.id)
    assert isinstance(loaded, ProcessedCommand) and loaded.fingerprint == "" and loaded.result["version"] == 3
    assert app.unit._processed("old-1", fingerprint("Mesa 9", ("anything",))) == Result(table="Mesa 1", version=3)


def test_the_fingerprint_tells_tables_commands_and_payloads_apart() -> None:
    sit = fingerprint("Mesa 1", ("sit", 1, 100))
    assert sit == fingerprint("Mesa 1", ("sit", 1, 100))
    assert sit != fingerprint("Mesa 2", ("sit", 1, 100))
    assert sit != fingerprint("Mesa 1", ("sit", 1, 101))
    assert sit != fingerprint("Mesa 1", ("add_chips", 1, 100))
    circle = Table.open("M", TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2)),
                        hands_key="0" * 32)
    assert fingerprint("M", Act("c", "M", Fold(1)).what(circle)) != fingerprint("M", Act("c", "M",
                                                                                         Fold(2)).what(circle))
