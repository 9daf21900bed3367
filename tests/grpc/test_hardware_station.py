"""Hands played through a real service and the hardware-aware station, every card from the simulated shoe over a
real pseudo-terminal, the shuffler preparing the other deck, the decks alternating red and blue (R-DECK-2)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from devices.protocol import Colour, ShoeFaultCode
from devices.simulators import ShoeSimulator, ShufflerSimulator
from domain.banked.thb import ThbHand
from domain.cards.cards import Card
from domain.circle.hand import Hand
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.access import Role, Viewer
from service.app.application import PokerTables
from service.app.commands import AcknowledgeAlert
from service.station.client import card_due
from service.station.hardware import HardwareStation
from service.station.reference import Station, execute
from service.store.persistence import environment
from tests.support.grpc_support import served
from tests.support.hardware_service import STATIONS, draw_and_wait
from tests.support.hardware_service import service as service  # noqa: PLC0414  (a fixture)


def open_holdem(pit: Station, dealer: Station, command: str, chips: int, seats: tuple[int, ...] = (1, 2, 3), *,
                burns: bool = True) -> None:
    """Mesa HW: no-limit Hold'em 1/2 (without burns unless ``burns``), players seated with ``chips``."""
    settings = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2], no_burns=not burns)
    pit.call("OpenTable", svc.OpenTableRequest(command_id=command, table="Mesa HW", game=pb.GAME_HOLDEM,
                                               circle=settings))
    for seat in seats:
        dealer.call("SeatPlayer", svc.SeatPlayerRequest(command_id=f"{command}-sit-{seat}", table="Mesa HW",
                                                        seat=seat, chips=chips))


def passive(dealer: Station, table: str, legal: svc.GetLegalActionsResponse) -> None:
    """The seat to act checks, or calls, or (at the showdown) shows."""
    allowed = set(legal.allowed)
    verb = "check" if pb.ACTION_KIND_CHECK in allowed else "call" if pb.ACTION_KIND_CALL in allowed else "show"
    dealer.act(table, verb, seat=legal.seat)


def test_holdem_hands_with_every_card_from_the_shoe_and_alternating_decks(service: tuple[PokerTables, str]) -> None:
    app, address = service
    pit, dealer = Station(address, "hw-pit-boss-token-0000001"), Station(address, "hw-dealer-token-000000003")
    open_holdem(pit, dealer, "open-hw", 500)
    shoe, shuffler = ShoeSimulator(seed=11), ShufflerSimulator(seed=12)
    hardware = HardwareStation(dealer, "Mesa HW", shoe.url, shuffler.url, show=lambda message: None)
    try:
        shoe.hello()
        shuffler.hello()
        for _ in range(3):
            colour = hardware.start_hand()
            shoe.load(colour)
            while (view := dealer.table("Mesa HW")).hand_in_progress:
                if card_due(view):
                    draw_and_wait(shoe, hardware)
                elif (legal := dealer.legal("Mesa HW")).HasField("seat"):
                    passive(dealer, "Mesa HW", legal)
                else:
                    seat = next(p.seat for p in view.circle.players if not p.folded and not all(p.face_up))
                    dealer.act("Mesa HW", "show", seat=seat)
        assert hardware.refused == [] and hardware.irregularities == []
        record = app.table("Mesa HW")
        colours, sequences = [], []
        for hand_id in app.hands_of("Mesa HW"):
            events = list(app.events.get(hand_id))
            colours.append(vars(events[0])["deck"]["colour"])
            dealt = [e for e in events if isinstance(e, Hand.CardDealt)]
            assert dealt and all(e.source == "shoe" for e in dealt)
            sequences.append([e.sequence or 0 for e in dealt])
        assert colours == ["red", "blue", "red"]
        assert all(seq == list(range(seq[0], seq[0] + len(seq))) for seq in sequences)  # no read lost or repeated
        # for each hand: the delivery of its deck, and a shuffle and a deck check of the other deck
        assert record.device_reports == 11  # the first deck shuffled and checked before its delivery too
        assert sum(record.stacks.values()) == 1500
    finally:
        hardware.close()
        shoe.close()
        shuffler.close()


