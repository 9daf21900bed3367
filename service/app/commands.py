"""The commands of a table, one frozen dataclass per intent (issue 31): what a station, the pit or the games director
asks of the application, handled by :meth:`service.app.application.PokerTables.handle` (one handler per command
type, :mod:`service.app.handlers`).

Every command names its id (chosen by the client: a retry with the same id is answered with the first result and
applies nothing again, R-AUD-1) and its table; ``permission`` is what the role matrix must allow the station
(:data:`service.app.access.PERMISSIONS`).  :meth:`Command.what` is what the record's fingerprint digests: a retry
must ask exactly this again, and it is the very form the records of earlier versions hold
(:mod:`service.app.fingerprints`).

>>> from domain.actions import BetTo
>>> Act("c-7", "Mesa 1", BetTo(3, 40)).permission_needed()
'play'
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from domain.actions import Action
from domain.banked.cdp import CdpSettings
from domain.banked.thb import ThbSettings
from domain.cards.cards import Card
from domain.cards.decks import DeckIdentity
from domain.circle.settings import TableSettings
from domain.device_reports import DeviceReport
from domain.games import game_of_settings
from domain.tables import LANGUAGES, NextDeck, TableRecord
from service.app.fingerprints import act_form, start_form

MAX_CHIPS = 10**12
"""The most chips a request names and a stack holds (R-CIRC-6): a trillion, far past any table, far below int64."""


@dataclass(frozen=True)
class Command:
    """A command: its id (1 to 128 characters, the client's) and its table (``""``: the casino's log)."""

    command_id: str
    table: str
    permission: ClassVar[str] = "play"

    def permission_needed(self) -> str:
        """The permission of the role matrix the station giving this command needs."""
        return self.permission

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        """What the command asks besides its table (its kind and every argument), for its record's fingerprint;
        ``table``: the command's table as read, for the few whose stored form depends on its game."""
        raise NotImplementedError


# -- tables ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenTable(Command):
    """Open a table (its name is its identity, R-AUD-1) of the game its settings are for, with its stations'
    language; a circle table with ``seat_count`` seats (a banked table has its game's boxes)."""

    settings: TableSettings | ThbSettings | CdpSettings
    seat_count: int = 10
    language: str = LANGUAGES[0]
    permission: ClassVar[str] = "open-table"

    @property
    def game(self) -> str:
        """The game the settings are for (:func:`domain.games.game_of_settings`)."""
        return game_of_settings(self.settings).code

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        if isinstance(self.settings, TableSettings):
            return "open_table", self.settings, self.seat_count, self.language
        return "open_banked_table", self.game, self.settings, self.language


@dataclass(frozen=True)
class Sit(Command):
    """A player takes a seat of a circle table with his chips (R-CIRC-2)."""

    seat: int
    stack: int
    permission: ClassVar[str] = "seat"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "sit", self.seat, self.stack


@dataclass(frozen=True)
class Leave(Command):
    """A player leaves his seat between hands."""

    seat: int
    permission: ClassVar[str] = "seat"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "leave", self.seat


@dataclass(frozen=True)
class AddChips(Command):
    """A player buys more chips between hands; a stack never passes :data:`MAX_CHIPS` (R-CIRC-6)."""

    seat: int
    amount: int
    permission: ClassVar[str] = "seat"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "add_chips", self.seat, self.amount


@dataclass(frozen=True)
class ConfigureTable(Command):
    """New settings of a circle table between hands (the pit boss)."""

    settings: TableSettings
    permission: ClassVar[str] = "configure"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "configure", self.settings


@dataclass(frozen=True)
class CorrectStack(Command):
    """The pit boss corrects a stack between hands, recorded with who and why."""

    seat: int
    stack: int
    reason: str
    permission: ClassVar[str] = "correct"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "correct_stack", self.seat, self.stack, self.reason


@dataclass(frozen=True)
class CloseTable(Command):
    """The pit boss closes a table of any game between hands (issue 33: banked tables too)."""

    permission: ClassVar[str] = "close"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return ("close",)


@dataclass(frozen=True)
class RecordDeviceReport(Command):
    """A shuffle, deck check, delivery or fault of a device at the table (R-DECK-2, R-DECK-3)."""

    report: DeviceReport
    permission: ClassVar[str] = "device-report"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "device_report", self.report


