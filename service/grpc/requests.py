"""Request checks of the gRPC service: a malformed field is INVALID_ARGUMENT naming the field's path (its
BadRequest violation) and changes nothing; enums become the domain's codes (:mod:`service.grpc.enums`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any, TypeVar

from google.protobuf.timestamp_pb2 import Timestamp

from domain.alerts import MAX_ALERT_REASON
from domain.banked.cdp import CdpSettings
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity
from domain.cards.hand_classes import Category
from domain.circle.settings import AntePot, BettingStructure, MinRaise, ShowdownOrder, TableSettings
from domain.errors import RuleError
from domain.games import GAMES, Game
from domain.names import name_problem
from domain.tables import LANGUAGES
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import MAX_CHIPS
from service.app.commands import OpenTable
from service.grpc.enums import EnumType, code_of, codes
from service.grpc.errors import invalid

MAX_TEXT = 256
MAX_POSITION = 2**62
"""The highest ``after_position`` a Watch takes: far past any log, and its scan stays within int64."""
HIDDEN_IN_TEXT = frozenset({*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), "\u061c", "\u200e",
                            "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}) \
    - {"\t", "\n"}
"""Characters no free text of a request may have: controls (tab and newline aside) and bidi controls."""
E = TypeVar("E", bound=Enum)
TIMESTAMP_RANGE = (-62135596800 + 2 * 86400, 253402300799 - 2 * 86400)
"""The times a request may name: Timestamp's own range (the years 1 to 9999) less two days at each end, so that a
time read in the casino's zone and the shift around it (:mod:`domain.shifts`) stay inside what a date can hold (a
``until`` at 9999-12-31 answered INTERNAL, an ``OverflowError``, issue 34)."""
"""The seconds a google.protobuf.Timestamp may hold: 0001-01-01 to 9999-12-31 (UTC)."""


def _text(value: str, field: str, *, required: bool = True) -> str:
    if required and not value:
        raise invalid(f"{field} is required", field)
    if len(value) > MAX_TEXT:
        raise invalid(f"{field} is longer than {MAX_TEXT} characters", field)
    hidden = next((c for c in value if c in HIDDEN_IN_TEXT), None)
    if hidden is not None:  # NUL, controls, bidi overrides: text that shows other than it is (issue 13)
        raise invalid(f"{field} has a control or bidi character (U+{ord(hidden):04X})", field, "R-AUD-1")
    return value


def _table(value: str) -> str:
    """A table's name, as :mod:`domain.names` allows it (no table has another: INVALID_ARGUMENT)."""
    problem = name_problem(_text(value, "table"))
    if problem is not None:
        raise invalid(problem, "table", "R-AUD-1")
    return value


def _command_id(value: str) -> str:
    text = _text(value, "command_id")
    if len(text) > 128:
        raise invalid("command_id is longer than 128 characters", "command_id")
    return text


def _chips(value: int, field: str = "chips", rule: str = "R-CIRC-6") -> int:
    if value <= 0 or value > MAX_CHIPS:
        raise invalid(f"{field}: chips are a positive whole number, not {value}", field, rule)
    return value


def _seat(value: int, field: str) -> int:
    if value <= 0:
        raise invalid(f"{field} is required: a seat (box) from 1", field, "R-CIRC-2")
    return value


def _card(value: str, field: str) -> Card:
    return _parsed_card(_text(value, field), field)


def _parsed_card(text: str, field: str) -> Card:
    try:
        return Card.parse(text)
    except RuleError as error:
        raise invalid(str(error), field, error.rule) from None


def _cards(values: Any, field: str) -> tuple[Card, ...]:
    return tuple(_parsed_card(_text(c, field), field) for c in values)


def _code(enum: EnumType, number: int, field: str, rule: str, *, default: str | None = None) -> str:
    """The domain code of an enum field; UNSPECIFIED: ``default`` (or required); unknown: INVALID_ARGUMENT."""
    try:
        code = code_of(enum, number)
    except ValueError:
        code = None
        number = -1
    if code is None and number == 0 and default is not None:
        return default
    if code is None:
        raise invalid(f"{field} is one of {', '.join(codes(enum))}", field, rule)
    return code


def _choice(setting: type[E], enum: EnumType, number: int, field: str, rule: str) -> E:
    """A decision's setting from its enum; UNSPECIFIED: the setting's first value, the default."""
    return setting(_code(enum, number, field, rule, default=next(iter(setting)).value))


def _source(value: int, field: str) -> str:
    """Where a dealt card comes from, as a station says: the shoe's reader or the croupier (the default)."""
    return _code(pb.CardSource, value, field, "R-AUD-1", default="croupier")


