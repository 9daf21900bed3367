"""The table record both families share (issue 14): what every table of the house keeps and checks, whatever it
deals — its hands' numbers and the hand in progress, the deck of each hand (R-DECK-2: the red and blue decks
alternate once an automatic shuffler reported; R-CARD-2: the deck's size), its devices' reports (R-DECK-3), the
reconstructions asked of its hands (R-THB-13, R-AUD-1), the dealer signed in (R-AUD-1) and the alerts the pit
acknowledged (R-AUD-1: a device fault or a void, by the log position of the event that raised it).

:class:`TableRecord` is mixed into both table aggregates, :class:`domain.circle.table.Table` (seats, stacks, button)
and :class:`domain.banked.table.BankedTable` (boxes against the house). Each aggregate keeps its own event classes, so
the events already stored keep their topics (``domain.table:Table.DeviceReported``, …); their handlers call the
shared bookkeeping here, and every check both make is made here once: the table, not the station, refuses a deck of
the wrong colour or size.

>>> from domain.cards.decks import BackColour, DeckIdentity
>>> from domain.errors import RuleError
>>> record = TableRecord()
>>> record.reset_record()
>>> record.note_device_report("ACME Shuffle", "S-1", "shuffle")
>>> record.note_hand_started(1, "red")
>>> try:
...     record.verify_deck_colour(DeckIdentity(52, BackColour.RED))
... except RuleError as error:
...     print(error.rule, error.message)
R-DECK-2 the red deck was in play in hand 1: the decks alternate, the blue deck is next
>>> try:
...     record.verify_deck_size(DeckIdentity(32, BackColour.BLUE), 52)
... except RuleError as error:
...     print(error.rule, error.message)
R-CARD-2 the next hand is played with a 52-card deck, not 32
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from uuid import UUID, uuid5

from domain.alerts import AlertBook
from domain.cards.decks import BackColour, DeckIdentity
from domain.device_reports import DeckAlternationError, DeviceReport, alternation_problem, is_shuffler_report
from domain.holds import HoldBook, report_hold, verify_raised_alert
from domain.reconstruction_requests import request_problem

_HANDS_KEY = re.compile("[0-9a-f]{32}")

LANGUAGES = ("es", "en")
"""The languages of a table's stations (its croupier's screen): Spanish, the default of a Spanish casino, or English."""
MAX_DEALER_ID = 64
"""The longest dealer's id a sign-in records (a badge or employee number)."""


