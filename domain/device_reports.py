"""What a table records of its devices: shuffles, deck checks, deliveries and faults, with the device's identity
(R-DECK-2, R-DECK-3), and the alternation of the red and blue decks the tables check (R-DECK-2).

R-DECK-2: "the automatic shuffler works with two decks of different back colour, red and blue, used alternately:
while one is in play the other is shuffled."  A table checks it once an automatic shuffler has reported there (a
shuffle, deck check or delivery by a device other than the croupier's hand shuffle): from then on each hand's deck
must be of the other colour than the previous hand's.  Every hand that started counts, a voided one too (its deck was
in play: the redeal takes the other deck, shuffled meanwhile); a refused start changes nothing.  A reshuffle does not
change which deck comes next: R-THB-11's full reshuffle is of the deck that was just in play, which comes back after
the next hand anyway, and R-CIRC-2's is of the deck about to be dealt, which stays next.  A table without a shuffler
(the croupier shuffles by hand) is not held to the alternation.

>>> alternation_problem("red", last="red", hand=7, shuffler=True)
'the red deck was in play in hand 7: the decks alternate, the blue deck is next'
>>> alternation_problem("blue", last="red", hand=7, shuffler=True) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.errors import RuleError

DEVICE_REPORTS = ("shuffle", "deck-check", "delivery", "fault")
SHUFFLER_REPORTS = ("shuffle", "deck-check", "delivery")
HAND_SHUFFLE = "hand shuffle"
"""The ``device`` of a shuffle the croupier made by hand (the dealer station's ``shuffled COLOUR``)."""


class DeviceReportError(RuleError):
    """A device report that says nothing usable."""


class DeckAlternationError(RuleError):
    """R-DECK-2: a hand's deck of the same colour as the previous hand's, at a table with an automatic shuffler."""


def alternation_problem(colour: str, *, last: str | None, hand: int, shuffler: bool) -> str | None:
    """Why a hand may not be dealt from the ``colour`` deck after hand ``hand`` was dealt from ``last`` (R-DECK-2)."""
    if not shuffler or last is None or colour != last:
        return None
    other = "blue" if colour == "red" else "red"
    return f"the {colour} deck was in play in hand {hand}: the decks alternate, the {other} deck is next"


def is_shuffler_report(device: str, kind: str) -> bool:
    """A report of the automatic shuffler (not a fault, not the croupier's shuffle by hand)."""
    return kind in SHUFFLER_REPORTS and device != HAND_SHUFFLE


@dataclass(frozen=True)
class DeviceReport:
    """A device's report as the table records it: which device, what it did with which deck, and the outcome."""

    device: str
    serial: str
    kind: str
    colour: str
    result: str

    def __post_init__(self) -> None:
        if self.kind not in DEVICE_REPORTS:
            raise DeviceReportError(f"unknown device report {self.kind!r}", rule="R-DECK-3")
        if self.colour not in ("red", "blue"):
            raise DeviceReportError("a deck is red or blue", rule="R-DECK-2")
        for text in (self.device, self.serial, self.result):
            if not text.strip() or len(text) > 200:
                raise DeviceReportError("device, serial number and result are 1–200 characters", rule="R-AUD-1")
