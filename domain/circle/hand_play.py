"""The commands of the circle-poker hand that play it: dealing, betting and the draw (``verify_x`` / ``can_x`` / ``x``).

:class:`domain.circle.hand.Hand` composes them; its events stay nested in it (their stored topics are
``domain.circle.hand:Hand.<Event>``), so these commands name them through the aggregate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from domain.cards.cards import Card
from domain.cards.decks import shoe_read_problem
from domain.circle.state import HandRuleError, SlotKind

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from domain.circle.state import HandState

SOURCES = ("shoe", "croupier", "replay", "test")
"""Where a card comes from: the card-reading shoe (with its sequence number), keyed in by the croupier, a replayed
history, or a test."""


class HandCommands:
    """What every group of the hand's commands stands on: the aggregate's state, seats and events."""

    if TYPE_CHECKING:  # provided by domain.circle.hand.Hand
        state: HandState
        seats: list[int]
        last_shoe_read: int | None
        CardDealt: ClassVar[type[Aggregate.Event]]
        Folded: ClassVar[type[Aggregate.Event]]
        Checked: ClassVar[type[Aggregate.Event]]
        Called: ClassVar[type[Aggregate.Event]]
        BetOrRaised: ClassVar[type[Aggregate.Event]]
        BringInPosted: ClassVar[type[Aggregate.Event]]
        Discarded: ClassVar[type[Aggregate.Event]]
        DiscardsReshuffled: ClassVar[type[Aggregate.Event]]
        Shown: ClassVar[type[Aggregate.Event]]
        Mucked: ClassVar[type[Aggregate.Event]]
        CardExposed: ClassVar[type[Aggregate.Event]]
        Forfeited: ClassVar[type[Aggregate.Event]]
        PassedOut: ClassVar[type[Aggregate.Event]]
        PotAwarded: ClassVar[type[Aggregate.Event]]
        Completed: ClassVar[type[Aggregate.Event]]
        Voided: ClassVar[type[Aggregate.Event]]

        def position_of(self, seat: int) -> int: ...
        def trigger_event(self, event_class: type[Any], **kwargs: Any) -> None: ...
        def _settle_if_ready(self) -> None: ...
        @property
        def is_complete(self) -> bool: ...


class HandPlay(HandCommands):
    """Dealing (R-CIRC-2, R-DECK-4), betting (R-CIRC-3 to R-CIRC-6, R-STUD7-1) and the draw (R-DRAW-4, R-DRAW-8)."""

    # -- dealing ------------------------------------------------------------------------------------

    def verify_deal(self, card: Card, source: str = "croupier", sequence: int | None = None) -> None:
        """The next due card: burn, a player's card or a board card (R-CIRC-2, R-FLOP-3, R-DECK-4)."""
        if source not in SOURCES:
            raise HandRuleError(f"unknown card source {source!r}", rule="R-AUD-1")
        if problem := shoe_read_problem(source, sequence, self.last_shoe_read):
            raise HandRuleError(problem[0], rule=problem[1])
        self.state.verify_deal(card)

    def can_deal(self, card: Card, source: str = "croupier", sequence: int | None = None) -> bool:
        """Whether :meth:`deal` would accept this card now."""
        return passes(self.verify_deal, card, source, sequence)

    def deal(self, card: Card, source: str = "croupier", sequence: int | None = None) -> None:
        """Put the next card where it is due and record where it went and where it came from."""
        self.verify_deal(card, source, sequence)
        slot = self.state.slots[0]
        seat = self.seats[slot.position] if slot.kind is SlotKind.HOLE else None
        self.trigger_event(self.CardDealt, kind=slot.kind.value, seat=seat, card=str(card),
                           face_up=self.state.face_up(slot), source=source, sequence=sequence)
        self._settle_if_ready()

    # -- betting ------------------------------------------------------------------------------------

    def verify_fold(self, seat: int) -> None:
        """R-CIRC-3."""
        self.state.verify_fold(self.position_of(seat))

    def can_fold(self, seat: int) -> bool:
        """Whether the seat may fold now."""
        return passes(self.verify_fold, seat)

    def fold(self, seat: int) -> None:
        """Fold, forfeiting every bet made (R-CIRC-3)."""
        self.verify_fold(seat)
        self.trigger_event(self.Folded, seat=seat)
        self._settle_if_ready()

    def verify_check(self, seat: int) -> None:
        """R-CIRC-3: only while nobody has bet in this interval."""
        self.state.verify_check(self.position_of(seat))

    def can_check(self, seat: int) -> bool:
        """Whether the seat may check now."""
        return passes(self.verify_check, seat)

    def check(self, seat: int) -> None:
        """Check (R-CIRC-3)."""
        self.verify_check(seat)
        self.trigger_event(self.Checked, seat=seat)
        self._settle_if_ready()

    def verify_call(self, seat: int) -> int:
        """R-CIRC-3, R-CIRC-6; returns the chips the call puts in."""
        return self.state.verify_call(self.position_of(seat))

    def can_call(self, seat: int) -> bool:
        """Whether the seat may call now."""
        return passes(self.verify_call, seat)

    def call(self, seat: int) -> None:
        """Call, or go all-in for less (R-CIRC-3, R-CIRC-6)."""
        amount = self.verify_call(seat)
        self.trigger_event(self.Called, seat=seat, amount=amount)
        self._settle_if_ready()

    def verify_bet_or_raise_to(self, seat: int, amount: int) -> None:
        """R-CIRC-3, R-CIRC-4, R-CIRC-5, R-CIRC-6: ``amount`` is the player's total bet in this interval."""
        self.state.verify_raise_to(self.position_of(seat), amount)

    def can_bet_or_raise_to(self, seat: int, amount: int) -> bool:
        """Whether the seat may bet, raise or complete to ``amount`` now."""
        return passes(self.verify_bet_or_raise_to, seat, amount)

    def bet_or_raise_to(self, seat: int, amount: int) -> None:
        """Bet, raise or complete so that the player's bet in this interval is ``amount``."""
        self.verify_bet_or_raise_to(seat, amount)
        position = self.position_of(seat)
        added = amount - self.state.bets[position]
        self.trigger_event(self.BetOrRaised, seat=seat, to=amount, added=added)
        self._settle_if_ready()

    def verify_all_in(self, seat: int) -> None:
        """All-in: a call for everything when short, else a bet or raise of every chip, if the structure allows."""
        position = self.position_of(seat)
        state = self.state
        if state.stacks[position] <= state.bet_to - state.bets[position]:
            state.verify_call(position)
        else:
            state.verify_raise_to(position, state.stacks[position] + state.bets[position])

    def can_all_in(self, seat: int) -> bool:
        """Whether the seat may put all its chips in now."""
        return passes(self.verify_all_in, seat)

    def all_in(self, seat: int) -> None:
        """Put every chip in (R-CIRC-6)."""
        self.verify_all_in(seat)
        position = self.position_of(seat)
        state = self.state
        if state.stacks[position] <= state.bet_to - state.bets[position]:
            self.call(seat)
        else:
            self.bet_or_raise_to(seat, state.stacks[position] + state.bets[position])

    def verify_post_bring_in(self, seat: int) -> int:
        """R-STUD7-1: the lowest up card brings in; returns the amount."""
        return self.state.verify_bring_in(self.position_of(seat))

    def can_post_bring_in(self, seat: int) -> bool:
        """Whether the seat may post the bring-in now."""
        return passes(self.verify_post_bring_in, seat)

    def post_bring_in(self, seat: int) -> None:
        """Post the bring-in (R-STUD7-1)."""
        amount = self.verify_post_bring_in(seat)
        self.trigger_event(self.BringInPosted, seat=seat, amount=amount)
        self._settle_if_ready()

    # -- the draw (R-DRAW-4, R-DRAW-5, R-DRAW-8) ------------------------------------------------------

    def verify_discard(self, seat: int, cards: list[Card]) -> None:
        """R-DRAW-4: in turn from the opener, 0 to 4 of the player's own cards."""
        self.state.verify_discard(self.position_of(seat), list(cards))

    def can_discard(self, seat: int, cards: list[Card]) -> bool:
        """Whether the seat may discard these cards now."""
        return passes(self.verify_discard, seat, cards)

    def discard(self, seat: int, cards: list[Card]) -> None:
        """The player discards (none: stands pat) and is then served as many cards before the next player draws.
        The opener's discards are kept face down to prove his openers (R-DRAW-5)."""
        self.verify_discard(seat, cards)
        opener = self.state.opener == self.position_of(seat)
        self.trigger_event(self.Discarded, seat=seat, cards=[str(c) for c in cards], kept_for_openers=opener)
        self._settle_if_ready()

    def verify_reshuffle_discards(self) -> None:
        """R-DRAW-8: only when the stock cannot serve the player drawing."""
        self.state.verify_reshuffle()

    def can_reshuffle_discards(self) -> bool:
        """Whether the discards may be reshuffled into a new stock now."""
        return passes(self.verify_reshuffle_discards)

    def reshuffle_discards(self) -> None:
        """R-DRAW-8: the discards so far (never the opener's) become the stock; one card is burned."""
        cards = self.state.verify_reshuffle()
        self.trigger_event(self.DiscardsReshuffled, cards=[str(c) for c in cards])


def passes(verify: Any, *args: Any) -> bool:
    """Whether ``verify(*args)`` accepts (the ``can_x`` of a ``verify_x``)."""
    try:
        verify(*args)
    except HandRuleError:
        return False
    return True
