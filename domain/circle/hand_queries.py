"""What the circle-poker hand answers about itself: seats and positions, stacks, who acts, opens, draws or shows,
the legal actions, and everything as plain data (:meth:`HandQueries.snapshot`).

:class:`domain.circle.hand.Hand` composes it with its commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from domain.circle.state import HandRuleError, LegalActions, Phase

if TYPE_CHECKING:
    from domain.circle.state import HandState


class HandQueries:
    """The queries of :class:`domain.circle.hand.Hand`."""

    if TYPE_CHECKING:  # provided by domain.circle.hand.Hand
        state: HandState
        seats: list[int]
        table_id: UUID
        number: int
        _position: dict[int, int]

    # -- queries ------------------------------------------------------------------------------------

    def seat_of(self, position: int) -> int:
        """The seat number of a position."""
        return self.seats[position]

    def position_of(self, seat: int) -> int:
        """The position of a seat in this hand."""
        if seat not in self._position:
            raise HandRuleError(f"seat {seat} is not dealt in this hand", rule="R-CIRC-2")
        return self._position[seat]

    @property
    def stacks(self) -> list[int]:
        """Chips behind, by position."""
        return list(self.state.stacks)

    @property
    def is_complete(self) -> bool:
        """Every pot is paid, or the hand is void."""
        return self.state.phase in (Phase.COMPLETE, Phase.VOID)

    @property
    def carried_out(self) -> int:
        """Chips that carry to the next hand: a blank hand's pot (R-DRAW-3) or one nobody could claim (R-DRAW-7)."""
        return self.state.carried

    @property
    def opener_seat(self) -> int | None:
        """The seat that opened (five-card draw)."""
        opener = self.state.opener
        return None if opener is None else self.seats[opener]

    @property
    def drawer_seat(self) -> int | None:
        """The seat to draw now (R-DRAW-4)."""
        drawer = self.state.drawer
        return None if drawer is None else self.seats[drawer]

    @property
    def next_to_show_seat(self) -> int | None:
        """The seat to show or muck next at the showdown (R-CIRC-13), if any."""
        position = self.state.to_show
        return None if position is None else self.seats[position]

    @property
    def actor_seat(self) -> int | None:
        """The seat to act, if any."""
        actor = self.state.actor
        return None if actor is None else self.seats[actor]

    def legal_actions(self, *, public: bool = False) -> LegalActions | None:
        """What the player to act may do now, with amounts; ``None`` when nobody is to act.  ``public``: as anyone
        may know it, from no face-down card (the opening bet of five-card draw offered openers or not)."""
        return self.state.legal_actions(self.seats, public=public)

    def all_in_total(self) -> int:
        """What the player to act has in front of him this round if he puts every chip in (0: nobody to act)."""
        position = self.state.actor
        return 0 if position is None else self.state.stacks[position] + self.state.bets[position]

    def snapshot(self) -> dict[str, Any]:
        """Everything about the hand as plain data (for comparison, display and reconstruction)."""
        s = self.state
        return {
            "table_id": str(self.table_id),
            "number": self.number,
            "seats": list(self.seats),
            "phase": s.phase.value,
            "street": s.street.name,
            "stacks": list(s.stacks),
            "bets": list(s.bets),
            "contributed": list(s.contributed),
            "folded": list(s.folded),
            "hole": [[(str(c), up) for c, up in cards] for cards in s.hole],
            "board": [str(c) for c in s.board],
            "burned": [str(c) for c in s.burned],
            "actor": self.actor_seat,
            "next_card": None if s.next_slot is None else (s.next_slot.kind.value, s.next_slot.position),
            "next_card_up": s.next_slot is not None and s.face_up(s.next_slot),
            "shown": dict(s.shown),
            "awards": [(a.pot.amount, a.rake, list(a.shares)) for a in s.awards],
            "void_rule": s.void_rule,
            "openers": int(s.openers),
            "opener": self.opener_seat,
            "drawer": self.drawer_seat,
            "next_to_show": self.next_to_show_seat,
            "discards": [str(c) for c in s.discards],
            "opener_discards": [str(c) for c in s.opener_discards],
            "carried_in": s.dead_money,
            "carried_out": s.carried,
        }
