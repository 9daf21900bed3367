"""The banked games' irregularities and decisions through the gRPC service (a real server on a free port) and the
dealer station (``pokertable station --banked``): R-THB-10, R-THB-11 (a, d, 1.c), R-THB-12, R-CDP-5."""

from __future__ import annotations

import io
import json
from typing import Any

import grpc
import pytest

from devices.protocol import Colour
from devices.simulators import ShoeSimulator, ShufflerSimulator
from service.api import pokertable_pb2 as pb
from service.app.application import PokerTables
from service.station.hardware import HardwareStation
from service.station.reference import Station, execute, run_lines
from tests.test_grpc_service import TOKENS, Client, port, rule_of
from tests.test_hardware_station import draw_and_wait, service

__all__ = ["port", "service"]  # the servers: on SQLite (sole writer) and PostgreSQL; with the station's devices

TABLE = "THB 1"  # the table of the "thb-1" dealer station


def banked(client: Client, action: str, **fields: Any) -> pb.CommandReply:
    reply: pb.CommandReply = client.BankedCommand(
        pb.BankedCommandRequest(command_id=client.next_id(), table=TABLE, action=action, **fields))
    return reply


def view(client: Client) -> pb.BankedTableView:
    table: pb.BankedTableView = client.GetBankedTable(pb.TableRequest(table=TABLE))
    return table


def open_thb(port: int, **settings: Any) -> tuple[Client, Client, Client]:
    pit, dealer, director = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"]), Client(port, TOKENS["director"])
    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id="open", table=TABLE, game="holdem-bonus", ante_min=5,
                                                  **settings))
    return pit, dealer, director


def start(dealer: Client, antes: dict[int, int], bonuses: dict[int, int] | None = None, colour: str = "red") -> None:
    dealer.StartBankedHand(pb.StartHandRequest(command_id=dealer.next_id(), table=TABLE, deck_colour=colour))
    for box, amount in antes.items():
        banked(dealer, "ante", box=box, amount=amount)
    for box, amount in (bonuses or {}).items():
        banked(dealer, "bonus", box=box, amount=amount)
    banked(dealer, "close-bets")


def deal(dealer: Client, cards: str) -> pb.CommandReply:
    reply = pb.CommandReply()
    for card in cards.split():
        reply = banked(dealer, "deal", card=card)
    return reply


def events(pit: Client, number: int) -> list[tuple[str, dict[str, Any]]]:
    """The hand's events as the pit boss's reconstruction streams them."""
    request = pb.ReconstructRequest(command_id=pit.next_id(), table=TABLE, hand_number=number, reason="inspection")
    return [(step.event, json.loads(step.event_json)) for step in pit.ReconstructHand(request)]


def to_the_river_decisions(dealer: Client) -> None:
    start(dealer, {1: 10, 2: 10}, {1: 5})
    deal(dealer, "As Kd 2c Ad Kc 3c")
    banked(dealer, "flop-bet", box=1, amount=20)
    banked(dealer, "flop-bet", box=2, amount=20)
    deal(dealer, "4h 7h 8s 9d")
    banked(dealer, "check", box=1)
    banked(dealer, "check", box=2)
    deal(dealer, "5h Jd")


def test_r_thb_11a_over_the_api_a_dealer_card_shown_voids_before_the_last_decision_and_counts_after_it(
    port: int,
) -> None:
    pit, dealer, _ = open_thb(port)
    to_the_river_decisions(dealer)
    banked(dealer, "bet", box=1, amount=10)
    reply = banked(dealer, "dealer-card-shown")  # box 2 has still to decide the river
    assert reply.hand_complete
    table = view(dealer)
    assert not table.hand_in_progress and table.bank_result == 0  # every bet returned
    assert ("ThbHand.Voided", {"rule": "R-THB-11", "reason": "a dealer card was shown before the decisions",
                               "reshuffle": False}) in events(pit, 1)

    to_the_river_decisions(dealer)
    banked(dealer, "bet", box=1, amount=10)
    banked(dealer, "check", box=2)
    reply = banked(dealer, "dealer-card-shown")  # after the last decision: it counts, play goes on
    assert not reply.hand_complete and view(dealer).stage == "dealing"
    assert deal(dealer, "6c Qs").hand_complete
    assert view(dealer).bank_result == -(20 + 10 + 150 + 20)  # box 1: flop, river, bonus 30:1; box 2: flop
    recorded = [name for name, _ in events(pit, 2)]
    assert "ThbHand.DealerCardShown" in recorded and "ThbHand.Voided" not in recorded


