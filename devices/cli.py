"""``pokertable devices simulate``: a simulated shoe and shuffler on pseudo-terminals (or socket://), for hardware
integrators and demos.  It prints the port paths, then takes commands on standard input::

    load red|blue [SIZE]  load a freshly shuffled deck of that colour (52 cards, or 20-48) into the shoe
    draw [N]              draw N cards (default 1)
    face-up | other-colour | unreadable     draw the next card with that fault
    bad-crc | truncated | twice             draw the next card through that line fault
    double-feed | empty   report a shoe fault
    wild-read             report the next card with read number 4294967295 (a firmware glitch)
    power-cycle           switch the shoe off and on (its reads are numbered from 1 again; its HELLO says so)
    silent                the shoe hangs: no heartbeat, nothing
    jam | door | miscount the shuffler's next shuffle jams / finds its door open / next deck check misses a card
    wrong-colour          the shuffler's next state report names the other deck
    quit
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from devices.protocol import Colour, ShoeFaultCode
from devices.simulators import ShoeSimulator, ShufflerSimulator


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``devices simulate``."""
    parser = commands.add_parser("devices", help="simulated table devices")
    actions = parser.add_subparsers(dest="devices_command", required=True)
    simulate = actions.add_parser("simulate", help="run a simulated shoe and/or shuffler",
                                  description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    simulate.add_argument("--shoe", action="store_true")
    simulate.add_argument("--shuffler", action="store_true")
    simulate.add_argument("--socket", action="store_true", help="listen on socket:// instead of a pseudo-terminal")
    simulate.add_argument("--seed", type=int, default=0)
    simulate.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Start the simulators, print their ports, obey commands until ``quit`` or end of input."""
    if not (args.shoe or args.shuffler):
        print("pokertable devices simulate: choose --shoe and/or --shuffler", file=sys.stderr)
        return 2
    shoe = ShoeSimulator(seed=args.seed, use_socket=args.socket) if args.shoe else None
    shuffler = ShufflerSimulator(seed=args.seed + 1, use_socket=args.socket) if args.shuffler else None
    if shoe:
        shoe.load(Colour.RED)
        print(f"shoe: {shoe.url}", flush=True)
    if shuffler:
        print(f"shuffler: {shuffler.url}", flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "quit":
                break
            try:
                print(obey(words, shoe, shuffler), flush=True)
            except Exception as error:
                print(f"error: {error}", flush=True)
    finally:
        for device in (shoe, shuffler):
            if device is not None:
                device.close()
    return 0


def obey(words: list[str], shoe: ShoeSimulator | None, shuffler: ShufflerSimulator | None) -> str:
    """Carry out one command."""
    verb, args = words[0], words[1:]
    if verb in ("jam", "door", "miscount", "wrong-colour"):
        if shuffler is None:
            return "no shuffler"
        if verb == "jam":
            shuffler.jam_next = True
        elif verb == "door":
            shuffler.door_open_next = True
        elif verb == "wrong-colour":
            shuffler.wrong_colour_next = True
            return "the shuffler will name the other deck"
        else:
            shuffler.miscount_next = [51]
        return f"the shuffler will {'find its door open' if verb == 'door' else verb}"
    if shoe is None:
        return "no shoe"
    faults: dict[str, Callable[[], object]] = {
        "face-up": lambda: shoe.draw(face_up=True),
        "other-colour": lambda: shoe.draw(colour=Colour.BLUE if shoe.colour is Colour.RED else Colour.RED),
        "unreadable": lambda: shoe.draw(unreadable=True),
        "bad-crc": lambda: shoe.send_with_bad_crc(shoe.card_message(shoe.cards.pop(0))),
        "truncated": lambda: shoe.send_truncated(shoe.card_message(shoe.cards.pop(0))),
        "twice": lambda: shoe.send_twice(shoe.card_message(shoe.cards.pop(0))),
        "double-feed": lambda: shoe.fault(ShoeFaultCode.DOUBLE_FEED),
        "empty": lambda: shoe.fault(ShoeFaultCode.SHOE_EMPTY),
        "wild-read": lambda: shoe.stray_read(2**32 - 1),
        "power-cycle": shoe.power_cycle,
        "silent": shoe.go_silent,
    }
    if verb == "load":  # any deck the table needs: 52, or a reduced one (R-CARD-2; issue 33)
        size = int(args[1]) if len(args) > 1 else 52
        shoe.load(Colour[args[0].upper()], size=size)
        return f"{args[0]} deck of {size} loaded"
    if verb == "draw":
        cards = [shoe.draw() for _ in range(int(args[0]) if args else 1)]
        return "drew " + " ".join(str(c) for c in cards)
    if verb in faults:
        faults[verb]()
        return f"sent: {verb}"
    return f"unknown command {verb!r}"
