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

FORMAT = "pokertable-hand/1"
_META = {"originator_id", "originator_version", "timestamp", "originator_topic"}


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
                    "data": _plain({k: v for k, v in vars(e).items() if k not in _META})}
                   for e, name in zip(listed, names, strict=True)],
    }