def test_r_thb_11_1c_over_the_api_the_pit_voids_the_whole_play_with_the_rule_and_the_reason(port: int) -> None:
    pit, dealer, _ = open_thb(port)
    start(dealer, {1: 10, 3: 20}, {3: 5})
    deal(dealer, "As 9c 2c")
    with pytest.raises(grpc.RpcError) as refused:
        banked(dealer, "void", rule="R-THB-11", reason="box 3's card turned face up")
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as refused:
        banked(pit, "void", rule="R-THB-11")
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused.value) == "R-AUD-1"
    reply = banked(pit, "void", rule="R-THB-11", reason="box 3's card turned face up")
    assert reply.hand_complete
    table = view(dealer)
    assert not table.hand_in_progress and table.bank_result == 0 and not table.reshuffle_required
    name, data = events(pit, 1)[-1]
    assert (name, data) == ("ThbHand.Voided", {"rule": "R-THB-11", "reason": "box 3's card turned face up",
                                               "reshuffle": False})
    start(dealer, {1: 10})  # the next hand starts as usual


def test_r_thb_11d_over_the_api_a_box_void_and_the_full_reshuffle_before_the_next_hand(port: int) -> None:
    pit, dealer, _ = open_thb(port)
    start(dealer, {1: 10, 2: 10}, {2: 5})
    deal(dealer, "As Ks 2c")
    banked(dealer, "wrong-count", box=2)
    deal(dealer, "Ad 3c")
    assert view(dealer).to_decide == 1 and [b.box for b in view(dealer).boxes] == [1, 2]
    assert banked(dealer, "fold", box=1).hand_complete
    table = view(dealer)
    assert table.reshuffle_required == "red" and table.bank_result == 10  # box 2's bets came back
    request = pb.StartHandRequest(command_id="refused-start", table=TABLE, deck_colour="blue")
    with pytest.raises(grpc.RpcError) as refused:
        dealer.StartBankedHand(request)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(refused.value) == "R-THB-11"
    other = pb.DeviceReportRequest(command_id="blue-shuffle", table=TABLE, device="shuffler", serial="SN-1",
                                   kind="shuffle", colour="blue", result="deck ready")
    dealer.RecordDeviceReport(other)
    assert view(dealer).reshuffle_required == "red"  # the other deck's shuffle is not this deck's reshuffle
    dealer.RecordDeviceReport(pb.DeviceReportRequest(command_id="red-shuffle", table=TABLE, device="shuffler",
                                                     serial="SN-1", kind="shuffle", colour="red", result="deck ready"))
    assert view(dealer).reshuffle_required == ""
    dealer.StartBankedHand(pb.StartHandRequest(command_id="started", table=TABLE, deck_colour="blue"))
    voided = [data for name, data in events(pit, 1) if name == "ThbHand.BoxVoided"]
    assert voided == [{"box": 2, "rule": "R-THB-11", "reshuffle": True}]


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
    reply = banked(dealer, "fold", box=1)
    assert not reply.hand_complete and view(dealer).stage == "approval"
    with pytest.raises(grpc.RpcError) as refused:
        banked(director, "refuse", box=1)
    assert rule_of(refused.value) == "R-THB-10"
    assert banked(director, "refuse", box=1, reason="the cards are under review").hand_complete
    assert view(dealer).bank_result == 10  # the folded ante is lost; the bonus stake came back
    refusal = [data for name, data in events(pit, 1) if name == "ThbHand.BonusRefused"]
    assert refusal == [{"box": 1, "director": "dj", "reason": "the cards are under review"}]


