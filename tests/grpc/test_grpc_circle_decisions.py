"""Issue 12 through the gRPC service (a real server on a free port, SQLite and PostgreSQL): each circle-poker bug
fixed in the domain has a regression test here too, and the new decisions are reachable from the API
(pokertable.v1: OpenTable with CircleSettings, StartHand, Act, GetTable, GetLegalActions, Watch)."""

from __future__ import annotations

import io
from typing import Any, cast

import grpc
import pytest
from google.protobuf import json_format

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.reference import Station, run_lines
from tests.support import grpc_support
from tests.support.circle_grpc import TABLE, _clients, _command, _deal, _open, _start, _table, _view
from tests.support.grpc_support import TOKENS, Client, rule_of, violations

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

DRAW_HANDS = "Jc Ac Th Jd Kd Td 7c Qh 9s 8c Ts 9d 9c 8s 7h"  # seat 1: jacks; seat 2: no pair; seat 3: two pair
DRAW: dict[str, Any] = {"structure": pb.BETTING_STRUCTURE_FIXED_LIMIT, "ante": 1, "small_bet": 2, "big_bet": 4}
HOLDEM: dict[str, Any] = {"structure": pb.BETTING_STRUCTURE_NO_LIMIT, "blinds": [1, 2], "no_burns": True}


def _legal(client: Client) -> svc.GetLegalActionsResponse:
    reply: svc.GetLegalActionsResponse = client.GetLegalActions(svc.GetLegalActionsRequest(table=TABLE))
    return reply


def _player(view: pb.CircleTableView, seat: int) -> pb.Player:
    return next(player for player in view.players if player.seat == seat)


def test_r_circ_14_a_voided_deal_after_a_blank_hand_keeps_the_carried_pot_and_the_openers(port: int) -> None:
    pit, dealer = _clients(port)
    _open(pit, dealer, pb.GAME_DRAW, DRAW, {1: 50, 2: 50, 3: 50})
    _start(dealer)
    _deal(dealer, DRAW_HANDS)
    for seat in (1, 2, 3):  # a blank hand (R-DRAW-3): 3 chips carried, queens to open
        _command(dealer, check=cmd.Check(seat=seat))
    _start(dealer, pb.DECK_COLOUR_BLUE)
    _deal(dealer, DRAW_HANDS)
    with pytest.raises(grpc.RpcError) as refused:
        _command(dealer, void=cmd.Void(rule="R-CIRC-14", reason="misdeal"))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED  # voids are the pit boss's
    voided = _view(pit)
    assert voided.button_seat == voided.actor_seat == 2  # la mano of the second deal speaks first
    reply = _command(pit, void=cmd.Void(rule="R-CIRC-14", reason="two cards dealt together"))
    assert reply.result.hand_complete
    view = _view(pit)
    assert dict(view.stacks) == {1: 49, 2: 49, 3: 49}, "this deal's antes back, the first hand's stay in the pot"
    _start(dealer)
    _deal(dealer, DRAW_HANDS)
    hand = _view(pit)
    assert hand.pot == 3 + 3, "the carried pot is still there"
    assert hand.button_seat == hand.actor_seat == 2, "la mano did not move"
    with pytest.raises(grpc.RpcError) as no_queens:
        _command(dealer, bet=cmd.Bet(seat=2, amount=2))  # la mano holds jacks: queens are needed now (R-DRAW-3)
    assert rule_of(no_queens.value) == "R-DRAW-3"


def test_r_circ_10_the_absent_player_who_owes_the_bring_in_pays_it_and_play_goes_on(port: int) -> None:
    pit, dealer = _clients(port)
    settings = {"structure": pb.BETTING_STRUCTURE_FIXED_LIMIT, "ante": 1, "bring_in": 2, "small_bet": 5,
                "big_bet": 10, "no_burns": True}
    _open(pit, dealer, pb.GAME_STUD7, settings, {1: 100, 2: 100, 3: 100})
    _start(dealer)
    _deal(dealer, "9c 4c 9s Th 5c Td Jc 2c Jh")  # seat 2 shows the 2 of clubs
    legal = _legal(dealer)
    assert legal.seat == 2 and legal.bring_in == 2 and pb.ACTION_KIND_BRING_IN in legal.allowed
    _command(dealer, absent=cmd.Absent(seat=2))
    seat2 = _player(_view(dealer), 2)
    assert seat2.folded and seat2.stack == 97 and seat2.put_in == 3
    legal = _legal(dealer)
    assert legal.seat == 3 and legal.call == 2 and not legal.HasField("bring_in") and legal.raise_min == 5