def test_texas_holdem_bonus_hands_with_every_card_from_the_shoe(service: tuple[PokerTables, str]) -> None:
    app, address = service
    pit, dealer = Station(address, "hw-pit-boss-token-0000001"), Station(address, "hw-dealer-token-000000004")
    director = Station(address, "hw-director-token-0000002")
    pit.call("OpenTable", svc.OpenTableRequest(command_id="open-thb-hw", table="THB HW", game=pb.GAME_HOLDEM_BONUS,
                                               holdem_bonus=pb.HoldemBonusSettings(ante_min=5)))
    shoe = ShoeSimulator(seed=21)
    hardware = HardwareStation(dealer, "THB HW", shoe.url, banked=True, show=lambda message: None)
    try:
        shoe.hello()
        for _ in range(3):
            colour = hardware.start_hand()
            shoe.load(colour)
            dealer.act("THB HW", "ante", seat=1, amount=10)
            dealer.act("THB HW", "ante", seat=3, amount=10)
            dealer.act("THB HW", "bonus", seat=3, amount=5)
            dealer.act("THB HW", "close-bets")
            while (view := dealer.table("THB HW")).hand_in_progress:
                if card_due(view):
                    draw_and_wait(shoe, hardware)
                elif view.banked.stage == pb.BANKED_STAGE_APPROVAL:
                    director.act("THB HW", "approve-bonus", seat=3)
                elif view.banked.stage == pb.BANKED_STAGE_PREFLOP:
                    dealer.act("THB HW", "flop-bet", seat=view.banked.to_decide, amount=20)
                else:
                    dealer.act("THB HW", "check", seat=view.banked.to_decide)
        assert hardware.refused == [] and hardware.irregularities == []
        table = app.any_table("THB HW")
        hands = [table.hand_id(n) for n in range(1, 4)]
        colours = [vars(next(iter(app.events.get(h))))["deck"]["colour"] for h in hands]
        assert colours == ["red", "blue", "red"]
        for hand_id in hands:
            dealt = [e for e in app.events.get(hand_id) if isinstance(e, ThbHand.CardDealt)]
            assert len(dealt) == 2 * 2 + 2 + 3 + 5 and all(e.source == "shoe" for e in dealt)
    finally:
        hardware.close()
        shoe.close()


def test_the_service_refuses_a_read_while_no_card_is_due(service: tuple[PokerTables, str]) -> None:
    _, address = service
    pit, dealer = Station(address, "hw-pit-boss-token-0000001"), Station(address, "hw-dealer-token-000000003")
    open_holdem(pit, dealer, "open-hw2", 100, (1, 2), burns=False)
    shoe = ShoeSimulator(seed=5)
    hardware = HardwareStation(dealer, "Mesa HW", shoe.url, show=lambda message: None)
    try:
        hardware.start_hand()
        shoe.load(Colour.RED)
        for _ in range(4):
            draw_and_wait(shoe, hardware)
        draw_and_wait(shoe, hardware)  # the betting is open: no card is due
        assert len(hardware.dealt) == 4 and len(hardware.refused) == 1
        assert "FAILED_PRECONDITION" in hardware.refused[0] and "R-CIRC-2" in hardware.refused[0]
    finally:
        hardware.close()
        shoe.close()


def _open_holdem(address: str, command: str) -> Station:
    pit, dealer = Station(address, "hw-pit-boss-token-0000001"), Station(address, "hw-dealer-token-000000003")
    open_holdem(pit, dealer, command, 100, burns=False)
    return dealer


def _shoe_deals(app: PokerTables) -> list[tuple[str, int | None]]:
    (hand_id,) = app.hands_of("Mesa HW")
    return [(str(e.card), e.sequence) for e in app.events.get(hand_id) if isinstance(e, Hand.CardDealt)]


