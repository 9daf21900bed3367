"""Pots and side pots (R-CIRC-6), split pots and odd chips (R-CIRC-11), rake (R-CIRC-12).

>>> [(p.amount, p.eligible) for p in side_pots([100, 300, 300, 50], [False, False, False, True])]
[(350, (0, 1, 2)), (400, (1, 2))]
>>> split(101, [2, 0])
[(2, 51), (0, 50)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """Chips, the positions entitled to win them (R-CIRC-6) and the positions that put chips in."""

    amount: int
    eligible: tuple[int, ...]
    contributors: tuple[int, ...] = ()

    @property
    def contested(self) -> bool:
        """More than one player put chips in: not merely an uncalled bet coming back."""
        return len(self.contributors) > 1


def side_pots(contributions: Sequence[int], folded: Sequence[bool]) -> list[Pot]:
    """The main pot and side pots, main first.

    Each level is a contribution of a player still in; every player's chips up to that level go in, and only the
    players still in who reached it may win it.  A top pot with one eligible player is the uncalled part of his bet.
    """
    levels = sorted({c for c, out in zip(contributions, folded, strict=True) if not out and c > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in contributions)
        eligible = tuple(i for i, c in enumerate(contributions) if not folded[i] and c >= level)
        contributors = tuple(i for i, c in enumerate(contributions) if c > previous)
        pots.append(Pot(amount, eligible, contributors))
        previous = level
    leftover = sum(contributions) - sum(p.amount for p in pots)
    if leftover:  # chips of folded players above every live contribution join the last pot
        last = pots[-1]
        extra = tuple(i for i, c in enumerate(contributions) if c > previous)
        pots[-1] = Pot(last.amount + leftover, last.eligible, tuple(sorted({*last.contributors, *extra})))
    return pots


def split(amount: int, winners_in_odd_chip_order: Sequence[int]) -> list[tuple[int, int]]:
    """Divide ``amount`` equally; the odd chips go one each to the winners in the given order (R-CIRC-11)."""
    share, odd = divmod(amount, len(winners_in_odd_chip_order))
    return [(winner, share + (1 if i < odd else 0)) for i, winner in enumerate(winners_in_odd_chip_order)]


def rake_for(amount: int, percent: int, cap_left: int) -> int:
    """The commission on one pot: ``percent`` of it rounded down, within what is left of the hand's cap (R-CIRC-12)."""
    return min(amount * percent // 100, cap_left)
