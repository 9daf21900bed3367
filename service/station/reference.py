"""The reference dealer station: a gRPC client of the table service, scriptable or interactive.

``pokertable station --server HOST:PORT --table T --token TOKEN`` reads one command a line (from ``--script FILE``,
standard input, or the croupier at a prompt) and prints the table after each::

    open holdem no-limit 1/2        open a table (pit boss)     sit SEAT CHIPS        seat a player
    start [red|blue]                start a hand                deal CARD [SEQUENCE]  the next card (from the shoe)
    fold|check|call|all-in|bring-in|show|muck SEAT            bet SEAT TOTAL        bet or raise to TOTAL
    discard SEAT [CARDS…]           draw (five-card draw)       table | legal         show the table / the legal actions
    void RULE REASON…               (pit boss)                  devices               the shuffler and the shoe
    expose SEAT CARD                a down card shown by mistake (R-CIRC-9)     absent SEAT  (R-CIRC-10)
    cut-exposed CARD red|blue       a card seen at the cut (R-CIRC-2)           shuffled red|blue  shuffled by hand
    quit

With ``--banked`` the table is a Texas Hold'em Bonus or Casino Draw Poker table (service/station/banked.py):
    ante|bonus BOX AMOUNT  close-bets  deal CARD [SEQ]  fold|check BOX  flop-bet|bet|play BOX AMOUNT
    exchange BOX [CARDS…]  dealer-card-shown  face-up-card CARD  wrong-count BOX|dealer [correctable]
    void RULE REASON… (pit boss)  reshuffle  approve BOX | refuse BOX REASON… (games director)
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

import grpc

from service.api import pokertable_pb2 as pb
from service.station.banked import execute_banked
from service.station.client import Station as Station  # noqa: PLC0414  (its old home: re-exported)

if TYPE_CHECKING:
    from service.station.hardware import HardwareStation

SEAT_ACTIONS = ("fold", "check", "call", "all-in", "bring-in", "show", "muck", "expose-hand", "absent")


def render(view: pb.TableView) -> str:
    """The table as the croupier's screen shows it: ``[As]`` a face-down card, ``As`` a face-up one, ``??`` hidden."""
    lines = [f"{view.table} · {view.variant} · hands {view.hands_started}"]
    if not view.hand_in_progress:
        stacks = "  ".join(f"seat {seat}: {stack}" for seat, stack in sorted(view.stacks.items()))
        lines.append(f"  between hands — {stacks}")
        if view.reshuffle_required:
            lines.append(f"  the {view.reshuffle_required} deck must be shuffled again before the deal (R-CIRC-2)")
        return "\n".join(lines)
    lines.append(f"  {view.street} ({view.phase})  pot {view.pot}  board {' '.join(view.board) or '—'}"
                 f"  next card: {view.next_card or '—'}")
    for player in view.players:
        marker = "→" if player.seat == view.actor_seat else " "
        cards = " ".join(c if up or c == "??" else f"[{c}]" for c, up in zip(player.cards, player.face_up,
                                                                               strict=True))
        state = "folded" if player.folded else f"bet {player.bet}"
        lines.append(f"  {marker} seat {player.seat:<2} stack {player.stack:<7} {state:<10} {cards}")
    if view.next_to_show_seat:
        lines.append(f"  seat {view.next_to_show_seat} shows (or mucks) next (R-CIRC-13)")
    return "\n".join(lines)


def render_legal(legal: pb.LegalActions) -> str:
    """The buttons a dealer screen enables."""
    if not legal.anyone_to_act:
        return "  nobody to act"
    options = [name for name, ok in (("fold", legal.fold), ("check", legal.check)) if ok]
    if legal.HasField("call"):
        options.append(f"call {legal.call}")
    if legal.HasField("bring_in"):
        options.append(f"bring-in {legal.bring_in}")
    if legal.HasField("raise_min"):
        options.append(f"bet {legal.raise_min}–{legal.raise_max}")
    return f"  seat {legal.seat}: " + " · ".join(options)


def _open(station: Station, table: str, args: list[str]) -> None:
    variant, structure, stakes = [*args, "", "", ""][:3]
    blinds = [int(x) for x in stakes.split("/")] if "/" in stakes else []
    settings = pb.Settings(variant=variant, structure=structure, blinds=blinds,
                           ante=0 if blinds or not stakes else int(stakes))
    station.call("OpenTable", pb.OpenTableRequest(command_id=station.command_id(), table=table, settings=settings))


def _sit(station: Station, table: str, args: list[str]) -> None:
    station.call("SeatPlayer", pb.SeatPlayerRequest(command_id=station.command_id(), table=table, seat=int(args[0]),
                                                    chips=int(args[1])))


def _start(station: Station, table: str, args: list[str]) -> None:
    station.call("StartHand", pb.StartHandRequest(command_id=station.command_id(), table=table,
                                                  deck_colour=args[0] if args else "red"))


def _deal(station: Station, table: str, args: list[str]) -> None:
    if len(args) > 1:
        station.hand(table, "deal", card=args[0], source="shoe", sequence=int(args[1]))
    else:
        station.hand(table, "deal", card=args[0])


