"""The commands of the circle-poker hand that close it: show and muck (R-CIRC-7, R-CIRC-13), the irregularities
(R-CIRC-9, R-CIRC-10), the void, and the settlement's events (R-CIRC-6, R-CIRC-11, R-DRAW-3, R-DRAW-7)."""

from __future__ import annotations

from domain.cards.cards import Card
from domain.circle.hand_play import HandCommands, passes
from domain.circle.state import HandRuleError, Phase


class HandShowdown(HandCommands):
    """Showdown, irregularities, void and settlement of :class:`domain.circle.hand.Hand`."""

    # -- showdown -----------------------------------------------------------------------------------

    def verify_show(self, seat: int) -> None:
        """At the showdown, or once every bet is in (all-in), a player still in may show."""
        self.state.verify_show(self.position_of(seat))

    def can_show(self, seat: int) -> bool:
        """Whether the seat may show now."""
        return passes(self.verify_show, seat)

    def show(self, seat: int) -> None:
        """Turn the player's cards face up; the hand plays at its highest combination (R-CARD-7; decision: in every
        game, not only Texas Hold'em Bonus)."""
        self.verify_show(seat)
        cards = self.state.cards_of(self.position_of(seat))
        self.trigger_event(self.Shown, seat=seat, cards=[str(c) for c in cards])
        self._settle_if_ready()

    def verify_muck(self, seat: int) -> None:
        """A player may give up his claim, unless he is the last one holding a claim."""
        self.state.verify_muck(self.position_of(seat))

    def can_muck(self, seat: int) -> bool:
        """Whether the seat may muck now."""
        return passes(self.verify_muck, seat)

    def muck(self, seat: int) -> None:
        """Give up the claim to the pot without showing."""
        self.verify_muck(seat)
        self.trigger_event(self.Mucked, seat=seat)
        self._settle_if_ready()

    # -- irregularities (R-CIRC-9, R-CIRC-10) ---------------------------------------------------------

    def verify_expose_card(self, seat: int, card: Card) -> None:
        """R-CIRC-9: a player exposes one of his down cards by mistake."""
        position = self.position_of(seat)
        if self.is_complete:
            raise HandRuleError("the hand is over", rule="R-CIRC-9")
        if self.state.folded[position]:
            raise HandRuleError(f"seat {seat} has folded: a dead hand has no down card to expose", rule="R-CIRC-9")
        if (card, False) not in self.state.hole[position]:
            raise HandRuleError(f"{card} is not a down card of seat {seat}", rule="R-CIRC-9")

    def can_expose_card(self, seat: int, card: Card) -> bool:
        """Whether this exposure can be recorded."""
        return passes(self.verify_expose_card, seat, card)

    def expose_card(self, seat: int, card: Card) -> None:
        """R-CIRC-9: the card is covered again and the hand stays valid, in any phase (the draw included); the
        player's next personal card that would be dealt face down is dealt face up."""
        self.verify_expose_card(seat, card)
        self.trigger_event(self.CardExposed, seat=seat, card=str(card))

    def verify_expose_hand(self, seat: int) -> None:
        """R-CIRC-9: a player turns his down cards face up during the hand."""
        position = self.position_of(seat)
        if self.state.phase not in (Phase.BETTING, Phase.DEALING, Phase.DRAWING) or self.state.folded[position]:
            raise HandRuleError("only a player still in, before the showdown, can expose his hand", rule="R-CIRC-9")

    def expose_hand(self, seat: int) -> None:
        """R-CIRC-9: exposing the down cards without having called an outstanding bet forfeits the hand;
        otherwise the cards stay face up and the hand stays valid."""
        self.verify_expose_hand(seat)
        position = self.position_of(seat)
        state = self.state
        if state.bets[position] < state.bet_to and state.stacks[position]:
            self.trigger_event(self.Forfeited, seat=seat, rule="R-CIRC-9")
        else:
            self.trigger_event(self.Shown, seat=seat, cards=[str(c) for c in state.cards_of(position)])
        self._settle_if_ready()

    def verify_declare_absent(self, seat: int) -> None:
        """R-CIRC-10: only when the absent player's turn comes: to bet, or (decision) to draw."""
        position = self.position_of(seat)
        if position not in (self.state.actor, self.state.drawer):
            raise HandRuleError(f"seat {seat} is not the player to act", rule="R-CIRC-10")

    def declare_absent(self, seat: int) -> None:
        """R-CIRC-10: the player absent at his turn loses his ante and any forced bet (he is out of the hand).
        If he owes the stud bring-in (R-STUD7-1, R-STUD5-3 with bring-in), it is taken from his stack into the pot
        first, and the action goes on as after that bring-in: the next player may call it, complete, or fold."""
        self.verify_declare_absent(seat)
        position = self.position_of(seat)
        if self.state.bring_in_pending:
            amount = self.state.verify_bring_in(position)
            self.trigger_event(self.BringInPosted, seat=seat, amount=amount)
        self.trigger_event(self.Forfeited, seat=seat, rule="R-CIRC-10")
        self._settle_if_ready()

    def verify_void(self, rule: str, reason: str) -> None:
        """A hand is voided by the pit for an irregularity the rules name."""
        if self.is_complete:
            raise HandRuleError("a finished hand cannot be voided", rule=rule)
        if not rule.startswith("R-") or not reason.strip():
            raise HandRuleError("a void names the rule and the reason", rule="R-AUD-1")

    def void(self, rule: str, reason: str) -> None:
        """Void the hand: every chip put in goes back to its owner."""
        self.verify_void(rule, reason)
        self.trigger_event(self.Voided, rule=rule, reason=reason)

    # -- settlement ---------------------------------------------------------------------------------

    def _settle_if_ready(self) -> None:
        state = self.state
        if state.phase is Phase.PASSED:  # R-DRAW-3: a blank hand; the pot stays for the next deal
            self.trigger_event(self.PassedOut, amount=state.pot_total + state.dead_money, rule="R-DRAW-3")
            self.trigger_event(self.Completed, stacks=list(state.stacks))
            return
        if not state.ready_to_settle:
            return
        awards, carried = state.settlement()
        for index, award in enumerate(awards):
            self.trigger_event(
                self.PotAwarded,
                index=index,
                amount=award.pot.amount,
                rake=award.rake,
                eligible=[self.seats[p] for p in award.pot.eligible],
                contributors=[self.seats[p] for p in award.pot.contributors],
                shares=[[self.seats[p], amount] for p, amount in award.shares],
                carried_in=award.pot.carried_in,
            )
        if carried:
            self.trigger_event(self.PassedOut, amount=carried, rule="R-DRAW-7")
        self.trigger_event(self.Completed, stacks=list(state.stacks))
