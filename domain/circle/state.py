"""The state of one circle-poker hand and its rules: dealing, betting, showdown (RULES §2, §4, §5).

:class:`HandState` knows whose turn it is, what each player may do and for how much, what is in each pot,
and who wins what.  It is driven by the :class:`domain.circle.hand.Hand` aggregate: every ``verify_*`` method raises a
:class:`HandRuleError` naming the rule an action would break and changes nothing; every ``apply_*`` method is the
mutation of one event and never fails for an action its ``verify_*`` accepted.

Positions, not seat numbers, index the players: position 0 is the first player clockwise from the button (in stud,
the first from the croupier's left), and the button is the last position.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.circle.betting import CircleBetting
from domain.circle.core import Award, HandRuleError, LegalActions, Phase, Slot, SlotKind
from domain.circle.dealing import CircleDealing
from domain.circle.draw import CircleDraw
from domain.circle.showdown import CircleShowdown

__all__ = ["Award", "HandRuleError", "HandState", "LegalActions", "Phase", "Slot", "SlotKind"]


@dataclass
class HandState(CircleDealing, CircleBetting, CircleDraw, CircleShowdown):
    """A circle-poker hand in progress: the fields of :class:`domain.circle.core.HandStateCore`, with the rules of
    the deal (:mod:`domain.circle.dealing`), the betting (:mod:`domain.circle.betting`), the draw
    (:mod:`domain.circle.draw`) and the showdown (:mod:`domain.circle.showdown`)."""
