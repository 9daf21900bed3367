"""A hand's reconstruction as a croupier calls it and as a terminal draws it (R-THB-13, R-AUD-1): one line per
event, and the table after it as a block of text. The domain replays (:func:`domain.reconstruction.reconstruct`);
drawing is a format, here."""

from __future__ import annotations

from domain.reconstruction import Step

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
