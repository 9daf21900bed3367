"""The station does not trust the shoe or the shuffler blindly, and the table does not trust the station: wild or
refused reads, a power-cycled or silent shoe, a shuffler delivering the wrong deck (R-DECK-2, R-DECK-4, R-AUD-1)."""

from __future__ import annotations

import time
from typing import Any

from devices.protocol import Colour
from devices.simulators import ShoeSimulator, ShufflerSimulator
from domain.cards.cards import parse_cards
from service.app.application import PokerTables
from service.station.devices_text import panel
from service.station.hardware import HardwareStation
from service.station.reference import Station
from tests.support import station_trust_support as _base
from tests.support.station_trust_support import ISSUE_SHOE, _deals, _faults, _open

service = _base.service


def _shoe_hand(address: str, command: str, shown: list[str], **station: Any) -> tuple[ShoeSimulator, HardwareStation]:
    dealer = _open(address, command)
    shoe = ShoeSimulator(seed=41, heartbeat_seconds=station.pop("heartbeat_seconds", 1.0))
    hardware = HardwareStation(dealer, "Mesa T", shoe.url, show=shown.append, **station)
    shoe.hello()
    assert hardware.wait(lambda: hardware.shoe.identity is not None)
    hardware.start_hand()
    shoe.load(Colour.RED, ISSUE_SHOE)
    return shoe, hardware


def test_r_deck_4_a_read_with_a_wild_number_is_a_recorded_fault_and_does_not_poison_the_reads_after_it(
    service: tuple[PokerTables, str]
) -> None:
    app, address = service
    shown: list[str] = []
    shoe, hardware = _shoe_hand(address, "wild", shown)
    try:
        for _ in range(2):
            shoe.draw()
        assert hardware.wait(lambda: len(hardware.dealt) == 2)
        stray = shoe.stray_read(2**32 - 1)  # Qh, numbered 4294967295
        for _ in range(3):
            shoe.draw()
        assert hardware.wait(lambda: len(hardware.dealt) == 5 and len(_faults(app)) == 1), (hardware.dealt, shown)
        assert _deals(app) == [("As", 1), ("Kd", 2), ("Ac", 3), ("Kc", 4), ("Qs", 5)]
        (fault,) = _faults(app)
        assert f"read 4294967295 {stray}" in fault["result"] and "R-DECK-4" in fault["result"]
        assert fault["serial"] == "SHOE-0001"
        assert not any("read twice" in line for line in shown) and hardware.refused == []
    finally:
        hardware.close()
        shoe.close()


def test_r_deck_4_a_shoe_power_cycle_is_announced_by_its_hello_and_the_reads_go_on_in_sequence(
    service: tuple[PokerTables, str]
) -> None:
    """Switched off and on mid-hand, the shoe numbers its reads from 1 again: its HELLO says so, the station counts
    on, and the hand's reads stay contiguous; the restart is recorded at the table."""
    app, address = service
    shown: list[str] = []
    shoe, hardware = _shoe_hand(address, "cycle", shown)
    try:
        for _ in range(2):
            shoe.draw()
        assert hardware.wait(lambda: len(hardware.dealt) == 2)
        shoe.power_cycle()
        for _ in range(3):
            shoe.draw()
        assert hardware.wait(lambda: len(hardware.dealt) == 5), (hardware.dealt, shown)
        assert _deals(app) == [("As", 1), ("Kd", 2), ("Qh", 3), ("Ac", 4), ("Kc", 5)]
        assert hardware.irregularities == [] and hardware.refused == []
        assert hardware.wait(lambda: any("power cycle" in f["result"] for f in _faults(app)))
        shoe.power_cycle()  # and again, between two reads of the same hand
        shoe.draw()
        assert hardware.wait(lambda: len(hardware.dealt) == 6)
        assert _deals(app)[-1] == ("Qs", 6)
    finally:
        hardware.close()
        shoe.close()


def test_r_aud_1_a_silent_shoe_is_a_fault_shown_and_recorded_at_the_table(service: tuple[PokerTables, str]) -> None:
    app, address = service
    shown: list[str] = []
    shoe, hardware = _shoe_hand(address, "silent", shown, heartbeat_seconds=0.1, silence_seconds=0.6)
    try:
        shoe.draw()
        assert hardware.wait(lambda: len(hardware.dealt) == 1)
        time.sleep(1.0)  # heartbeats keep a quiet shoe from being taken for a silent one
        assert not any("silent" in f["result"] for f in _faults(app))
        shoe.go_silent()
        assert hardware.wait(lambda: any("silent" in f["result"] for f in _faults(app)), timeout=5)
        (fault,) = [f for f in _faults(app) if "silent" in f["result"]]
        assert fault["serial"] == "SHOE-0001" and "no heartbeat" in fault["result"]
        assert any("shoe silent" in line for line in shown)
        assert "shoe silent" in panel(hardware)
    finally:
        hardware.close()
        shoe.close()


# -- item 11: a read the service refuses is recorded ----------------------------------------------------------------