def test_a_shoe_irregularity_is_shown_and_recorded_at_the_table(service: tuple[PokerTables, str]) -> None:
    app, address = service
    dealer = _open_holdem(address, "open-hw3")
    shoe = ShoeSimulator(seed=8)
    shown: list[str] = []
    hardware = HardwareStation(dealer, "Mesa HW", shoe.url, show=shown.append)
    try:
        shoe.hello()
        hardware.start_hand()  # the red deck is in play
        shoe.load(Colour.RED)
        draw_and_wait(shoe, hardware)
        shoe.load(Colour.BLUE)  # a card of the other deck turns up in the shoe
        draw_and_wait(shoe, hardware)
        assert len(hardware.dealt) == 1 and [i.rule for i in hardware.irregularities] == ["R-DECK-4"]
        assert any("R-DECK-4" in line for line in shown)
        reports = [vars(e) for e in app.events.get(app.table("Mesa HW").id) if type(e).__name__ == "DeviceReported"]
        assert [(r["kind"], r["colour"], r["serial"]) for r in reports] == [("fault", "red", "SHOE-0001")]
        assert "R-DECK-4" in reports[0]["result"] and "read 2" in reports[0]["result"]
        assert len(_shoe_deals(app)) == 1  # the foreign card was never dealt
    finally:
        hardware.close()
        shoe.close()


def test_reads_during_a_service_loss_are_held_shown_and_reconciled_by_sequence(tmp_path: Path) -> None:
    """The service goes away mid-deal: nothing is dealt or lost meanwhile; back, the held reads are sent in order,
    and a read the service had already stored (its answer lost) is recognised, not dealt twice."""
    app = PokerTables(env=environment(f"sqlite:///{tmp_path / 'loss.db'}"))
    servers = contextlib.ExitStack()  # the suite's one harness (grpc_support.served), stopped and started again
    first = servers.enter_context(served(app, STATIONS))
    port = first.port
    dealer = _open_holdem(f"127.0.0.1:{port}", "open-hw4")
    shoe = ShoeSimulator(seed=9)
    shown: list[str] = []
    hardware = HardwareStation(dealer, "Mesa HW", shoe.url, show=shown.append, retry_seconds=0.1)
    try:
        shoe.hello()
        hardware.start_hand()
        shoe.load(Colour.RED)
        for _ in range(2):
            draw_and_wait(shoe, hardware)
        first.stop(0).result(timeout=10)
        drawn = [str(shoe.draw()) for _ in range(3)]
        assert hardware.wait(lambda: len(hardware.held) == 3)
        assert [card for card, _ in hardware.held] == drawn and [seq for _, seq in hardware.held] == [3, 4, 5]
        assert len(_shoe_deals(app)) == 2 and any("service lost" in line for line in shown)
        panel = execute(dealer, "Mesa HW", "devices", hardware) or ""
        assert f"SERVICE LOST: 3 held, not dealt: {drawn[0]}#3" in panel
        servers.enter_context(served(app, STATIONS, f"127.0.0.1:{port}"))
        assert hardware.wait(lambda: not hardware.held, timeout=10)
        assert any("reconciled" in line for line in shown)
        deals = _shoe_deals(app)
        assert [seq for _, seq in deals] == [1, 2, 3, 4, 5] and [card for card, _ in deals[2:]] == drawn
        hardware.held.append(hardware.dealt[-1])  # read 5 again, as if its answer had been lost
        assert hardware.reconcile() and _shoe_deals(app) == deals and hardware.refused == []
        draw_and_wait(shoe, hardware)
        assert [seq for _, seq in _shoe_deals(app)] == [1, 2, 3, 4, 5, 6]
    finally:
        hardware.close()
        shoe.close()
        servers.close()