def test_r_circ_9_the_exposed_players_next_card_is_dealt_face_up_and_every_station_sees_it(port: int) -> None:
    pit, dealer = _clients(port)
    _open(pit, dealer, pb.GAME_HOLDEM, HOLDEM, {1: 100, 2: 100, 3: 100})
    _start(dealer)
    _deal(dealer, "As")  # seat 2's first card (the button is seat 1)
    _command(dealer, expose_card=cmd.ExposeCard(seat=2, card="As"))
    _deal(dealer, "Kd Qh Ac")  # seat 2's second card, Ac, comes face up
    observer = Client(port, TOKENS["tv"])
    seat2 = _player(_view(observer), 2)
    assert list(seat2.cards) == ["??", "Ac"] and list(seat2.face_up) == [False, True]
    assert list(_player(_view(observer), 3).cards) == ["??"]


def test_r_draw_8_a_draw_hand_is_refused_for_ten_players_with_the_rule(port: int) -> None:
    pit, dealer = _clients(port)
    _open(pit, dealer, pb.GAME_DRAW, DRAW, {seat: 50 for seat in range(1, 11)})
    before = _table(pit)
    with pytest.raises(grpc.RpcError) as refused:
        _start(dealer)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused.value) == "R-DRAW-8"
    assert _table(pit) == before
    dealer.LeaveSeat(svc.LeaveSeatRequest(command_id=dealer.next_id(), table=TABLE, seat=10))
    assert _start(dealer).result.hand_number == 1


def test_r_circ_2_a_card_exposed_at_the_cut_holds_the_deal_until_that_deck_is_shuffled(port: int) -> None:
    pit, dealer = _clients(port)
    _open(pit, dealer, pb.GAME_HOLDEM, {"structure": pb.BETTING_STRUCTURE_NO_LIMIT, "blinds": [1, 2]},
          {1: 100, 2: 100})
    dealer.RecordCutExposure(svc.RecordCutExposureRequest(command_id=dealer.next_id(), table=TABLE, card="Qh",
                                                          colour=pb.DECK_COLOUR_RED))
    assert _view(dealer).reshuffle_required == pb.DECK_COLOUR_RED
    with pytest.raises(grpc.RpcError) as refused:
        _start(dealer, pb.DECK_COLOUR_RED)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused.value) == "R-CIRC-2"
    dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id=dealer.next_id(), table=TABLE, device="Shuffler", serial="SH-7",
        kind=pb.DEVICE_REPORT_KIND_SHUFFLE, colour=pb.DECK_COLOUR_RED, result="ready"))
    assert not _view(dealer).HasField("reshuffle_required")
    assert _start(dealer, pb.DECK_COLOUR_RED).result.hand_number == 1


def test_r_circ_3b_and_r_circ_1_the_decisions_are_table_settings_of_the_api(port: int) -> None:
    pit, dealer = _clients(port)
    _open(pit, dealer, pb.GAME_HOLDEM, {**HOLDEM, "min_raise": pb.MIN_RAISE_ANY}, {1: 100, 2: 100, 3: 100})
    _start(dealer)
    _deal(dealer, "As Kd Qh Ac Kc Qs")
    assert _legal(dealer).raise_min == 3  # one chip over the big blind
    unknown = cast(pb.MinRaise, 7)  # no such MinRaise value (a newer client's, or a bad one)
    with pytest.raises(grpc.RpcError) as refused:
        grpc_support.open_circle(pit, "Mesa 2", pb.GAME_HOLDEM, blinds=[1, 2], min_raise=unknown)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and rule_of(refused.value) == "R-CIRC-3b"
    assert violations(refused.value) == ["circle.min_raise"]
    grpc_support.open_circle(pit, "Mesa 2", pb.GAME_DRAW, **DRAW, mano_speaks_first=False)
    assert _table(pit).game == pb.GAME_HOLDEM  # Mesa 1 unchanged


