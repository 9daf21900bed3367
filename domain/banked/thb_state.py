"""Where a Texas Hold'em Bonus hand is (its stage, the next card due) and what its groups of commands stand on.

:class:`domain.banked.thb.ThbHand` composes the command groups of :mod:`domain.banked.thb_commands` and
:mod:`domain.banked.thb_irregularities`; its events stay nested in it (their stored topics are
``domain.banked.thb:ThbHand.<Event>``, ``domain.thb:…`` before issue 14's move), so the commands name them through
the aggregate.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

from domain.banked.thb_settings import ThbRuleError

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from domain.banked.box_hand import BankedHand
    from domain.banked.thb_settings import ThbSettings
    from domain.cards.cards import Card

BOXES = 7


class Stage(Enum):
    """Where a Texas Hold'em Bonus hand is."""

    BETTING = "betting"  # antes and bonuses, until "no va más"
    DEALING = "dealing"
    PREFLOP = "preflop"  # fold or flop bet (R-THB-5)
    TURN = "turn"  # check or turn bet (R-THB-6)
    RIVER = "river"  # check or river bet
    APPROVAL = "approval"  # a 1000:1 bonus waits for the games director (R-THB-10)
    COMPLETE = "complete"
    VOID = "void"


SPOTS = ("ante", "flop", "turn", "river", "bonus")


@dataclass(frozen=True, slots=True)
class Due:
    """The next card: to a box, to a dealer spot (left or right), burned, or to the board."""

    kind: str
    box: int = 0


class ThbCommands:
    """What every group of the hand's commands stands on: the aggregate's state, its queries and its events."""

    if TYPE_CHECKING:  # provided by domain.banked.thb.ThbHand (and domain.banked.box_hand.BankedHand)
        settings: ThbSettings
        stage: Stage
        bets: dict[int, dict[str, int]]
        cards: dict[int, list[Card]]
        dealer: list[Card]
        board: list[Card]
        seen: set[Card]
        due: deque[Due]
        folded: set[int]
        voided_boxes: dict[int, str]
        pending_approval: set[int]
        face_up_found: int
        dealer_turned_for_bonus: bool
        dealer_card_shown_late: bool
        BetPlaced: ClassVar[type[BankedHand.BetPlaced]]
        Checked: ClassVar[type[Aggregate.Event]]
        Folded: ClassVar[type[BankedHand.Folded]]
        BetsClosed: ClassVar[type[BankedHand.BetsClosed]]
        CardDealt: ClassVar[type[Aggregate.Event]]
        FaceUpCardDiscarded: ClassVar[type[Aggregate.Event]]
        BoxVoided: ClassVar[type[Aggregate.Event]]
        DealerCardShown: ClassVar[type[Aggregate.Event]]
        DealerCardsTurnedForBonus: ClassVar[type[Aggregate.Event]]
        DealerCountCorrected: ClassVar[type[Aggregate.Event]]
        BoxSettled: ClassVar[type[Aggregate.Event]]
        BonusApproved: ClassVar[type[Aggregate.Event]]
        BonusRefused: ClassVar[type[Aggregate.Event]]
        Completed: ClassVar[type[Aggregate.Event]]
        ReconstructionRequested: ClassVar[type[Aggregate.Event]]
        Voided: ClassVar[type[Aggregate.Event]]

        @property
        def boxes(self) -> list[int]: ...
        @property
        def live_boxes(self) -> list[int]: ...
        @property
        def to_decide(self) -> int | None: ...
        @property
        def is_complete(self) -> bool: ...
        def bank_result(self) -> int: ...
        def trigger_event(self, event_class: type[Any], **kwargs: Any) -> None: ...
        def verify_void(self, rule: str, reason: str) -> None: ...
        def _check_card(self, seen: set[Card], card: Card, source: str, sequence: int | None) -> None: ...
        def _settle_if_ready(self) -> None: ...
        def _complete_if_approved(self) -> None: ...

    def _require_stage(self, stage: Stage, rule: str, message: str) -> None:
        if self.stage is not stage:
            raise ThbRuleError(message, rule=rule)

    def _require_decider(self, box: int, stage: Stage | None, rule: str) -> None:
        if stage is not None and self.stage is not stage:
            raise ThbRuleError(f"that decision is not open now ({self.stage.value})", rule=rule)
        if stage is None and self.stage not in (Stage.TURN, Stage.RIVER):
            raise ThbRuleError(f"no turn or river bet is open now ({self.stage.value})", rule=rule)
        deciding = self.to_decide
        if deciding is None:
            raise ThbRuleError(f"no box decides now ({self.stage.value})", rule=rule)
        if deciding != box:
            raise ThbRuleError(f"box {deciding} decides now, not box {box}", rule=rule)


def require_chips(amount: int, low: int, high: int, what: str, rule: str) -> None:
    """Whole chips, within the limits."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ThbRuleError("chips are whole numbers", rule=rule)
    if not low <= amount <= high:
        raise ThbRuleError(f"the {what} is {low} to {high}, not {amount}", rule=rule)


def require_name(text: str, what: str, rule: str) -> None:
    """A name or reason recorded (1–200 characters)."""
    if not isinstance(text, str) or not text.strip() or len(text) > 200:
        raise ThbRuleError(f"{what} is recorded (1–200 characters)", rule=rule)


def passes(verify: Callable[[], None]) -> bool:
    """Whether ``verify`` raises no rule error."""
    try:
        verify()
    except ThbRuleError:
        return False
    return True