def test_shuffler_jam_miscount_and_corrupt_shoe_frames_are_shown_and_recorded(
    service: tuple[PokerTables, str]
) -> None:
    app, address = service
    dealer = _open_holdem(address, "open-hw5")
    shoe, shuffler = ShoeSimulator(seed=13), ShufflerSimulator(seed=14)
    shown: list[str] = []
    hardware = HardwareStation(dealer, "Mesa HW", shoe.url, shuffler.url, show=shown.append)
    try:
        shoe.hello()
        shuffler.hello()
        shuffler.jam_at = 2  # the red deck shuffled first (issue 33), then the blue one jams in the shuffler
        hardware.start_hand()  # red in the shoe
        shoe.load(Colour.RED)
        card = shoe.cards.pop(0)
        shoe.send_with_bad_crc(shoe.card_message(card))  # resent by the link: dealt once
        def faults() -> list[tuple[str, str, str]]:
            reports = [vars(e) for e in app.events.get(app.table("Mesa HW").id) if type(e).__name__ == "DeviceReported"]
            return [(r["serial"], r["colour"], r["result"]) for r in reports if r["kind"] == "fault"]

        # the corrupt frame is reported when the parser gives up on it, which may be after the resent frame is read
        assert hardware.wait(lambda: len(hardware.dealt) == 1 and any("corrupt frame" in f[2] for f in faults()))
        assert hardware.dealt == [(str(card), 1)]
        assert any(serial == "SHUF-0001" and colour == "blue" and "jam" in result
                   for serial, colour, result in faults())
        assert any(serial == "SHOE-0001" and "corrupt frame" in result for serial, colour, result in faults())
        assert any("jam" in line and "not ready" in line for line in shown)
        assert any("corrupt frame" in line for line in shown)
        assert _shoe_deals(app) == [(str(card), 1)]
        for _ in range(5):
            draw_and_wait(shoe, hardware)
        while (legal := dealer.legal("Mesa HW")).HasField("seat"):
            dealer.act("Mesa HW", "fold" if pb.ACTION_KIND_CALL in legal.allowed else "check", seat=legal.seat)
        # the jam holds the table (R-HOLD-1; the hand in progress finished): the pit boss clears it first
        (jam,) = app.holds.holds_of(app.table("Mesa HW"))
        assert jam.kind == "device-fault" and "jam" in jam.detail
        app.handle(AcknowledgeAlert("ack-jam", "Mesa HW", jam.position, "shuffler cleared, blue deck counted"),
                   Viewer("pit", Role.PIT_BOSS))
        shuffler.miscount_next, shuffler.miscount_colour = [51], Colour.RED
        hardware.start_hand()  # the jammed blue deck shuffled and checked again, dealt; the red one comes back short
        reports = [vars(e) for e in app.events.get(app.table("Mesa HW").id) if type(e).__name__ == "DeviceReported"]
        check = reports[-1]
        assert (check["kind"], check["colour"]) == ("deck-check", "red") and "INCOMPLETE" in check["result"]
        assert any("red deck is incomplete" in line for line in shown)
        panel = execute(dealer, "Mesa HW", "devices", hardware) or ""
        assert "shoe     PT-SIM-SHOE SHOE-0001" in panel and "corrupt 1" in panel
        assert "the red deck shuffled and checked: 51 counted, INCOMPLETE" in panel
        assert "hand 2: the blue deck is in the shoe, the red deck in the shuffler" in panel
    finally:
        hardware.close()
        shoe.close()
        shuffler.close()


def _link_fault(method: str) -> Callable[[ShoeSimulator], list[Card]]:
    def inject(shoe: ShoeSimulator) -> list[Card]:
        card = shoe.cards.pop(0)
        getattr(shoe, method)(shoe.card_message(card))
        return [card]  # the link recovers the read: dealt once
    return inject


def _irregular_draw(**how: Any) -> Callable[[ShoeSimulator], list[Card]]:
    def inject(shoe: ShoeSimulator) -> list[Card]:
        shoe.draw(**how)
        return []  # never dealt
    return inject


def _gap(shoe: ShoeSimulator) -> list[Card]:
    shoe.skip_sequence()
    shoe.draw()
    return []  # the read after the gap is not dealt blindly


def _shoe_fault(code: ShoeFaultCode) -> Callable[[ShoeSimulator], list[Card]]:
    def inject(shoe: ShoeSimulator) -> list[Card]:
        shoe.fault(code)
        return []
    return inject


