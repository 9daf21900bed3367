"""The reference dealer station: a gRPC client of the table service, scriptable or interactive, for every game.

``pokertable station --plain --server HOST:PORT --table T --token-file FILE [--badge ID]`` reads one command a line
(from ``--script FILE``, standard input, or the croupier at a prompt) and prints the table after each::

    open holdem no-limit 1/2        open a table (pit boss)     sit SEAT CHIPS        seat a player
    open holdem-bonus [ANTE_MIN] | open casino-draw ANTE_MIN ANTE_MAX                  open a banked table
    start [red|blue]                start a hand                deal CARD [SEQUENCE]  the next card (from the shoe)
    fold|check|call|all-in|bring-in|show|muck SEAT            bet SEAT TOTAL        bet or raise to TOTAL
    discard SEAT [CARDS…]           draw (five-card draw)       table | legal         show the table / the legal actions
    void RULE REASON…               (pit boss)                  devices               the shuffler and the shoe
    expose SEAT CARD                a down card shown by mistake (R-CIRC-9)     absent SEAT  (R-CIRC-10)
    cut-exposed CARD red|blue       a card seen at the cut (R-CIRC-2)           shuffled red|blue  shuffled by hand
    quit

At a Texas Hold'em Bonus or Casino Draw Poker table the same RPCs carry the banked commands too
(service/station/banked.py); a box is addressed as a seat:
    ante|bonus BOX AMOUNT  close-bets  deal CARD [SEQ]  fold|check BOX  flop-bet|bet|play BOX AMOUNT
    exchange BOX [CARDS…]  dealer-card-shown  face-up-card CARD  wrong-count BOX|dealer [correctable]
    void RULE REASON… (pit boss)  reshuffle  approve BOX REASON… | refuse BOX REASON… (games director)
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO, cast

import grpc

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.banked import BANKED_COMMANDS, render_banked
from service.station.client import Station as Station  # noqa: PLC0414  (its old home: re-exported)
from service.station.client import colour, croupier_pin, station_token, target, value, word
from service.station.devices_text import panel

if TYPE_CHECKING:
    from service.station.hardware import HardwareStation

SEAT_ACTIONS = ("fold", "check", "call", "all-in", "bring-in", "show", "muck", "expose-hand", "absent")


def held(view: pb.TableView) -> list[str]:
    """What holds the table (R-HOLD-1) and its decks out of play (R-DECK-3), a line each."""
    return [*(f"  HELD by the alert at {hold.position}: {hold.detail} ({hold.rule}); the pit boss acknowledges it "
              "before the next hand (R-HOLD-1)" for hold in view.holds),
            *(f"  the {word(pb.DeckColour, colour)} deck is OUT OF PLAY until a complete one is checked in (R-DECK-3)"
              for colour in view.decks_out_of_play)]


def render(view: pb.TableView) -> str:
    """The table as the croupier's screen shows it: ``[As]`` a face-down card, ``As`` a face-up one, ``??`` hidden.
    A banked table is drawn by :func:`service.station.banked.render_banked`."""
    if view.WhichOneof("detail") == "banked":
        return render_banked(view)
    circle = view.circle
    lines = [f"{view.table} · {word(pb.Game, view.game)} · hands {view.hands_started}", *held(view)]
    if not view.hand_in_progress:
        stacks = "  ".join(f"seat {seat}: {stack}" for seat, stack in sorted(circle.stacks.items()))
        lines.append(f"  between hands — {stacks}")
        if circle.HasField("reshuffle_required"):
            lines.append(f"  the {word(pb.DeckColour, circle.reshuffle_required)} deck must be shuffled again before "
                         "the deal (R-CIRC-2)")
        return "\n".join(lines)
    lines.append(f"  {circle.street} ({word(pb.HandPhase, circle.phase)})  pot {circle.pot}"
                 f"  board {' '.join(circle.board) or '—'}  next card: {target(view) or '—'}")
    for player in circle.players:
        marker = "→" if circle.HasField("actor_seat") and player.seat == circle.actor_seat else " "
        cards = " ".join(c if up or c == "??" else f"[{c}]" for c, up in zip(player.cards, player.face_up,
                                                                               strict=True))
        state = "folded" if player.folded else f"bet {player.bet}"
        lines.append(f"  {marker} seat {player.seat:<2} stack {player.stack:<7} {state:<10} {cards}")
    if circle.HasField("next_to_show_seat"):
        lines.append(f"  seat {circle.next_to_show_seat} shows (or mucks) next (R-CIRC-13)")
    return "\n".join(lines)


def render_legal(legal: svc.GetLegalActionsResponse) -> str:
    """The buttons a dealer screen enables."""
    if not legal.HasField("seat"):
        return "  nobody to act"
    options = []
    for kind in legal.allowed:
        name = word(pb.ActionKind, kind)
        if kind == pb.ACTION_KIND_CALL and legal.HasField("call"):
            name += f" {legal.call}"
        elif kind == pb.ACTION_KIND_BRING_IN and legal.HasField("bring_in"):
            name += f" {legal.bring_in}"
        elif kind == pb.ACTION_KIND_BET and legal.HasField("raise_min"):
            name += f" {legal.raise_min}–{legal.raise_max}"
        elif legal.HasField("bet") and kind in (pb.ACTION_KIND_BET, pb.ACTION_KIND_FLOP_BET, pb.ACTION_KIND_PLAY):
            name += f" {legal.bet}"
        options.append(name)
    return f"  seat {legal.seat}: " + " · ".join(options)


def _open(station: Station, table: str, args: list[str]) -> None:
    game = cast("pb.Game", value(pb.Game, args[0]) if args else pb.GAME_UNSPECIFIED)
    request = svc.OpenTableRequest(command_id=station.command_id(), table=table, game=game)
    if game == pb.GAME_HOLDEM_BONUS:
        request.holdem_bonus.ante_min = int(args[1]) if len(args) > 1 else 5
    elif game == pb.GAME_CASINO_DRAW:
        request.casino_draw.ante_min, request.casino_draw.ante_max = int(args[1]), int(args[2])
    else:
        structure, stakes = [*args[1:], "", ""][:2]
        blinds = [int(x) for x in stakes.split("/")] if "/" in stakes else []
        request.circle.CopyFrom(pb.CircleSettings(
            structure=cast("pb.BettingStructure", value(pb.BettingStructure, structure) if structure else 0),
            blinds=blinds, ante=0 if blinds or not stakes else int(stakes)))
    station.call("OpenTable", request)


def _sit(station: Station, table: str, args: list[str]) -> None:
    station.call("SeatPlayer", svc.SeatPlayerRequest(command_id=station.command_id(), table=table, seat=int(args[0]),
                                                     chips=int(args[1])))


def _deal(station: Station, table: str, args: list[str]) -> None:
    if len(args) > 1:
        station.act(table, "deal", card=args[0], source=pb.CARD_SOURCE_SHOE, sequence=int(args[1]))
    else:
        station.act(table, "deal", card=args[0], source=pb.CARD_SOURCE_CROUPIER)


def _seat_action(verb: str, station: Station, table: str, args: list[str]) -> object:
    return station.act(table, verb, seat=int(args[0]))


COMMANDS: dict[str, Callable[[Station, str, list[str]], object]] = {
    "open": _open,
    "sit": _sit,
    "start": lambda st, t, a: st.start(t, a[0] if a else "red"),
    "deal": _deal,
    "bet": lambda st, t, a: st.act(t, "bet", seat=int(a[0]), amount=int(a[1])),
    "discard": lambda st, t, a: st.act(t, "discard", seat=int(a[0]), cards=a[1:]),
    "void": lambda st, t, a: st.act(t, "void", rule=a[0], reason=" ".join(a[1:])),
    "expose": lambda st, t, a: st.act(t, "expose-card", seat=int(a[0]), card=a[1]),
    "cut-exposed": lambda st, t, a: st.call("RecordCutExposure", svc.RecordCutExposureRequest(
        command_id=st.command_id(), table=t, card=a[0], colour=colour(a[1]))),
    "shuffled": lambda st, t, a: st.call("RecordDeviceReport", svc.RecordDeviceReportRequest(
        command_id=st.command_id(), table=t, device="hand shuffle", serial=st.prefix,
        kind=pb.DEVICE_REPORT_KIND_SHUFFLE, colour=colour(a[0]), result="shuffled by the croupier")),
    **{verb: functools.partial(_seat_action, verb) for verb in SEAT_ACTIONS},
    **BANKED_COMMANDS,
}
"""Station commands that change the table, by their first word: every game's, then the banked tables' own."""


def execute(station: Station, table: str, line: str, hardware: HardwareStation | None = None, *,
            banked: bool = False) -> str | None:
    """Run one command line; returns what to print, or ``None`` to quit.  With a shoe attached, ``start`` takes
    the deck in the shoe (red and blue alternate) and the shoe deals, ``reshuffle`` goes through the shuffler when
    there is one; ``deal`` keys a card in by hand.  ``banked`` is kept for callers of the old station: every game
    goes through the same commands now, and the table's own view says which family it is."""
    del banked
    words = line.split("#", 1)[0].split()
    if not words:
        return ""
    verb, args = words[0], words[1:]
    if verb in ("quit", "exit"):
        return None
    if verb == "legal":
        return render_legal(station.legal(table))
    if verb == "devices":
        return panel(hardware) if hardware is not None else "no devices attached (pokertable station --shoe URL)"
    if verb == "start" and hardware is not None:
        hardware.start_hand()
    elif verb == "reshuffle" and hardware is not None:
        hardware.reshuffle()
    elif verb != "table":
        command = COMMANDS.get(verb)
        if command is None:
            return f"unknown command {verb!r} (see: pokertable station --help)"
        command(station, table, args)
    return render(station.table(table))


