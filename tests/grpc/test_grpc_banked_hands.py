"""Banked hands and table administration end to end over pokertable.v1: a Texas Hold'em Bonus hand with the games
director's approval (R-THB-10), a Casino Draw Poker hand, and the pit's configuration, corrections and close."""

from __future__ import annotations

import grpc
import pytest

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support import grpc_support
from tests.support.grpc_support import (
    TOKENS,
    Client,
    act,
    deal,
    get_table,
    open_banked,
    open_table,
    rule_of,
    start,
    stored_changes,
    violations,
)

port = grpc_support.port


def test_a_texas_holdem_bonus_hand_over_the_api_with_the_directors_approval(port: int) -> None:
    pit, dealer, director = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"]), Client(port, TOKENS["director"])
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS, ante_min=5)
    started = start(dealer, "THB 1", pb.DECK_COLOUR_RED).result
    assert started.hand_number == 1
    act(dealer, "THB 1", ante=cmd.Ante(seat=1, amount=10))
    act(dealer, "THB 1", bonus=cmd.Bonus(seat=1, amount=2))
    act(dealer, "THB 1", ante=cmd.Ante(seat=3, amount=20))
    act(dealer, "THB 1", close_bets=cmd.CloseBets())
    deal(dealer, "THB 1", "As 9c Ac Ad 2d Ah")  # boxes 1 and 3, dealer left, boxes 1 and 3, dealer right
    view = get_table(dealer, "THB 1")
    assert view.family == pb.GAME_FAMILY_BANKED and view.game == pb.GAME_HOLDEM_BONUS
    assert list(view.banked.dealer_cards) == ["??", "??"]  # the dealer's cards stay hidden from the croupier's screen
    assert [(b.seat, list(b.cards)) for b in view.banked.boxes] == [(1, ["??", "??"]), (3, ["??", "??"])]  # issue 15
    seen = get_table(pit, "THB 1")  # the pit's: every card (issue 15, item 5: the croupier deals, the pit reads)
    assert [(b.seat, list(b.cards)) for b in seen.banked.boxes] == [(1, ["As", "Ad"]), (3, ["9c", "2d"])]
    assert view.banked.stage == pb.BANKED_STAGE_PREFLOP and view.banked.to_decide == 1
    legal = dealer.GetLegalActions(svc.GetLegalActionsRequest(table="THB 1"))
    assert legal.seat == 1 and list(legal.allowed) == [pb.ACTION_KIND_FOLD, pb.ACTION_KIND_FLOP_BET]
    assert legal.bet == 20
    act(dealer, "THB 1", flop_bet=cmd.FlopBet(seat=1, amount=20))
    act(dealer, "THB 1", fold=cmd.Fold(seat=3))
    deal(dealer, "THB 1", "3s Kh 7h 8s")
    act(dealer, "THB 1", check=cmd.Check(seat=1))
    deal(dealer, "THB 1", "4s 5c")
    act(dealer, "THB 1", check=cmd.Check(seat=1))
    reply = deal(dealer, "THB 1", "6d Jc")
    assert reply is not None and not reply.result.hand_complete  # the 1000:1 waits for the games director (R-THB-10)
    legal = director.GetLegalActions(svc.GetLegalActionsRequest(table="THB 1"))
    assert legal.seat == 1 and list(legal.allowed) == [pb.ACTION_KIND_APPROVE_BONUS, pb.ACTION_KIND_REFUSE_BONUS]
    with pytest.raises(grpc.RpcError) as error:
        act(dealer, "THB 1", approve_bonus=cmd.ApproveBonus(seat=1, reason="camera checked"))
    assert error.value.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(error.value) == "R-THB-10"
    reply = act(director, "THB 1", command_id="approve-1", approve_bonus=cmd.ApproveBonus(seat=1, reason="checked"))
    assert reply.result.hand_complete and reply.result.hand_number == 1
    view = get_table(dealer, "THB 1")
    assert view.hands_started == 1 and not view.hand_in_progress
    assert view.banked.bank_result == -(2000 + 0 + 0) + 20  # bonus 1000:1 on 2; box 1 ties the dealer's aces
    summary = pit.SearchHands(svc.SearchHandsRequest(table="THB 1", outcome=pb.HAND_OUTCOME_SETTLED)).hands
    assert [(h.number, list(h.seats)) for h in summary] == [(1, [1, 3])]