def _seat_action(verb: str, station: Station, table: str, args: list[str]) -> object:
    return station.hand(table, verb, seat=int(args[0]))


COMMANDS: dict[str, Callable[[Station, str, list[str]], object]] = {
    "open": _open,
    "sit": _sit,
    "start": _start,
    "deal": _deal,
    "bet": lambda st, t, a: st.hand(t, "bet", seat=int(a[0]), amount=int(a[1])),
    "discard": lambda st, t, a: st.hand(t, "discard", seat=int(a[0]), cards=a[1:]),
    "void": lambda st, t, a: st.hand(t, "void", rule=a[0], reason=" ".join(a[1:])),
    "expose": lambda st, t, a: st.hand(t, "expose-card", seat=int(a[0]), card=a[1]),
    "cut-exposed": lambda st, t, a: st.call("RecordCutExposure", pb.CutExposureRequest(
        command_id=st.command_id(), table=t, card=a[0], colour=a[1])),
    "shuffled": lambda st, t, a: st.call("RecordDeviceReport", pb.DeviceReportRequest(
        command_id=st.command_id(), table=t, device="hand shuffle", serial=st.prefix, kind="shuffle", colour=a[0],
        result="shuffled by the croupier")),
    **{verb: functools.partial(_seat_action, verb) for verb in SEAT_ACTIONS},
}
"""Station commands that change the table, by their first word."""


def execute(station: Station, table: str, line: str, hardware: HardwareStation | None = None, *,
            banked: bool = False) -> str | None:
    """Run one command line; returns what to print, or ``None`` to quit.  With a shoe attached, ``start`` takes
    the deck in the shoe (red and blue alternate) and the shoe deals; ``deal`` keys a card in by hand."""
    words = line.split("#", 1)[0].split()
    if not words:
        return ""
    verb, args = words[0], words[1:]
    if verb in ("quit", "exit"):
        return None
    if banked and verb != "devices":
        return execute_banked(station, table, verb, args, hardware)
    if verb == "legal":
        return render_legal(station.legal(table))
    if verb == "devices":
        return hardware.panel() if hardware is not None else "no devices attached (pokertable station --shoe URL)"
    if verb == "start" and hardware is not None:
        hardware.start_hand()
        return render(station.table(table))
    if verb != "table":
        command = COMMANDS.get(verb)
        if command is None:
            return f"unknown command {verb!r} (see: pokertable station --help)"
        command(station, table, args)
    return render(station.table(table))


def run_lines(station: Station, table: str, lines: Iterable[str], out: TextIO, *, prompt: bool,
              hardware: HardwareStation | None = None, banked: bool = False) -> int:
    """Run command lines; an error is printed with its rule and the station goes on (exit status 1 at the end)."""
    status = 0
    for line in lines:
        try:
            result = execute(station, table, line, hardware, banked=banked)
        except grpc.RpcError as error:
            out.write(f"refused: {error.code().name}: {error.details()}\n")
            status = 1
            result = ""
        except (ValueError, IndexError):
            out.write(f"cannot read {line.strip()!r}\n")
            status = 1
            result = ""
        if result is None:
            break
        if result:
            out.write(result + "\n")
        if prompt:
            out.write(("" if banked else render_legal(station.legal(table)) + "\n") + "> ")
            out.flush()
    return status


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``station`` on the CLI."""
    parser = commands.add_parser("station", help="the reference dealer station (scriptable or interactive)",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True, help="HOST:PORT of the table service")
    parser.add_argument("--table", required=True)
    parser.add_argument("--token", required=True, help="this station's token")
    parser.add_argument("--script", type=argparse.FileType("r"), help="commands to run (default: standard input)")
    parser.add_argument("--tls-ca", type=argparse.FileType("rb"), help="PEM CA of a TLS server")
    parser.add_argument("--shoe", help="port URL of the card-reading shoe: its reads are dealt as they come")
    parser.add_argument("--shuffler", help="port URL of the automatic shuffler (prepares the other deck)")
    parser.add_argument("--banked", action="store_true",
                        help="the table is a banked table (Texas Hold'em Bonus, Casino Draw Poker)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Connect and run the commands."""
    credentials = grpc.ssl_channel_credentials(root_certificates=args.tls_ca.read()) if args.tls_ca else None
    station = Station(args.server, args.token, credentials)
    source = args.script or sys.stdin
    interactive = source.isatty()
    hardware = None
    if args.shoe:
        from service.station.hardware import HardwareStation

        hardware = HardwareStation(station, args.table, args.shoe, args.shuffler, banked=args.banked,
                                   show=lambda message: print(f"[devices] {message}", flush=True))
    try:
        if interactive:
            first = execute(station, args.table, "table", banked=args.banked)
            sys.stdout.write(f"{first}\n> ")
            sys.stdout.flush()
        return run_lines(station, args.table, source, sys.stdout, prompt=interactive, hardware=hardware,
                         banked=args.banked)
    except grpc.RpcError as error:
        print(f"pokertable station: {error.code().name}: {error.details()}", file=sys.stderr)
        return 1
    finally:
        if hardware is not None:
            hardware.close()
        station.close()
