"""The simulated shoe of the device path benchmark (benchmarks/devices.py), in a process of its own, as a shoe is a
device of its own beside the station it is cabled to.

It is devices/simulators.py's ``ShoeSimulator`` (the same bytes, framing and link code as ``pokertable devices
simulate --shoe``) on a pseudo-terminal paced like a serial line at ``--baud`` (a frame takes as long to write as on
the wire), which ``pokertable devices simulate`` does not offer; and each ``draw`` answers with the moment its frame
started to be written, on ``CLOCK_MONOTONIC``: one clock for every process of the machine, so the benchmark, in
another process, subtracts it from the moment the deal event reaches it on the watch stream.

Run as ``python -m benchmarks.devices_shoe --baud 115200 [--seed N]``.  It prints ``shoe: PATH`` (the pty the
station opens), then answers each command of standard input with one line::

    hello             announce the shoe (HELLO, protocol 2) -> "hello acknowledged" once the station acknowledged it
    load red|blue     load a freshly shuffled deck of that colour -> "red deck loaded"
    draw              draw the next card -> "drew READ_SEQUENCE CARD WRITTEN ACKNOWLEDGED" once the station
                      acknowledged it: the moments (CLOCK_MONOTONIC, seconds) the frame's write started and its ACK
                      came back
    quit

and ``error: …`` when a command fails (a frame not acknowledged: the station is not there yet).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from devices.link import LinkError
from devices.protocol import Colour
from devices.simulators import ShoeSimulator


def obey(shoe: ShoeSimulator, words: list[str]) -> str:
    """Carry out one command; the line to answer."""
    verb = words[0]
    if verb == "hello":
        shoe.hello()
        return "hello acknowledged"
    if verb == "load":
        shoe.load(Colour[words[1].upper()])
        return f"{words[1]} deck loaded"
    if verb == "draw":
        started = time.clock_gettime(time.CLOCK_MONOTONIC)  # before the frame's wire time, as a real shoe reads it
        card = shoe.draw()  # returns once the station acknowledged the frame (link rule 2: stop-and-wait)
        acknowledged = time.clock_gettime(time.CLOCK_MONOTONIC)
        return f"drew {shoe.read_seq} {card} {started:.9f} {acknowledged:.9f}"
    return f"error: unknown command {verb!r}"


def main() -> None:
    """Start the shoe on a pty, print its path, obey commands until ``quit`` or the end of input."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baud", type=int, default=115200, help="the line speed the pty is paced at")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the shoe's shuffles")
    args = parser.parse_args()
    shoe = ShoeSimulator(seed=args.seed, baudrate=args.baud)
    print(f"shoe: {shoe.url}", flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "quit":
                break
            try:
                answer = obey(shoe, words)
            except (LinkError, KeyError, IndexError) as error:
                answer = f"error: {error}"
            print(answer, flush=True)
    finally:
        shoe.close()


if __name__ == "__main__":
    main()