def game_of_request(value: int, field: str = "game") -> Game:
    """The game named by a Game enum (INVALID_ARGUMENT, R-CIRC-5, for none or an unknown one)."""
    code = _code(pb.Game, value, field, "R-CIRC-5")
    if code not in GAMES:
        raise invalid(f"the house does not deal {code}", field, "R-CIRC-5")
    return GAMES[code]


def circle_settings(message: pb.CircleSettings, variant: str, path: str) -> TableSettings:
    """A circle table's settings for ``variant`` (the table's game); field paths under ``path``."""
    structure = BettingStructure(_code(pb.BettingStructure, message.structure, f"{path}.structure", "R-CIRC-5"))
    for name in ("ante", "bring_in", "small_bet", "big_bet", "min_bet"):
        if not 0 <= getattr(message, name) <= MAX_CHIPS:
            raise invalid("stakes are whole, non-negative chips", f"{path}.{name}", "R-CIRC-5")
    if any(not 0 <= blind <= MAX_CHIPS for blind in message.blinds):
        raise invalid("stakes are whole, non-negative chips", f"{path}.blinds", "R-CIRC-5")
    if message.deck_size < 0:
        raise invalid("a deck has 28 to 52 cards", f"{path}.deck_size", "R-CARD-2")
    min_raise = _choice(MinRaise, pb.MinRaise, message.min_raise, f"{path}.min_raise", "R-CIRC-3b")
    showdown_order = _choice(ShowdownOrder, pb.ShowdownOrder, message.showdown_order, f"{path}.showdown_order",
                             "R-CIRC-13")
    ante_pot = _choice(AntePot, pb.AntePot, message.ante_pot, f"{path}.ante_pot", "R-CIRC-6")
    try:
        return TableSettings.create(
            variant, structure, antes=message.ante, blinds=tuple(message.blinds), bring_in=message.bring_in,
            small_bet=message.small_bet, big_bet=message.big_bet, min_bet=message.min_bet or None,
            deck_size=message.deck_size or None, burn_cards=not message.no_burns,
            mano_speaks_first=message.mano_speaks_first if message.HasField("mano_speaks_first") else True,
            min_raise=min_raise, showdown_order=showdown_order, ante_pot=ante_pot)
    except RuleError as error:
        raise invalid(str(error), _settings_field(str(error), path), error.rule) from None


_SETTING_WORDS = (("small and a big bet", "small_bet"), ("blind", "blinds"), ("straddle", "blinds"),
                  ("bring-in", "bring_in"), ("small bet", "small_bet"),
                  ("big bet", "big_bet"), ("minimum bet", "min_bet"), ("min_bet", "min_bet"), ("ante", "ante"),
                  ("deck", "deck_size"), ("structure", "structure"))
"""Which settings field a refusal of the domain is about, by the words it uses (else the settings as a whole)."""


def _settings_field(message: str, path: str) -> str:
    lowered = message.lower()
    return next((f"{path}.{field}" for word, field in _SETTING_WORDS if word in lowered), path)


def _thb_settings(message: pb.HoldemBonusSettings, path: str) -> ThbSettings:
    if message.ante_min not in STANDARD_LIMITS:
        raise invalid("ante_min selects a standard table: 5, 10 or 20", f"{path}.ante_min", "R-THB-2")
    pays_from = _code(pb.AntePaysFrom, message.ante_pays_from, f"{path}.ante_pays_from", "R-THB-8",
                      default="straight")
    refused = _code(pb.RefusedBonus, message.refused_bonus, f"{path}.refused_bonus", "R-THB-10", default="returned")
    turn = message.turn_dealer_cards_for_aces if message.HasField("turn_dealer_cards_for_aces") else True
    return ThbSettings(STANDARD_LIMITS[message.ante_min], ante_pays_from=Category[pays_from.upper()],
                       refused_bonus=refused, turn_dealer_cards_for_aces=turn)


def _cdp_settings(message: pb.CasinoDrawSettings, path: str) -> CdpSettings:
    return CdpSettings(_chips(message.ante_min, f"{path}.ante_min", "R-CDP-1"),
                       _chips(message.ante_max, f"{path}.ante_max", "R-CDP-1"),
                       house_way=_code(pb.HouseWay, message.house_way, f"{path}.house_way", "R-CDP-4",
                                       default="regulation"),
                       unqualified_play_bet=_code(pb.UnqualifiedPlayBet, message.unqualified_play_bet,
                                                  f"{path}.unqualified_play_bet", "R-CDP-5", default="returned"))


_BANKED_SETTINGS: dict[str, tuple[type[Any], Callable[[Any, str], Any]]] = {
    "holdem_bonus": (ThbSettings, _thb_settings), "casino_draw": (CdpSettings, _cdp_settings)}
