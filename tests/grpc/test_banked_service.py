"""The banked games' irregularities and decisions through the gRPC service (a real server on a free port) and the
dealer station (``pokertable station --banked``): R-THB-10, R-THB-11 (a, d, 1.c), R-THB-12, R-CDP-5."""

from __future__ import annotations

import io
from typing import Any, cast

import grpc
import pytest
from google.protobuf.message import Message

from devices.protocol import Colour
from devices.simulators import ShoeSimulator, ShufflerSimulator
from service.api import commands_pb2 as cmd
from service.api import events_pb2 as ev
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.station.hardware import HardwareStation
from service.station.reference import Station, execute, run_lines
from tests.support import grpc_support
from tests.support.app_tables import banked_table
from tests.support.grpc_support import TOKENS, Client, act, rule_of, violations
from tests.support.hardware_service import draw_and_wait, service

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite (sole writer) and PostgreSQL."""
__all__ = ["port", "service"]  # the servers: on SQLite (sole writer) and PostgreSQL; with the station's devices

TABLE = "THB 1"  # the table of the "thb-1" dealer station


def banked(client: Client, table: str = TABLE, **one_command: Any) -> svc.ActResponse:
    """One ``Act`` command at the banked table (a box is a ``seat``)."""
    return act(client, table, **one_command)


def view(client: Client, table: str = TABLE) -> pb.TableView:
    """The banked table as the client may see it (the common fields; ``.banked`` the detail)."""
    reply: svc.GetTableResponse = client.GetTable(svc.GetTableRequest(table=table))
    assert reply.view.WhichOneof("detail") == "banked", reply.view
    return reply.view


def open_thb(port: int, **settings: Any) -> tuple[Client, Client, Client]:
    pit, dealer, director = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"]), Client(port, TOKENS["director"])
    grpc_support.open_banked(pit, TABLE, pb.GAME_HOLDEM_BONUS, ante_min=5, **settings)
    return pit, dealer, director


def start(dealer: Client, antes: dict[int, int], bonuses: dict[int, int] | None = None,
          colour: pb.DeckColour = pb.DECK_COLOUR_RED) -> None:
    grpc_support.start(dealer, TABLE, colour)
    for box, amount in antes.items():
        banked(dealer, ante=cmd.Ante(seat=box, amount=amount))
    for box, amount in (bonuses or {}).items():
        banked(dealer, bonus=cmd.Bonus(seat=box, amount=amount))
    banked(dealer, close_bets=cmd.CloseBets())


def deal(dealer: Client, cards: str, table: str = TABLE) -> svc.ActResponse:
    reply = svc.ActResponse()
    for card in cards.split():
        reply = banked(dealer, table, deal=cmd.Deal(card=card))
    return reply


def events(pit: Client, number: int) -> list[tuple[str, Message]]:
    """The hand's events as the pit boss's reconstruction streams them: (TableEvent case, its message)."""
    request = svc.ReconstructHandRequest(command_id=pit.next_id(), table=TABLE, hand_number=number,
                                         reason="inspection")
    found = []
    for step in pit.ReconstructHand(request):
        case = str(step.event.WhichOneof("event"))
        found.append((case, getattr(step.event, case)))
    return found


def to_the_river_decisions(dealer: Client) -> None:
    start(dealer, {1: 10, 2: 10}, {1: 5})
    deal(dealer, "As Kd 2c Ad Kc 3c")
    banked(dealer, flop_bet=cmd.FlopBet(seat=1, amount=20))
    banked(dealer, flop_bet=cmd.FlopBet(seat=2, amount=20))
    deal(dealer, "4h 7h 8s 9d")
    banked(dealer, check=cmd.Check(seat=1))
    banked(dealer, check=cmd.Check(seat=2))
    deal(dealer, "5h Jd")


def test_r_thb_11a_over_the_api_a_dealer_card_shown_voids_before_the_last_decision_and_counts_after_it(
    port: int,
) -> None:
    pit, dealer, _ = open_thb(port)
    to_the_river_decisions(dealer)
    banked(dealer, bet=cmd.Bet(seat=1, amount=10))
    reply = banked(dealer, dealer_card_shown=cmd.DealerCardShown())  # box 2 has still to decide the river
    assert reply.result.hand_complete
    table = view(dealer)
    assert not table.hand_in_progress and table.banked.bank_result == 0  # every bet returned
    voided = ev.ThbHandVoided(rule="R-THB-11", reason="a dealer card was shown before the decisions", reshuffle=False)
    assert ("thb_hand_voided", voided) in events(pit, 1)

    to_the_river_decisions(dealer)
    banked(dealer, bet=cmd.Bet(seat=1, amount=10))
    banked(dealer, check=cmd.Check(seat=2))
    reply = banked(dealer, dealer_card_shown=cmd.DealerCardShown())  # after the last decision: it counts
    assert not reply.result.hand_complete and view(dealer).banked.stage == pb.BANKED_STAGE_DEALING
    assert deal(dealer, "6c Qs").result.hand_complete
    assert view(dealer).banked.bank_result == -(20 + 10 + 150 + 20)  # box 1: flop, river, bonus 30:1; box 2: flop
    recorded = [name for name, _ in events(pit, 2)]
    assert "thb_hand_dealer_card_shown" in recorded and "thb_hand_voided" not in recorded


def test_r_thb_11_1c_over_the_api_the_pit_voids_the_whole_play_with_the_rule_and_the_reason(port: int) -> None:
    pit, dealer, _ = open_thb(port)
    start(dealer, {1: 10, 3: 20}, {3: 5})
    deal(dealer, "As 9c 2c")
    with pytest.raises(grpc.RpcError) as refused:
        banked(dealer, void=cmd.Void(rule="R-THB-11", reason="box 3's card turned face up"))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as refused:
        banked(pit, void=cmd.Void(rule="R-THB-11"))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused.value) == "R-AUD-1"
    reply = banked(pit, void=cmd.Void(rule="R-THB-11", reason="box 3's card turned face up"))
    assert reply.result.hand_complete
    table = view(dealer)
    assert not table.hand_in_progress and table.banked.bank_result == 0
    assert not table.banked.HasField("reshuffle_required")
    assert events(pit, 1)[-1] == ("thb_hand_voided", ev.ThbHandVoided(rule="R-THB-11",
                                                                      reason="box 3's card turned face up"))
    start(dealer, {1: 10})  # the next hand starts as usual


def test_r_thb_11d_over_the_api_a_box_void_and_the_full_reshuffle_before_the_next_hand(port: int) -> None:
    pit, dealer, _ = open_thb(port)
    start(dealer, {1: 10, 2: 10}, {2: 5})
    deal(dealer, "As Ks 2c")
    banked(dealer, wrong_count=cmd.WrongCount(seat=2))
    deal(dealer, "Ad 3c")
    assert view(dealer).banked.to_decide == 1 and [b.seat for b in view(dealer).banked.boxes] == [1, 2]
    assert banked(dealer, fold=cmd.Fold(seat=1)).result.hand_complete
    table = view(dealer)
    assert table.banked.reshuffle_required == pb.DECK_COLOUR_RED and table.banked.bank_result == 10  # box 2's back
    request = svc.StartHandRequest(command_id="refused-start", table=TABLE, deck_colour=pb.DECK_COLOUR_BLUE)
    with pytest.raises(grpc.RpcError) as refused:
        dealer.StartHand(request)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused.value) == "R-THB-11"
    dealer.RecordDeviceReport(_shuffled("blue-shuffle", pb.DECK_COLOUR_BLUE))
    assert view(dealer).banked.reshuffle_required == pb.DECK_COLOUR_RED  # the other deck's shuffle is not this one's
    dealer.RecordDeviceReport(_shuffled("red-shuffle", pb.DECK_COLOUR_RED))
    assert not view(dealer).banked.HasField("reshuffle_required")
    dealer.StartHand(svc.StartHandRequest(command_id="started", table=TABLE, deck_colour=pb.DECK_COLOUR_BLUE))
    voided = [message for name, message in events(pit, 1) if name == "thb_hand_box_voided"]
    assert voided == [ev.ThbHandBoxVoided(box=2, rule="R-THB-11", reshuffle=True)]


def _shuffled(command_id: str, colour: pb.DeckColour) -> svc.RecordDeviceReportRequest:
    return svc.RecordDeviceReportRequest(command_id=command_id, table=TABLE, device="shuffler", serial="SN-1",
                                         kind=pb.DEVICE_REPORT_KIND_SHUFFLE, colour=colour, result="deck ready")


def test_r_thb_11_over_the_station_the_pit_voids_and_the_croupier_records_the_reshuffle(port: int) -> None:
    """The dealer station (``pokertable station --banked``) drives the table; the pit boss's station voids."""
    open_thb(port)
    address = f"127.0.0.1:{port}"
    dealer, pit = Station(address, TOKENS["thb"]), Station(address, TOKENS["pit"])
    try:
        out = io.StringIO()
        script = ["start red", "ante 1 10", "ante 2 10", "bonus 2 5", "close-bets", "deal As", "deal Ks",
                  "wrong-count 2", "deal 2c", "deal Ad", "deal 3c", "fold 1", "start blue"]
        assert run_lines(dealer, TABLE, script, out, prompt=False, banked=True) == 1  # the last start is refused
        text = out.getvalue()
        assert "RESHUFFLE the red deck" in text and "refused: FAILED_PRECONDITION" in text and "R-THB-11" in text
        out = io.StringIO()
        script = ["reshuffle", "start blue", "ante 1 10", "close-bets", "deal 7h"]
        assert run_lines(dealer, TABLE, script, out, prompt=False, banked=True) == 0
        assert "box 1  ante 10" in out.getvalue()
        out = io.StringIO()
        assert run_lines(dealer, TABLE, ["void R-THB-11 box 1 was dealt a card face up"], out, prompt=False,
                         banked=True) == 1
        assert "PERMISSION_DENIED" in out.getvalue()
        out = io.StringIO()
        assert run_lines(pit, TABLE, ["void R-THB-11 box 1 was dealt a card face up"], out, prompt=False,
                         banked=True) == 0
        assert "hands 2" in out.getvalue() and "between hands" in out.getvalue()
    finally:
        dealer.close()
        pit.close()


