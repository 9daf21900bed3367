"""Device path speed: from the simulated shoe writing a card frame to the deal event stored by the service and seen
on the watch stream, p50 and p99, at 9600 and 115200 baud (the pseudo-terminal paced like a real line); and the frame
parser's throughput.  Target (issue 7): p99 card-read-to-event under 20 ms at 115200 baud.

As deployed, every part runs in a process of its own, each started with this Python:

- the service: ``pokertable serve`` on an SQLite file (the file's sole writer), measured once warm (its hand-ranking
  tables built: nothing else competes for the CPU meanwhile);
- the dealer station the shoe is cabled to: ``pokertable station --plain --shoe PTY --baud N`` (the reference station:
  the same hardware station, service/station/hardware.py, as the full-screen one), told ``start`` on its standard
  input at each hand; it checks each read and sends it to the service as the next deal;
- the shoe: benchmarks/devices_shoe.py, the simulator of devices/simulators.py on a pty paced at the line's speed
  (``pokertable devices simulate`` has no line speed), told ``load`` and ``draw`` on its standard input;
- this process: another station of the table, on its ``Watch`` stream, where each deal event is timed; it opens the
  table, seats the players and folds each hand to the big blind (not timed: the measured path is the shoe's reads).

A read's latency runs from the moment the shoe process starts writing its frame (so the frame's wire time is in it)
to the moment this process receives the deal event, both on ``CLOCK_MONOTONIC``, the one clock of every process of
the machine.  The first hand's reads go through cold paths (a station's first command, the stream's first wake) and
are reported apart.

Run with ``.venv/bin/python -m benchmarks.devices [--cards 200]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc

from benchmarks.service_load import serve
from devices.framing import Frame, FrameParser, encode
from devices.protocol import CardDrawn, Colour
from devices.protocol import encode as encode_message
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.reference import Station

WARM_UP = 20  # the first hand's reads: cold paths (first command, first wake of the stream), reported apart
PIT = "bench-pit-boss-token-000001"
DEALERS = {baud: f"bench-dealer-token-{baud:08}" for baud in (9600, 115200)}
CONFIG = f'[stations.pit]\ntoken = "{PIT}"\nrole = "pit-boss"\n\n' + "".join(
    f'[stations.mesa-{baud}]\ntoken = "{token}"\nrole = "dealer"\ntable = "Bench {baud}"\n\n'
    for baud, token in DEALERS.items())
"""The service's stations: the pit boss (opens the tables) and a croupier's station at each baud rate's table."""
TIMEOUT = 30.0
"""Seconds a step may take before the benchmark gives up and shows what the processes said."""


def now() -> float:
    """``CLOCK_MONOTONIC`` in seconds: the clock the shoe process stamps its frames with."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def card_frame(read_seq: int, rng: random.Random) -> Frame:
    """The frame of a shoe's card report."""
    message = CardDrawn(read_seq, rng.randrange(2, 15), rng.randrange(4), rng.choice(list(Colour)), False)
    return encode_message(message, read_seq % 256)


def parser_throughput() -> float:
    """MB/s of shoe card frames through the parser, fed in 4 KiB pieces."""
    rng = random.Random(1)
    stream = b"".join(encode(card_frame(i, rng)) for i in range(20000))
    parser = FrameParser()
    started = time.perf_counter()
    frames = 0
    for offset in range(0, len(stream), 4096):
        frames += len(parser.feed(stream[offset:offset + 4096]))
    elapsed = time.perf_counter() - started
    assert frames == 20000
    return len(stream) / elapsed / 1e6


