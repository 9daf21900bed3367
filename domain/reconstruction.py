"""Hand reconstruction for disputes (R-THB-13, R-AUD-1): the hand's state after each of its events, from the events
alone, as the pit boss shows it to the games director card by card and bet by bet."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from domain.hand import Hand

_META = {"originator_id", "originator_version", "timestamp", "originator_topic"}


@dataclass(frozen=True)
class Step:
    """The hand after one event: which event (its version, class and data) and the whole state it left."""

    version: int
    event: str
    timestamp: str
    data: dict[str, Any]
    state: dict[str, Any]


def reconstruct(events: Iterable[Any]) -> list[Step]:
    """Apply a hand's events one by one, from its start, keeping the state after each."""
    hand: Any = None
    steps = []
    for event in events:
        hand = event.mutate(hand)
        if not isinstance(hand, Hand):
            raise TypeError("reconstruction is of a circle hand's events, from its first")
        steps.append(Step(event.originator_version, type(event).__qualname__, str(event.timestamp),
                          {k: v for k, v in vars(event).items() if k not in _META}, hand.snapshot()))
    return steps


def describe(step: Step) -> str:
    """One line for the event of a step, as a croupier would call it."""
    data = step.data
    name = step.event.rsplit(".", 1)[-1]
    if name == "CardDealt":
        where = {"hole": f"seat {data['seat']}", "board": "board", "burn": "burned"}.get(data["kind"], data["kind"])
        origin = f"shoe read {data['sequence']}" if data["source"] == "shoe" else data["source"]
        return f"{data['card']} to {where}{' face up' if data.get('face_up') else ''} ({origin})"
    fields = ", ".join(f"{k} {v}" for k, v in data.items() if k not in ("settings", "deck", "table_id"))
    return f"{name}{': ' + fields if fields else ''}"


def render(step: Step, *, show_down_cards: bool = True) -> str:
    """The table after a step, as a block of text for the terminal."""
    state = step.state
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
