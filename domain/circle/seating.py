"""The order a circle hand is dealt in (R-CIRC-1): from the button, or from la mano's holder where la mano speaks
first; in stud from the croupier's left.  :meth:`domain.circle.hand.Hand.start` deals in this order whatever order
its seats are given in (issue 33), as the table's own start does."""

from __future__ import annotations

from domain.circle.core import HandRuleError
from domain.circle.settings import TableSettings


def dealing_order(settings: TableSettings, seats: list[int], stacks: list[int],
                  button_seat: int) -> tuple[list[int], list[int]]:
    """The seats (and their stacks) in dealing order for this button (R-CIRC-1; issue 33: ``Hand.start`` called
    directly had dealt in whatever order it was given): with la mano speaking first (``mano_speaks_first``, no
    blinds), from the button's holder; with a button, from the first seat after it, the button last; in stud, from
    the croupier's left, the seats in their order (no button).

    >>> from domain.circle.settings import BettingStructure
    >>> holdem = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2))
    >>> dealing_order(holdem, [1, 2, 3], [10, 20, 30], 2)
    ([3, 1, 2], [30, 10, 20])
    """
    if not settings.variant_rules.button:
        return list(seats), list(stacks)
    if button_seat not in seats:
        raise HandRuleError(f"the button is at seat {button_seat}, where no player is dealt in", rule="R-CIRC-1")
    by_seat = dict(zip(seats, stacks, strict=True))
    ordered = sorted(seats)
    if settings.marker_speaks_first:
        order = [s for s in ordered if s >= button_seat] + [s for s in ordered if s < button_seat]
    else:
        order = [s for s in ordered if s > button_seat] + [s for s in ordered if s <= button_seat]
    return order, [by_seat[s] for s in order]


def button_of(settings: TableSettings, order: list[int]) -> int:
    """The button for which ``order`` is the dealing order (:func:`dealing_order`): la mano's holder, dealt first, at
    a table where la mano speaks first; else the last seat dealt (stud: the croupier's right)."""
    return order[0] if settings.marker_speaks_first else order[-1]