class Child:
    """A process the benchmark started: what it writes is collected line by line as it comes (a thread per stream,
    so a full pipe never stalls it), and it is told commands a line at a time on its standard input."""

    def __init__(self, name: str, process: subprocess.Popen[str]) -> None:
        self.name, self.process = name, process
        self.out: list[str] = []
        self.err: list[str] = []
        self.changed = threading.Condition()
        for stream, lines in ((process.stdout, self.out), (process.stderr, self.err)):
            if stream is not None:
                threading.Thread(target=self._collect, args=(stream, lines), daemon=True,
                                 name=f"{name}-output").start()

    @classmethod
    def start(cls, name: str, command: list[str]) -> Child:
        """Start ``command``, its output unbuffered (each line reaches the benchmark as it is written)."""
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        return cls(name, process)

    def _collect(self, stream: IO[str], lines: list[str]) -> None:
        for line in stream:
            with self.changed:
                lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:  # the end of the stream: a waiter sees the process gone
            self.changed.notify_all()

    def send(self, line: str) -> None:
        """One command line on its standard input."""
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait_for(self, predicate: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
        """Until ``predicate`` (read under the lock the output is collected under) holds; an error naming ``what``
        and the process's last words if it does not within ``timeout`` or the process ends first."""
        with self.changed:
            self.changed.wait_for(lambda: predicate() or self.process.poll() is not None, timeout)
            if not predicate():
                raise RuntimeError(f"{self.name}: {what} did not come within {timeout:.0f} s; {self.tail()}")

    def ask(self, line: str) -> str:
        """Send a command and return the next line of standard output (the shoe answers each command with one)."""
        with self.changed:
            answered = len(self.out)
        self.send(line)
        self.wait_for(lambda: len(self.out) > answered, f"the answer to {line!r}")
        return self.out[answered]

    def tail(self) -> str:
        """Its last lines, for an error message."""
        return f"last output {self.out[-3:]}, last errors {self.err[-5:]}"

    def stop(self) -> None:
        """``quit`` on its standard input, then terminate it if it is still there."""
        with contextlib.suppress(OSError, ValueError):  # it may be gone already
            self.send("quit")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            self.process.wait(timeout=10)


class Watcher:
    """This process's ``Watch`` stream of one table: the moment each shoe deal arrives, by read sequence, and the
    deck colour of each hand started."""

    def __init__(self, station: Station, table: str) -> None:
        self.seen: dict[int, float] = {}
        self.decks: list[str] = []
        self.changed = threading.Condition()
        watching = threading.Event()

        def watch() -> None:
            stream = station.call("Watch", svc.WatchRequest(table=table))
            watching.set()
            try:
                for change in stream:
                    kind = change.event.WhichOneof("event")
                    if kind == "hand_card_dealt" and change.event.hand_card_dealt.source == "shoe":
                        arrived = now()
                        with self.changed:
                            self.seen[change.event.hand_card_dealt.sequence] = arrived
                            self.changed.notify_all()
                    elif kind == "table_hand_started":
                        with self.changed:
                            self.decks.append(change.event.table_hand_started.deck_colour)
                            self.changed.notify_all()
            except grpc.RpcError:
                return

        threading.Thread(target=watch, daemon=True, name="watch").start()
        watching.wait()

    def wait_for(self, predicate: Callable[[], bool], what: str, station: Child) -> None:
        """Until ``predicate`` holds on what the stream brought; an error naming ``what`` and the station's last words
        (a refusal, a device fault) if it does not within the timeout."""
        with self.changed:
            if not self.changed.wait_for(predicate, TIMEOUT):
                raise RuntimeError(f"{what} never reached the watch stream: station {station.tail()}")

    def deck(self, hand: int, station: Child) -> str:
        """The deck colour (``red`` or ``blue``) of the ``hand``-th hand started on the stream (from 0), once its start
        is there."""
        self.wait_for(lambda: len(self.decks) > hand, f"hand {hand + 1}'s start", station)
        return self.decks[hand]

    def arrival(self, sequence: int, station: Child) -> float:
        """When the shoe's read ``sequence`` arrived dealt on the stream (``CLOCK_MONOTONIC``)."""
        self.wait_for(lambda: sequence in self.seen, f"read {sequence}", station)
        return self.seen[sequence]


def attach(address: str, baudrate: int, table: str) -> tuple[Child, Child]:
    """The shoe's process and the station's, the station's shoe port the shoe's pty, the shoe's HELLO acknowledged
    by the station and its identity known there."""
    shoe = Child.start("shoe", [sys.executable, "-m", "benchmarks.devices_shoe", "--baud", str(baudrate),
                                "--seed", str(baudrate)])
    shoe.wait_for(lambda: bool(shoe.out), "the shoe's pty")
    pty = shoe.out[0].removeprefix("shoe: ")
    station = Child.start("station", [sys.executable, "-m", "service.cli", "station", "--plain", "--server", address,
                                      "--table", table, "--token", DEALERS[baudrate], "--shoe", pty,
                                      "--baud", str(baudrate)])
    try:
        station.send("devices")  # answered once the station has opened the shoe's port: its devices panel
        station.wait_for(lambda: any(line.startswith("shoe ") for line in station.out), "the station's devices panel")
        if (answer := shoe.ask("hello")) != "hello acknowledged":
            raise RuntimeError(f"the station did not acknowledge the shoe's HELLO: {answer}; station {station.tail()}")
        station.wait_for(lambda: any("shoe PT-SIM-SHOE" in line for line in station.err), "the shoe's identity")
    except BaseException:
        station.stop()
        shoe.stop()
        raise
    return shoe, station


def measure(address: str, baudrate: int, cards: int) -> tuple[list[float], list[float]]:
    """Latencies of ``cards`` shoe reads after the first hand's (that hand's first), from the frame write in the
    shoe's process to the event on this process's watch stream, through the station's process and the service's;
    and, of each, the part until the station's link acknowledged the frame (the wire and the station's read)."""
    pit, dealer = Station(address, PIT), Station(address, DEALERS[baudrate])
    table = f"Bench {baudrate}"
    pit.call("OpenTable", svc.OpenTableRequest(command_id=pit.command_id(), table=table, game=pb.GAME_HOLDEM,
                                               circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT,
                                                                        blinds=[1, 2], no_burns=True)))
    for seat in range(1, 11):
        dealer.call("SeatPlayer", svc.SeatPlayerRequest(command_id=dealer.command_id(), table=table, seat=seat,
                                                        chips=10**6))
    watcher = Watcher(dealer, table)
    shoe, station = attach(address, baudrate, table)
    latencies: list[float] = []
    acknowledged: list[float] = []
    try:
        hands = 0
        while len(latencies) < cards + WARM_UP:
            station.send("start")  # the croupier's new hand: the station announces the deck in the shoe
            deck = watcher.deck(hands, station)
            hands += 1
            if shoe.ask(f"load {deck}") != f"{deck} deck loaded":
                raise RuntimeError(f"the shoe did not load the {deck} deck: {shoe.tail()}")
            for _ in range(20):  # ten players, two cards each
                drew = shoe.ask("draw").split()
                if drew[0] != "drew":
                    raise RuntimeError(f"the shoe did not draw: {' '.join(drew)}; station {station.tail()}")
                sequence, written, acked = int(drew[1]), float(drew[3]), float(drew[4])
                latencies.append(watcher.arrival(sequence, station) - written)
                acknowledged.append(acked - written)
            while (legal := dealer.legal(table)).HasField("seat"):  # everyone folds to the big blind
                folds = {pb.ACTION_KIND_FOLD, pb.ACTION_KIND_CALL} <= set(legal.allowed)
                dealer.act(table, "fold" if folds else "check", seat=legal.seat)
    finally:
        station.stop()
        shoe.stop()
        pit.close()
        dealer.close()
    return latencies[:cards + WARM_UP], acknowledged[:cards + WARM_UP]