SHOE_FAULTS: dict[str, tuple[Callable[[ShoeSimulator], list[Card]], str]] = {
    "corrupted CRC": (_link_fault("send_with_bad_crc"), "corrupt frame"),
    "truncated frame": (_link_fault("send_truncated"), "corrupt frame"),
    "duplicated frame": (_link_fault("send_twice"), "received twice, taken once"),
    "cut mid-frame, reconnect": (_link_fault("cut_mid_frame"), "shoe connection lost"),
    "the other colour's card": (_irregular_draw(colour=Colour.BLUE), "(R-DECK-4)"),
    "a face-up card": (_irregular_draw(face_up=True), "face up in the deck (R-THB-11)"),
    "an unreadable card": (_irregular_draw(unreadable=True), "unreadable card"),
    "a sequence gap": (_gap, "are missing (R-DECK-4)"),
    "double feed": (_shoe_fault(ShoeFaultCode.DOUBLE_FEED), "double feed"),
    "shoe empty": (_shoe_fault(ShoeFaultCode.SHOE_EMPTY), "shoe empty"),
}


@pytest.mark.parametrize("fault", list(SHOE_FAULTS))
def test_every_shoe_fault_reaches_the_station_and_the_table_and_no_card_is_lost_or_invented(
    service: tuple[PokerTables, str], fault: str
) -> None:
    app, address = service
    dealer = _open_holdem(address, "open-hw6")
    shoe = ShoeSimulator(seed=17, use_socket=fault.startswith("cut"))
    shown: list[str] = []
    hardware = HardwareStation(dealer, "Mesa HW", shoe.url, show=shown.append)
    inject, evidence = SHOE_FAULTS[fault]
    try:
        shoe.hello()
        assert hardware.wait(lambda: hardware.shoe.identity is not None)
        hardware.start_hand()
        shoe.load(Colour.RED)
        expected = [shoe.draw()]
        assert hardware.wait(lambda: len(hardware.dealt) == 1)
        expected += inject(shoe)
        expected.append(shoe.draw())  # and the shoe goes on

        def recorded() -> list[str]:
            return [vars(e)["result"] for e in app.events.get(app.table("Mesa HW").id)
                    if type(e).__name__ == "DeviceReported" and vars(e)["kind"] == "fault"]

        assert hardware.wait(lambda: len(hardware.dealt) == len(expected) and any(evidence in r for r in recorded()),
                             timeout=10), (hardware.dealt, recorded(), shown)
        assert any(evidence in line for line in shown)  # the croupier saw it
        assert [card for card, _ in _shoe_deals(app)] == [str(card) for card in expected]  # none lost or invented
        assert hardware.refused == []
    finally:
        hardware.close()
        shoe.close()


def test_a_card_the_shoe_cannot_read_is_keyed_in_by_the_croupier_and_marked_so(
    service: tuple[PokerTables, str]
) -> None:
    app, address = service
    dealer = _open_holdem(address, "open-hw7")
    shoe = ShoeSimulator(seed=19)
    hardware = HardwareStation(dealer, "Mesa HW", shoe.url, show=lambda message: None)
    try:
        shoe.hello()
        hardware.start_hand()
        shoe.load(Colour.RED)
        draw_and_wait(shoe, hardware)
        before = len(hardware.irregularities)
        unreadable = shoe.draw(unreadable=True)
        assert hardware.wait(lambda: len(hardware.irregularities) > before)
        execute(dealer, "Mesa HW", f"deal {unreadable}", hardware)  # the croupier reads it and keys it in
        draw_and_wait(shoe, hardware)
        (hand_id,) = app.hands_of("Mesa HW")
        dealt = [(e.card, e.source, e.sequence) for e in app.events.get(hand_id) if isinstance(e, Hand.CardDealt)]
        assert dealt[1] == (str(unreadable), "croupier", None)
        assert [(source, sequence) for _, source, sequence in dealt] == [("shoe", 1), ("croupier", None), ("shoe", 3)]
    finally:
        hardware.close()
        shoe.close()