@dataclass(frozen=True)
class RecordCutExposure(Command):
    """R-CIRC-2: a card exposed at the cut, recorded with who reported it; the deal waits for a new shuffle."""

    card: Card
    colour: str
    permission: ClassVar[str] = "cut-exposure"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "cut_exposure", self.card, self.colour


@dataclass(frozen=True)
class ReconstructHand(Command):
    """The pit boss's request to reconstruct hand ``number`` for a dispute, recorded at the table first (who,
    when, why; R-THB-13, R-AUD-1); the steps are read after (:meth:`PokerTables.reconstruction`)."""

    number: int
    reason: str
    permission: ClassVar[str] = "reconstruct"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "reconstruction", self.number, self.reason


@dataclass(frozen=True)
class StartHand(Command):
    """Start the table's next hand with the deck in play (the shuffler's red or blue deck, R-DECK-2); a
    :class:`NextDeck`: of the size the table's next hand needs."""

    deck: DeckIdentity | NextDeck
    permission: ClassVar[str] = "start-hand"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return start_form(self.deck, table)


@dataclass(frozen=True)
class Act(Command):
    """An action on the table's hand in progress (:mod:`domain.actions`; between hands, a table's own action):
    the permission is the action's."""

    action: Action

    def permission_needed(self) -> str:
        return self.action.permission

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return act_form(self.action, table)


# -- people at the table ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignIn(Command):
    """R-AUD-1: the dealer now dealing at the table signs in at its croupier's station (or the pit boss signs him
    in)."""

    dealer_id: str
    permission: ClassVar[str] = "sign-in"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "sign_in", self.dealer_id


@dataclass(frozen=True)
class SignOut(Command):
    """R-AUD-1: the dealer signed in at the table leaves it (a rotation, a break, the end of his shift)."""

    permission: ClassVar[str] = "sign-in"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return ("sign_out",)


@dataclass(frozen=True)
class AcknowledgeAlert(Command):
    """R-AUD-1: the pit boss or the games director acknowledges the alert raised at log ``position`` with a reason
    (no table: tampering the audit found in the casino's log)."""

    position: int
    reason: str
    permission: ClassVar[str] = "acknowledge-alert"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "acknowledge_alert", self.position, self.reason


# -- the shift's accounts (docs/accounts.md) ------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenShift(Command):
    """R-ACC-1: the table's next shift opens with the opener (its tray by denomination), between hands."""

    opener: Mapping[int, int] = field(default_factory=dict)
    permission: ClassVar[str] = "accounts-count"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "open_shift", sorted(self.opener.items())


@dataclass(frozen=True)
class CloseShift(Command):
    """R-ACC-1: the shift closes with the closer, between hands; R-ACC-6: a win outside its band is flagged."""

    closer: Mapping[int, int] = field(default_factory=dict)
    permission: ClassVar[str] = "accounts-count"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "close_shift", sorted(self.closer.items())


@dataclass(frozen=True)
class RequestTransfer(Command):
    """R-ACC-3: a fill or a credit (``kind``) asked for by this side (croupier or pit), slip ``transfer``."""

    transfer: str
    kind: str
    chips: Mapping[int, int] = field(default_factory=dict)
    permission: ClassVar[str] = "accounts-transfer"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "request_transfer", self.transfer, self.kind, sorted(self.chips.items())


@dataclass(frozen=True)
class SignTransfer(Command):
    """R-ACC-3: the other side signs a waiting slip off."""

    transfer: str
    permission: ClassVar[str] = "accounts-transfer"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "sign_transfer", self.transfer


@dataclass(frozen=True)
class WithdrawTransfer(Command):
    """R-ACC-3: a slip not signed off is withdrawn, with the reason."""

    transfer: str
    reason: str
    permission: ClassVar[str] = "accounts-transfer"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "withdraw_transfer", self.transfer, self.reason


@dataclass(frozen=True)
class RecordDrop(Command):
    """R-ACC-4: the drop count of shift ``shift`` (default: the open one, or else the last), by the pit."""

    amount: int
    shift: int | None = None
    permission: ClassVar[str] = "accounts-drop"

    def what(self, table: TableRecord | None) -> tuple[object, ...]:
        return "record_drop", self.amount, self.shift


def fingerprint(table: str, what: tuple[object, ...]) -> str:
    """What a command asks, as a digest: its table, its kind and every argument (frozen dataclasses and plain values
    have a deterministic ``repr``).  A retry with the same command id must ask exactly this again."""
    return hashlib.sha256(repr((table, what)).encode()).hexdigest()

