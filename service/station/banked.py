"""The dealer station at a banked table: Texas Hold'em Bonus and Casino Draw Poker, through the same RPCs as every
other game (``StartHand``, ``Act``, ``GetTable``, ``GetLegalActions``); a box is addressed as a seat.

One command a line, the box first where there is one::

    start [red|blue]            start a hand              ante|bonus BOX AMOUNT      bets before "no va más"
    close-bets                  "no va más"               deal CARD [SEQUENCE]       the next card
    fold|check BOX              flop-bet|bet|play BOX AMOUNT                         decisions
    exchange BOX [CARDS…]       casino draw: give back 0–2 cards
    dealer-card-shown           R-THB-11 (a)              face-up-card CARD          R-THB-11 (b)
    wrong-count BOX|dealer [correctable]                  R-THB-11 (d)
    void RULE REASON…           the whole play (pit boss; R-THB-11 1.c)
    reshuffle                   the full reshuffle R-THB-11 requires (with a shuffler: the shuffler reshuffles)
    approve BOX REASON… | refuse BOX REASON…              the 1000:1 (games director; R-THB-10)
    table                       show the table            quit
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.api import types_pb2 as pb
from service.station.client import target, word

if TYPE_CHECKING:
    from service.station.client import Station

STAKE_ACTIONS = ("ante", "bonus", "flop-bet", "play")
BOX_SPOTS = ("ante", "bonus", "flop", "turn", "river", "play")
"""The spots of a box's bets, in the order of ``BoxBets``."""


def _stake_action(verb: str, station: Station, table: str, args: list[str]) -> object:
    return station.act(table, verb, seat=int(args[0]), amount=int(args[1]))


def _wrong_count(station: Station, table: str, args: list[str]) -> object:
    fields: dict[str, Any] = {"correctable": "correctable" in args[1:]}
    if args[0] != "dealer":
        fields["seat"] = int(args[0])
    return station.act(table, "wrong-count", **fields)


BANKED_COMMANDS: dict[str, Callable[[Station, str, list[str]], object]] = {
    "close-bets": lambda st, t, a: st.act(t, "close-bets"),
    "exchange": lambda st, t, a: st.act(t, "exchange", seat=int(a[0]), cards=a[1:]),
    "dealer-card-shown": lambda st, t, a: st.act(t, "dealer-card-shown"),
    "face-up-card": lambda st, t, a: st.act(t, "face-up-card", card=a[0]),
    "wrong-count": _wrong_count,
    "reshuffle": lambda st, t, a: st.act(t, "reshuffle"),
    "approve": lambda st, t, a: st.act(t, "approve-bonus", seat=int(a[0]), reason=" ".join(a[1:])),
    "refuse": lambda st, t, a: st.act(t, "refuse-bonus", seat=int(a[0]), reason=" ".join(a[1:])),
    **{verb: functools.partial(_stake_action, verb) for verb in STAKE_ACTIONS},
}
"""The station commands only a banked table has, by their first word (``start``, ``deal``, ``fold``, ``check``,
``bet`` and ``void`` are every game's: service/station/reference.py)."""


def spots(bets: pb.BoxBets) -> list[tuple[str, int]]:
    """A box's spots with a bet (or a result), in order."""
    return [(spot, getattr(bets, spot)) for spot in BOX_SPOTS if bets.HasField(spot)]


def render_banked(view: pb.TableView) -> str:
    """The banked table as the croupier's screen shows it (the croupier's own cards hidden until turned)."""
    banked = view.banked
    lines = [f"{view.table} · {word(pb.Game, view.game)} · hands {view.hands_started} · house {banked.bank_result:+}"]
    lines.extend(f"  HELD by the alert at {hold.position}: {hold.detail} ({hold.rule}) (R-HOLD-1)"
                 for hold in view.holds)
    lines.extend(f"  the {word(pb.DeckColour, colour)} deck is OUT OF PLAY (R-DECK-3)"
                 for colour in view.decks_out_of_play)
    if banked.HasField("reshuffle_required"):
        lines.append(f"  RESHUFFLE the {word(pb.DeckColour, banked.reshuffle_required)} deck fully before the next "
                     "hand (R-THB-11)")
    if not view.hand_in_progress:
        return "\n".join([*lines, "  between hands"])
    lines.append(f"  {word(pb.BankedStage, banked.stage)}  house {' '.join(banked.dealer_cards) or '—'}"
                 f"  board {' '.join(banked.board) or '—'}  next card: {target(view) or '—'}")
    for box in banked.boxes:
        marker = "→" if banked.HasField("to_decide") and box.seat == banked.to_decide else " "
        bets = ", ".join(f"{spot} {amount}" for spot, amount in spots(box.bets))
        result = ", ".join(f"{spot} {net:+}" for spot, net in spots(box.result)) if box.settled else ""
        lines.append(f"  {marker} box {box.seat}  {bets:<36} {' '.join(box.cards) or '—':<16} {result}".rstrip())
    return "\n".join(lines)