def test_r_deck_4_a_read_the_service_refuses_is_recorded_at_the_table_as_a_device_fault(
    service: tuple[PokerTables, str]
) -> None:
    """A card read twice (the same card twice in the shoe) and a read while no card is due: each refused, shown, and
    recorded at the table with the shoe's identity; the service neither accepts nor forgets them."""
    app, address = service
    dealer = _open(address, "refused")
    shoe = ShoeSimulator(seed=47)
    shown: list[str] = []
    hardware = HardwareStation(dealer, "Mesa T", shoe.url, show=shown.append)
    try:
        shoe.hello()
        assert hardware.wait(lambda: hardware.shoe.identity is not None)
        hardware.start_hand()
        shoe.load(Colour.RED, parse_cards("As Kd As Qh Jc 9s 8s 7s 6s"))
        for _ in range(3):
            shoe.draw()
        assert hardware.wait(lambda: len(hardware.dealt) == 2 and len(_faults(app)) == 1), (shown, _faults(app))
        (twice,) = _faults(app)
        assert twice["serial"] == "SHOE-0001" and twice["result"].startswith("read 3 As refused by the service")
        assert "R-DECK-4" in twice["result"]
        for _ in range(5):
            shoe.draw()  # Qh Jc 9s 8s: the rest of the hole cards; 7s: no card is due (the betting is open)
        assert hardware.wait(lambda: len(_faults(app)) == 2), (shown, _faults(app))
        assert "read 8 7s refused by the service" in _faults(app)[1]["result"]
        assert len(hardware.refused) == 2 and all(line.startswith("refused: FAILED_PRECONDITION")
                                                  for line in hardware.refused)
        assert len(hardware.dealt) == 6
    finally:
        hardware.close()
        shoe.close()


# -- item 10: a shuffler that delivers the wrong deck ---------------------------------------------------------------


def test_r_deck_2_a_shuffler_delivering_the_wrong_deck_is_a_fault_recorded_after_the_hand_started(
    service: tuple[PokerTables, str]
) -> None:
    """Issue 33: the shuffler delivers only once the table started the hand, with the deck the table expects; a
    shuffler that says it delivered the other deck is a fault, recorded (it holds the table's next hand, R-HOLD-1)
    and shown: the croupier puts the hand's deck in the shoe (R-DECK-2)."""
    app, address = service
    dealer, pit = _open(address, "colour"), Station(address, "trust-pit-boss-token-00001")
    shoe, shuffler = ShoeSimulator(seed=51), ShufflerSimulator(seed=52)
    shown: list[str] = []
    hardware = HardwareStation(dealer, "Mesa T", shoe.url, shuffler.url, show=shown.append)
    try:
        shoe.hello()
        shuffler.hello()
        assert hardware.wait(lambda: hardware.shoe.identity is not None)
        assert hardware.start_hand() is Colour.RED
        pit.act("Mesa T", "void", rule="R-CIRC-14", reason="two cards exposed in the deal")
        shuffler.wrong_colour_next = True  # asked for the blue deck, it delivers the red one again and says so
        assert hardware.start_hand() is Colour.BLUE  # the table's alternation: the hand is the blue deck's
        record = app.table("Mesa T")
        assert record.hands_started == 2 and record.hand_in_progress is not None
        reports = [(vars(e)["kind"], vars(e)["colour"], vars(e)["result"]) for e in app.events.get(record.id)
                   if type(e).__name__ == "DeviceReported"]
        assert ("delivery", "red", "the red deck delivered to the shoe") in reports  # as the shuffler said it
        (fault,) = [r for r in reports if r[0] == "fault"]
        assert fault[1] == "blue" and "the red deck delivered for a blue hand (R-DECK-2)" in fault[2]
        assert any("put the blue deck in the shoe (R-DECK-2)" in line for line in shown)
    finally:
        hardware.close()
        shoe.close()
        shuffler.close()


def test_r_deck_2_a_station_started_mid_session_learns_from_the_table_which_deck_is_next(
    service: tuple[PokerTables, str]
) -> None:
    """A station restarted after a red hand asks the table which deck is next (TableView.last_deck, issue 33) and
    starts the blue one: no deck asked for in vain, nothing refused."""
    app, address = service
    dealer, pit = _open(address, "restart"), Station(address, "trust-pit-boss-token-00001")
    shoe, shuffler = ShoeSimulator(seed=53), ShufflerSimulator(seed=54)
    try:
        first = HardwareStation(dealer, "Mesa T", shoe.url, shuffler.url, show=lambda message: None)
        assert first.start_hand() is Colour.RED
        pit.act("Mesa T", "void", rule="R-CIRC-14", reason="a card exposed in the deal")
        first.close()
        shown: list[str] = []
        second = HardwareStation(dealer, "Mesa T", shoe.url, shuffler.url, show=shown.append)
        try:
            assert second.start_hand() is Colour.BLUE and app.table("Mesa T").hands_started == 2
            assert not any("hand not started" in line for line in shown)
        finally:
            second.close()
    finally:
        shoe.close()
        shuffler.close()
