"""A banked table (Texas Hold'em Bonus or Casino Draw Poker): its game, settings and hands, and the house's result.

>>> from domain.cards.decks import BackColour, DeckIdentity
>>> from domain.banked.thb import STANDARD_LIMITS, ThbSettings
>>> table = BankedTable.open("THB 1", "holdem-bonus", ThbSettings(STANDARD_LIMITS[10]))
>>> hand = table.start_hand(DeckIdentity(52, BackColour.BLUE))
>>> hand.number, table.hand_in_progress == hand.id
(1, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.banked.cdp import CdpHand, CdpSettings
from domain.banked.thb import ThbHand, ThbSettings
from domain.cards.decks import DeckIdentity
from domain.errors import RuleError
from domain.holds import Hold
from domain.ids import TABLES_NAMESPACE
from domain.names import verify_name
from domain.tables import LANGUAGES, TableRecord

GAMES: dict[str, tuple[type[ThbHand] | type[CdpHand], type[ThbSettings] | type[CdpSettings]]] = {
    "holdem-bonus": (ThbHand, ThbSettings),
    "casino-draw": (CdpHand, CdpSettings),
}


class BankedTableError(RuleError):
    """A banked-table command the rules do not allow now."""


class BankedTable(TableRecord, Aggregate):
    """A table where every box plays the house; the record every table keeps (hands, decks, devices,
    reconstructions) is :class:`domain.tables.TableRecord`'s."""

    ERROR = BankedTableError
    closed = False
    """Closed by the pit between hands (issue 33): no hand starts there again (tables recorded before: open)."""

    @staticmethod
    def create_id(name: str, **_: Any) -> UUID:
        """Tables have deterministic ids from their names."""
        return uuid5(TABLES_NAMESPACE, f"banked-table/{name}")

    @event("Opened")
    def __init__(self, *, name: str, game: str, settings: dict[str, Any], language: str = LANGUAGES[0],
                 hands_key: str = "") -> None:
        self.name, self.game, self.settings_data = name, game, dict(settings)
        self.hands_key = hands_key
        """What makes its hands' ids its own in every store (:attr:`hands_namespace`; tables opened before: none)."""
        self.language = language
        """The language of the table's stations (domain.tables.LANGUAGES; tables opened before it: Spanish)."""
        self.reset_record()
        self.bank_result = 0
        self.reshuffle_pending: str | None = None  # the deck to reshuffle fully before the next hand (R-THB-11)

    @classmethod
    def open(cls, name: str, game: str, settings: ThbSettings | CdpSettings,
             language: str = LANGUAGES[0], hands_key: str = "") -> BankedTable:
        """Open a table of ``game`` (``holdem-bonus`` or ``casino-draw``) with its stations' language; ``hands_key``
        (32 hex digits, random, given by the service) makes its hands' ids unique (:attr:`hands_namespace`)."""
        if game not in GAMES or not isinstance(settings, GAMES[game][1]):
            raise BankedTableError(f"unknown game {game!r} or settings of another game", rule="R-AUD-1")
        verify_name(name)  # R-AUD-1: no control, format or invisible character (domain.names)
        try:
            cls.verify_hands_key(hands_key)
        except ValueError as error:
            raise BankedTableError(str(error), rule="R-AUD-1") from None
        return cls(name=name, game=game, settings=settings.to_dict(), language=language, hands_key=hands_key)

    @property
    def settings(self) -> ThbSettings | CdpSettings:
        """The table's settings."""
        return GAMES[self.game][1].from_dict(self.settings_data)

    def deck_size_for_next_hand(self) -> int:
        """The deck the next hand needs: both banked games deal from a full deck of 52 (R-THB-1; R-CARD-5 for every
        game of the house, docs/banked.md)."""
        return 52

    def hand_id(self, number: int) -> UUID:
        """The id of hand ``number`` of this table."""
        return GAMES[self.game][0].hand_id(self.hands_namespace, number)

    def start_hand(self, deck: DeckIdentity, casino: Sequence[Hold] = ()) -> ThbHand | CdpHand:
        """Open the next hand for bets; save the table and the hand together.  Refused while an alert holds the table
        (R-HOLD-1; ``casino``: the casino's alerts that concern it) or the deck is out of play (R-DECK-3)."""
        if self.hand_in_progress is not None:
            raise BankedTableError("a hand is in progress", rule="R-AUD-1")
        if self.closed:
            raise BankedTableError("the table is closed", rule="R-AUD-1")
        self.verify_not_held(casino)
        if self.reshuffle_pending is not None:
            raise BankedTableError(f"a full reshuffle of the {self.reshuffle_pending} deck is required before the "
                                   "next hand: record the shuffler's shuffle of that deck, or the croupier's "
                                   "reshuffle", rule="R-THB-11")
        self.verify_deck_colour(deck)
        self.verify_deck_size(deck, 52, rule=GAMES[self.game][0].RULE)  # R-THB-1, R-CDP-1: dealt from 52 cards
        hand_class = GAMES[self.game][0]
        settings = self.settings
        if isinstance(settings, ThbSettings) and hand_class is ThbHand:
            hand: ThbHand | CdpHand = ThbHand.start(self.id, self.hands_started + 1, settings, deck,
                                                    hands=self.hands_namespace)
        elif isinstance(settings, CdpSettings):
            hand = CdpHand.start(self.id, self.hands_started + 1, settings, deck, hands=self.hands_namespace)
        else:  # pragma: no cover
            raise AssertionError(self.game)
        self._hand_started(hand_id=hand.id, number=self.hands_started + 1, deck_colour=deck.colour.value)
        return hand

    def finish_hand(self, hand: ThbHand | CdpHand) -> None:
        """Record a finished hand and the house's result."""
        if hand.id != self.hand_in_progress or not hand.is_complete:
            raise BankedTableError("that is not the finished hand in progress", rule="R-AUD-1")
        self._hand_finished(hand_id=hand.id, bank_result=hand.bank_result())
        if hand.reshuffle_required:  # R-THB-11 (b, d): "se volverá a barajar"
            self._reshuffle_required(hand_id=hand.id, colour=str(hand.deck["colour"]), rule="R-THB-11")

    def verify_record_reshuffle(self, by: str) -> None:
        """R-THB-11: a full reshuffle is pending, and who shuffled is named."""
        if self.reshuffle_pending is None:
            raise BankedTableError("no full reshuffle is required at this table now", rule="R-THB-11")
        if not isinstance(by, str) or not by.strip() or len(by) > 200:
            raise BankedTableError("who reshuffled is recorded (1–200 characters)", rule="R-AUD-1")

    def record_reshuffle(self, by: str) -> None:
        """R-THB-11: the croupier reshuffled the whole deck by hand (a table without a shuffler, or with it out of
        order); a shuffler's ``shuffle`` report of that deck clears the requirement as well."""
        self.verify_record_reshuffle(by)
        assert self.reshuffle_pending is not None
        self._reshuffled(colour=self.reshuffle_pending, by=by)

    def verify_close(self) -> None:
        """The pit closes a banked table between hands, once (issue 33: its shift closed with the tray)."""
        if self.hand_in_progress is not None:
            raise BankedTableError("a hand is in progress: the table closes between hands", rule="R-AUD-1")
        if self.closed:
            raise BankedTableError("the table is closed already", rule="R-AUD-1")

    def close(self, by: str) -> None:
        """Close the table: no more hands."""
        self.verify_close()
        self._closed(by=by)

    @event("Closed")
    def _closed(self, *, by: str) -> None:
        self.closed = True

    @event("ReconstructionRequested")
    def _reconstruction_requested(self, *, hand_id: UUID, number: int, pit_boss: str, reason: str) -> None:
        self.reconstructions += 1

    @event("DeviceReported")
    def _device_reported(self, *, device: str, serial: str, kind: str, colour: str, result: str,
                         hold: str = "") -> None:
        """A device's report; ``hold``: the kind of hold it puts the table on ("" for none; R-HOLD-1)."""
        self.note_device_report(device, serial, kind, colour=colour, result=result, hold=hold)
        if kind == "shuffle" and colour == self.reshuffle_pending:  # R-THB-11: the shuffler reshuffled that deck
            self.reshuffle_pending = None

    @event("DealerSignedIn")
    def _dealer_signed_in(self, *, dealer_id: str, station: str, previous: str) -> None:
        """R-AUD-1: the dealer dealing here from now on, who signed him in, and whom he replaces ("" for nobody)."""
        del previous
        self.note_dealer_signed_in(dealer_id, station)

    @event("AlertAcknowledged")
    def _alert_acknowledged(self, *, position: int, reason: str, by: str, version: int = 0) -> None:
        """R-AUD-1: the alert raised by the event at log ``position`` (a device fault, a void) acknowledged by the
        station ``by`` (the pit boss's or the games director's), and why; ``version``: the table's version of that
        event (0: an event of one of its hands, and before issue 19), whose hold it releases (R-HOLD-1)."""
        del reason, by
        self.note_table_alert_acknowledged(position, version)

    @event("AlertRaised")
    def _alert_raised(self, *, kind: str, detail: str, by: str) -> None:
        """R-HOLD-1: the service (``by``) raised an alert of ``kind`` here (a shuffler that failed the integrity
        monitor); it holds the table until acknowledged."""
        del by
        self.note_alert_raised(kind, detail)

    @event("DealerSignedOut")
    def _dealer_signed_out(self, *, dealer_id: str, station: str) -> None:
        """R-AUD-1: the dealer ``dealer_id`` left the table, signed out at ``station``; none deals until the next."""
        del dealer_id, station
        self.dealer = None

    @event("ReshuffleRequired")
    def _reshuffle_required(self, *, hand_id: UUID, colour: str, rule: str) -> None:
        self.reshuffle_pending = colour

    @event("Reshuffled")
    def _reshuffled(self, *, colour: str, by: str) -> None:
        self.reshuffle_pending = None

    @event("HandStarted")
    def _hand_started(self, *, hand_id: UUID, number: int, deck_colour: str | None = None) -> None:
        self.note_hand_started(number, deck_colour)
        self.hand_in_progress = hand_id

    @event("HandFinished")
    def _hand_finished(self, *, hand_id: UUID, bank_result: int) -> None:
        del hand_id
        self.hand_in_progress = None
        self.bank_result += bank_result