def test_r_circ_13_the_view_says_who_shows_next_and_out_of_turn_shows_are_refused(port: int) -> None:
    pit, dealer = _clients(port)
    _open(pit, dealer, pb.GAME_HOLDEM, HOLDEM, {1: 100, 2: 100, 3: 100})
    _start(dealer)
    _deal(dealer, "As Kd Qh Ac Kc Qs")
    _command(dealer, call=cmd.Call(seat=1))
    _command(dealer, call=cmd.Call(seat=2))
    _command(dealer, check=cmd.Check(seat=3))
    for board in ("2c 7h 9d", "3c"):
        _deal(dealer, board)
        for seat in (2, 3, 1):
            _command(dealer, check=cmd.Check(seat=seat))
    _deal(dealer, "4s")
    _command(dealer, check=cmd.Check(seat=2))
    _command(dealer, bet=cmd.Bet(seat=3, amount=10))
    _command(dealer, call=cmd.Call(seat=1))
    _command(dealer, call=cmd.Call(seat=2))
    assert _view(dealer).next_to_show_seat == 3
    assert _view(dealer).phase == pb.HAND_PHASE_SHOWDOWN
    with pytest.raises(grpc.RpcError) as refused:
        _command(dealer, show=cmd.Show(seat=1))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused.value) == "R-CIRC-13"
    _command(dealer, show=cmd.Show(seat=3))
    assert _view(dealer).next_to_show_seat == 1


def test_r_circ_2_and_r_circ_9_at_the_dealer_station(port: int) -> None:
    """The reference station (``pokertable station``): a card seen at the cut holds the deal until the croupier
    shuffles that deck again; an exposed card and who shows next are on the croupier's screen."""
    pit, dealer = _clients(port)
    _open(pit, dealer, pb.GAME_HOLDEM, HOLDEM, {1: 100, 2: 100})
    station = Station(f"127.0.0.1:{port}", TOKENS["dealer"])
    try:
        out = io.StringIO()
        assert run_lines(station, TABLE, ["cut-exposed Qh red", "start red"], out, prompt=False) == 1
        text = out.getvalue()
        assert "the red deck must be shuffled again before the deal (R-CIRC-2)" in text and "R-CIRC-2" in text
        out = io.StringIO()
        script = ["shuffled red", "start red", "deal As", "expose 2 As", "deal Kd", "deal Ac"]
        assert run_lines(station, TABLE, script, out, prompt=False) == 0, out.getvalue()
        seat2 = _player(_view(Client(port, TOKENS["tv"])), 2)
        assert list(seat2.cards) == ["??", "Ac"], "the card after the exposure is dealt face up for everyone"
    finally:
        station.close()


def test_r_circ_9_an_observer_never_learns_a_down_card_from_exposures_discards_or_the_draw(port: int) -> None:
    """Attack: an observer's Watch stream and view, over a draw hand with an exposed card, discards and the
    penalty card, must name no card that was face down when it happened (only the penalty card, dealt face up)."""
    pit, dealer = _clients(port)
    _open(pit, dealer, pb.GAME_DRAW, DRAW, {1: 50, 2: 50, 3: 50})
    _start(dealer)
    _deal(dealer, DRAW_HANDS)
    _command(dealer, expose_card=cmd.ExposeCard(seat=2, card="Ac"))  # seat 2's ace, seen by mistake, covered again
    _command(dealer, bet=cmd.Bet(seat=1, amount=2))
    _command(dealer, call=cmd.Call(seat=2))
    _command(dealer, call=cmd.Call(seat=3))
    _command(dealer, discard=cmd.Discard(seat=1, cards=["7c", "8c"]))
    _deal(dealer, "Qd Ks")
    _command(dealer, discard=cmd.Discard(seat=2, cards=["8s", "Ts"]))
    _deal(dealer, "Jh Qc")  # Jh: seat 2's penalty card, face up
    observer = Client(port, TOKENS["tv"])
    stream = observer.Watch(svc.WatchRequest(table=TABLE))
    events, dealt = [], 0
    for change in stream:
        events.append(json_format.MessageToJson(change.event))
        dealt += change.event.WhichOneof("event") == "hand_card_dealt"
        if dealt == 15 + 2 + 2:  # the deal and both draws
            break
    stream.cancel()
    text = " ".join(events)
    assert '"Jh"' in text, "the penalty card is dealt face up for everyone"
    assert '"??"' in text, "the down cards are on the stream, face down"
    down = set(DRAW_HANDS.split()) | {"Qd", "Ks", "Qc"}
    leaked = sorted(card for card in down if f'"{card}"' in text)
    assert leaked == [], f"down cards leaked to an observer: {leaked}"
    view = _view(observer)
    shown = {card for player in view.players for card in player.cards} - {"??"}
    assert shown == {"Jh"}
