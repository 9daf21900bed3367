"""Alerts that hold play, and decks out of play (issue 19, item 2; R-HOLD-1, R-DECK-3, R-DECK-4, R-AUD-1).

An alert is an event: a device's fault, a deck check that counted wrong, a shuffler that failed the integrity monitor,
a read the service refused, tampering found by the audit.  Those that **affect play** put the table on hold
(R-HOLD-1; the UK Gambling Commission's casino equipment rules 4.1: a fault that affects play is shown and locks play
until it is cleared; GLI-19 §3.2.2: a shuffler that does not randomise is not used): the table refuses to start a hand
until the pit boss or the games director acknowledges **each** holding alert with a reason (``AlertAcknowledged``).

Which alerts hold (:func:`report_hold`; the decision is written on the event, so replay and old events are faithful):

- ``device-fault`` — a device's own fault (a jam, a lost link, a deck not ready): the equipment that deals or
  shuffles is not working as approved (UK GC 4.1).
- ``deck-count`` — a deck check that did not count a complete deck (R-DECK-3): a card is missing, doubled or foreign,
  so the hands dealt from that deck are in doubt; the deck also leaves play (below).
- ``shuffler-integrity`` — the integrity monitor found a shuffler that does not randomise (GLI-19 §3.2.2), raised by
  the service (``AlertRaised``).
- ``software-integrity`` — the service's installed files differ from its release manifest, or the manifest is gone
  (25 CFR 547.8(f): the software is verified against its signature), raised by the service at every table
  (``AlertRaised``).
- ``audit`` — tampering found in the log (R-AUD-1): the hands' record cannot be vouched for.  A finding that names a
  table holds that table; one that names none (a signed head, a signature) holds every table.  Findings are the
  casino's record (:mod:`domain.audit_findings`), passed to the table's check.

Alerts that do **not** hold: a device out of reach — not connected, its connection lost or silent, corrupt frames
its link discarded (and the device resent) — for no card's integrity is in doubt and the station falls back to the
croupier (he types the cards, shuffles by hand: docs/station.md); a read the service refused, and an irregular read
the shoe reported with the rule that handles it (R-DECK-4: "handled by the game's rules" — the card was not dealt, or
the game's rule voids or goes on, e.g. R-THB-11); a deck refused because it did not alternate (R-DECK-2: the table
refused it already, the right deck is dealt).  They stay alerts the pit acknowledges, without stopping the game.

A hand in progress when a holding alert comes **may finish**: its cards are already in the shoe and its chips in the
pot, and stopping it mid-deal would freeze the bets of players who did nothing wrong; the pit voids it if it doubts it
(R-CIRC-14, R-THB-11).  The hold refuses the next start.

A deck check that counts wrong takes that colour **out of play** (R-DECK-3): no hand is started with it until a deck
check of that colour counts a complete deck (the new or recounted deck checked in, an event).  The red–blue
alternation still holds (R-DECK-2): with one colour out of play at a table with a shuffler, the next hand waits for it.

>>> report_hold("fault", "card jam at the reader")
'device-fault'
>>> report_hold("fault", "shoe connection lost: [Errno 5] Input/output error") is None
True
>>> report_hold("fault", "read 4 K♠ refused by the service: no card is due (R-DECK-4)") is None
True
>>> report_hold("deck-check", "51 counted, INCOMPLETE: missing 1, duplicated 0, foreign 0")
'deck-count'
>>> book = HoldBook()
>>> book.reset_holds()
>>> book.note_hold(3, "device-fault", "card jam")
>>> book.is_held
True
>>> try:
...     book.verify_not_held()
... except RuleError as error:
...     print(error.rule, error.message.split(":")[0])
R-HOLD-1 the table is held by an alert not acknowledged (device fault
>>> book.release_hold(3)
>>> book.is_held
False
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from domain.errors import RuleError

HOLD_RULE = "R-HOLD-1"
"""The rule a held table's refusal names: an alert that affects play holds the table until acknowledged."""
HOLD_KINDS: dict[str, tuple[str, str]] = {
    "device-fault": ("device fault", HOLD_RULE),  # docs/alerts.md: after the UK GC's casino equipment rules 4.1
    "deck-count": ("deck count wrong", "R-DECK-3"),
    "shuffler-integrity": ("shuffler integrity failure", "GLI-19 §3.2.2"),
    "audit": ("tampering found by the audit", "R-AUD-1"),
    "software-integrity": ("installed software differs from its release", "25 CFR 547.8(f)"),
}
"""Each kind of alert that holds play: how it is named, and the rule or regulation it holds by."""
RAISED_KINDS = ("shuffler-integrity", "software-integrity")
"""The alerts the service raises at a table itself (``raise_alert``): each holds play."""
MAX_ALERT_DETAIL = 200
"""The longest description an alert raised by the service records."""
_RULED = re.compile(r"\(R-[A-Z0-9]+-\d+[a-z]?\)\s*$")
_INCOMPLETE = re.compile(r"\bincomplete\b", re.IGNORECASE)
_COMPLETE = re.compile(r"\bcomplete\b", re.IGNORECASE)
_WRONG = re.compile(r"\b(missing|short|extra|duplicat\w*|doubled|foreign|wrong|miscount\w*)\b", re.IGNORECASE)
_LINK = re.compile(r"not connected|connection lost|\blink\b|\bsilent\b", re.IGNORECASE)
REFUSED_DECK = "deck refused:"
"""How the table's own record of a deck refused by R-DECK-2 begins (``TableRecord.record_refused_deck``)."""
REFUSED_READ = "refused by the service"
"""What the station's record of a read the service refused says (R-DECK-4)."""


def deck_check_wrong(result: str) -> bool:
    """R-DECK-3: a deck check that did not count a complete deck: the station writes ``N counted, INCOMPLETE: …``; a
    device that does not say (in)complete, but names a card missing, short, extra, doubled, foreign or a wrong count.

    >>> deck_check_wrong("52 counted, complete"), deck_check_wrong("50 counted, INCOMPLETE: missing 2")
    (False, True)
    >>> deck_check_wrong("51 counted: a card is missing"), deck_check_wrong("deck checked")
    (True, False)
    """
    if _INCOMPLETE.search(result):
        return True
    return not _COMPLETE.search(result) and bool(_WRONG.search(result))


def deck_check_complete(result: str) -> bool:
    """R-DECK-3: a deck check that counted a complete deck (``N counted, complete``): that colour is back in play."""
    return bool(_COMPLETE.search(result)) and not deck_check_wrong(result)


def report_hold(kind: str, result: str) -> str | None:
    """The kind of hold a device report puts the table on (:data:`HOLD_KINDS`), or ``None`` if it does not hold."""
    if kind == "deck-check":
        return "deck-count" if deck_check_wrong(result) else None
    if kind != "fault":
        return None
    if result.startswith(REFUSED_DECK) or REFUSED_READ in result or _RULED.search(result):
        return None  # R-DECK-2 / R-DECK-4: the table refused it, or the game's rule handles it
    if _LINK.search(result):
        return None  # the device is out of reach: the croupier types the cards and shuffles by hand meanwhile
    return "device-fault"


@dataclass(frozen=True)
class Hold:
    """An alert that holds a table: the table's version of the event that raised it (0 for the casino's), its kind
    (:data:`HOLD_KINDS`), what it said, and the log position of a casino alert (0 for the table's own)."""

    version: int
    kind: str
    detail: str
    position: int = 0

    @property
    def rule(self) -> str:
        """The rule or regulation the alert holds play by."""
        return HOLD_KINDS[self.kind][1]

    def describe(self) -> str:
        """What holds the table, in words."""
        return f"{HOLD_KINDS[self.kind][0]}: {self.detail}"


class HoldBook:
    """The holding alerts not acknowledged yet and the decks out of play at a table (mixed into the table record)."""

    ERROR: ClassVar[type[RuleError]] = RuleError

    holds: dict[int, Hold]
    """R-HOLD-1: the alerts holding the table, by the table's version of the event that raised each."""
    decks_out: dict[str, str]
    """R-DECK-3: the colours out of play after a deck check that counted wrong, with what it counted."""

    def reset_holds(self) -> None:
        """No hold, every deck in play (a table just opened)."""
        self.holds = {}
        self.decks_out = {}

    def current_holds(self, casino: Sequence[Hold] = ()) -> list[Hold]:
        """The alerts holding the table now: its own, oldest first, then the casino's that concern it."""
        own = getattr(self, "holds", {})  # an aggregate cached before issue 19 has none
        return [own[version] for version in sorted(own)] + list(casino)

    @property
    def is_held(self) -> bool:
        """R-HOLD-1: an alert that affects play was raised here and is not acknowledged yet."""
        return bool(self.current_holds())

    def verify_not_held(self, casino: Sequence[Hold] = ()) -> None:
        """R-HOLD-1: no hand starts at a held table (the first alert holding it is named)."""
        if held := self.current_holds(casino):
            more = f" and {len(held) - 1} more" if len(held) > 1 else ""
            raise self.ERROR(f"the table is held by an alert not acknowledged ({held[0].describe()}){more}: the pit "
                             "boss or the games director acknowledges it before the next hand", rule=HOLD_RULE)

    def verify_deck_in_play(self, colour: str) -> None:
        """R-DECK-3: a deck whose check counted wrong is out of play until a complete deck of its colour is checked."""
        if colour in getattr(self, "decks_out", {}):
            raise self.ERROR(f"the {colour} deck is out of play: its deck check counted {self.decks_out[colour]}; a "
                             f"complete {colour} deck is checked in before it is dealt", rule="R-DECK-3")

    def _ensure_holds(self) -> None:
        if not hasattr(self, "holds"):  # a record made before issue 19 (a snapshot, a cached copy)
            self.reset_holds()

    def note_hold(self, version: int, kind: str, detail: str) -> None:
        """Bookkeeping of a holding alert raised by the table's event of ``version``."""
        self._ensure_holds()
        self.holds[version] = Hold(version, kind, detail)

    def release_hold(self, version: int) -> None:
        """Bookkeeping of an acknowledgement of the alert raised by the table's event of ``version``."""
        self._ensure_holds()
        self.holds.pop(version, None)

    def note_deck_check(self, kind: str, colour: str, result: str, hold: str) -> None:
        """R-DECK-3: a deck check that counted wrong (``hold`` ``deck-count``, as recorded: a check stored before
        issue 19 takes no deck out) takes its colour out of play; a complete one brings it back."""
        if kind != "deck-check":
            return
        self._ensure_holds()
        if hold == "deck-count":
            self.decks_out[colour] = result.split(",", 1)[0].strip() or result
        elif deck_check_complete(result):
            self.decks_out.pop(colour, None)


def verify_raised_alert(kind: str, detail: str) -> None:
    """An alert the service raises at a table: a kind it may raise, described in 1–200 characters."""
    if kind not in RAISED_KINDS:
        raise RuleError(f"the service raises {', '.join(RAISED_KINDS)} alerts, not {kind!r}", rule=HOLD_RULE)
    if not isinstance(detail, str) or not detail.strip() or len(detail) > MAX_ALERT_DETAIL:
        raise RuleError(f"an alert is described (1–{MAX_ALERT_DETAIL} characters)", rule="R-AUD-1")