def test_a_casino_draw_hand_over_the_api(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"])
    open_banked(pit, "THB 1", pb.GAME_CASINO_DRAW, ante_min=5, ante_max=100)
    start(dealer, "THB 1")
    act(dealer, "THB 1", ante=cmd.Ante(seat=2, amount=10))
    act(dealer, "THB 1", close_bets=cmd.CloseBets())
    deal(dealer, "THB 1", "Ac Ad As 3s 9c 8c 8d Kh 9s 2s")
    act(dealer, "THB 1", exchange=cmd.Exchange(seat=2, cards=["3s", "9c"]))
    deal(dealer, "THB 1", "Ah 2c")
    legal = dealer.GetLegalActions(svc.GetLegalActionsRequest(table="THB 1"))
    assert legal.seat == 2 and set(legal.allowed) == {pb.ACTION_KIND_PLAY, pb.ACTION_KIND_FOLD} and legal.bet == 20
    reply = act(dealer, "THB 1", play=cmd.Play(seat=2, amount=20))
    assert reply.result.hand_complete
    assert get_table(dealer, "THB 1").banked.bank_result == -(10 + 20 * 20)  # four aces 20:1
    with pytest.raises(grpc.RpcError) as refused:
        act(dealer, "THB 1", bring_in=cmd.BringIn(seat=2))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert not get_table(dealer, "THB 1").banked.closed
    pit.CloseTable(svc.CloseTableRequest(command_id=pit.next_id(), table="THB 1"))
    closed = get_table(dealer, "THB 1")  # issue 33: the table's own view says so, as a circle table's does (R-AUD-1)
    assert closed.banked.closed and closed.banked.bank_result == -(10 + 20 * 20)
    with pytest.raises(grpc.RpcError) as again:
        pit.CloseTable(svc.CloseTableRequest(command_id=pit.next_id(), table="THB 1"))
    assert again.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(again.value) == "R-AUD-1"
    assert get_table(dealer, "THB 1").banked.closed


def test_r_cdp_4_the_croupier_sees_the_bank_once_it_shows_and_the_cards_it_draws(port: int) -> None:
    """Seed 002: "después de que todos los jugadores hayan hecho sus apuestas, la banca muestra su juego"; the
    croupier's view and stream then carry the bank's cards, and the cards it draws by the house way are due face up
    (the croupier may key them without a shoe, D-SEE-1); box 2's cards stay face down to him."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"])
    open_banked(pit, "THB 1", pb.GAME_CASINO_DRAW, ante_min=5, ante_max=100)
    start(dealer, "THB 1")
    act(dealer, "THB 1", ante=cmd.Ante(seat=2, amount=10))
    act(dealer, "THB 1", close_bets=cmd.CloseBets())
    deal(dealer, "THB 1", "Ac Ad As 3s 9c 5c 5d Kh 9s 2c")
    act(dealer, "THB 1", exchange=cmd.Exchange(seat=2))
    before = get_table(dealer, "THB 1").banked
    assert list(before.dealer_cards) == ["??"] * 5 and not before.next_card.face_up
    act(dealer, "THB 1", play=cmd.Play(seat=2, amount=20))
    view = get_table(dealer, "THB 1").banked
    assert view.stage == pb.BANKED_STAGE_BANK and list(view.dealer_cards) == ["5c", "5d", "Kh"]
    assert view.next_card.target == pb.CARD_TARGET_BANK and view.next_card.face_up
    assert list(view.boxes[0].cards) == ["??"] * 5
    deal(dealer, "THB 1", "Qd Jh")
    changes = stored_changes(dealer, "THB 1")
    said = [(c.event.WhichOneof("event"), c.event) for c in changes]
    shown = [e.cdp_hand_bank_shown for case, e in said if case == "cdp_hand_bank_shown"]
    assert [list(s.cards) for s in shown] == [["5c", "5d", "Kh", "9s", "2c"]]
    assert [list(e.cdp_hand_bank_exchanged.cards) for case, e in said if case == "cdp_hand_bank_exchanged"] == [
        ["9s", "2c"]]
    dealt = [e.cdp_hand_card_dealt for case, e in said if case == "cdp_hand_card_dealt"]
    assert [(d.box, d.card, d.face_up) for d in dealt[-2:]] == [(0, "Qd", True), (0, "Jh", True)]
    assert {d.card for d in dealt[:-2]} == {"??"}
    assert get_table(dealer, "THB 1").banked.bank_result == -10  # pair of fives: not qualified, the ante paid (R-CDP-5)


def test_the_pit_configures_corrects_and_closes_a_table_between_hands(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    bigger = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[5, 10], no_burns=True)
    with pytest.raises(grpc.RpcError) as error:
        dealer.ConfigureTable(svc.ConfigureTableRequest(command_id=dealer.next_id(), table="Mesa 1", settings=bigger))
    assert error.value.code() == grpc.StatusCode.PERMISSION_DENIED
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    with pytest.raises(grpc.RpcError) as error:  # R-CIRC-5: a table's game and its kind of settings never change
        pit.ConfigureTable(svc.ConfigureTableRequest(command_id=pit.next_id(), table="THB 1", settings=bigger))
    assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(error.value) == "R-CIRC-5"
    fixed = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, blinds=[5, 10])
    with pytest.raises(grpc.RpcError) as error:  # the table's game stays; its settings must suit it
        pit.ConfigureTable(svc.ConfigureTableRequest(command_id=pit.next_id(), table="Mesa 1", settings=fixed))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT and violations(error.value) == ["settings.small_bet"]
    pit.ConfigureTable(svc.ConfigureTableRequest(command_id=pit.next_id(), table="Mesa 1", settings=bigger))
    pit.CorrectStack(svc.CorrectStackRequest(command_id=pit.next_id(), table="Mesa 1", seat=2, chips=150,
                                             reason="chips miscounted at the buy-in"))
    start(dealer, "Mesa 1")
    view = get_table(dealer)
    assert view.circle.pot == 15 and {p.seat: p.stack + p.put_in for p in view.circle.players}[2] == 150
    with pytest.raises(grpc.RpcError) as error:
        pit.CloseTable(svc.CloseTableRequest(command_id=pit.next_id(), table="Mesa 1"))
    assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # not during a hand
    act(pit, "Mesa 1", void=cmd.Void(rule="R-DECK-1", reason="a card missing from the deck"))
    pit.CloseTable(svc.CloseTableRequest(command_id=pit.next_id(), table="Mesa 1"))
    assert get_table(dealer).circle.closed
    with pytest.raises(grpc.RpcError) as error:
        start(dealer, "Mesa 1")
    assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION
