"""Hand reconstruction for disputes (R-THB-13, R-AUD-1): the hand's state after each of its events, from the events
alone, as the pit boss shows it to the games director card by card and bet by bet."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from domain.attribution import KEYS as ATTRIBUTION_KEYS
from domain.attribution import Attribution
from domain.log_time import CLOCK_READING

_META = {"originator_id", "originator_version", "timestamp", "originator_topic", CLOCK_READING, *ATTRIBUTION_KEYS}


def event_data(event: Any) -> dict[str, Any]:
    """What an event says, without the bookkeeping every event carries (originator, version, time, topic, the
    clock's own reading of an event the log timed later: :mod:`domain.log_time`, and who gave its command, where:
    :mod:`domain.attribution`)."""
    return {k: v for k, v in vars(event).items() if k not in _META}


@dataclass(frozen=True)
class Step:
    """The hand after one event: which event (its version, class and data) and the whole state it left."""

    version: int
    event: str
    timestamp: str
    data: dict[str, Any]
    state: dict[str, Any]
    by: Attribution | None = None
    """Who gave the event's command, and at which station (None: an event stored before attribution, issue 32)."""


def reconstruct(events: Iterable[Any]) -> list[Step]:
    """Apply a hand's events one by one, from its start, keeping the state after each: every hand of every game
    gives its state through its own ``snapshot()`` (circle :class:`domain.circle.hand.Hand`, banked
    :class:`domain.banked.box_hand.BankedHand`)."""
    hand: Any = None
    steps = []
    for event in events:
        hand = event.mutate(hand)
        snapshot = getattr(hand, "snapshot", None)
        if snapshot is None:
            raise TypeError("reconstruction is of a hand's events, from its first")
        steps.append(Step(event.originator_version, type(event).__qualname__, str(event.timestamp),
                          event_data(event), snapshot(), Attribution.of(vars(event))))
    return steps