def test_r_thb_12_over_the_api_the_croupiers_cards_are_turned_for_an_aces_bonus_and_a_setting_says_otherwise(
    port: int,
) -> None:
    pit, dealer, director = open_thb(port)
    start(dealer, {1: 10}, {1: 2})
    deal(dealer, "As Ac Ad Ah")
    banked(dealer, "fold", box=1)  # nobody plays; the A-A bonus is in action
    assert list(view(dealer).dealer) == ["Ac", "Ah"]  # turned for the bonus, shown once the boxes are settled
    banked(director, "approve", box=1)
    assert view(dealer).bank_result == 10 - 2000
    assert "ThbHand.DealerCardsTurnedForBonus" in [name for name, _ in events(pit, 1)]

    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id="open-2", table="THB 2", game="holdem-bonus",
                                                  ante_min=5, turn_dealer_cards_for_aces=False, refused_bonus="aces"))
    pit.StartBankedHand(pb.StartHandRequest(command_id="s-2", table="THB 2"))
    commands: list[tuple[str, dict[str, Any]]] = [
        ("ante", {"box": 1, "amount": 10}), ("bonus", {"box": 1, "amount": 2}), ("close-bets", {}),
        *(("deal", {"card": c}) for c in ("As", "Ac", "Ad", "Ah")), ("fold", {"box": 1})]
    for action, fields in commands:
        reply = pit.BankedCommand(pb.BankedCommandRequest(command_id=pit.next_id(), table="THB 2", action=action,
                                                          **fields))
    assert reply.hand_complete  # unseen: the aces pay 30:1 and no approval is needed
    assert pit.GetBankedTable(pb.TableRequest(table="THB 2")).bank_result == 10 - 60


def test_r_cdp_5_over_the_api_the_play_bets_of_a_bank_not_qualifying_and_the_settings_checked(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"])
    bad_settings: list[tuple[dict[str, Any], str]] = [({"unqualified_play_bet": "lost"}, "R-CDP-5"),
                                                      ({"house_way": "mine"}, "R-CDP-4")]
    for bad, rule in bad_settings:
        with pytest.raises(grpc.RpcError) as refused:
            pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id=pit.next_id(), table=TABLE, game="casino-draw",
                                                          ante_min=5, ante_max=100, **bad))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and rule_of(refused.value) == rule
    with pytest.raises(grpc.RpcError) as refused:
        pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id=pit.next_id(), table="THB 9", game="holdem-bonus",
                                                      ante_min=5, refused_bonus="lost"))
    assert rule_of(refused.value) == "R-THB-10"
    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id="open-cdp", table=TABLE, game="casino-draw", ante_min=5,
                                                  ante_max=100, unqualified_play_bet="paid"))
    dealer.StartBankedHand(pb.StartHandRequest(command_id="cdp-1", table=TABLE))
    banked(dealer, "ante", box=1, amount=10)
    banked(dealer, "ante", box=2, amount=10)
    banked(dealer, "close-bets")
    deal(dealer, "2c Ac 7d Ad 9h 5h Js 5s Kc Qc 3c 4d 6h 8s Td")
    banked(dealer, "exchange", box=1)
    banked(dealer, "exchange", box=2)
    banked(dealer, "play", box=1, amount=20)
    banked(dealer, "fold", box=2)
    assert deal(dealer, "2h 5d").hand_complete  # the house way changed two; still no pair of eights
    assert view(dealer).bank_result == 10 - (10 + 20)  # the ante 1:1 and, by this table's setting, the play 1:1
    with pytest.raises(grpc.RpcError) as refused:
        banked(dealer, "reshuffle")
    assert rule_of(refused.value) == "R-THB-11"  # no reshuffle is required here


def test_r_thb_11d_with_a_shoe_and_a_shuffler_the_station_reshuffles_the_irregular_deck_through_the_shuffler(
    service: tuple[PokerTables, str],
) -> None:
    """The hardware station: the next hand is refused and the deck alternation kept until the shuffler's reshuffle
    of the red deck is recorded; then the blue deck deals as R-DECK-2 wants."""
    app, address = service
    pit, dealer = Station(address, "hw-pit-boss-token-0000001"), Station(address, "hw-dealer-token-000000004")
    pit.call("OpenBankedTable", pb.OpenBankedTableRequest(command_id="open-thb-hw", table="THB HW",
                                                          game="holdem-bonus", ante_min=5))
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
        while (view := dealer.call("GetBankedTable", pb.TableRequest(table="THB HW"))).hand_in_progress:
            if view.next_card:
                draw_and_wait(shoe, hardware)
            else:
                execute(dealer, "THB HW", f"fold {view.to_decide}", hardware, banked=True)
        assert view.reshuffle_required == "red"
        with pytest.raises(grpc.RpcError) as refused:
            hardware.start_hand()
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and hardware.hands == 1
        assert "between hands" in str(execute(dealer, "THB HW", "reshuffle", hardware, banked=True))
        assert app.banked_table("THB HW").reshuffle_pending is None
        assert hardware.start_hand() is Colour.BLUE and hardware.refused == []
    finally:
        hardware.close()
        shoe.close()
        shuffler.close()
        pit.close()
        dealer.close()
