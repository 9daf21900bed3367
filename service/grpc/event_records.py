"""The shapes of pokertable.v1's events.proto that :mod:`service.grpc.event_messages` writes and fills: a field, a
nested record of fixed shape (the deck, the stakes, each family's recorded settings…), an event's spec, and what a
field of a given name means in any event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.banked.cdp import CdpSettings
from domain.banked.thb_settings import ThbSettings
from domain.games import BANKED_BY_HAND

STRUCT = "google.protobuf.Struct"


@dataclass(frozen=True)
class Field:
    """A field of a generated message: its name, protobuf type and label ("", "optional" or "repeated")."""

    name: str
    type: str
    label: str = ""
    comment: str = ""

    @property
    def is_map(self) -> bool:
        """A ``map<K, V>`` field."""
        return self.type.startswith("map<")


@dataclass(frozen=True)
class Record:
    """A nested message of fixed shape, for an event field the domain keeps as a plain dict or list."""

    message: str
    fields: tuple[Field, ...]
    comment: str


@dataclass(frozen=True)
class EventSpec:
    """One domain event class as a message: its class (``Hand.CardDealt``), message and TableEvent case."""

    qualname: str
    event_class: type[Any]
    message: str
    oneof: str
    fields: tuple[Field, ...]
    comment: str


DECK = Record("DeckRecord", (Field("size", "int64", comment="28, 32, 36, 40, 44, 48 or 52 cards (R-CARD-2)"),
                             Field("colour", "string", comment="red or blue (R-DECK-2)"),
                             Field("label", "string", comment="the deck's label or lot, if given")),
              "The deck a hand is dealt from.")
STAKES = Record("StakesRecord", (
    Field("antes", "int64", "repeated", "ante by position, from the first left of the button"),
    Field("blinds", "int64", "repeated", "blind or straddle by position, from the small blind (R-FLOP-1)"),
    Field("bring_in", "int64", comment="stud bring-in (R-STUD7-1)"),
    Field("small_bet", "int64", comment="fixed-limit small bet (R-CIRC-4)"),
    Field("big_bet", "int64", comment="fixed-limit big bet (R-CIRC-4)"),
    Field("min_bet", "int64", comment="pot- and no-limit smallest bet")), "A circle table's forced bets and bet sizes.")
RAKE = Record("RakeRecord", (Field("percent", "int64", comment="0-100 of each pot"),
                             Field("cap", "int64", comment="at most this many chips a hand")),
              "The house commission of a circle table (R-CIRC-12).")
CIRCLE_SETTINGS = Record("CircleSettingsRecord", (
    Field("variant", "string", comment="the game's code: holdem, omaha, stud7, draw, stud5, sintetico, pineapple"),
    Field("structure", "string", comment="fixed-limit, pot-limit or no-limit (R-CIRC-5)"),
    Field("stakes", STAKES.message),
    Field("raise_cap", "int64", "optional", comment="bets and raises an interval (R-CIRC-4); unset: no cap"),
    Field("rake", RAKE.message),
    Field("deck_size", "int64", comment="the deck (R-CARD-2)"),
    Field("flush_beats_full_house", "bool", "optional", comment="short decks: unset = the variant's rule"),
    Field("burn_cards", "bool", comment="cards are burned as the rules say"),
    Field("deck_by_players", "bool", comment="five-card draw: the deck by players dealt in (R-DRAW-8)"),
    Field("min_raise", "string", comment="R-CIRC-3b decision: standard or any (unset in settings stored before)"),
    Field("mano_speaks_first", "bool", "optional", comment="R-CIRC-1 decision"),
    Field("showdown_order", "string", comment="R-CIRC-13 decision: last-aggressor or any"),
    Field("ante_pot", "string", comment="decision (docs/circle.md): matched or main")),
    "A circle table's settings as recorded in its events (domain.circle.settings.TableSettings.to_dict).")
POT_SHARE = Record("PotShareRecord", (Field("seat", "int64"), Field("amount", "int64", comment="chips won")),
                   "A winner's share of a pot.")
PAY_TABLE = Record("PayTableRecord", (
    Field("pays", "map<string, int64>", comment="n for n:1, by outcome (R-THB-9 bonus classes; R-CDP-6 categories)"),
    Field("approval_over", "int64", "optional", comment="THB: payouts above this ratio wait for the games "
                                                        "director (R-THB-10); unset for Casino Draw Poker")),
    "A banked game's pay table.")
THB_SETTINGS = Record("ThbSettingsRecord", (
    Field("limits", "int64", "repeated", comment="ante min, ante max, flop max, turn/river max, bonus min, bonus max "
                                                 "(R-THB-2)"),
    Field("bonus_table", PAY_TABLE.message, comment="the bonus pay table (R-THB-9)"),
    Field("ante_pays_from", "string", comment="R-THB-8 decision: STRAIGHT or FLUSH"),
    Field("refused_bonus", "string", comment="R-THB-10 decision: returned or aces (unset in settings stored before)"),
    Field("turn_dealer_cards_for_aces", "bool", "optional", comment="R-THB-12 decision")),
    "A Texas Hold'em Bonus table's settings as recorded (domain.banked.thb_settings.ThbSettings.to_dict).")
CDP_SETTINGS = Record("CdpSettingsRecord", (
    Field("ante_min", "int64", comment="R-CDP-1"), Field("ante_max", "int64", comment="R-CDP-1"),
    Field("pay_table", PAY_TABLE.message, comment="the play bet's pay table (R-CDP-6)"),
    Field("house_way", "string", comment="R-CDP-4 decision: regulation"),
    Field("unqualified_play_bet", "string", comment="R-CDP-5 decision: returned or paid (unset in settings stored "
                                                    "before)")),
    "A Casino Draw Poker table's settings as recorded (domain.banked.cdp_rules.CdpSettings.to_dict).")
RECORDS = (CDP_SETTINGS, CIRCLE_SETTINGS, DECK, PAY_TABLE, POT_SHARE, RAKE, STAKES, THB_SETTINGS)
SETTINGS_RECORDS: Mapping[type[Any] | None, Record] = {None: CIRCLE_SETTINGS, ThbSettings: THB_SETTINGS,
                                                       CdpSettings: CDP_SETTINGS}
"""The recorded settings of a game, by its settings class (``None``: circle, ``domain.games.Game``)."""


_BANKED_CODES = ", ".join(game.code for game in BANKED_BY_HAND.values())
FIELD_NOTES: Mapping[str, str] = {
    "seat": "the seat (1-based)", "box": "the box of a banked table (1-based; CdpHand.CardDealt: 0 is the bank)",
    "card": "a card code (\"As\"); \"??\" when face down and the caller may not see it",
    "cards": "card codes; \"??\" for each face-down card the caller may not see",
    "amount": "chips", "stack": "chips", "bank_result": "the house's net chips (negative: the house lost)",
    "source": "croupier, shoe (R-AUD-1), or replay/test (the domain's own)",
    "sequence": "the shoe read's sequence number (R-DECK-4); unset for the croupier",
    "rule": "the rule id (R-...)", "reason": "as recorded", "hand_id": "the hand's id (a UUID)",
    "table_id": "the table's id (a UUID)", "number": "the hand's number at its table (1 = the first)",
    "colour": "red or blue (R-DECK-2)", "deck_colour": "red or blue (R-DECK-2); unset before decks were recorded",
    "kind": "what the record is (see the message)", "by": "the station that did it",
    "pit_boss": "the pit boss's station", "director": "the games director's station",
    "spot": "ante, bonus, flop, turn, river (THB) or ante, play (CDP)",
    "index": "the pot: 0 the main pot, then side pots", "rake": "the house's chips from this pot (R-CIRC-12)",
    "eligible": "seats that could win this pot", "contributors": "seats that put chips in it",
    "carried_in": "chips of this pot carried from blank hands (R-DRAW-3)", "seats": "seats dealt in, in dealing order",
    "stacks": "chips of each seat dealt in, in dealing order", "button_seat": "the button (or la mano, R-CIRC-1)",
    "openers": "the lowest pair that opens, as a rank 11 (jacks) to 14 (aces) (R-DRAW-2, R-DRAW-3)",
    "carried_pot": "chips carried from blank hands (R-DRAW-3, R-DRAW-7)", "old": "chips before", "new": "chips after",
    "blank": "a blank hand: nobody opened (R-DRAW-3)", "device": "the device's model", "serial": "its serial number",
    "result": "what the device said", "name": "the table's name", "game": f"the game's code ({_BANKED_CODES})",
    "seat_count": "seats at the table (R-CIRC-2)",
    "hands_key": "what makes the table's hands' ids its own in every store (32 hex digits; none: opened before it)",
    "antes": "ante by position, from the first left of the button",
    "blinds": "blind or straddle by position, from the small blind (R-FLOP-1)",
    "to": "the seat's total bet in this interval after it", "added": "the chips it added",
    "face_up": "dealt face up", "kept_for_openers": "kept face down to prove the opener's openers (R-DRAW-5)",
    "street": "turn or river", "counts": "the card counts and play goes on (R-THB-11 a)",
    "boxes": "boxes whose A-A bonus is in action", "games_director": "the games director informed",
    "bonus_class": "the bonus outcome (R-THB-9: aces_vs_dealer_aces, aces, ak_suited, ...); unset: none",
    "bank_qualified": "the bank qualified (R-CDP-4); unset: nobody played",
    "reshuffle": "a full reshuffle is required before the next hand (R-THB-11)",
    "position": "the log position of the event that raised the alert, as on the Watch stream (R-AUD-1)",
    # the casino's record of tampering found by the service's audit (domain.audit_findings)
    "AuditFindingsTamperingFound.kind": "altered, removed, inserted, reordered, head, signature, rewritten or forged",
    "AuditFindingsTamperingFound.position": "the log position where the log and its chain (or a signed head) "
                                            "first disagree; the alert is this event's own position (R-AUD-1)",
    "AuditFindingsTamperingFound.message": "the audit's finding, in its words",
    "AuditFindingsTamperingFound.table": "the table the tampered event belongs to; empty when it cannot be told",
    "AuditFindingsTamperingFound.by": "who ran the check (\"service audit\": the service itself)",
    "AuditFindingsAlertAcknowledged.position": "the log position of the TamperingFound event acknowledged (R-AUD-1)",
    # alerts that hold play (domain.holds; issue 19)
    "hold": "the hold it puts the table on (R-HOLD-1): device-fault or deck-count; empty: none",
    "version": "the table's version of the event that raised the alert (its hold released, R-HOLD-1); 0: a hand's",
    "detail": "what the alert says", "dealer_id": "the dealer's id (his badge or employee number)",
    "TableAlertRaised.kind": "the alert (R-HOLD-1): shuffler-integrity", "BankedTableAlertRaised.kind":
        "the alert (R-HOLD-1): shuffler-integrity",
    "TableDealerSignedOut.station": "the station that signed him out",
    "BankedTableDealerSignedOut.station": "the station that signed him out",
}
"""What a field of that name means in any event, or in one message's (``Message.field``; a field's own comment,
where it has one, comes first)."""
