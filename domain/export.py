"""A hand as a documented JSON document, from its events alone (issue 8, R-AUD-1): what a regulator or a dispute
file receives.  Format ``pokertable-hand/1``::

    {"format": "pokertable-hand/1", "hand_id": "…", "table_id": "…", "number": 7, "game": "holdem",
     "seats": [2, 3, 1], "button_seat": 1, "starting_stacks": [300, 300, 300], "finishing_stacks": [296, 308, 296],
     "deck": {"size": 52, "colour": "red", "label": ""}, "complete": true, "voided": null,
     "events": [{"version": 1, "event": "Hand.Started", "timestamp": "2026-…+00:00", "data": {…}}, …]}

``events`` holds every event of the hand in order with all its data (cards included: this is the pit's copy);
``finishing_stacks`` is ``null`` for a hand not finished, ``voided`` names the rule of a voided hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.reconstruction import event_data

FORMAT = "pokertable-hand/1"


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    return str(value)


def hand_document(events: Iterable[Any]) -> dict[str, Any]:
    """The JSON document of a circle hand's events (the first must be its ``Started`` event)."""
    listed = list(events)
    if not listed or type(listed[0]).__qualname__ != "Hand.Started":
        raise ValueError("a hand's events, from its Started event")
    started = vars(listed[0])
    names = [type(e).__qualname__ for e in listed]
    completed = next((vars(e) for e in listed if type(e).__qualname__ == "Hand.Completed"), None)
    voided = next((vars(e) for e in listed if type(e).__qualname__ == "Hand.Voided"), None)
    return {
        "format": FORMAT,
        "hand_id": str(listed[0].originator_id),
        "table_id": str(started["table_id"]),
        "number": started["number"],
        "game": started["settings"]["variant"],
        "seats": list(started["seats"]),
        "button_seat": started["button_seat"],
        "starting_stacks": list(started["stacks"]),
        "finishing_stacks": list(completed["stacks"]) if completed else None,
        "deck": _plain(started["deck"]),
        "complete": "Hand.Completed" in names or voided is not None,
        "voided": voided["rule"] if voided else None,
        "events": [{"version": e.originator_version, "event": name, "timestamp": str(e.timestamp),
                    "data": _plain(event_data(e))}
                   for e, name in zip(listed, names, strict=True)],
    }


PHH_VARIANTS = {("holdem", "no-limit"): "NT", ("holdem", "fixed-limit"): "FT", ("omaha", "pot-limit"): "PO",
                ("stud7", "fixed-limit"): "F7S"}


class ExportError(ValueError):
    """A hand the PHH format cannot describe."""


def hand_phh(events: Iterable[Any]) -> str:
    """A finished Hold'em, Omaha or seven-card stud hand as a PHH history (TOML), readable by pokerkit.  PHH records no
    burn cards (pokerkit burns by itself); a hand with an exposed or forfeited card, or a voided one, has none."""
    document = hand_document(events)
    settings = document["events"][0]["data"]["settings"]
    code = PHH_VARIANTS.get((settings["variant"], settings["structure"]))
    if code is None:
        raise ExportError(f"PHH has no form for {settings['structure']} {settings['variant']}: export it as JSON")
    if document["finishing_stacks"] is None or document["voided"]:
        raise ExportError("only a finished, not voided hand has a PHH form")
    seats: list[int] = document["seats"]
    stakes = settings["stakes"]
    blinds = list(stakes["blinds"]) + [0] * (len(seats) - len(stakes["blinds"]))
    lines = [f'variant = "{code}"', "ante_trimming_status = false",
             f"antes = {list(stakes['antes']) or [0] * len(seats)}", f"blinds_or_straddles = {blinds}"]
    if code == "F7S":
        lines = [line for line in lines if not line.startswith("blinds")]
        lines += [f"bring_in = {stakes['bring_in']}", f"small_bet = {stakes['small_bet']}",
                  f"big_bet = {stakes['big_bet']}"]
    elif code == "FT":
        lines += [f"small_bet = {stakes['small_bet']}", f"big_bet = {stakes['big_bet']}"]
    else:
        lines.append(f"min_bet = {stakes['min_bet'] or max(blinds)}")
    lines += [f"starting_stacks = {document['starting_stacks']}",
              "actions = [\n" + "".join(f'  "{a}",\n' for a in _phh_actions(document["events"], seats, code == "F7S"))
              + "]",
              f'# pokertable hand {document["hand_id"]}, table {document["table_id"]}, number {document["number"]}']
    return "\n".join(lines) + "\n"


_PHH_ACTIONS = {"Folded": "f", "Checked": "cc", "Called": "cc", "BringInPosted": "pb"}
_STREET_ENDS = (3, 4, 5)  # the flop, the turn and the river: one "d db" each


def _phh_actions(events: list[dict[str, Any]], seats: list[int], stud: bool) -> list[str]:
    """PHH actions of a hand.  In stud, players all in may show before their last cards: PHH (and pokerkit) shows
    at the end, every card of the hand, so the shows are moved after the last deal with all the player's cards."""
    player = {seat: f"p{index + 1}" for index, seat in enumerate(seats)}
    actions: list[str] = []
    hole: dict[int, list[str]] = {}
    every: dict[int, list[str]] = {}
    shows: list[tuple[int, bool]] = []
    board: list[str] = []
    on_board = 0

    def flush_hole() -> None:
        actions.extend(f"d dh {player[seat]} {''.join(hole[seat])}" for seat in seats if hole.get(seat))
        hole.clear()

    for event in events:
        name, data = event["event"].rsplit(".", 1)[-1], event["data"]
        if name == "CardDealt" and data["kind"] == "hole":
            if stud and hole.get(data["seat"]) and len(every.get(data["seat"], [])) >= 3:
                flush_hole()  # from fourth street on, one card a player a street
            hole.setdefault(data["seat"], []).append(data["card"])
            every.setdefault(data["seat"], []).append(data["card"])
        elif name == "CardDealt" and data["kind"] == "board":
            flush_hole()
            board.append(data["card"])
            on_board += 1
            if on_board in _STREET_ENDS:
                actions.append(f"d db {''.join(board)}")
                board.clear()
        elif name in ("CardExposed", "Forfeited", "Discarded"):
            raise ExportError(f"PHH cannot record {name}: export the hand as JSON")
        elif stud and name in ("Shown", "Mucked"):
            flush_hole()
            shows.append((data["seat"], name == "Shown"))
            if name == "Shown" and len(every[data["seat"]]) < 7:  # all in before seventh street: shown now
                actions.append(f"{player[data['seat']]} sm {''.join(every[data['seat']])}")
        elif name in _PHH_ACTIONS or name in ("BetOrRaised", "Shown", "Mucked"):
            flush_hole()
            seat = player[data["seat"]]
            if name == "BetOrRaised":
                actions.append(f"{seat} cbr {data['to']}")
            elif name == "Shown":
                actions.append(f"{seat} sm {''.join(data['cards'])}")
            else:
                actions.append(f"{seat} {_PHH_ACTIONS.get(name, 'sm')}")
    flush_hole()
    actions.extend(f"{player[seat]} sm{' ' + ''.join(every[seat]) if shown else ''}" for seat, shown in shows)
    return actions
