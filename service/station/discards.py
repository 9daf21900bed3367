"""Discards and exchanges read by the shoe (issue 33, item 2): the croupier never reads a face-down card.

At five-card draw and Crazy Pineapple a player gives back cards face down; at Casino Draw Poker a box exchanges up to
two.  The croupier keys only how many (one key); he passes the cards face down over the shoe's reader, which reads
them as it reads a card drawn, and the station sends them as the seat's discard (the box's exchange) once all are
read.  The service checks that they are the seat's own cards (R-DRAW-4, R-CDP-2); the replacements are then drawn
from the shoe and dealt as usual.  A read while no discard is being collected is a card drawn."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Collecting:
    """The cards a seat discards (or a box exchanges), read one by one until ``count`` are."""

    seat: int
    count: int
    exchange: bool
    cards: list[str] = field(default_factory=list)


@dataclass
class DiscardReader:
    """Collects the shoe's reads of a seat's discards and sends them (``send(action, seat, cards)``) once complete."""

    send: Callable[[str, int, list[str]], object]
    collecting: Collecting | None = None
    """The discard being read now, if any."""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def expect(self, seat: int, count: int, *, exchange: bool) -> None:
        """The seat gives back ``count`` cards (the box exchanges them): the next ``count`` reads are those cards.
        Standing pat (none) is sent at once."""
        with self._lock:
            self.collecting = Collecting(seat, count, exchange)
            complete = count == 0
        if complete:
            self._flush()

    def cancel(self) -> None:
        """The croupier keyed the wrong count: nothing read so far is sent."""
        with self._lock:
            self.collecting = None

    def take(self, card: str) -> bool:
        """A read: True when it was one of the discards being read (sent with the others once all are)."""
        with self._lock:
            collecting = self.collecting
            if collecting is None:
                return False
            collecting.cards.append(card)
            complete = len(collecting.cards) >= collecting.count
        if complete:
            self._flush()
        return True

    def _flush(self) -> None:
        with self._lock:
            collecting, self.collecting = self.collecting, None
        if collecting is not None:
            self.send("exchange" if collecting.exchange else "discard", collecting.seat, collecting.cards)
