"""The real adapters against the simulators, over a real pseudo-terminal (and socket:// for a pulled cable):
every fault is detected and reported, and no card is lost, duplicated or invented."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

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
from devices.framing import FrameParser, encode
from devices.link import Link
from devices.protocol import (
    Ack,
    CardDrawn,
    Colour,
    DeviceKind,
    Heartbeat,
    Hello,
    Message,
    ShoeFault,
    ShoeFaultCode,
    Shuffle,
    ShufflerState,
    ShufflerStateCode,
    decode,
)
from devices.protocol import encode as encode_message
from devices.simulators import ShoeSimulator, ShufflerSimulator
from devices.transport import PtyEnd, open_url
from domain.cards.cards import Card


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
        simulator.wrong_check_next = True  # issue 33: answered for the other deck, it is no check of this one
        with pytest.raises(ShufflerError, match="answered for the blue deck, asked for the red one"):
            adapter.deck_check(Colour.RED)
        assert adapter.deck_check(Colour.RED).colour is Colour.RED  # in step again: the next answer is its own
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
        assert command("wild-read") == "sent: wild-read"
        assert command("draw").startswith("drew ")  # read in sequence after the wild one: taken
        events.wait_for(lambda items: len(events.irregularities()) == 2 and len(events.cards()) == 3)
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


def test_a_restarted_device_numbers_its_frames_from_1_and_its_hello_is_never_taken_for_a_repeat() -> None:
    """Link rule 3 drops a frame numbered like the last one delivered (its ACK was lost); a device that restarts
    numbers its frames from 1 again, so its HELLO may carry the number of the last frame: it is delivered all the
    same (issue 13, item 9: a shoe power cycle)."""
    end = PtyEnd()
    delivered: list[Message] = []
    link = Link(lambda: open_url(end.path), delivered.append)
    try:
        first, again = (Hello(DeviceKind.SHOE, "PT-SHOE", "SN-1", "2.0", last) for last in (7, 0))
        end.write(encode(encode_message(first, 1)))
        end.write(encode(encode_message(CardDrawn(8, 14, 3, Colour.RED, False), 1)))  # a repeat of frame 1
        end.write(encode(encode_message(again, 1)))  # power cycle: frame 1 again, a HELLO
        deadline = time.monotonic() + 3
        while len(delivered) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        assert delivered == [first, again] and link.stats.duplicates == 1
    finally:
        link.close()
        end.close()


def test_heartbeats_are_not_acknowledged_nor_delivered_and_keep_the_shoe_from_being_silent() -> None:
    simulator = ShoeSimulator(seed=9, heartbeat_seconds=0.05)
    events = Events()
    adapter = ShoeAdapter(simulator.url, events, silence_seconds=0.4)
    try:  # the shoe says HELLO as the adapter opens the line: no one asks it to
        events.wait_for(lambda items: any(isinstance(e, DeviceStatus) and "SHOE-0001" in e.message for e in items))
        time.sleep(0.8)
        assert adapter.link.stats.heartbeats >= 5
        assert not [e for e in events.items if isinstance(e, DeviceStatus) and "silent" in e.message]
        assert simulator.link.stats.frames_in == 1  # the ACK of its HELLO: heartbeats are not acknowledged
        simulator.go_silent()
        events.wait_for(lambda items: any(isinstance(e, DeviceStatus) and e.fault and "silent" in e.message
                                          for e in items))
        simulator.silent.clear()
        events.wait_for(lambda items: any(isinstance(e, DeviceStatus) and "heard again" in e.message
                                          for e in items))
    finally:
        adapter.close()
        simulator.close()


def test_read_numbers_handed_on_never_go_back_whatever_the_shoe_numbers(
    shoe: tuple[ShoeSimulator, ShoeAdapter, Events]
) -> None:
    """A shoe whose count jumps back without announcing it (two consecutive reads confirm the new count), or that
    announces a restart: the station's numbers keep rising, so the service's check of repeated or stale reads
    (R-DECK-4) never refuses the reads after it."""
    simulator, _, events = shoe
    simulator.draw()
    simulator.draw()
    simulator.read_seq = 0  # the count jumps back, unannounced
    simulator.draw()  # read 1 again: a card read twice, not dealt
    simulator.draw()  # read 2 continues it: the new count is taken
    simulator.power_cycle()
    simulator.draw()
    events.wait_for(lambda items: len(events.cards()) == 4)
    numbers = [e.read_seq for e in events.items if isinstance(e, CardRead)]
    assert numbers == sorted(set(numbers)) and numbers[:2] == [1, 2]
    assert [i.message for i in events.irregularities()] == ["a card read twice"]


def test_the_byte_examples_of_docs_devices_md_are_what_they_say() -> None:
    """A device maker implements from the page alone: its examples decode to the messages they describe."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "devices.md").read_text(encoding="utf-8")
    block = text.split("### Examples (bytes in hex)", 1)[1].split("```")[1]
    lines = [line.strip() for line in block.strip().splitlines()]
    examples = dict(zip(lines[0::2], lines[1::2], strict=True))
    decoded = {}
    for title, raw in examples.items():
        (frame,) = FrameParser().feed(bytes.fromhex(raw))
        decoded[title] = (frame.seq, decode(frame))
    expected = {
        'HELLO shoe "PT-SHOE" "SN-0001" "1.4.2", SEQ 1:': (1, Hello(DeviceKind.SHOE, "PT-SHOE", "SN-0001", "1.4.2")),
        'HELLO shoe (protocol 2) "PT-SHOE" "SN-0001" "1.4.2", last read 12, SEQ 1:':
            (1, Hello(DeviceKind.SHOE, "PT-SHOE", "SN-0001", "1.4.2", 12)),
        "HEARTBEAT (not acknowledged; SEQ 0):": (0, Heartbeat()),
        "CARD_DRAWN read 12, A♠ (14, 3), red, face down, SEQ 2:": (2, CardDrawn(12, 14, 3, Colour.RED, False)),
        "ACK of SEQ 2:": (0, Ack(2)),
        "SHUFFLE the blue 52-card deck, SEQ 1:": (1, Shuffle(Colour.BLUE, 52)),
        "SHUFFLER_STATE deck ready, blue, SEQ 3:": (3, ShufflerState(ShufflerStateCode.DECK_READY, Colour.BLUE)),
        "SHOE_FAULT double feed after read 12, SEQ 4:": (4, ShoeFault(ShoeFaultCode.DOUBLE_FEED, 12)),
    }
    assert decoded == expected


