"""A table drawn as a table (issue 34, item 4): each seat (a circle table's) or box (a banked table's) at its place
around the felt — a circle table's ten places around the oval, seat 1 at the croupier's left; a banked table's
boxes along the players' side, the house at the croupier's — with its chips, its bet, its cards, the dealer button
or *la mano* (R-CIRC-1), who acts now, and whether it folded or is all in. Pure: a function of the table's view
(the pit's, or an observer's with "??" for what it may not see).

>>> from service.api import types_pb2 as pb
>>> view = pb.TableView(hand_in_progress=True, circle=pb.CircleTableView(button_seat=2, actor_seat=3, players=[
...     pb.Player(seat=2, stack=90, bet=10, cards=["As", "Kd"], face_up=[False, False]),
...     pb.Player(seat=3, stack=0, bet=100, put_in=100, cards=["??", "??"], face_up=[False, False])]))
>>> [(s.seat, s.marker, s.to_act, s.all_in) for s in seat_slots(view)]
[(2, 'D', False, False), (3, '', True, True)]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.api import types_pb2 as pb

PLACES = 10
"""A circle table's places around the felt (the most seats a table takes)."""
BOX_SPOTS = ("ante", "bonus", "flop", "turn", "river", "play")


@dataclass(frozen=True)
class Slot:
    """A seat or a box as the felt draws it."""

    seat: int
    place: int
    """Where around the felt: 1 to :data:`PLACES` (circle), 1 to 7 (banked boxes)."""
    stack: int | None = None
    bet: int = 0
    put_in: int = 0
    cards: list[str] = field(default_factory=list)
    marker: str = ""
    """``D``: the dealer button; ``M``: la mano, who speaks first (R-CIRC-1)."""
    to_act: bool = False
    folded: bool = False
    all_in: bool = False
    bets: str = ""
    """A box's bets by spot (banked)."""
    result: str = ""
    """A settled box's result by spot (banked)."""


BANKED_STAGES = {
    "betting": ("bets open", "apuestas abiertas"), "dealing": ("dealing", "repartiendo"),
    "preflop": ("before the flop: fold or bet the flop", "antes del flop: retirarse o apostar al flop"),
    "turn": ("the turn: check or bet", "el turn: pasar o apostar"),
    "river": ("the river: check or bet", "el river: pasar o apostar"),
    "approval": ("a 1000:1 waits for the games director", "un 1000:1 espera al director de juegos"),
    "exchange": ("the boxes change cards", "las casillas cambian cartas"),
    "decision": ("the boxes play or fold", "las casillas juegan o se retiran"),
    "bank": ("the bank shows and changes", "la banca muestra y cambia"),
    "complete": ("every box settled", "todas las casillas liquidadas"), "void": ("voided", "anulada"),
}
"""A banked hand's stage in words (English, Spanish)."""
STREETS = {
    "preflop": ("before the flop", "antes del flop"), "flop": ("the flop", "el flop"), "turn": ("the turn", "el turn"),
    "river": ("the river", "el river"), "first": ("first street", "primera calle"),
    "second": ("second street", "segunda calle"), "third": ("third street", "tercera calle"),
    "fourth": ("fourth street", "cuarta calle"), "fifth": ("fifth street", "quinta calle"),
    "sixth": ("sixth street", "sexta calle"), "seventh": ("seventh street", "séptima calle"),
    "deal": ("the deal", "el reparto"), "draw": ("the draw", "el descarte"), "down": ("the down cards",
                                                                                  "las cartas tapadas"),
}
"""A circle hand's street in words."""
PHASES = {
    pb.HAND_PHASE_DEALING: ("cards due", "faltan cartas"), pb.HAND_PHASE_BETTING: ("betting", "apuestas"),
    pb.HAND_PHASE_DRAWING: ("discarding", "descartes"), pb.HAND_PHASE_SHOWDOWN: ("showdown", "descubierta"),
    pb.HAND_PHASE_PASSED: ("nobody opened: the pot carries", "nadie abrió: el bote pasa"),
    pb.HAND_PHASE_COMPLETE: ("every pot paid", "todos los botes pagados"), pb.HAND_PHASE_VOID: ("voided", "anulada"),
}
"""A circle hand's phase in words."""


def stage_words(view: pb.TableView, lang: str) -> str:
    """The hand's stage as the pit reads it, in ``lang`` ("" between hands).

    >>> stage_words(pb.TableView(hand_in_progress=True, circle=pb.CircleTableView(street="turn",
    ...     phase=pb.HAND_PHASE_BETTING)), "es")
    'el turn · apuestas'
    """
    if not view.hand_in_progress:
        return ""
    which = 1 if lang == "es" else 0
    if view.WhichOneof("detail") == "banked":
        stage = pb.BankedStage.Name(view.banked.stage).removeprefix("BANKED_STAGE_").lower()
        return BANKED_STAGES.get(stage, (stage, stage))[which]
    circle = view.circle
    street = STREETS.get(circle.street, (circle.street, circle.street))[which]
    phase = PHASES.get(circle.phase, ("", ""))[which]
    return " · ".join(part for part in (street, phase) if part)


def seat_slots(view: pb.TableView) -> list[Slot]:
    """The seats (or boxes) of the table as the felt draws them, by place."""
    if view.WhichOneof("detail") == "banked":
        return _boxes(view.banked)
    circle = view.circle
    marker_seat = circle.button_seat if circle.HasField("button_seat") else None
    marker = "M" if circle.button_is_mano else "D"
    actor = circle.actor_seat if circle.HasField("actor_seat") else None
    if not view.hand_in_progress or not circle.players:
        return [Slot(seat, _place(seat), stack=stack, marker=marker if seat == marker_seat else "")
                for seat, stack in sorted(circle.stacks.items())]
    return [Slot(player.seat, _place(player.seat), stack=player.stack, bet=player.bet, put_in=player.put_in,
                 cards=list(player.cards), marker=marker if player.seat == marker_seat else "",
                 to_act=player.seat == actor, folded=player.folded,
                 all_in=not player.folded and player.stack == 0 and player.put_in > 0)
            for player in sorted(circle.players, key=lambda player: player.seat)]


def _place(seat: int) -> int:
    return (seat - 1) % PLACES + 1


def _boxes(banked: pb.BankedTableView) -> list[Slot]:
    to_decide = banked.to_decide if banked.HasField("to_decide") else None
    slots = []
    for box in banked.boxes:
        bets = ", ".join(f"{spot} {getattr(box.bets, spot)}" for spot in BOX_SPOTS if box.bets.HasField(spot))
        result = ", ".join(f"{spot} {getattr(box.result, spot):+d}" for spot in BOX_SPOTS
                           if box.result.HasField(spot)) if box.settled else ""
        slots.append(Slot(box.seat, box.seat, cards=list(box.cards), to_act=box.seat == to_decide,
                          bets=bets, result=result))
    return slots
