"""PHH hand histories (TOML, as pokerkit writes them) replayed through the :class:`domain.circle.hand.Hand` aggregate.

Supported variants: ``NT`` (no-limit Hold'em), ``FT`` (fixed-limit Hold'em), ``PO`` (pot-limit Omaha) and ``F7S``
(fixed-limit seven-card stud).  Players ``p1 … pn`` are positions: clockwise from the button (in stud, from the
croupier's left), the button last.  PHH records no burn cards, so the replayed table deals without burns.

``pokertable phh replay FILE…`` prints ``FILE: s1 s2 …`` (finishing stacks in seat order) for each file; a file
with an illegal or inconsistent action is reported with the action's index and the rule it breaks, and the exit
status is 1, but every other file is still replayed.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from domain.cards.cards import Card, parse_cards
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.hand import TABLES_NAMESPACE, Hand
from domain.circle.seating import button_of
from domain.circle.settings import AntePot, BettingStructure, RakePolicy, ShowdownOrder, Stakes, TableSettings
from domain.circle.state import Phase, SlotKind
from domain.errors import RuleError

VARIANTS: dict[str, tuple[str, BettingStructure]] = {
    "NT": ("holdem", BettingStructure.NO_LIMIT),
    "FT": ("holdem", BettingStructure.FIXED_LIMIT),
    "PO": ("omaha", BettingStructure.POT_LIMIT),
    "F7S": ("stud7", BettingStructure.FIXED_LIMIT),
}


class PhhError(RuleError):
    """A history that cannot be replayed: unknown variant, missing field, cards that do not match."""


class ReplayFailure(Exception):  # noqa: N818 (a failure report, not an error of the program)
    """An action of a history that the rules refuse, with its index (0-based) in ``actions``."""

    def __init__(self, index: int, action: str, error: RuleError) -> None:
        super().__init__(index, action, error)
        self.index, self.action, self.error = index, action, error

    def __str__(self) -> str:
        return f"action {self.index} {self.action!r}: {self.error}"


def settings_from(history: dict[str, Any]) -> TableSettings:
    """The table settings a history describes."""
    code = history.get("variant")
    if code not in VARIANTS:
        raise PhhError(f"variant {code!r} is not supported (NT, FT, PO, F7S)", rule="R-CIRC-5")
    variant, structure = VARIANTS[code]
    players = len(history["starting_stacks"])
    antes = history.get("antes", 0)
    ante_tuple = tuple(antes) if isinstance(antes, list) else (int(antes),) * players
    blinds = tuple(history.get("blinds_or_straddles", ()))
    stakes = Stakes(
        antes=ante_tuple,
        blinds=blinds,
        bring_in=int(history.get("bring_in", 0)),
        small_bet=int(history.get("small_bet", 0)),
        big_bet=int(history.get("big_bet", 0)),
        min_bet=int(history.get("min_bet", 0)),
    )
    cap = 4 if structure is BettingStructure.FIXED_LIMIT else None
    # PHH's ante trimming is our decision ante_pot: trimmed antes are matched chips, untrimmed ones (PHH's default)
    # are dead money in the main pot (docs/circle.md)
    ante_pot = AntePot.MATCHED if history.get("ante_trimming_status", False) else AntePot.MAIN
    # the history's showdown order is pokerkit's, not R-CIRC-13's: the order of shows changes no chips
    return TableSettings(variant, structure, stakes, raise_cap=cap, rake=RakePolicy(), burn_cards=False,
                         ante_pot=ante_pot, showdown_order=ShowdownOrder.ANY)


def replay(history: dict[str, Any]) -> Hand:
    """Play a parsed history through a new hand; raises :class:`ReplayFailure` at the first refused action."""
    settings = settings_from(history)
    stacks = [int(s) for s in history["starting_stacks"]]
    seats = list(range(1, len(stacks) + 1))
    try:
        hand = Hand.start(TABLES_NAMESPACE, 1, settings, seats=seats, stacks=stacks,
                          button_seat=button_of(settings, seats),
                          deck=DeckIdentity(settings.deck_size, BackColour.RED, "phh"))
    except RuleError as error:
        raise ReplayFailure(-1, "start", error) from error
    player = _Player(hand)
    actions: Sequence[str] = history.get("actions", [])
    for index, action in enumerate(actions):
        try:
            player.play(action)
        except RuleError as error:
            raise ReplayFailure(index, action, error) from error
    try:
        player.finish()
    except RuleError as error:
        raise ReplayFailure(len(actions), "end of history", error) from error
    return hand


class _Player:
    """Feeds PHH actions to a hand, turning pokerkit's grouped hole-card deals into the one-card-at-a-time deal."""

    def __init__(self, hand: Hand) -> None:
        self.hand = hand
        self.pending: dict[int, deque[Card]] = {}

    def play(self, action: str) -> None:
        words = action.split("#", 1)[0].split()
        if not words:
            return
        if words[:2] == ["d", "dh"] and len(words) == 4:
            self.pending.setdefault(self._seat(words[2]), deque()).extend(_cards(words[3]))
            slot = self.hand.state.next_slot
            self._deal_pending(strict=slot is None or slot.kind is not SlotKind.HOLE)
            return
        self._deal_pending(strict=True)
        if words[:2] == ["d", "db"] and len(words) == 3:
            for card in _cards(words[2]):
                self._require_slot(SlotKind.BOARD, card)
                self.hand.deal(card, source="replay")
            return
        self._player_action(action, words)

    def _player_action(self, action: str, words: list[str]) -> None:
        match words:
            case [player, "f"]:
                self.hand.fold(self._seat(player))
            case [player, "cc"]:
                seat = self._seat(player)
                if self.hand.can_check(seat):
                    self.hand.check(seat)
                else:
                    self.hand.call(seat)
            case [player, "cbr", amount]:
                self.hand.bet_or_raise_to(self._seat(player), _chips(amount))
            case [player, "pb"]:
                self.hand.post_bring_in(self._seat(player))
            case [player, "sm"]:
                self.hand.muck(self._seat(player))
            case [player, "sm", "-"]:
                self.hand.show(self._seat(player))
            case [player, "sm", cards]:
                self._show(self._seat(player), _cards(cards))
            case _:
                raise PhhError(f"action {action!r} is not understood here", rule="R-AUD-1")

    def finish(self) -> None:
        """Deal what is pending; a history that stops at the showdown is finished by showing the hands still in."""
        self._deal_pending(strict=True)
        state = self.hand.state
        if state.phase is Phase.SHOWDOWN:
            for position in state.in_hand:
                if position not in state.shown and not self.hand.is_complete:
                    self.hand.show(self.hand.seat_of(position))
        if not self.hand.is_complete:
            raise PhhError(f"the history ends before the hand is over ({state.phase.value})", rule="R-AUD-1")

    def _show(self, seat: int, cards: list[Card]) -> None:
        held = self.hand.state.cards_of(self.hand.position_of(seat))
        if sorted(cards) != sorted(held):
            raise PhhError(f"seat {seat} shows {' '.join(map(str, cards))} but holds {' '.join(map(str, held))}",
                           rule="R-DECK-4")
        if self.hand.state.shown.get(self.hand.position_of(seat)):
            return  # pokerkit shows an all-in hand again once its last cards are out: already face up here
        self.hand.show(seat)

    def _deal_pending(self, *, strict: bool = False) -> None:
        """Deal pending hole cards in the order the slots ask for them."""
        state = self.hand.state
        while (slot := state.next_slot) is not None and slot.kind is SlotKind.HOLE:
            queue = self.pending.get(self.hand.seat_of(slot.position))
            if not queue:
                break
            self.hand.deal(queue.popleft(), source="replay")
        if strict and any(self.pending.values()):
            seat = next(s for s, q in self.pending.items() if q)
            raise PhhError(f"cards for seat {seat} are not due: {' '.join(map(str, self.pending[seat]))}",
                           rule="R-CIRC-2")

    def _require_slot(self, kind: SlotKind, card: Card) -> None:
        slot = self.hand.state.next_slot
        if slot is None or slot.kind is not kind:
            due = "no card" if slot is None else f"a {slot.kind.value} card"
            raise PhhError(f"{card} dealt as a {kind.value} card when {due} is due", rule="R-CIRC-2")

    def _seat(self, player: str) -> int:
        if not player.startswith("p") or not player[1:].isdigit():
            raise PhhError(f"{player!r} is not a player (p1, p2, …)", rule="R-AUD-1")
        seat = int(player[1:])
        if seat not in self.hand.seats:
            raise PhhError(f"{player} is not at this table", rule="R-AUD-1")
        return seat


