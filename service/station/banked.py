"""The dealer station at a banked table (``pokertable station --banked``): Texas Hold'em Bonus and Casino Draw Poker.

One command a line, the box first where there is one::

    start [red|blue]            start a hand              ante|bonus BOX AMOUNT      bets before "no va más"
    close-bets                  "no va más"               deal CARD [SEQUENCE]       the next card
    fold|check BOX              flop-bet|bet|play BOX AMOUNT                         decisions
    exchange BOX [CARDS…]       casino draw: give back 0–2 cards
    dealer-card-shown           R-THB-11 (a)              face-up-card CARD          R-THB-11 (b)
    wrong-count BOX|dealer [correctable]                  R-THB-11 (d)
    void RULE REASON…           the whole play (pit boss; R-THB-11 1.c)
    reshuffle                   the full reshuffle R-THB-11 requires (with a shuffler: the shuffler reshuffles)
    approve BOX | refuse BOX REASON…                      the 1000:1 (games director; R-THB-10)
    table                       show the table            quit
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.api import pokertable_pb2 as pb

if TYPE_CHECKING:
    from service.station.client import Station
    from service.station.hardware import HardwareStation

BOX_ACTIONS = ("fold", "check")
STAKE_ACTIONS = ("ante", "bonus", "flop-bet", "bet", "play")


def _box_action(verb: str, station: Station, table: str, args: list[str]) -> object:
    return station.banked(table, verb, box=int(args[0]))


def _stake_action(verb: str, station: Station, table: str, args: list[str]) -> object:
    return station.banked(table, verb, box=int(args[0]), amount=int(args[1]))


def _deal(station: Station, table: str, args: list[str]) -> object:
    if len(args) > 1:
        return station.banked(table, "deal", card=args[0], source="shoe", sequence=int(args[1]))
    return station.banked(table, "deal", card=args[0])


def _wrong_count(station: Station, table: str, args: list[str]) -> object:
    fields: dict[str, Any] = {"correctable": "correctable" in args[1:]}
    if args[0] != "dealer":
        fields["box"] = int(args[0])
    return station.banked(table, "wrong-count", **fields)


def _start(station: Station, table: str, args: list[str]) -> object:
    return station.call("StartBankedHand", pb.StartHandRequest(command_id=station.command_id(), table=table,
                                                               deck_colour=args[0] if args else "red"))


BANKED_COMMANDS: dict[str, Callable[[Station, str, list[str]], object]] = {
    "start": _start,
    "close-bets": lambda st, t, a: st.banked(t, "close-bets"),
    "deal": _deal,
    "exchange": lambda st, t, a: st.banked(t, "exchange", box=int(a[0]), cards=a[1:]),
    "dealer-card-shown": lambda st, t, a: st.banked(t, "dealer-card-shown"),
    "face-up-card": lambda st, t, a: st.banked(t, "face-up-card", card=a[0]),
    "wrong-count": _wrong_count,
    "void": lambda st, t, a: st.banked(t, "void", rule=a[0], reason=" ".join(a[1:])),
    "reshuffle": lambda st, t, a: st.banked(t, "reshuffle"),
    "approve": lambda st, t, a: st.banked(t, "approve", box=int(a[0])),
    "refuse": lambda st, t, a: st.banked(t, "refuse", box=int(a[0]), reason=" ".join(a[1:])),
    **{verb: functools.partial(_box_action, verb) for verb in BOX_ACTIONS},
    **{verb: functools.partial(_stake_action, verb) for verb in STAKE_ACTIONS},
}
"""Banked-table station commands by their first word."""


def render_banked(view: pb.BankedTableView) -> str:
    """The banked table as the croupier's screen shows it (the croupier's own cards hidden until turned)."""
    lines = [f"{view.table} · {view.game} · hands {view.hands_started} · house {view.bank_result:+}"]
    if view.reshuffle_required:
        lines.append(f"  RESHUFFLE the {view.reshuffle_required} deck fully before the next hand (R-THB-11)")
    if not view.hand_in_progress:
        return "\n".join([*lines, "  between hands"])
    lines.append(f"  {view.stage}  house {' '.join(view.dealer) or '—'}  board {' '.join(view.board) or '—'}"
                 f"  next card: {view.next_card or '—'}")
    for box in view.boxes:
        marker = "→" if box.box == view.to_decide else " "
        bets = ", ".join(f"{spot} {amount}" for spot, amount in sorted(box.bets.items()))
        result = ", ".join(f"{spot} {net:+}" for spot, net in sorted(box.result.items()))
        lines.append(f"  {marker} box {box.box}  {bets:<36} {' '.join(box.cards) or '—':<16} {result}".rstrip())
    return "\n".join(lines)


def execute_banked(station: Station, table: str, verb: str, args: list[str],
                   hardware: HardwareStation | None = None) -> str:
    """Run one banked command (``verb`` and its arguments); returns the table as it is after it.  With a shoe
    attached, ``start`` takes the deck in the shoe and ``reshuffle`` goes through the shuffler when there is one."""
    if verb == "start" and hardware is not None:
        hardware.start_hand()
    elif verb == "reshuffle" and hardware is not None:
        hardware.reshuffle()
    elif verb != "table":
        command = BANKED_COMMANDS.get(verb)
        if command is None:
            return f"unknown command {verb!r} at a banked table (see: pokertable station --help)"
        command(station, table, args)
    return render_banked(station.call("GetBankedTable", pb.TableRequest(table=table)))
