"""Corrections through pokertable.v1 (issue 15, item 6; R-AUD-1; docs/station.md "Corrections"), against a real
server on a free port (SQLite sole writer and PostgreSQL): the croupier asks for a correction of the hand's last
betting action, the pit boss (or games director) approves or refuses it; meanwhile the hand takes nothing else; the
Watch stream keeps the original action, the request, the decision and the replacement."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.api.events_pb2 import TableEvent
from tests.support import grpc_support
from tests.support.grpc_support import (
    TOKENS,
    Client,
    _log,
    act,
    deal,
    open_circle,
    rule_of,
    seat,
    start,
    stored_changes,
    violations,
)

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

HOLE = "As Kd Qh Ac Kc Qs"
"""Seats 1, 2, 3 get As Ac, Kd Kc, Qh Qs; seat 1 holds the button, seat 2 posts 1, seat 3 posts 2, seat 1 speaks."""


def _table(port: int) -> tuple[Client, Client]:
    """Mesa 1 (Hold'em NL 1/2, no burns), seats 1-3 with 100, the hole cards dealt: the pit's and the croupier's
    clients."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1", no_burns=True)
    for number in (1, 2, 3):
        seat(dealer, "Mesa 1", number)
    start(dealer, "Mesa 1")
    deal(dealer, "Mesa 1", HOLE)
    return pit, dealer


def _request(client: Client, reason: str = "keyed 60 for 10", **replacement: Any) -> svc.ActResponse:
    return act(client, "Mesa 1", request_correction=cmd.RequestCorrection(
        replacement=cmd.Command(**replacement), reason=reason))


def _decide(client: Client, approve: bool, reason: str) -> svc.ActResponse:
    return act(client, "Mesa 1", decide_correction=cmd.DecideCorrection(approve=approve, reason=reason))


def _legal(client: Client) -> svc.GetLegalActionsResponse:
    legal: svc.GetLegalActionsResponse = client.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1"))
    return legal


def _players(client: Client) -> dict[int, tuple[int, int]]:
    """Each seat's (stack, bet) in the hand in progress."""
    view = client.GetTable(svc.GetTableRequest(table="Mesa 1")).view
    return {p.seat: (p.stack, p.bet) for p in view.circle.players}


def _refused(call: object, code: grpc.StatusCode, rule: str) -> grpc.RpcError:
    assert callable(call)
    with pytest.raises(grpc.RpcError) as error:
        call()
    assert error.value.code() == code, error.value.details()
    assert rule_of(error.value) == rule, error.value.details()
    return error.value


def test_r_aud_1_a_wrong_bet_is_corrected_with_the_pits_approval_and_the_hand_continues(port: int) -> None:
    pit, dealer = _table(port)
    act(dealer, "Mesa 1", bet=cmd.Bet(seat=1, amount=60))  # the player raised to 10
    assert pb.ACTION_KIND_REQUEST_CORRECTION in _legal(dealer).allowed
    _request(dealer, bet=cmd.Bet(seat=1, amount=10))
    # pending: the hand takes nothing else, and the legal actions say so
    legal = _legal(dealer)
    assert not legal.HasField("seat") and list(legal.allowed) == [pb.ACTION_KIND_DECIDE_CORRECTION]
    _refused(lambda: act(dealer, "Mesa 1", fold=cmd.Fold(seat=2)), grpc.StatusCode.FAILED_PRECONDITION, "R-AUD-1")
    _refused(lambda: act(dealer, "Mesa 1", deal=cmd.Deal(card="2c")), grpc.StatusCode.FAILED_PRECONDITION,
             "R-AUD-1")
    _refused(lambda: _request(dealer, bet=cmd.Bet(seat=1, amount=12)), grpc.StatusCode.FAILED_PRECONDITION,
             "R-AUD-1")
    # the croupier cannot decide his own request
    _refused(lambda: _decide(dealer, True, "my own"), grpc.StatusCode.PERMISSION_DENIED, "R-AUD-1")
    _decide(pit, True, "seen on camera: raise to 10")
    assert _players(pit)[1] == (90, 10)
    legal = _legal(dealer)
    assert legal.seat == 2 and legal.call == 9
    assert pb.ACTION_KIND_REQUEST_CORRECTION in legal.allowed  # the replacement is now the last action, as any
    # the hand continues from the corrected state
    act(dealer, "Mesa 1", fold=cmd.Fold(seat=2))
    result = act(dealer, "Mesa 1", fold=cmd.Fold(seat=3)).result
    assert result.hand_complete
    view = pit.GetTable(svc.GetTableRequest(table="Mesa 1")).view
    assert dict(view.circle.stacks) == {1: 103, 2: 99, 3: 98}
    # the log keeps the original action, the request, the decision and the replacement (R-AUD-1)
    log = _log(pit)
    at = log.index("hand_bet_or_raised:60")
    assert log[at:at + 4] == ["hand_bet_or_raised:60", "hand_correction_requested", "hand_correction_approved",
                              "hand_bet_or_raised:10"]