def _cards(text: str) -> list[Card]:
    if "?" in text:
        raise PhhError(f"unknown cards {text!r} cannot be replayed", rule="R-AUD-1")
    return parse_cards(text)


def _chips(text: str) -> int:
    if not text.isdigit():
        raise PhhError(f"{text!r} is not a whole number of chips", rule="R-CIRC-5")
    return int(text)


def replay_file(path: Path) -> str:
    """The report line of one file; raises :class:`ReplayFailure` or :class:`PhhError` for a bad one."""
    try:
        history = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise PhhError(f"cannot read the history: {error}", rule="R-AUD-1") from error
    try:
        hand = replay(history)
    except KeyError as error:
        raise PhhError(f"the history has no {error.args[0]!r}", rule="R-AUD-1") from error
    return f"{path}: {' '.join(str(s) for s in hand.stacks)}"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``phh replay`` on the CLI."""
    parser = commands.add_parser("phh", help="poker hand histories (PHH)")
    actions = parser.add_subparsers(dest="phh_command", required=True)
    replay_parser = actions.add_parser("replay", help="replay PHH files through the hand engine; print final stacks")
    replay_parser.add_argument("files", nargs="+", type=Path)
    replay_parser.set_defaults(run=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    """Replay every file; exit status 1 if any failed."""
    status = 0
    for path in args.files:
        try:
            print(replay_file(path))
        except (ReplayFailure, RuleError) as error:
            print(f"{path}: error: {error}", file=sys.stderr)
            status = 1
    return status
