"""Hand reconstruction for disputes (R-THB-13, R-AUD-1): the hand's state after each of its events, from the events
alone, as the pit boss shows it to the games director card by card and bet by bet."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from domain.banked.cdp import CdpHand
from domain.banked.thb import ThbHand
from domain.circle.hand import Hand

_META = {"originator_id", "originator_version", "timestamp", "originator_topic"}


def event_data(event: Any) -> dict[str, Any]:
    """What an event says, without the bookkeeping every event carries (originator, version, time, topic)."""
    return {k: v for k, v in vars(event).items() if k not in _META}


@dataclass(frozen=True)
class Step:
    """The hand after one event: which event (its version, class and data) and the whole state it left."""

    version: int
    event: str
    timestamp: str
    data: dict[str, Any]
    state: dict[str, Any]


def reconstruct(events: Iterable[Any]) -> list[Step]:
    """Apply a hand's events one by one, from its start, keeping the state after each (circle or banked)."""
    hand: Any = None
    steps = []
    for event in events:
        hand = event.mutate(hand)
        if isinstance(hand, Hand):
            state = hand.snapshot()
        elif isinstance(hand, ThbHand | CdpHand):
            state = banked_state(hand)
        else:
            raise TypeError("reconstruction is of a hand's events, from its first")
        steps.append(Step(event.originator_version, type(event).__qualname__, str(event.timestamp),
                          event_data(event), state))
    return steps


def banked_state(hand: ThbHand | CdpHand) -> dict[str, Any]:
    """Everything about a banked hand as plain data: boxes, bets, cards, the dealer's (or bank's) cards, results."""
    state: dict[str, Any] = {
        "game": "holdem-bonus" if isinstance(hand, ThbHand) else "casino-draw",
        "number": hand.number,
        "stage": hand.stage.value,
        "bets": {box: dict(spots) for box, spots in sorted(hand.bets.items())},
        "cards": {box: [str(c) for c in cards] for box, cards in sorted(hand.cards.items())},
        "folded": sorted(hand.folded),
        "to_decide": hand.to_decide,
        "results": {box: dict(result) for box, result in sorted(hand.results.items())},
    }
    if isinstance(hand, ThbHand):
        state.update(dealer=[str(c) for c in hand.dealer], board=[str(c) for c in hand.board],
                     burned=[str(c) for c in hand.burned], discarded=[str(c) for c in hand.discarded])
    else:
        state.update(bank=[str(c) for c in hand.bank], discards=[str(c) for c in hand.discards])
    return state


_PLACES = {"board": "board", "burn": "burned"}


def describe(step: Step) -> str:
    """One line for the event of a step, as a croupier would call it."""
    data = step.data
    name = step.event.rsplit(".", 1)[-1]
    if name == "CardDealt":
        kind = data.get("kind")
        if kind in _PLACES:
            where = _PLACES[kind]
        elif "box" in data:  # a banked hand: a box's card, or the house's (box 0 / kind "dealer")
            where = f"box {data['box']}" if data["box"] else "the house"
        else:
            where = f"seat {data['seat']}" if kind == "hole" else str(kind)
        origin = f"shoe read {data['sequence']}" if data["source"] == "shoe" else data["source"]
        return f"{data['card']} to {where}{' face up' if data.get('face_up') else ''} ({origin})"
    fields = ", ".join(f"{k} {v}" for k, v in data.items() if k not in ("settings", "deck", "table_id"))
    return f"{name}{': ' + fields if fields else ''}"


def render(step: Step, *, show_down_cards: bool = True) -> str:
    """The table after a step, as a block of text for the terminal."""
    state = step.state
    if "stage" in state:
        return _render_banked(step)
    lines = [f"after event {step.version} ({step.event}, {step.timestamp}): {describe(step)}",
             f"  street {state['street']}, phase {state['phase']}, board {' '.join(state['board']) or '-'}, "
             f"pot {sum(state['contributed'])}"]
    for position, seat in enumerate(state["seats"]):
        cards = " ".join(card if up or show_down_cards else "??" for card, up in state["hole"][position])
        marks = ("folded " if state["folded"][position] else "") + ("<- to act" if state["actor"] == seat else "")
        lines.append(f"  seat {seat:>2}  stack {state['stacks'][position]:>8}  bet {state['bets'][position]:>6}  "
                     f"in pot {state['contributed'][position]:>6}  cards {cards or '-':<20} {marks}".rstrip())
    for amount, rake, shares in state["awards"]:
        lines.append(f"  pot of {amount} (rake {rake}) paid: " + ", ".join(
            f"seat {state['seats'][position]} {share}" for position, share in shares if share))
    return "\n".join(lines)


def _render_banked(step: Step) -> str:
    state = step.state
    house = state.get("dealer", state.get("bank", []))
    lines = [f"after event {step.version} ({step.event}, {step.timestamp}): {describe(step)}",
             f"  {state['game']}, stage {state['stage']}, house {' '.join(house) or '-'}"
             + (f", board {' '.join(state['board']) or '-'}" if "board" in state else "")]
    for box, bets in state["bets"].items():
        cards = " ".join(state["cards"].get(box, [])) or "-"
        spots = ", ".join(f"{spot} {amount}" for spot, amount in bets.items())
        result = state["results"].get(box)
        marks = ("folded " if box in state["folded"] else "") + ("<- to decide" if state["to_decide"] == box else "")
        paid = f"  result {', '.join(f'{k} {v:+}' for k, v in result.items())}" if result else ""
        lines.append(f"  box {box:>2}  {spots:<28} cards {cards:<16}{paid} {marks}".rstrip())
    return "\n".join(lines)