def test_r_aud_1_a_refused_correction_changes_nothing(port: int) -> None:
    pit, dealer = _table(port)
    act(dealer, "Mesa 1", bet=cmd.Bet(seat=1, amount=60))
    before = _players(pit)
    _request(dealer, bet=cmd.Bet(seat=1, amount=10))
    director = Client(port, TOKENS["director"])  # the games director decides as well as the pit boss
    _decide(director, False, "the player did raise to 60")
    assert _players(pit) == before
    legal = _legal(dealer)
    assert legal.seat == 2 and legal.call == 59
    act(dealer, "Mesa 1", call=cmd.Call(seat=2))
    log = _log(pit)
    at = log.index("hand_bet_or_raised:60")
    assert log[at:at + 4] == ["hand_bet_or_raised:60", "hand_correction_requested", "hand_correction_refused",
                              "hand_called"]
    events: list[TableEvent] = [change.event for change in stored_changes(pit, "Mesa 1")]
    request = next(e.hand_correction_requested for e in events if e.HasField("hand_correction_requested"))
    assert (request.seat, request.corrects, request.action, request.amount, request.by) == (
        1, "BetOrRaised", "bet", 10, "mesa-1")
    refusal = next(e.hand_correction_refused for e in events if e.HasField("hand_correction_refused"))
    assert refusal.by == "dj" and refusal.reason == "the player did raise to 60"


def test_r_aud_1_only_the_last_betting_action_may_be_corrected(port: int) -> None:
    pit, dealer = _table(port)
    act(dealer, "Mesa 1", bet=cmd.Bet(seat=1, amount=10))
    act(dealer, "Mesa 1", call=cmd.Call(seat=2))
    # seat 1's bet is no longer the last action
    _refused(lambda: _request(dealer, bet=cmd.Bet(seat=1, amount=12)), grpc.StatusCode.FAILED_PRECONDITION,
             "R-AUD-1")
    act(dealer, "Mesa 1", call=cmd.Call(seat=3))
    deal(dealer, "Mesa 1", "2c 7d 9h")
    # a card came after the last action
    assert pb.ACTION_KIND_REQUEST_CORRECTION not in _legal(dealer).allowed
    _refused(lambda: _request(dealer, call=cmd.Call(seat=3)), grpc.StatusCode.FAILED_PRECONDITION, "R-AUD-1")
    # nothing pending: nothing to decide
    _refused(lambda: _decide(pit, True, "nothing"), grpc.StatusCode.FAILED_PRECONDITION, "R-AUD-1")
    # a replacement is a betting action, and a request states its reason: malformed requests
    with pytest.raises(grpc.RpcError) as not_betting:
        _request(dealer, deal=cmd.Deal(card="3c"))
    assert not_betting.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert violations(not_betting.value) == ["command.request_correction.replacement"]
    with pytest.raises(grpc.RpcError) as no_reason:
        _request(dealer, reason="", check=cmd.Check(seat=2))
    assert violations(no_reason.value) == ["command.request_correction.reason"]
    with pytest.raises(grpc.RpcError) as bad_amount:
        _request(dealer, bet=cmd.Bet(seat=2, amount=-5))
    assert violations(bad_amount.value) == ["command.request_correction.replacement.bet.amount"]


def test_r_aud_1_who_may_ask_and_who_may_decide(port: int) -> None:
    pit, dealer = _table(port)
    act(dealer, "Mesa 1", bet=cmd.Bet(seat=1, amount=60))
    for who in ("tv", "other", "director", "shoe"):  # observers, another table's croupier, a device
        _refused(lambda who=who: _request(Client(port, TOKENS[who]), bet=cmd.Bet(seat=1, amount=10)),
                 grpc.StatusCode.PERMISSION_DENIED, "R-AUD-1")
    _request(dealer, bet=cmd.Bet(seat=1, amount=10))
    for who in ("dealer", "tv", "other", "shoe"):
        _refused(lambda who=who: _decide(Client(port, TOKENS[who]), True, "not mine"),
                 grpc.StatusCode.PERMISSION_DENIED, "R-AUD-1")
    _decide(pit, True, "camera")
    assert _players(pit)[1] == (90, 10)