def main() -> None:
    """Start the service, then for each baud rate a shoe and a station; print the latencies and the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cards", type=int, default=200, help="reads measured at each baud rate after a warm-up hand")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="pokertable-devbench-"))
    config = directory / "stations.toml"
    config.write_text(CONFIG, encoding="utf-8")
    config.chmod(0o600)  # station tokens in clear: its owner's only (issue 32)
    process, port = serve(f"sqlite:///{directory / 'bench.db'}", config)  # returns once the service is warm
    service = Child("service", process)  # its output drained, so that its logs never fill a pipe
    print(f"pokertable device path benchmark ({os.cpu_count()} cores; one run; SQLite)")
    print("  separate processes, as deployed: the service (pokertable serve), the dealer station (pokertable station "
          "--plain --shoe PTY),\n  the simulated shoe (benchmarks/devices_shoe.py) and this client on the watch "
          "stream; a read is timed from the shoe's frame\n  write (in its process) to the deal event here, "
          "on CLOCK_MONOTONIC")
    frame = len(encode(card_frame(1, random.Random(0))))
    print(f"  a card frame is {frame} bytes: {frame * 10 / 9600 * 1000:.1f} ms on the wire at 9600 baud, "
          f"{frame * 10 / 115200 * 1000:.1f} ms at 115200")
    throughput = parser_throughput()
    print(f"  frame parser: {throughput:.2f} MB/s, {throughput * 1e6 / (115200 / 10):,.0f}x a 115200 baud line")
    try:
        results = {}
        for baudrate in (9600, 115200):
            measured, acked = measure(f"127.0.0.1:{port}", baudrate, args.cards)
            first, latencies = measured[0], sorted(measured[WARM_UP:])
            p50, p99 = statistics.median(latencies) * 1000, latencies[int(len(latencies) * 0.99) - 1] * 1000
            results[baudrate] = p99
            print(f"  {baudrate:>6} baud: card read to event on the watch stream p50 {p50:6.2f} ms  p99 {p99:6.2f} ms"
                  f"  (first read, cold: {first * 1000:.0f} ms; {len(latencies)} reads after a warm-up hand)")
            link = sorted(acked[WARM_UP:])
            print(f"{'':15}of which the frame to the station's ACK p50 {statistics.median(link) * 1000:6.2f} ms"
                  f"  p99 {link[int(len(link) * 0.99) - 1] * 1000:6.2f} ms  (the wire and the station's read)")
        verdict = "met" if results[115200] < 20 else "MISSED"
        print(f"\nTarget: p99 under 20 ms at 115200 baud: {results[115200]:.2f} ms, {verdict}")
    finally:
        service.process.terminate()
        service.process.wait(timeout=10)


if __name__ == "__main__":
    main()
