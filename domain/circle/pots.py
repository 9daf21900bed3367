"""Pots and side pots (R-CIRC-6), split pots and odd chips (R-CIRC-11), rake (R-CIRC-12).

>>> [(p.amount, p.eligible) for p in side_pots([100, 300, 300, 50], [False, False, False, True])]
[(350, (0, 1, 2)), (400, (1, 2))]

Antes as dead money in the main pot (decision ``ante_pot = main``): position 0 is all-in for his ante alone and
still contests every ante, the big blind's ante of 100 included; the others' bets of 10 make a side pot.

>>> [(p.amount, p.eligible) for p in side_pots([10, 110, 10, 10], [False] * 4, dead=[10, 100, 0, 0])]
[(110, (0, 1, 2, 3)), (30, (1, 2, 3))]
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
    carried_in: int = 0
    """Chips of a pot carried from an earlier hand (R-DRAW-3), included in ``amount``."""

    @property
    def contested(self) -> bool:
        """More than one player put chips in (or it holds a carried pot), or others than the one who did are entitled
        to it (dead antes, decision ``ante_pot = main``): not merely an uncalled bet coming back."""
        return len(self.contributors) > 1 or self.carried_in > 0 or (
            bool(self.eligible) and self.eligible != self.contributors)


def side_pots(contributions: Sequence[int], folded: Sequence[bool], dead: Sequence[int] = ()) -> list[Pot]:
    """The main pot and side pots, main first.

    The chips are cut at every player's total; each slice goes to the players still in who reached it.  Adjacent
    slices with the same players entitled are one pot, except that a slice only one player put chips in (the
    uncalled part of his bet, which simply comes back) stays apart, so it is never raked.

    ``dead`` is the part of each contribution that is dead money in the main pot (the antes, decision ``ante_pot =
    main``): it is left out of the cuts and added to the first slice, which every player still in contests, even
    one all-in for his ante alone.
    """
    dead = list(dead) or [0] * len(contributions)
    live = [c - d for c, d in zip(contributions, dead, strict=True)]
    dead_money = sum(dead)
    pots: list[Pot] = []
    previous = 0
    for level in sorted({c for c in live if c > 0 or dead_money}):
        amount = sum(min(c, level) - min(c, previous) for c in live)
        eligible = tuple(i for i, c in enumerate(live) if not folded[i] and c >= level)
        contributors = tuple(i for i, c in enumerate(live) if c > previous)
        if not pots and dead_money:  # the first slice holds the dead antes
            amount += dead_money
            contributors = tuple(sorted({*contributors, *(i for i, d in enumerate(dead) if d)}))
        previous = level
        if not amount:
            continue
        slice_ = Pot(amount, eligible, contributors)
        if pots and pots[-1].eligible == eligible and pots[-1].contested == slice_.contested:
            last = pots[-1]
            pots[-1] = Pot(last.amount + amount, eligible, tuple(sorted({*last.contributors, *contributors})))
        else:
            pots.append(slice_)
    return pots


def split(amount: int, winners_in_odd_chip_order: Sequence[int]) -> list[tuple[int, int]]:
    """Divide ``amount`` equally; the odd chips go one each to the winners in the given order (R-CIRC-11)."""
    share, odd = divmod(amount, len(winners_in_odd_chip_order))
    return [(winner, share + (1 if i < odd else 0)) for i, winner in enumerate(winners_in_odd_chip_order)]


def rake_for(amount: int, percent: int, cap_left: int) -> int:
    """The commission on one pot: ``percent`` of it rounded down, within what is left of the hand's cap (R-CIRC-12)."""
    return min(amount * percent // 100, cap_left)
