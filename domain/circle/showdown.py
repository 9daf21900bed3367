"""The showdown of a circle-poker hand (RULES §2): show or muck in the order of R-CIRC-13, the pots and side pots,
the settlement with its rake and odd chips (R-CIRC-11), the awards, completion and voids."""

from __future__ import annotations

from domain.cards.ranking import HandValue
from domain.circle.core import Award, HandRuleError, HandStateCore, Phase
from domain.circle.pots import Pot, rake_for, side_pots, split
from domain.circle.settings import AntePot, ShowdownOrder
from domain.circle.variants import Opening


class CircleShowdown(HandStateCore):
    """The showdown and the settlement: who shows next, the pots, the winners and their shares."""

    def verify_show(self, position: int) -> None:
        """Showing is open once the betting is over for good (showdown, or all-in before the last card); at the
        showdown in the order of R-CIRC-13."""
        self._require_contender(position)
        self._require_turn_to_show(position)

    def verify_muck(self, position: int) -> None:
        """A contender may muck unless he is the last claim on a pot; the opener in five-card draw always may,
        at the price of a dead hand (R-DRAW-7)."""
        self._require_contender(position)
        self._require_turn_to_show(position)
        if position == self.opener:
            return
        for pot in self.pots():
            if position in pot.eligible and len(pot.eligible) > 1 and not any(
                    p != position and self.shown.get(p, True) for p in pot.eligible):
                raise HandRuleError("the last player with a claim on a pot shows his hand", rule="R-CIRC-7")

    @property
    def to_show(self) -> int | None:
        """R-CIRC-13 (decision): the position to show (or muck) next at the showdown: the last player to bet or
        raise in the last interval, then clockwise; with no bet in it, the player still in who would speak first
        in that interval (the opener after the draw, R-DRAW-6; else the first clockwise from position 0: la mano,
        the player left of the button, or in stud the croupier's left).  ``None`` outside the showdown."""
        if self.phase is not Phase.SHOWDOWN or self.settings.showdown_order is ShowdownOrder.ANY:
            return None
        waiting = [p for p in self.in_hand if p not in self.shown]
        if len(self.in_hand) <= 1 or not waiting:
            return None
        if self.last_aggressor is not None:
            start = self.last_aggressor
        elif self.street.opening is Opening.OPENER and self.opener is not None:
            start = self.opener
        else:
            start = 0
        return next(p for p in ((start + k) % self.n for k in range(self.n)) if p in waiting)

    def _require_turn_to_show(self, position: int) -> None:
        if self.settings.showdown_order is ShowdownOrder.ANY:
            return
        turn = self.to_show
        if turn is not None and turn != position:
            raise HandRuleError(f"{self.name(turn)} shows first (decision: the last to bet or raise shows first, then "
                                "clockwise)", rule="R-CIRC-13")

    def _require_contender(self, position: int) -> None:
        if self.phase is Phase.SHOWDOWN or (self.betting_closed and self.phase is Phase.DEALING):
            if self.folded[position]:
                raise HandRuleError("a folded player has no hand to show", rule="R-CIRC-3")
            if position in self.shown:
                raise HandRuleError("the player has already shown or mucked", rule="R-CIRC-7")
            return
        raise HandRuleError("hands are shown only at the showdown", rule="R-CIRC-9")

    def apply_show(self, position: int) -> None:
        """The player shows his cards; they are all face up now."""
        self.shown[position] = True
        self.hole[position] = [(card, True) for card, _ in self.hole[position]]

    def apply_muck(self, position: int) -> None:
        """The player gives up his claim without showing."""
        self.shown[position] = False

    def apply_award(self, award: Award) -> None:
        """A pot paid to its winners, less the rake."""
        for position, amount in award.shares:
            self.stacks[position] += amount
        self.awards.append(award)

    def apply_complete(self) -> None:
        """Every pot is paid."""
        self.phase = Phase.COMPLETE
        self.queue.clear()
        self.slots.clear()

    def apply_void(self, rule: str) -> None:
        """The hand is void: every chip put in goes back (e.g. R-DECK-4 irregularities)."""
        for position in range(self.n):
            self.stacks[position] += self.contributed[position]
            self.contributed[position] = 0
            self.bets[position] = 0
        self.phase = Phase.VOID
        self.void_rule = rule
        self.queue.clear()
        self.slots.clear()

    @property
    def ready_to_settle(self) -> bool:
        """Everything is decided: one player left (R-CIRC-7) or every contender has shown or mucked."""
        if self.phase is not Phase.SHOWDOWN:
            return False
        players = self.in_hand
        return len(players) <= 1 or all(p in self.shown for p in players)

    def value_of(self, position: int) -> HandValue:
        """The best hand of a player (R-CARD-6, R-CARD-7); in stud, a community card counts for everyone."""
        own = self.cards_of(position)
        if self.hand_rule.board_cards == (0,):
            return self.ranking.evaluate([*own, *self.board])
        return self.hand_rule.evaluate(self.ranking, own, self.board)

    def strength_of(self, position: int) -> int:
        """The strength of a player's best hand (the fast path of :meth:`value_of`)."""
        own = [card.code for card, _ in self.hole[position]]
        board = [card.code for card in self.board]
        rule = self.hand_rule
        if rule.own_used is None or rule.board_used is None:
            return self.ranking.strength(own + board)
        return self.ranking.strength_split(own, board, rule.own_used, rule.board_used)

    def pots(self) -> list[Pot]:
        """The main pot and side pots of the chips put in this hand (R-CIRC-6): the antes as matched chips, or as dead
        money in the main pot (decision, setting ``ante_pot``); then each bet nobody matched in its interval, which
        simply comes back (with unequal antes a player's total can exceed another's without any bet being uncalled).
        Decision: chips that only players who folded reached (unequal antes) join the highest pot a player still in
        reached (pokerkit burns them)."""
        put = [c - u for c, u in zip(self.contributed, self.uncalled, strict=True)]
        main = self.settings.ante_pot is AntePot.MAIN
        dead = [min(a, c) for a, c in zip(self.antes, put, strict=True)] if main else []
        pots: list[Pot] = []
        for pot in side_pots(put, self.folded, dead):
            if pot.eligible or not self.in_hand:
                pots.append(pot)
            elif pots:  # chips only folded players reached (unequal antes) join the highest pot a player still in
                last = pots[-1]  # reached; the last player in wins them all (R-CIRC-7)
                pots[-1] = Pot(last.amount + pot.amount, last.eligible,
                               tuple(sorted({*last.contributors, *pot.contributors})), last.carried_in)
            else:
                pots.append(Pot(pot.amount, tuple(self.in_hand), pot.contributors))
        return pots + [Pot(amount, (p,), (p,)) for p, amount in enumerate(self.uncalled) if amount]

    def settlement(self) -> tuple[list[Award], int]:
        """Each pot with its rake and winners (R-CIRC-6, R-CIRC-7, R-CIRC-11, R-CIRC-12), and the chips that carry
        to the next hand because nobody is left to claim them (R-DRAW-7)."""
        pots = self.pots()
        if self.dead_money:  # a pot carried from earlier hands joins the main pot
            first = pots[0] if pots else Pot(0, tuple(self.in_hand), ())
            pots[:1] = [Pot(first.amount + self.dead_money, first.eligible, first.contributors, self.dead_money)]
        values = {p: self.strength_of(p) for p in self.in_hand if self.shown.get(p)} if len(self.in_hand) > 1 else {}
        cap_left = self.settings.rake.cap
        awards = []
        carried = 0
        for pot in pots:
            if not pot.contested:  # an uncalled bet goes back to the player who made it
                awards.append(Award(pot, 0, ((pot.contributors[0], pot.amount),)))
                continue
            if not pot.eligible:  # nobody left to claim it (a false opener's dead hand, R-DRAW-7): it carries
                carried += pot.amount
                continue
            claims = [p for p in pot.eligible if self.shown.get(p, True)]
            if not claims and self.opener in pot.eligible:  # R-DRAW-7: the opener did not show; nobody else claims
                carried += pot.amount
                continue
            claims = claims or list(pot.eligible)
            rake = rake_for(pot.amount, self.settings.rake.percent, cap_left)
            cap_left -= rake
            if len(claims) > 1:
                best = max(values[p] for p in claims)
                winners = [p for p in claims if values[p] == best]
            else:
                winners = claims
            awards.append(Award(pot, rake, tuple(split(pot.amount - rake, self._odd_chip_order(winners)))))
        return awards, carried

    def _odd_chip_order(self, winners: list[int]) -> list[int]:
        """R-CIRC-11: clockwise from the button; in stud, the hand holding the highest card by suit first."""
        if self.variant.stud_odd_chip and len(winners) > 1:
            return sorted(winners, key=lambda p: max(self.value_of(p).best_five), reverse=True)
        return sorted(winners)