"""The banked settings cases of OpenTableRequest: the settings class a game must have for it, and the converter."""


def _settings_case(game: Game) -> str:
    """The OpenTableRequest settings case a game takes (by its settings class, :data:`domain.games.GAMES`; a circle
    game's are :class:`TableSettings`, which it names no class of its own for)."""
    return next((case for case, (settings_class, _) in _BANKED_SETTINGS.items()
                 if game.settings_class is settings_class), "circle")


def open_table(request: svc.OpenTableRequest, command_id: str, table: str) -> OpenTable:
    """The OpenTable command of a request: its game's settings (the settings case must be the game's), seats and
    language.  Field paths name the case's field (``circle.blinds``): a oneof's name is not a field."""
    game = game_of_request(request.game)
    language = request.language or LANGUAGES[0]
    if language not in LANGUAGES:
        raise invalid(f"a table's language is one of {', '.join(LANGUAGES)}, not {language!r}", "language")
    expected, case = _settings_case(game), request.WhichOneof("settings")
    if case is None:
        raise invalid(f"{game.code} takes its settings as {expected}", expected, "R-CIRC-5")
    if case != expected:
        raise invalid(f"{game.code} takes its settings as {expected}, not {case}", case, "R-CIRC-5")
    if case == "circle":
        if not 0 <= request.seat_count <= 10 or request.seat_count == 1:
            raise invalid("a circle table has 2 to 10 seats", "seat_count", "R-CIRC-2")
        return OpenTable(command_id, table, circle_settings(request.circle, game.code, case), request.seat_count or 10,
                         language)
    try:
        return OpenTable(command_id, table, _BANKED_SETTINGS[case][1](getattr(request, case), case), 6, language)
    except RuleError as error:
        raise invalid(str(error), case, error.rule) from None


@dataclass(frozen=True)
class Deck:
    """The deck a hand starts with; size 0: the game's."""

    size: int
    colour: BackColour
    label: str

    def identity(self, size: int | None = None) -> DeckIdentity:
        """The deck, with the game's size when the request named none."""
        return DeckIdentity(self.size or size or 52, self.colour, self.label)


def deck(request: svc.StartHandRequest) -> Deck:
    """The deck of a StartHand request: red unless named (R-DECK-2)."""
    colour = BackColour(_code(pb.DeckColour, request.deck_colour, "deck_colour", "R-DECK-2", default="red"))
    if not 0 <= request.deck_size <= 52:
        raise invalid("a deck has 28 to 52 cards", "deck_size", "R-CARD-2")
    return Deck(request.deck_size, colour, _text(request.deck_label, "deck_label", required=False))


def colour(value: int, field: str) -> str:
    """A deck colour that must be named (R-DECK-2)."""
    return _code(pb.DeckColour, value, field, "R-DECK-2")


def moment(message: Any, field: str) -> datetime | None:
    """A Timestamp field, or ``None`` when unset; INVALID_ARGUMENT outside Timestamp's range."""
    if not message.HasField(field):
        return None
    stamp: Timestamp = getattr(message, field)
    if not TIMESTAMP_RANGE[0] <= stamp.seconds <= TIMESTAMP_RANGE[1] or not 0 <= stamp.nanos < 10**9:
        raise invalid(f"{field} is not a time between 0001-01-03 and 9999-12-29", field, "R-AUD-1")
    return stamp.ToDatetime(tzinfo=UTC)


@dataclass(frozen=True)
class AlertAcknowledgement:
    """An AcknowledgeAlert request, checked (R-AUD-1): the table, the alert's log position and the reason."""

    command_id: str
    table: str
    position: int
    reason: str


def alert_acknowledgement(request: svc.AcknowledgeAlertRequest) -> AlertAcknowledgement:
    """The fields of an AcknowledgeAlert request: a table (none: an alert of the casino's log, tampering found by
    the audit), the log position of the alert's event (1 to
    :data:`MAX_POSITION`) and a reason of 1 to 200 characters, not blank; INVALID_ARGUMENT naming the field and
    R-AUD-1 otherwise."""
    command_id = _command_id(request.command_id)
    table = _table(request.table) if request.table else ""  # none: tampering the audit found (the casino's log)
    if not 1 <= request.position <= MAX_POSITION:
        raise invalid(f"position is the log position of the alert's event: 1 to {MAX_POSITION}, not "
                      f"{request.position}", "position", "R-AUD-1")
    if not request.reason.strip() or len(request.reason) > MAX_ALERT_REASON:
        raise invalid(f"reason is required: 1 to {MAX_ALERT_REASON} characters, not blank", "reason", "R-AUD-1")
    return AlertAcknowledgement(command_id, table, request.position, _text(request.reason, "reason"))
