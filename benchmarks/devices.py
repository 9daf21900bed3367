"""Device path speed: from the simulated shoe writing a card frame to the deal event stored by the service and seen
on the watch stream, p50 and p99, at 9600 and 115200 baud (the pseudo-terminal paced like a real line); and the frame
parser's throughput.  Target (issue 7): p99 card-read-to-event under 20 ms at 115200 baud.

Run with ``.venv/bin/python -m benchmarks.devices [--cards 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from devices.framing import Frame, FrameParser, encode
from devices.protocol import CardDrawn, Colour
from devices.protocol import encode as encode_message
from devices.simulators import ShoeSimulator
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.bootstrap import open_store
from service.grpc.server import Stations, create_server, stop
from service.station.hardware import HardwareStation
from service.station.reference import Station

WARM_UP = 20  # the first hand's reads: cold paths (first command, first wake of the stream), reported apart
PIT = "bench-pit-boss-token-000001"
DEALERS = {baud: f"bench-dealer-token-{baud:08}" for baud in (9600, 115200)}
STATIONS = Stations.from_mapping({"pit": {"token": PIT, "role": "pit-boss"},
                                  **{f"mesa-{baud}": {"token": token, "role": "dealer", "table": f"Bench {baud}"}
                                     for baud, token in DEALERS.items()}})


def card_frame(read_seq: int, rng: random.Random) -> Frame:
    """The frame of a shoe's card report."""
    message = CardDrawn(read_seq, rng.randrange(2, 15), rng.randrange(4), rng.choice(list(Colour)), False)
    return encode_message(message, read_seq % 256)


def wait_until_serving(port: int, timeout: float = 60.0) -> None:
    """Until the service's health says SERVING (its hand-ranking tables built: nothing else competes for the CPU)."""
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    health = health_pb2_grpc.HealthStub(channel)
    request = health_pb2.HealthCheckRequest(service="pokertable.v1.TableService")
    for reply in health.Watch(request, timeout=timeout):  # type: ignore[attr-defined]
        if reply.status == health_pb2.HealthCheckResponse.SERVING:
            break
    channel.close()


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


def measure(address: str, baudrate: int, cards: int) -> list[float]:
    """Latencies of ``cards`` shoe reads, from the frame write to the event on the watch stream."""
    pit, dealer = Station(address, PIT), Station(address, DEALERS[baudrate])
    table = f"Bench {baudrate}"
    pit.call("OpenTable", svc.OpenTableRequest(command_id=pit.command_id(), table=table, game=pb.GAME_HOLDEM,
                                               circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT,
                                                                        blinds=[1, 2], no_burns=True)))
    for seat in range(1, 11):
        dealer.call("SeatPlayer", svc.SeatPlayerRequest(command_id=dealer.command_id(), table=table, seat=seat,
                                                        chips=10**6))
    shoe = ShoeSimulator(seed=baudrate, baudrate=baudrate)
    seen: dict[int, float] = {}
    watching = threading.Event()

    def watch() -> None:
        stream = dealer.call("Watch", svc.WatchRequest(table=table))
        watching.set()
        try:
            for change in stream:
                if change.event.WhichOneof("event") == "hand_card_dealt":
                    dealt = change.event.hand_card_dealt
                    if dealt.source == "shoe":
                        seen[dealt.sequence] = time.perf_counter()
        except grpc.RpcError:
            return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    watching.wait()
    hardware = HardwareStation(Station(address, DEALERS[baudrate]), table, shoe.url, show=lambda message: None)
    latencies: list[float] = []
    try:
        shoe.hello()
        while len(latencies) < cards + WARM_UP:
            hardware.start_hand()
            shoe.load(hardware.colour_of_hand(hardware.hands))
            for _ in range(20):  # ten players, two cards each
                sequence = shoe.read_seq + 1
                started = time.perf_counter()
                shoe.draw()
                deadline = time.perf_counter() + 5
                while sequence not in seen and time.perf_counter() < deadline:
                    time.sleep(0.0002)
                if sequence not in seen:
                    raise RuntimeError(f"read {sequence} never reached the watch stream: "
                                       f"{hardware.refused} {hardware.irregularities}")
                latencies.append(seen[sequence] - started)
            while (legal := dealer.legal(table)).HasField("seat"):  # everyone folds to the big blind
                folds = {pb.ACTION_KIND_FOLD, pb.ACTION_KIND_CALL} <= set(legal.allowed)
                dealer.act(table, "fold" if folds else "check", seat=legal.seat)
    finally:
        hardware.close()
        shoe.close()
    return latencies[:cards + WARM_UP]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cards", type=int, default=200, help="reads measured at each baud rate after a warm-up hand")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="pokertable-devbench-"))
    url = f"sqlite:///{directory / 'bench.db'}"
    store = open_store(url, writer=True)  # as `pokertable serve` runs on SQLite: the file's sole writer
    app = store.app
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    server, port = asyncio.run_coroutine_threadsafe(create_server(app, STATIONS), loop).result()
    wait_until_serving(port)  # as a station does: the service warms up (hand rankings) before it serves
    print(f"pokertable device path benchmark ({os.cpu_count()} cores; one run; SQLite)")
    frame = len(encode(card_frame(1, random.Random(0))))
    print(f"  a card frame is {frame} bytes: {frame * 10 / 9600 * 1000:.1f} ms on the wire at 9600 baud, "
          f"{frame * 10 / 115200 * 1000:.1f} ms at 115200")
    throughput = parser_throughput()
    print(f"  frame parser: {throughput:.2f} MB/s, {throughput * 1e6 / (115200 / 10):,.0f}x a 115200 baud line")
    try:
        results = {}
        for baudrate in (9600, 115200):
            measured = measure(f"127.0.0.1:{port}", baudrate, args.cards)
            first, latencies = measured[0], sorted(measured[WARM_UP:])
            p50, p99 = statistics.median(latencies) * 1000, latencies[int(len(latencies) * 0.99) - 1] * 1000
            results[baudrate] = p99
            print(f"  {baudrate:>6} baud: card read to event on the watch stream p50 {p50:6.2f} ms  p99 {p99:6.2f} ms"
                  f"  (first read, cold: {first * 1000:.0f} ms; {len(latencies)} reads after a warm-up hand)")
        verdict = "met" if results[115200] < 20 else "MISSED"
        print(f"\nTarget: p99 under 20 ms at 115200 baud: {results[115200]:.2f} ms, {verdict}")
    finally:
        asyncio.run_coroutine_threadsafe(stop(server, 0), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        store.close()


if __name__ == "__main__":
    main()