def run_lines(station: Station, table: str, lines: Iterable[str], out: TextIO, *, prompt: bool,
              hardware: HardwareStation | None = None, banked: bool = False, err: TextIO | None = None) -> int:
    """Run command lines, the table after each on ``out``; a refused or unreadable command is said on ``err`` (the
    command line's standard error; ``out`` when not given, one transcript) with its rule, and the station goes on
    (exit status 1 at the end)."""
    errors = out if err is None else err
    status = 0
    for line in lines:
        try:
            result = execute(station, table, line, hardware, banked=banked)
        except grpc.RpcError as error:
            out.flush()
            errors.write(f"refused: {error.code().name}: {error.details()}\n")
            errors.flush()
            status = 1
            result = ""
        except (ValueError, IndexError):
            out.flush()
            errors.write(f"cannot read {line.strip()!r}\n")
            errors.flush()
            status = 1
            result = ""
        if result is None:
            break
        if result:
            out.write(result + "\n")
        if prompt:
            out.write(render_legal(station.legal(table)) + "\n> ")
            out.flush()
    return status


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The plain station's own options (``pokertable station --plain``; service.cli.station), its commands described."""
    plain = parser.add_argument_group("the plain station (--plain)", description=__doc__)
    plain.add_argument("--plain", action="store_true",
                       help="the line-by-line station: one command a line, from --script FILE or standard input")
    plain.add_argument("--script", type=argparse.FileType("r"),
                       help="commands to run, one a line (implies --plain; default: standard input)")
    plain.add_argument("--banked", action="store_true",
                       help="the table is a banked table (Texas Hold'em Bonus, Casino Draw Poker): a card the shoe "
                            "finds face up is reported to it (R-THB-11); the commands are every game's")