def test_r_thb_10_over_the_api_a_refusal_returns_the_stake_and_records_who_and_why(port: int) -> None:
    pit, dealer, director = open_thb(port)
    start(dealer, {1: 10}, {1: 2})
    deal(dealer, "As Ac Ad Ah")
    reply = banked(dealer, fold=cmd.Fold(seat=1))
    assert not reply.result.hand_complete and view(dealer).banked.stage == pb.BANKED_STAGE_APPROVAL
    with pytest.raises(grpc.RpcError) as refused:
        banked(director, refuse_bonus=cmd.RefuseBonus(seat=1))  # no reason given
    assert rule_of(refused.value) == "R-THB-10"
    assert banked(director, refuse_bonus=cmd.RefuseBonus(seat=1, reason="the cards are under review")) \
        .result.hand_complete
    assert view(dealer).banked.bank_result == 10  # the folded ante is lost; the bonus stake came back
    refusal = [message for name, message in events(pit, 1) if name == "thb_hand_bonus_refused"]
    assert refusal == [ev.ThbHandBonusRefused(box=1, director="dj", reason="the cards are under review")]


def test_r_thb_12_over_the_api_the_croupiers_cards_are_turned_for_an_aces_bonus_and_a_setting_says_otherwise(
    port: int,
) -> None:
    pit, dealer, director = open_thb(port)
    start(dealer, {1: 10}, {1: 2})
    deal(dealer, "As Ac Ad Ah")
    banked(dealer, fold=cmd.Fold(seat=1))  # nobody plays; the A-A bonus is in action
    assert list(view(dealer).banked.dealer_cards) == ["Ac", "Ah"]  # turned for the bonus, shown once settled
    banked(director, approve_bonus=cmd.ApproveBonus(seat=1, reason="cards and camera checked"))
    assert view(dealer).banked.bank_result == 10 - 2000
    assert "thb_hand_dealer_cards_turned_for_bonus" in [name for name, _ in events(pit, 1)]

    grpc_support.open_banked(pit, "THB 2", pb.GAME_HOLDEM_BONUS, ante_min=5, turn_dealer_cards_for_aces=False,
                             refused_bonus=pb.REFUSED_BONUS_ACES)
    grpc_support.start(pit, "THB 2")
    banked(pit, "THB 2", ante=cmd.Ante(seat=1, amount=10))
    banked(pit, "THB 2", bonus=cmd.Bonus(seat=1, amount=2))
    banked(pit, "THB 2", close_bets=cmd.CloseBets())
    deal(pit, "As Ac Ad Ah", "THB 2")
    reply = banked(pit, "THB 2", fold=cmd.Fold(seat=1))
    assert reply.result.hand_complete  # unseen: the aces pay 30:1 and no approval is needed
    assert view(pit, "THB 2").banked.bank_result == 10 - 60


