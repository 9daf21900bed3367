"""The hand commands of circle and banked tables, as data, and the aggregate methods each one calls."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from domain.banked.cdp import CdpHand
from domain.banked.table import BankedTable
from domain.banked.thb import ThbHand
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.hand import Hand
from domain.circle.table import Table
from service.app.access import ServiceError, Viewer

V = TypeVar("V")

MAX_CHIPS = 10**12
"""The most chips a request names and a stack holds (R-CIRC-6): a trillion, far past any table, far below int64."""


@dataclass(frozen=True)
class HandCommand:
    """One hand command from a dealer station, as data (what the gRPC layer builds)."""

    action: str
    seat: int | None = None
    amount: int | None = None
    card: Card | None = None
    cards: tuple[Card, ...] = ()
    source: str = "croupier"
    sequence: int | None = None
    rule: str = ""
    reason: str = ""
    replacement: HandCommand | None = None
    """``request-correction``: the betting action that happened (R-AUD-1)."""
    approve: bool = False
    """``decide-correction``: approved (else refused)."""


@dataclass(frozen=True)
class NextDeck:
    """The deck a circle table's next hand needs (its game's, or by players dealt in, R-DRAW-8), of this back colour
    and label: a StartHand that names no size, resolved with the table the command holds (no read of its own)."""

    colour: BackColour
    label: str = ""

    def identity(self, table: Table) -> DeckIdentity:
        return DeckIdentity(table.deck_size_for_next_hand(), self.colour, self.label)


HAND_ACTIONS: Mapping[str, Callable[[Hand, HandCommand], None]] = {
    "deal": lambda h, c: h.deal(_card(c), c.source, c.sequence),
    "fold": lambda h, c: h.fold(_seat(c)),
    "check": lambda h, c: h.check(_seat(c)),
    "call": lambda h, c: h.call(_seat(c)),
    "bet": lambda h, c: h.bet_or_raise_to(_seat(c), _amount(c)),
    "all-in": lambda h, c: h.all_in(_seat(c)),
    "bring-in": lambda h, c: h.post_bring_in(_seat(c)),
    "discard": lambda h, c: h.discard(_seat(c), list(c.cards)),
    "reshuffle-discards": lambda h, c: h.reshuffle_discards(),
    "show": lambda h, c: h.show(_seat(c)),
    "muck": lambda h, c: h.muck(_seat(c)),
    "expose-card": lambda h, c: h.expose_card(_seat(c), _card(c)),
    "expose-hand": lambda h, c: h.expose_hand(_seat(c)),
    "absent": lambda h, c: h.declare_absent(_seat(c)),
    "void": lambda h, c: h.void(c.rule, c.reason),
}
"""The circle-poker hand commands by name."""


def _request_correction(hand: Hand, command: HandCommand, viewer: Viewer) -> None:
    replacement = _needs(command.action, command.replacement, "the replacement action")
    hand.request_correction(replacement.action, _seat(replacement), replacement.amount, reason=command.reason,
                            by=viewer.station)


CORRECTION_ACTIONS: Mapping[str, Callable[[Hand, HandCommand, Viewer], None]] = {
    "request-correction": _request_correction,
    "decide-correction": lambda h, c, v: h.decide_correction(c.approve, reason=c.reason, by=v.station),
}
"""Corrections of a circle hand's last betting action (R-AUD-1; :mod:`domain.circle.hand_corrections`): the only
commands that name who gives them, and the only ones a hand takes while a correction is pending (its decision)."""


@dataclass(frozen=True)
class BankedCommand:
    """One command at a banked table (Texas Hold'em Bonus or Casino Draw Poker), as data."""

    action: str
    box: int | None = None
    amount: int | None = None
    card: Card | None = None
    cards: tuple[Card, ...] = ()
    source: str = "croupier"
    sequence: int | None = None
    reason: str = ""
    rule: str = ""
    director: str = ""
    correctable: bool = False


def _needs(action: str, value: V | None, what: str) -> V:
    """A field a command cannot do without: its value, or :class:`ServiceError` saying which."""
    if value is None:
        raise ServiceError(f"{action} needs {what}")
    return value


def _box(command: BankedCommand) -> int:
    return _needs(command.action, command.box, "a box")


def _stake(command: BankedCommand) -> int:
    return _needs(command.action, command.amount, "an amount")


def _banked_card(command: BankedCommand) -> Card:
    return _needs(command.action, command.card, "a card")


BankedAction = Callable[[Any, BankedCommand, Viewer], None]
THB_ACTIONS: Mapping[str, BankedAction] = {
    "ante": lambda h, c, v: h.place_ante(_box(c), _stake(c)),
    "bonus": lambda h, c, v: h.place_bonus(_box(c), _stake(c)),
    "close-bets": lambda h, c, v: h.close_bets(),
    "deal": lambda h, c, v: h.deal(_banked_card(c), c.source, c.sequence),
    "fold": lambda h, c, v: h.fold(_box(c)),
    "flop-bet": lambda h, c, v: h.flop_bet(_box(c), _stake(c)),
    "bet": lambda h, c, v: h.street_bet(_box(c), _stake(c)),
    "check": lambda h, c, v: h.check(_box(c)),
    "approve": lambda h, c, v: h.approve_bonus(_box(c), v.station),
    "refuse": lambda h, c, v: h.refuse_bonus(_box(c), v.station, c.reason),
    "dealer-card-shown": lambda h, c, v: h.dealer_card_shown(),
    "face-up-card": lambda h, c, v: h.face_up_card_found(_banked_card(c)),
    "wrong-count": lambda h, c, v: h.wrong_card_count(c.box, correctable=c.correctable),
    "reconstruction": lambda h, c, v: h.request_reconstruction(v.station, c.director, c.reason),
    "void": lambda h, c, v: h.void(c.rule, c.reason),
}
"""Texas Hold'em Bonus commands by name."""
CDP_ACTIONS: Mapping[str, BankedAction] = {
    "ante": lambda h, c, v: h.place_ante(_box(c), _stake(c)),
    "close-bets": lambda h, c, v: h.close_bets(),
    "deal": lambda h, c, v: h.deal(_banked_card(c), c.source, c.sequence),
    "exchange": lambda h, c, v: h.exchange(_box(c), list(c.cards)),
    "play": lambda h, c, v: h.play(_box(c), _stake(c)),
    "fold": lambda h, c, v: h.fold(_box(c)),
    "void": lambda h, c, v: h.void(c.rule, c.reason),
}
"""Casino Draw Poker commands by name."""
BANKED_ACTIONS: Mapping[type[Any], Mapping[str, BankedAction]] = {ThbHand: THB_ACTIONS, CdpHand: CDP_ACTIONS}
"""Each banked game's commands, by its hand aggregate (:data:`domain.games.GAMES` names the game's)."""
BANKED_TABLE_ACTIONS: Mapping[str, Callable[[BankedTable, BankedCommand, Viewer], None]] = {
    "reshuffle": lambda t, c, v: t.record_reshuffle(v.station),
}
"""Commands to a banked table itself, between hands (R-THB-11: the croupier's full reshuffle)."""
BANKED_PERMISSIONS: Mapping[str, str] = {"approve": "approve", "refuse": "approve", "reconstruction": "reconstruct",
                                         "void": "void", "deal": "deal"}
"""Banked commands that are not plain play, by the :data:`PERMISSIONS` they need (R-THB-10, R-THB-13)."""
HAND_PERMISSIONS: Mapping[str, str] = {"void": "void", "deal": "deal", "request-correction": "request-correction",
                                       "decide-correction": "decide-correction"}
"""Circle hand commands that are not plain play, by the :data:`PERMISSIONS` they need."""



def _seat(command: HandCommand) -> int:
    return _needs(command.action, command.seat, "a seat")


def _amount(command: HandCommand) -> int:
    return _needs(command.action, command.amount, "an amount")


def _card(command: HandCommand) -> Card:
    return _needs(command.action, command.card, "a card")


def fingerprint(table: str, what: tuple[object, ...]) -> str:
    """What a command asks, as a digest: its table, its kind and every argument (frozen dataclasses and plain values
    have a deterministic ``repr``).  A retry with the same command id must ask exactly this again."""
    return hashlib.sha256(repr((table, what)).encode()).hexdigest()