def run(args: argparse.Namespace) -> int:
    """Connect and run the commands (``pokertable station --plain``: service.cli.station): the table on standard
    output, refusals and the devices' notices on standard error."""
    try:
        ca = args.tls_ca.read_bytes() if args.tls_ca else None
    except OSError as error:
        print(f"pokertable station: --tls-ca: {error}", file=sys.stderr)
        return 2
    credentials = grpc.ssl_channel_credentials(root_certificates=ca) if ca is not None else None
    try:
        station = Station(args.server, station_token(args), credentials)
        if getattr(args, "badge", None):  # issue 32: the croupier signs in first (his PIN: POKERTABLE_PIN or asked)
            signed = station.sign_in(args.badge, croupier_pin(args.badge))
            print(f"{signed.name or signed.person_id} signed in as {signed.role}", file=sys.stderr, flush=True)
    except (ValueError, grpc.RpcError) as error:
        message = error.details() if isinstance(error, grpc.RpcError) else str(error)
        print(f"pokertable station: {message}", file=sys.stderr)
        return 2
    source = args.script or sys.stdin
    interactive = source.isatty()
    hardware = None
    if getattr(args, "shoe", None):
        from service.station.hardware import HardwareStation

        hardware = HardwareStation(station, args.table, args.shoe, getattr(args, "shuffler", None), banked=args.banked,
                                   baudrate=getattr(args, "baud", 115200),
                                   show=lambda message: print(f"[devices] {message}", file=sys.stderr, flush=True))
    try:
        if interactive:
            first = execute(station, args.table, "table", banked=args.banked)
            sys.stdout.write(f"{first}\n> ")
            sys.stdout.flush()
        return run_lines(station, args.table, source, sys.stdout, prompt=interactive, hardware=hardware,
                         banked=args.banked, err=sys.stderr)
    except grpc.RpcError as error:
        print(f"pokertable station: {error.code().name}: {error.details()}", file=sys.stderr)
        return 1
    finally:
        if hardware is not None:
            hardware.close()
        station.close()
