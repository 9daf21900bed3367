"""Corrections of a circle hand (issue 15, item 6; R-AUD-1): a betting action keyed other than what happened at the
table, put right with the pit's approval, the log keeping every step.

The rule (docs/station.md, "Corrections"): only the hand's LAST action may be corrected, only a betting action
(fold, check, call, bet or raise, all-in, bring-in), and only while nothing came after it (no card, no other
action, no settlement). The croupier asks (``CorrectionRequested``: the seat, the wrong action's event and version,
the replacement, the reason, who asked); until the pit boss or games director decides, the hand takes no other
command. Refused (``CorrectionRefused``): nothing changes. Approved (``CorrectionApproved``): the hand goes back to
its state before the wrong action and the replacement is applied as the ordinary event of that action.

Replay is deterministic without reading the store, and a betting action costs nothing for its possible correction:
the hand keeps the events it applied (:class:`HandHistory`, a reference each), and the state before the wrong
action is rebuilt from them only when a correction is asked or approved. Each approval keeps the state it restored
(a checkpoint), so a later correction's rebuild passes over an earlier approval without rebuilding it again.
Replaying the hand's events rebuilds the same hand, and chips are conserved because the restored state is the one
before the wrong action and the replacement is a legal action from it.

>>> from domain.cards.cards import parse_cards
>>> from domain.cards.decks import BackColour, DeckIdentity
>>> from domain.circle.hand import TABLES_NAMESPACE, Hand
>>> from domain.circle.settings import BettingStructure, TableSettings
>>> settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
>>> hand = Hand.start(TABLES_NAMESPACE, 1, settings, seats=[1, 2], stacks=[100, 100], button_seat=2,
...                   deck=DeckIdentity(52, BackColour.RED))
>>> for card in parse_cards("As Kd Ah Kc"):
...     hand.deal(card)
>>> hand.bet_or_raise_to(2, 60)  # the croupier keyed 60; the player raised to 6
>>> hand.request_correction("bet", 2, 6, reason="keyed 60 for 6", by="mesa-1")
>>> hand.decide_correction(True, reason="seen on camera", by="pit")
>>> hand.state.bets, hand.stacks
([2, 6], [98, 94])
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from domain.circle.hand_play import HandCommands
from domain.circle.state import HandRuleError, Phase

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from domain.circle.state import HandState

BETTING_ACTIONS = ("fold", "check", "call", "bet", "all-in", "bring-in")
"""The actions a correction may replace, and replace with (R-AUD-1)."""
BETTING_EVENTS = frozenset({"Folded", "Checked", "Called", "BetOrRaised", "BringInPosted"})
"""The events of those actions."""
LEAVE_LAST = frozenset({"CorrectionRequested", "CorrectionRefused"})
"""Events after which the action before them is still the hand's last: a correction's request and its refusal."""
MAX_REASON = 200


@dataclass(frozen=True)
class Restored:
    """A hand's state after one of its events (and the last shoe read then): never changed once made."""

    state: HandState
    last_shoe_read: int | None


@dataclass
class HandHistory:
    """Every event applied to a hand, in order (its ``Started`` first), and the states restored by its approved
    corrections (``checkpoints``, by version). A reader's copy of the hand shares the events and the checkpoints
    (never changed once recorded) instead of copying them."""

    events: list[Any] = field(default_factory=list)
    checkpoints: dict[int, Restored] = field(default_factory=dict)

    def __deepcopy__(self, memo: dict[int, Any]) -> HandHistory:
        return HandHistory(list(self.events), self.checkpoints)


@dataclass(frozen=True)
class Undo:
    """A correctable last action: its event's version, name and seat."""

    version: int
    event: str
    seat: int


def copy_state(state: HandState) -> HandState:
    """An independent copy of a hand's state: its containers copied (their items are immutable: cards, slots,
    awards, numbers; a seat's hole cards are a list of its own), the settings and rules shared (never changed)."""
    clone = copy.copy(state)
    for name, value in vars(state).items():
        if isinstance(value, list):
            setattr(clone, name, [list(item) if isinstance(item, list) else item for item in value])
        elif isinstance(value, (set, dict, deque)):
            setattr(clone, name, type(value)(value))
    return clone


