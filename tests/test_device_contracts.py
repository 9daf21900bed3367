"""The real adapters against the simulators, over a real pseudo-terminal (and socket:// for a pulled cable):
every fault is detected and reported, and no card is lost, duplicated or invented."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from devices.adapters import (
    CardRead,
    DeviceStatus,
    Irregularity,
    ShoeAdapter,
    ShoeEvent,
    ShufflerAdapter,
    ShufflerError,
)
from devices.protocol import Colour, ShoeFaultCode
from devices.simulators import ShoeSimulator, ShufflerSimulator
from domain.cards import Card


class Events:
    """What the station would receive, collected thread-safely."""

    def __init__(self) -> None:
        self.items: list[ShoeEvent] = []
        self.changed = threading.Condition()

    def __call__(self, event: ShoeEvent) -> None:
        with self.changed:
            self.items.append(event)
            self.changed.notify_all()

    def wait_for(self, predicate: Callable[[list[ShoeEvent]], bool], timeout: float = 5.0) -> list[ShoeEvent]:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate(self.items):
                left = deadline - time.monotonic()
                assert left > 0, f"timed out; events so far: {self.items}"
                self.changed.wait(left)
            return list(self.items)

    def cards(self) -> list[Card]:
        return [e.card for e in self.items if isinstance(e, CardRead)]

    def irregularities(self) -> list[Irregularity]:
        return [e for e in self.items if isinstance(e, Irregularity)]


@pytest.fixture(params=["pty", "socket"])
def shoe(request: pytest.FixtureRequest) -> Iterator[tuple[ShoeSimulator, ShoeAdapter, Events]]:
    simulator = ShoeSimulator(seed=7, use_socket=request.param == "socket")
    events = Events()
    adapter = ShoeAdapter(simulator.url, events)
    simulator.load(Colour.RED)
    simulator.hello()
    events.wait_for(lambda items: any(isinstance(e, DeviceStatus) and "SHOE-0001" in e.message for e in items))
    yield simulator, adapter, events
    adapter.close()
    simulator.close()


def test_every_card_drawn_arrives_once_in_order(shoe: tuple[ShoeSimulator, ShoeAdapter, Events]) -> None:
    simulator, _, events = shoe
    drawn = [simulator.draw() for _ in range(20)]
    events.wait_for(lambda items: len(events.cards()) == 20)
    assert events.cards() == drawn
    assert [e.read_seq for e in events.items if isinstance(e, CardRead)] == list(range(1, 21))


def test_noise_truncated_and_duplicated_frames_never_lose_duplicate_or_invent_a_card(
    shoe: tuple[ShoeSimulator, ShoeAdapter, Events]
) -> None:
    simulator, adapter, events = shoe
    sent: list[Card] = []
    for fault in ("crc", "truncated", "twice", "crc", "twice", "truncated"):
        card = simulator.cards.pop(0)
        message = simulator.card_message(card)
        {"crc": simulator.send_with_bad_crc, "truncated": simulator.send_truncated,
         "twice": simulator.send_twice}[fault](message)
        sent.append(card)
    events.wait_for(lambda items: len(events.cards()) == len(sent))
    time.sleep(0.3)
    assert events.cards() == sent
    assert adapter.link.stats.bad_frames > 0 and adapter.link.stats.duplicates > 0
    assert not events.irregularities()
    faults = [e.message for e in events.items if isinstance(e, DeviceStatus) and e.fault]  # for the station and table
    assert any("corrupt frame" in m for m in faults) and any("received twice, taken once" in m for m in faults)


def test_a_face_up_card_another_decks_card_and_an_unreadable_card_are_irregularities_not_reads(
    shoe: tuple[ShoeSimulator, ShoeAdapter, Events]
) -> None:
    simulator, _, events = shoe
    simulator.draw(face_up=True)
    simulator.draw(colour=Colour.BLUE)
    simulator.draw(unreadable=True)
    good = simulator.draw()
    events.wait_for(lambda items: len(events.cards()) == 1)
    rules = [(i.rule, i.message) for i in events.irregularities()]
    assert rules[0] == ("R-THB-11", "a card found face up in the deck")
    assert rules[1][0] == "R-DECK-4" and "blue deck" in rules[1][1]
    assert rules[2] == ("R-DECK-4", "an unreadable card: key it in by hand")
    assert events.cards() == [good]


def test_a_gap_in_the_read_sequence_and_shoe_faults_are_reported(
    shoe: tuple[ShoeSimulator, ShoeAdapter, Events]
) -> None:
    simulator, _, events = shoe
    simulator.draw()
    simulator.skip_sequence()
    simulator.draw()
    simulator.fault(ShoeFaultCode.DOUBLE_FEED)
    simulator.fault(ShoeFaultCode.SHOE_EMPTY)
    events.wait_for(lambda items: len(events.irregularities()) == 3)
    messages = [i.message for i in events.irregularities()]
    assert messages == ["reads 2–2 are missing", "shoe fault: double feed", "shoe fault: shoe empty"]
    assert len(events.cards()) == 1  # the card after the gap is not dealt blindly


def test_a_pulled_cable_is_reported_once_and_nothing_is_lost_or_read_twice() -> None:
    simulator = ShoeSimulator(seed=3, use_socket=True)
    events = Events()
    adapter = ShoeAdapter(simulator.url, events)
    try:
        simulator.load(Colour.BLUE)
        adapter.expect_colour(Colour.BLUE)
        before = [simulator.draw() for _ in range(3)]
        events.wait_for(lambda items: len(events.cards()) == 3)
        cut = simulator.cards.pop(0)
        simulator.cut_mid_frame(simulator.card_message(cut))  # sent again after the adapter reconnects
        events.wait_for(lambda items: any(isinstance(e, DeviceStatus) and "back" in e.message for e in items))
        after = [simulator.draw() for _ in range(2)]
        events.wait_for(lambda items: len(events.cards()) == 6)
        lost = [e for e in events.items if isinstance(e, DeviceStatus) and "lost" in e.message]
        assert len(lost) == 1 and lost[0].fault
        assert events.cards() == [*before, cut, *after]
        gap = events.irregularities()
        assert [i.message for i in gap] == []
    finally:
        adapter.close()
        simulator.close()


def test_the_shuffler_shuffles_checks_and_delivers_and_reports_a_jam_a_miscount_and_an_open_door() -> None:
    simulator = ShufflerSimulator(seed=5)
    adapter = ShufflerAdapter(simulator.url, timeout=3)
    try:
        simulator.hello()
        adapter.shuffle(Colour.RED)
        assert adapter.deck_check(Colour.RED).counted == 52
        adapter.deliver(Colour.RED)
        simulator.jam_next = True
        with pytest.raises(ShufflerError, match="jam"):
            adapter.shuffle(Colour.BLUE)
        simulator.miscount_next = [51]
        result = adapter.deck_check(Colour.BLUE)
        assert result.counted == 51 and result.missing == (51,)
        adapter.shuffle(Colour.BLUE)  # the miscount was the deck check's: the next shuffle is not blamed for it
        simulator.door_open_next = True
        with pytest.raises(ShufflerError, match="door open"):
            adapter.shuffle(Colour.RED)
        adapter.shuffle(Colour.RED)
        assert adapter.identity is not None and adapter.identity.serial == "SHUF-0001"
    finally:
        adapter.close()
        simulator.close()


def test_the_simulate_command_prints_its_ports_and_obeys_commands_on_standard_input() -> None:
    """``pokertable devices simulate --shoe --shuffler`` as a hardware integrator runs it, with the real adapters."""
    process = subprocess.Popen([sys.executable, "-m", "service.cli", "devices", "simulate", "--shoe", "--shuffler",
                                "--seed", "4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    events = Events()
    shoe_url = process.stdout.readline().strip().removeprefix("shoe: ")
    shuffler_url = process.stdout.readline().strip().removeprefix("shuffler: ")
    shoe, shuffler = ShoeAdapter(shoe_url, events), ShufflerAdapter(shuffler_url, timeout=3)

    def command(line: str) -> str:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line + "\n")
        process.stdin.flush()
        return process.stdout.readline().strip()

    try:
        drawn = command("draw 2")
        assert drawn.startswith("drew ")
        events.wait_for(lambda items: len(events.cards()) == 2)
        assert " ".join(str(card) for card in events.cards()) == drawn.removeprefix("drew ")
        assert command("other-colour") == "sent: other-colour"
        events.wait_for(lambda items: len(events.irregularities()) == 1)
        assert command("door") == "the shuffler will find its door open"
        with pytest.raises(ShufflerError, match="door open"):
            shuffler.shuffle(Colour.BLUE)
        assert command("fly") == "unknown command 'fly'"
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=10) == 0
    finally:
        shoe.close()
        shuffler.close()
        if process.poll() is None:
            process.kill()
