"""Request checks of the gRPC service: a malformed field is INVALID_ARGUMENT and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

import grpc

from domain.banked.cdp import CdpSettings
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.decks import BackColour, DeckIdentity
from domain.cards.hand_classes import Category
from domain.circle.settings import (
    AntePot,
    BettingStructure,
    MinRaise,
    ShowdownOrder,
    TableSettings,
)
from domain.circle.variants import VARIANTS
from domain.errors import RuleError
from domain.games import GAMES
from domain.names import name_problem
from service.api import pokertable_pb2 as pb
from service.app.application import (
    MAX_CHIPS,
    parse_moment,
)
from service.grpc.errors import _StatusError

MAX_TEXT = 256
MAX_POSITION = 2**62
"""The highest ``after_position`` a Watch takes: far past any log, and its scan stays within int64."""
STATION_SOURCES = ("shoe", "croupier")
"""The card sources a station names; ``replay`` and ``test`` are the domain's own (PHH replays, tests)."""
HIDDEN_IN_TEXT = frozenset({*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), "\u061c", "\u200e",
                            "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}) \
    - {"\t", "\n"}
"""Characters no free text of a request may have: controls (tab and newline aside) and bidi controls."""
E = TypeVar("E", bound=Enum)


# -- request checks (INVALID_ARGUMENT, nothing changes) ------------------------------------------------


def _text(value: str, name: str, *, required: bool = True) -> str:
    if required and not value:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name} is required")
    if len(value) > MAX_TEXT:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name} is longer than {MAX_TEXT} characters")
    hidden = next((c for c in value if c in HIDDEN_IN_TEXT), None)
    if hidden is not None:  # NUL, controls, bidi overrides: text that shows other than it is (issue 13)
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name} has a control or bidi character "
                           f"(U+{ord(hidden):04X})", "R-AUD-1")
    return value


def _table(value: str) -> str:
    """A table's name, as :mod:`domain.names` allows it (no table has another: INVALID_ARGUMENT)."""
    problem = name_problem(_text(value, "table"))
    if problem is not None:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, problem, "R-AUD-1")
    return value


def _source(value: str) -> str:
    """Where a dealt card comes from, as a station says: the shoe's reader or the croupier (the default)."""
    source = value or "croupier"
    if source not in STATION_SOURCES:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"a card comes from {' or '.join(STATION_SOURCES)}, "
                           f"not {value!r}", "R-AUD-1")
    return source


def _command_id(value: str) -> str:
    text = _text(value, "command_id")
    if len(text) > 128:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "command_id is longer than 128 characters")
    return text


def _chips(value: int) -> int:
    if value <= 0 or value > MAX_CHIPS:
        message = f"chips are a positive whole number, not {value}"
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, message, "R-CIRC-6")
    return value


def _settings(message: pb.Settings) -> TableSettings:
    if message.variant not in VARIANTS:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown variant {message.variant!r}", "R-CIRC-5")
    try:
        structure = BettingStructure(message.structure)
    except ValueError:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown structure {message.structure!r}", "R-CIRC-5") \
            from None
    amounts = (message.ante, *message.blinds, message.bring_in, message.small_bet, message.big_bet, message.min_bet)
    if any(a < 0 or a > MAX_CHIPS for a in amounts):
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "stakes are whole, non-negative chips", "R-CIRC-5")
    try:
        return TableSettings.create(
            message.variant, structure, antes=message.ante, blinds=tuple(message.blinds), bring_in=message.bring_in,
            small_bet=message.small_bet, big_bet=message.big_bet, min_bet=message.min_bet or None,
            deck_size=message.deck_size or None, burn_cards=not message.no_burns,
            min_raise=_choice(MinRaise, message.min_raise, "min_raise", "R-CIRC-3b"),
            showdown_order=_choice(ShowdownOrder, message.showdown_order, "showdown_order", "R-CIRC-13"),
            ante_pot=_choice(AntePot, message.ante_pot, "ante_pot", "R-CIRC-6"),
            mano_speaks_first=message.mano_speaks_first if message.HasField("mano_speaks_first") else True)
    except RuleError as error:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule) from None


def _choice(setting: type[E], text: str, name: str, rule: str) -> E:
    """A decision's setting by its value; empty: the first value, the default (INVALID_ARGUMENT if unknown)."""
    values = [member.value for member in setting]
    try:
        return setting(text or values[0])
    except ValueError:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name} is one of {', '.join(values)}, not {text!r}",
                           rule) from None


@dataclass(frozen=True)
class _Deck:
    size: int
    colour: BackColour
    label: str

    def identity(self, size: int | None = None) -> DeckIdentity:
        return DeckIdentity(size or self.size, self.colour, self.label)


def _deck(request: pb.StartHandRequest, default_size: int) -> _Deck:
    try:
        colour = BackColour(request.deck_colour or "red")
    except ValueError:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown deck colour {request.deck_colour!r}",
                           "R-DECK-2") from None
    return _Deck(request.deck_size or default_size, colour, _text(request.deck_label, "deck_label", required=False))


def _thb_settings(request: pb.OpenBankedTableRequest) -> ThbSettings:
    if request.ante_min not in STANDARD_LIMITS:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "ante_min selects a standard table: 5, 10 or 20",
                           "R-THB-2")
    pays_from = Category.FLUSH if request.ante_pays_from == "flush" else Category.STRAIGHT
    if request.ante_pays_from not in ("", "straight", "flush"):
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "the ante pays from a straight or a flush",
                           "R-THB-8")
    turn = request.turn_dealer_cards_for_aces if request.HasField("turn_dealer_cards_for_aces") else True
    return ThbSettings(STANDARD_LIMITS[request.ante_min], ante_pays_from=pays_from,
                       refused_bonus=request.refused_bonus or "returned", turn_dealer_cards_for_aces=turn)


def _cdp_settings(request: pb.OpenBankedTableRequest) -> CdpSettings:
    return CdpSettings(_chips(request.ante_min), _chips(request.ante_max), house_way=request.house_way or "regulation",
                       unqualified_play_bet=request.unqualified_play_bet or "returned")


_BANKED_SETTINGS: dict[type[Any], Callable[[pb.OpenBankedTableRequest], ThbSettings | CdpSettings]] = {
    ThbSettings: _thb_settings, CdpSettings: _cdp_settings}
"""A banked game's settings from the request, by the game's settings class (``domain.games``)."""


def _banked_settings(request: pb.OpenBankedTableRequest) -> ThbSettings | CdpSettings:
    game = GAMES.get(request.game)
    if game is None or game.settings_class not in _BANKED_SETTINGS:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"unknown game {request.game!r}", "R-AUD-1")
    try:
        return _BANKED_SETTINGS[game.settings_class](request)
    except RuleError as error:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule) from None


def _moment(text: str, name: str) -> datetime | None:
    """An ISO 8601 time with its offset, or nothing; INVALID_ARGUMENT otherwise."""
    try:
        return parse_moment(text)
    except ValueError as error:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, f"{name}: {error}", "R-AUD-1") from None