class HandCorrections(HandCommands):
    """Correction of the last betting action of :class:`domain.circle.hand.Hand` (R-AUD-1)."""

    if TYPE_CHECKING:  # provided by domain.circle.hand.Hand
        version: int
        history: HandHistory
        pending_correction: dict[str, Any] | None
        CorrectionRequested: ClassVar[type[Aggregate.Event]]
        CorrectionApproved: ClassVar[type[Aggregate.Event]]
        CorrectionRefused: ClassVar[type[Aggregate.Event]]

        def fold(self, seat: int) -> None: ...
        def check(self, seat: int) -> None: ...
        def call(self, seat: int) -> None: ...
        def bet_or_raise_to(self, seat: int, amount: int) -> None: ...
        def all_in(self, seat: int) -> None: ...
        def post_bring_in(self, seat: int) -> None: ...
        def verify_fold(self, seat: int) -> None: ...
        def verify_check(self, seat: int) -> None: ...
        def verify_call(self, seat: int) -> int: ...
        def verify_bet_or_raise_to(self, seat: int, amount: int) -> None: ...
        def verify_all_in(self, seat: int) -> None: ...
        def verify_post_bring_in(self, seat: int) -> int: ...

    # -- bookkeeping (from the events' ``apply``) ---------------------------------------------------------

    def note_correction_requested(self, request: dict[str, Any]) -> None:
        """Bookkeeping of ``CorrectionRequested``."""
        self.pending_correction = dict(request)

    def note_correction_refused(self) -> None:
        """Bookkeeping of ``CorrectionRefused``: nothing changes but the request is no longer pending."""
        self.pending_correction = None

    def note_correction_approved(self, restored_version: int, version: int) -> None:
        """Bookkeeping of ``CorrectionApproved`` (at ``version``): the state after ``restored_version`` (before the
        wrong action), restored."""
        restored = self.restored(restored_version)
        self.history.checkpoints[version] = restored  # the state after this event too
        self.state = copy_state(restored.state)
        self.last_shoe_read = restored.last_shoe_read
        self.pending_correction = None

    def note_hand_over(self) -> None:
        """The hand is paid or void: nothing in it may be corrected any more, so its events are no longer kept (a
        finished hand in the cache, or in a replay of the whole log, holds its state only)."""
        self.history = HandHistory()

    def restored(self, version: int) -> Restored:
        """The hand's state after its event at ``version``, rebuilt from its history (and kept as a checkpoint):
        from the latest checkpoint at or before ``version`` (an earlier correction), else from the start."""
        checkpoints = self.history.checkpoints
        if (kept := checkpoints.get(version)) is not None:
            return kept
        started, *events = self.history.events
        rebuilt = started.mutate(None)
        rebuilt.history.checkpoints = checkpoints
        if base := max((at for at in checkpoints if at < version), default=0):
            rebuilt.state = copy_state(checkpoints[base].state)
            rebuilt.last_shoe_read = checkpoints[base].last_shoe_read
            rebuilt.version = base
        for applied in events:
            if applied.originator_version > version:
                break
            if applied.originator_version > rebuilt.version:
                applied.mutate(rebuilt)
        kept = Restored(rebuilt.state, rebuilt.last_shoe_read)
        checkpoints[version] = kept
        return kept

    # -- queries ------------------------------------------------------------------------------------

    def correctable(self) -> Undo | None:
        """The hand's last action, if it is a betting action that may still be corrected (nothing after it, the
        hand not finished, no correction pending); else ``None``. The state before it is :meth:`restored` at the
        version before ``version``."""
        if self.pending_correction is not None or self.state.phase in (Phase.COMPLETE, Phase.VOID, Phase.PASSED):
            return None
        for applied in reversed(self.history.events):
            name = type(applied).__name__
            if name in LEAVE_LAST:
                continue
            if name in BETTING_EVENTS:
                return Undo(applied.originator_version, name, applied.seat)
            return None
        return None

    def verify_no_pending_correction(self) -> None:
        """R-AUD-1: while a correction waits for the pit, the hand takes no other command."""
        if self.pending_correction is not None:
            raise HandRuleError("a correction of the last action waits for the pit boss's decision: the hand takes "
                                "no other command until then", rule="R-AUD-1")

    # -- commands -----------------------------------------------------------------------------------

    def verify_request_correction(self, action: str, seat: int, amount: int | None, reason: str, by: str) -> Undo:
        """The last action is a correctable betting action of ``seat``, the replacement a betting action legal for
        him in the hand as it was before it, a reason and who asks; returns what the correction undoes."""
        self.verify_no_pending_correction()
        undo = self.correctable()
        if undo is None:
            raise HandRuleError("only the hand's last action may be corrected, only a betting action, and only "
                                "before any card or other action follows it", rule="R-AUD-1")
        if action not in BETTING_ACTIONS:
            raise HandRuleError(f"a correction replaces a betting action with a betting action "
                                f"({', '.join(BETTING_ACTIONS)}), not {action}", rule="R-AUD-1")
        if seat != undo.seat:
            raise HandRuleError(f"the last action was seat {undo.seat}'s: its correction is an action of that seat, "
                                f"not of seat {seat}", rule="R-AUD-1")
        _verify_reason(reason, by)
        if action == "bet" and amount is None:
            raise HandRuleError("a bet's correction names the amount", rule="R-AUD-1")
        now = self.state
        # the replacement is judged in the hand as it was before the wrong action
        self.state = copy_state(self.restored(undo.version - 1).state)
        try:
            self._verify_replacement(action, seat, amount)
        finally:
            self.state = now
        return undo

    def request_correction(self, action: str, seat: int, amount: int | None, *, reason: str, by: str) -> None:
        """The croupier asks to replace the last action (recorded, pending the pit's decision; R-AUD-1)."""
        undo = self.verify_request_correction(action, seat, amount, reason, by)
        self.trigger_event(self.CorrectionRequested, seat=seat, corrects=undo.event, corrects_version=undo.version,
                           action=action, amount=amount if action == "bet" else None, reason=reason, by=by)

    def verify_decide_correction(self, reason: str, by: str) -> dict[str, Any]:
        """A correction is pending, with a reason and who decides; returns the request."""
        if self.pending_correction is None:
            raise HandRuleError("no correction is waiting for a decision in this hand", rule="R-AUD-1")
        _verify_reason(reason, by)
        return self.pending_correction

    def decide_correction(self, approve: bool, *, reason: str, by: str) -> None:
        """The pit boss (or games director) decides: approved, the hand goes back to its state before the wrong
        action and the replacement is applied; refused, nothing changes (R-AUD-1)."""
        request = self.verify_decide_correction(reason, by)
        if not approve:
            self.trigger_event(self.CorrectionRefused, corrects_version=request["corrects_version"], reason=reason,
                               by=by)
            return
        self.trigger_event(self.CorrectionApproved, corrects_version=request["corrects_version"],
                           restored_version=request["corrects_version"] - 1, reason=reason, by=by)
        self._apply_replacement(request["action"], request["seat"], request["amount"])

    def _verify_replacement(self, action: str, seat: int, amount: int | None) -> None:
        if action == "bet":
            assert amount is not None
            self.verify_bet_or_raise_to(seat, amount)
            return
        {"fold": self.verify_fold, "check": self.verify_check, "call": self.verify_call,
         "all-in": self.verify_all_in, "bring-in": self.verify_post_bring_in}[action](seat)

    def _apply_replacement(self, action: str, seat: int, amount: int | None) -> None:
        if action == "bet":
            assert amount is not None
            self.bet_or_raise_to(seat, amount)
            return
        {"fold": self.fold, "check": self.check, "call": self.call, "all-in": self.all_in,
         "bring-in": self.post_bring_in}[action](seat)


def _verify_reason(reason: str, by: str) -> None:
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise HandRuleError(f"a correction states its reason (1–{MAX_REASON} characters)", rule="R-AUD-1")
    if not by.strip():
        raise HandRuleError("a correction names who asks or decides", rule="R-AUD-1")