def identities(items: list[ShoeEvent]) -> list[str]:
    """The shoe's HELLOs as the adapter announced them."""
    return [e.message for e in items if isinstance(e, DeviceStatus) and "SHOE-0001" in e.message]


@pytest.mark.parametrize("transport", ["pty", "socket"])
def test_a_simulated_device_says_hello_to_every_host_that_opens_the_line(transport: str) -> None:
    """Issue 33, item 5: a simulator started long before the station (its heartbeats going nowhere) is identified
    as soon as the station opens the line, with no one asking it; a second station opening the line after the first
    closed it is greeted too.  Same for the shuffler."""
    simulator = ShoeSimulator(seed=3, use_socket=transport == "socket", heartbeat_seconds=0.05)
    shuffler = ShufflerSimulator(use_socket=transport == "socket")
    try:
        time.sleep(0.3)  # no station yet: the HELLO has no one to go to
        for _ in range(2):
            events = Events()
            adapter = ShoeAdapter(simulator.url, events)
            try:
                events.wait_for(lambda items: bool(identities(items)))
                assert adapter.identity is not None and adapter.identity.serial == "SHOE-0001"
            finally:
                adapter.close()
            time.sleep(0.2)
        for _ in range(2):
            host = ShufflerAdapter(shuffler.url)
            try:
                deadline = time.monotonic() + 3
                while host.identity is None and time.monotonic() < deadline:
                    time.sleep(0.02)
                assert host.identity is not None and host.identity.serial == "SHUF-0001"
            finally:
                host.close()
            time.sleep(0.2)
    finally:
        simulator.close()
        shuffler.close()


@pytest.mark.parametrize("transport", ["pty", "socket"])
def test_cards_drawn_while_the_shoe_greets_the_station_are_never_taken_for_a_power_cycle(transport: str) -> None:
    """The HELLO on opening names the shoe's last read; cards drawn meanwhile never overtake it on the line, so the
    station never sees a HELLO older than a read it has (it would take it for a restart and renumber the reads: the
    race that kept this from being built before)."""
    simulator = ShoeSimulator(seed=5, use_socket=transport == "socket")
    simulator.load(Colour.RED)
    for _ in range(3):
        events = Events()
        adapter = ShoeAdapter(simulator.url, events)
        try:
            drawn = [simulator.draw() for _ in range(8)]  # at once, as the HELLO goes out
            events.wait_for(lambda items: bool(identities(items)) and sum(isinstance(e, CardRead) for e in items) == 8)
            time.sleep(0.1)
            assert events.cards() == drawn
            assert not [e for e in events.items if isinstance(e, DeviceStatus) and e.fault], events.items
            assert not events.irregularities()
        finally:
            adapter.close()
        time.sleep(0.1)
    simulator.close()