UNKNOWN = 9
"""An enum value the contract does not define (a newer client's, or a forged one)."""


def test_r_cdp_5_over_the_api_the_play_bets_of_a_bank_not_qualifying_and_the_settings_checked(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"])
    bad_settings: list[tuple[dict[str, Any], str]] = [
        ({"unqualified_play_bet": cast(pb.UnqualifiedPlayBet, UNKNOWN)}, "R-CDP-5"),
        ({"house_way": cast(pb.HouseWay, UNKNOWN)}, "R-CDP-4")]
    for bad, rule in bad_settings:
        with pytest.raises(grpc.RpcError) as refused:
            grpc_support.open_banked(pit, TABLE, pb.GAME_CASINO_DRAW, ante_min=5, ante_max=100, **bad)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and rule_of(refused.value) == rule
        assert violations(refused.value) == [f"casino_draw.{next(iter(bad))}"]
    with pytest.raises(grpc.RpcError) as refused:
        grpc_support.open_banked(pit, "THB 9", pb.GAME_HOLDEM_BONUS, ante_min=5,
                                 refused_bonus=cast(pb.RefusedBonus, UNKNOWN))
    assert rule_of(refused.value) == "R-THB-10"
    assert violations(refused.value) == ["holdem_bonus.refused_bonus"]
    grpc_support.open_banked(pit, TABLE, pb.GAME_CASINO_DRAW, ante_min=5, ante_max=100,
                             unqualified_play_bet=pb.UNQUALIFIED_PLAY_BET_PAID)
    dealer.StartHand(svc.StartHandRequest(command_id="cdp-1", table=TABLE))
    banked(dealer, ante=cmd.Ante(seat=1, amount=10))
    banked(dealer, ante=cmd.Ante(seat=2, amount=10))
    banked(dealer, close_bets=cmd.CloseBets())
    deal(dealer, "2c Ac 7d Ad 9h 5h Js 5s Kc Qc 3c 4d 6h 8s Td")
    banked(dealer, exchange=cmd.Exchange(seat=1))
    banked(dealer, exchange=cmd.Exchange(seat=2))
    banked(dealer, play=cmd.Play(seat=1, amount=20))
    banked(dealer, fold=cmd.Fold(seat=2))
    assert deal(dealer, "2h 5d").result.hand_complete  # the house way changed two; still no pair of eights
    assert view(dealer).banked.bank_result == 10 - (10 + 20)  # the ante 1:1 and, by this table's setting, the play
    with pytest.raises(grpc.RpcError) as refused:
        banked(dealer, reshuffle=cmd.Reshuffle())
    assert rule_of(refused.value) == "R-THB-11"  # no reshuffle is required here


def test_r_thb_11d_with_a_shoe_and_a_shuffler_the_station_reshuffles_the_irregular_deck_through_the_shuffler(
    service: tuple[PokerTables, str],
) -> None:
    """The hardware station: the next hand is refused and the deck alternation kept until the shuffler's reshuffle
    of the red deck is recorded; then the blue deck deals as R-DECK-2 wants."""
    app, address = service
    pit, dealer = Station(address, "hw-pit-boss-token-0000001"), Station(address, "hw-dealer-token-000000004")
    pit.call("OpenTable", svc.OpenTableRequest(command_id="open-thb-hw", table="THB HW", game=pb.GAME_HOLDEM_BONUS,
                                               holdem_bonus=pb.HoldemBonusSettings(ante_min=5)))
    shoe, shuffler = ShoeSimulator(seed=31), ShufflerSimulator(seed=32)
    hardware = HardwareStation(dealer, "THB HW", shoe.url, shuffler.url, banked=True, show=lambda message: None)
    try:
        shoe.hello()
        shuffler.hello()
        shoe.load(hardware.start_hand())
        for line in ("ante 1 10", "ante 3 10", "close-bets"):
            execute(dealer, "THB HW", line, hardware, banked=True)
        draw_and_wait(shoe, hardware)
        execute(dealer, "THB HW", "wrong-count 3", hardware, banked=True)
        while (table := dealer.table("THB HW")).hand_in_progress:
            if table.banked.HasField("next_card"):
                draw_and_wait(shoe, hardware)
            else:
                execute(dealer, "THB HW", f"fold {table.banked.to_decide}", hardware, banked=True)
        assert table.banked.reshuffle_required == pb.DECK_COLOUR_RED
        with pytest.raises(grpc.RpcError) as refused:
            hardware.start_hand()
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and hardware.hands == 1
        assert "between hands" in str(execute(dealer, "THB HW", "reshuffle", hardware, banked=True))
        assert banked_table(app, "THB HW").reshuffle_pending is None
        assert hardware.start_hand() is Colour.BLUE and hardware.refused == []
    finally:
        hardware.close()
        shoe.close()
        shuffler.close()
        pit.close()
        dealer.close()