class TableRecord(HoldBook, AlertBook):
    """What both kinds of table record (mixed into each table aggregate, before ``Aggregate``)."""

    hands_started: int
    hand_in_progress: UUID | None
    device_reports: int
    reconstructions: int
    last_deck_colour: str | None
    shuffler: dict[str, str] | None
    dealer: dict[str, str] | None
    id: UUID  # the aggregate's (eventsourcing's)
    version: int
    """The aggregate's version (its events' count): an alert is named at the table by its event's version."""

    def reset_record(self) -> None:
        """The record of a table just opened (called by the aggregate's ``Opened`` event)."""
        self.hands_started = 0
        self.hand_in_progress = None
        self.device_reports = 0
        self.reconstructions = 0
        self.last_deck_colour = None  # the deck of the last hand started (R-DECK-2)
        self.shuffler = None
        """R-DECK-2: the automatic shuffler that reported here (device, serial); the decks alternate from then on."""
        self.dealer = None
        """R-AUD-1: the dealer signed in here (id, station), recorded with every command of the table's stations."""
        self.acknowledged_alerts = set()
        """R-AUD-1: the log positions of the alerts (device faults, voids) the pit acknowledged here."""
        self.reset_holds()  # R-HOLD-1, R-DECK-3: no alert holds the table, every deck in play

    def deck_size_for_next_hand(self) -> int:
        """The deck the table's next hand needs (each kind of table says)."""
        raise NotImplementedError

    def hand_id(self, number: int) -> UUID:
        """The id of hand ``number`` of this table (each family's hands have their own)."""
        raise NotImplementedError

    @staticmethod
    def verify_hands_key(key: str) -> None:
        """A table's hands' key: 32 lower-case hex digits (a random UUID's, given by the service), or none."""
        if key and not _HANDS_KEY.fullmatch(key):
            raise ValueError("a table's hands' key is 32 lower-case hex digits (R-AUD-1)")

    @property
    def hands_namespace(self) -> UUID:
        """The namespace of this table's hands' ids: from the table's id and the key it was opened with, so that no
        two stores, hence no two casinos, give one id to two hands (issue 29, item 5); a table opened before the key
        existed keeps its hands' ids as they were (the table's id: its name)."""
        key = getattr(self, "hands_key", "")  # a snapshot taken before the key existed has none
        return uuid5(self.id, f"hands/{key}") if key else self.id

    # -- decks (R-DECK-2, R-CARD-2) -----------------------------------------------------------------

    def verify_deck_colour(self, deck: DeckIdentity) -> None:
        """R-DECK-2: once a shuffler reported here, the colour that was not in play in the last hand
        (:class:`DeckAlternationError`: the service records the refused deck as the shuffler's fault); R-DECK-3: not
        a colour out of play since a deck check counted it wrong."""
        self.verify_deck_in_play(deck.colour.value)
        if alternation := alternation_problem(deck.colour.value, last=self.last_deck_colour, hand=self.hands_started,
                                              shuffler=self.shuffler is not None):
            raise DeckAlternationError(alternation, rule="R-DECK-2")

    def verify_deck_size(self, deck: DeckIdentity, size: int, *, rule: str = "R-CARD-2") -> None:
        """The deck the next hand needs: ``size`` cards (R-CARD-2; five-card draw by players, R-DRAW-8)."""
        if deck.size != size:
            raise self.ERROR(f"the next hand is played with a {size}-card deck, not {deck.size}", rule=rule)

    def note_hand_started(self, number: int, deck_colour: str | None) -> None:
        """Bookkeeping of a hand started (from the aggregate's ``HandStarted`` event); its id is set by the caller."""
        self.hands_started = number
        self.last_deck_colour = deck_colour

    # -- devices (R-DECK-2, R-DECK-3) ---------------------------------------------------------------

    def record_device_report(self, report: DeviceReport) -> None:
        """A shuffle, deck check, delivery or fault of a device at this table (R-DECK-2, R-DECK-3, R-AUD-1)."""
        self._device_reported(device=report.device, serial=report.serial, kind=report.kind, colour=report.colour,
                              result=report.result, hold=report_hold(report.kind, report.result) or "")

    def _device_reported(self, *, device: str, serial: str, kind: str, colour: str, result: str,
                         hold: str = "") -> None:
        raise NotImplementedError  # the aggregate's own ``DeviceReported`` event

    def note_device_report(self, device: str, serial: str, kind: str, *, colour: str = "", result: str = "",
                           hold: str = "") -> None:
        """Bookkeeping of a device report (from the aggregate's ``DeviceReported`` event, before its version is
        set): a holding report holds the table (R-HOLD-1), a deck check takes its deck out of or back into play
        (R-DECK-3)."""
        self.device_reports += 1
        if is_shuffler_report(device, kind):
            self.shuffler = {"device": device, "serial": serial}
        if hold:
            self.note_hold(self.version + 1, hold, f"{device} {serial}: {result}")
        self.note_deck_check(kind, colour, result, hold)

    # -- alerts (R-HOLD-1, R-AUD-1) -------------------------------------------------------------------

    def raise_alert(self, kind: str, detail: str, by: str) -> None:
        """R-HOLD-1: the service raises an alert at this table (a shuffler that failed the integrity monitor,
        GLI-19 §3.2.2); it holds the table until the pit acknowledges it."""
        verify_raised_alert(kind, detail)
        if not isinstance(by, str) or not by.strip():
            raise self.ERROR("an alert names who raised it", rule="R-AUD-1")
        self._alert_raised(kind=kind, detail=detail, by=by)

    def _alert_raised(self, *, kind: str, detail: str, by: str) -> None:
        raise NotImplementedError  # the aggregate's own ``AlertRaised`` event

    def note_alert_raised(self, kind: str, detail: str) -> None:
        """Bookkeeping of an alert raised (from the aggregate's ``AlertRaised`` event, before its version is set)."""
        self.note_hold(self.version + 1, kind, detail)

    def acknowledge_alert(self, position: int, reason: str, by: str, version: int = 0) -> None:
        """R-AUD-1: the pit boss or the games director acknowledges the alert raised at log ``position`` — the
        table's own event of ``version`` (0: an event of one of its hands) — with a reason; an alert that held the
        table releases it (R-HOLD-1)."""
        self.verify_acknowledge_alert(position, reason, by)
        self._alert_acknowledged(position=position, reason=reason, by=by, version=version)

    def _alert_acknowledged(self, *, position: int, reason: str, by: str, version: int = 0) -> None:
        raise NotImplementedError  # the aggregate's own ``AlertAcknowledged`` event

    def note_table_alert_acknowledged(self, position: int, version: int) -> None:
        """Bookkeeping of an acknowledgement (from the aggregate's ``AlertAcknowledged`` event)."""
        self.note_alert_acknowledged(position)
        if version:
            self.release_hold(version)

    def record_refused_deck(self, colour: str, reason: str) -> None:
        """R-DECK-2: a deck refused because it does not alternate, recorded as the shuffler's fault: the refused
        start recorded nothing, and the service records this right after it, so the refusal is never forgotten."""
        shuffler = self.shuffler or {"device": "shuffler", "serial": "unknown"}
        self.record_device_report(DeviceReport(shuffler["device"], shuffler["serial"], "fault", colour,
                                               f"deck refused: {reason}"[:200]))

    # -- the dealer (R-AUD-1) --------------------------------------------------------------------------

    @property
    def dealer_id(self) -> str:
        """The id of the dealer signed in here, or ``""`` (tables opened before sign-in have none)."""
        signed_in = getattr(self, "dealer", None)
        return signed_in["dealer_id"] if signed_in else ""

    def verify_sign_in(self, dealer_id: str, station: str) -> None:
        """A dealer's id (1–64 printable characters, no surrounding spaces) and the station signing him in."""
        if (not isinstance(dealer_id, str) or not dealer_id.strip() or dealer_id != dealer_id.strip()
                or len(dealer_id) > MAX_DEALER_ID or not dealer_id.isprintable()):
            raise self.ERROR(f"a dealer's id has 1 to {MAX_DEALER_ID} printable characters", rule="R-AUD-1")
        if not station.strip():
            raise self.ERROR("a sign-in names the station it was made at", rule="R-AUD-1")

    def sign_in(self, dealer_id: str, station: str) -> None:
        """R-AUD-1: ``dealer_id`` deals at this table from now on (replacing whoever was signed in), signed in at
        ``station``; the service records his id with every command the table's stations send."""
        self.verify_sign_in(dealer_id, station)
        self._dealer_signed_in(dealer_id=dealer_id, station=station, previous=self.dealer_id)

    def _dealer_signed_in(self, *, dealer_id: str, station: str, previous: str) -> None:
        raise NotImplementedError  # the aggregate's own ``DealerSignedIn`` event

    def note_dealer_signed_in(self, dealer_id: str, station: str) -> None:
        """Bookkeeping of a sign-in (from the aggregate's ``DealerSignedIn`` event)."""
        self.dealer = {"dealer_id": dealer_id, "station": station}

    def verify_sign_out(self, station: str) -> None:
        """A dealer is signed in here, and the station signing him out is named (R-AUD-1)."""
        if not self.dealer_id:
            raise self.ERROR("no dealer is signed in at this table", rule="R-AUD-1")
        if not isinstance(station, str) or not station.strip():
            raise self.ERROR("a sign-out names the station it was made at", rule="R-AUD-1")

    def sign_out(self, station: str) -> None:
        """R-AUD-1: the dealer signed in here leaves the table (a rotation, a break, the end of his shift); the
        table has no dealer until the next sign-in.  The event's time is the end of his time at the table."""
        self.verify_sign_out(station)
        self._dealer_signed_out(dealer_id=self.dealer_id, station=station)

    def _dealer_signed_out(self, *, dealer_id: str, station: str) -> None:
        raise NotImplementedError  # the aggregate's own ``DealerSignedOut`` event

    # -- disputes (R-THB-13, R-AUD-1) ---------------------------------------------------------------

    def verify_reconstruction(self, number: int, pit_boss: str, reason: str) -> None:
        """A hand of this table that has started, a pit boss, a stated reason (R-THB-13, R-AUD-1)."""
        if problem := request_problem(number, self.hands_started, pit_boss, reason):
            raise self.ERROR(problem[0], rule=problem[1])

    def record_reconstruction(self, number: int, pit_boss: str, reason: str) -> None:
        """A reconstruction of one of this table's hands is recorded before it is shown: who, when, why."""
        self.verify_reconstruction(number, pit_boss, reason)
        self._reconstruction_requested(hand_id=self.hand_id(number), number=number, pit_boss=pit_boss,
                                       reason=reason)

    def _reconstruction_requested(self, *, hand_id: UUID, number: int, pit_boss: str, reason: str) -> None:
        raise NotImplementedError  # the aggregate's own ``ReconstructionRequested`` event


@dataclass(frozen=True)
class NextDeck:
    """The deck a table's next hand needs (its game's, or by players dealt in, R-DRAW-8), of this back colour and
    label: a start that names no size, resolved with the table (:meth:`identity`)."""

    colour: BackColour
    label: str = ""

    def identity(self, table: TableRecord) -> DeckIdentity:
        """The deck, of the size ``table``'s next hand needs."""
        return DeckIdentity(table.deck_size_for_next_hand(), self.colour, self.label)
