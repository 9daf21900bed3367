"""The commands of a Texas Hold'em Bonus hand that play it: bets, cards, decisions, and the settlement they lead to
(``verify_x`` / ``can_x`` / ``x``; RULES §6, R-THB-2 to R-THB-9, R-THB-12).

:class:`domain.banked.thb.ThbHand` composes them; its events stay nested in it (their stored topics are
``domain.banked.thb:ThbHand.<Event>``), so these commands name them through the aggregate.
"""

from __future__ import annotations

from domain.banked.paytables import bonus_class
from domain.banked.thb_settings import ThbRuleError
from domain.banked.thb_settlement import box_result, dealer_strength, holds_aces
from domain.banked.thb_state import BOXES, Stage, ThbCommands, require_chips
from domain.cards.cards import Card


class ThbPlay(ThbCommands):
    """Bets before the deal (R-THB-2, R-THB-3), cards (R-THB-4, R-THB-6), decisions (R-THB-5, R-THB-6) and the
    settlement (R-THB-7 to R-THB-9, R-THB-12)."""

    # -- bets before the deal (R-THB-2, R-THB-3) ------------------------------------------------------

    def verify_place_ante(self, box: int, amount: int) -> None:
        """R-THB-1, R-THB-2: a box 1–7, before "no va más", once, within the table limits."""
        self._require_stage(Stage.BETTING, "R-THB-3", "bets are placed before the deal")
        if not 1 <= box <= BOXES:
            raise ThbRuleError(f"box {box} is not on the table (1–7)", rule="R-THB-1")
        if box in self.bets:
            raise ThbRuleError(f"box {box} already has an ante", rule="R-THB-1")
        limits = self.settings.limits
        require_chips(amount, limits.ante_min, limits.ante_max, "ante", "R-THB-2")
        if 2 * amount > limits.flop_max:
            raise ThbRuleError("the flop bet (2× the ante) would exceed the table maximum", rule="R-THB-2")

    def place_ante(self, box: int, amount: int) -> None:
        """Place the ante of a box."""
        self.verify_place_ante(box, amount)
        self.trigger_event(self.BetPlaced, box=box, spot="ante", amount=amount)

    def verify_place_bonus(self, box: int, amount: int) -> None:
        """R-THB-3: only with an ante, only before the cards are dealt; its own limits (R-THB-2)."""
        self._require_stage(Stage.BETTING, "R-THB-3", "the bonus is placed before the cards are dealt")
        if box not in self.bets:
            raise ThbRuleError("the bonus needs an ante in the same box", rule="R-THB-3")
        if "bonus" in self.bets[box]:
            raise ThbRuleError(f"box {box} already has a bonus", rule="R-THB-3")
        limits = self.settings.limits
        require_chips(amount, limits.bonus_min, limits.bonus_max, "bonus", "R-THB-2")

    def place_bonus(self, box: int, amount: int) -> None:
        """Place the bonus side bet of a box."""
        self.verify_place_bonus(box, amount)
        self.trigger_event(self.BetPlaced, box=box, spot="bonus", amount=amount)

    def verify_close_bets(self) -> None:
        """"No va más": at least one ante on the table."""
        self._require_stage(Stage.BETTING, "R-THB-3", "bets are already closed")
        if not self.bets:
            raise ThbRuleError("no box has an ante", rule="R-THB-1")

    def close_bets(self) -> None:
        """"No va más": bets are closed and the deal begins (R-THB-3, R-THB-4)."""
        self.verify_close_bets()
        self.trigger_event(self.BetsClosed)

    # -- cards (R-THB-4, R-THB-6, R-THB-11) ------------------------------------------------------------

    def verify_deal(self, card: Card, source: str = "croupier", sequence: int | None = None) -> None:
        """The next due card, never seen before in this hand (R-DECK-4)."""
        if self.stage is not Stage.DEALING or not self.due:
            reason = "the boxes decide first" if self.to_decide is not None else f"the hand is at {self.stage.value}"
            raise ThbRuleError(f"no card is due now: {reason}", rule="R-THB-5" if self.to_decide else "R-THB-4")
        self._check_card(self.seen, card, source, sequence)

    def deal(self, card: Card, source: str = "croupier", sequence: int | None = None) -> None:
        """The next card where it is due.  A card taken out by mistake, unseen, is simply the next card (R-THB-11)."""
        self.verify_deal(card, source, sequence)
        due = self.due[0]
        self.trigger_event(self.CardDealt, kind=due.kind, box=due.box, card=str(card), source=source,
                           sequence=sequence)
        self._settle_if_ready()

    def verify_face_up_card_found(self, card: Card) -> None:
        """R-THB-11: during the deal, a card found face up in the deck."""
        self._require_stage(Stage.DEALING, "R-THB-11", "cards are found face up only while dealing")
        if card in self.seen:
            raise ThbRuleError(f"{card} was already seen in this hand", rule="R-DECK-4")

    def face_up_card_found(self, card: Card) -> None:
        """R-THB-11: the first face-up card is not used and goes to the discards; a second voids the hand and
        requires a full reshuffle."""
        self.verify_face_up_card_found(card)
        self.trigger_event(self.FaceUpCardDiscarded, card=str(card))
        if self.face_up_found > 1:
            self.trigger_event(self.Voided, rule="R-THB-11", reason="more than one face-up card in the deck",
                               reshuffle=True)

    # -- decisions (R-THB-5, R-THB-6) -----------------------------------------------------------------

    def verify_fold(self, box: int) -> None:
        """R-THB-5: instead of the flop bet, in turn."""
        self._require_decider(box, Stage.PREFLOP, "R-THB-5")

    def fold(self, box: int) -> None:
        """The box folds: the ante is lost; the bonus stays in action (R-THB-5)."""
        self.verify_fold(box)
        self.trigger_event(self.Folded, box=box)
        self._settle_if_ready()

    def verify_flop_bet(self, box: int, amount: int) -> None:
        """R-THB-5: exactly twice the ante."""
        self._require_decider(box, Stage.PREFLOP, "R-THB-5")
        if amount != 2 * self.bets[box]["ante"]:
            raise ThbRuleError(f"the flop bet is exactly 2× the ante ({2 * self.bets[box]['ante']})", rule="R-THB-5")

    def flop_bet(self, box: int, amount: int) -> None:
        """The box plays: the flop bet, twice the ante."""
        self.verify_flop_bet(box, amount)
        self.trigger_event(self.BetPlaced, box=box, spot="flop", amount=amount)
        self._settle_if_ready()

    def verify_street_bet(self, box: int, amount: int) -> None:
        """R-THB-6: the turn or the river bet, exactly the ante (the river allowed after checking the turn)."""
        self._require_decider(box, None, "R-THB-6")
        if amount != self.bets[box]["ante"]:
            raise ThbRuleError(f"the {self.stage.value} bet is exactly the ante ({self.bets[box]['ante']})",
                               rule="R-THB-6")

    def street_bet(self, box: int, amount: int) -> None:
        """Bet the turn or the river (whichever is open)."""
        self.verify_street_bet(box, amount)
        self.trigger_event(self.BetPlaced, box=box, spot=self.stage.value, amount=amount)
        self._settle_if_ready()

    def verify_check(self, box: int) -> None:
        """R-THB-6: the turn and river bets are optional."""
        self._require_decider(box, None, "R-THB-6")

    def check(self, box: int) -> None:
        """No turn (or river) bet for this box."""
        self.verify_check(box)
        self.trigger_event(self.Checked, box=box, street=self.stage.value)
        self._settle_if_ready()

    # -- settlement (R-THB-7, R-THB-8, R-THB-9, R-THB-12) ----------------------------------------------

    def _settle_if_ready(self) -> None:
        in_play = self.stage in (Stage.DEALING, Stage.PREFLOP, Stage.TURN, Stage.RIVER)
        if in_play and not self.live_boxes and (len(self.dealer) == 2 or set(self.voided_boxes) == set(self.bets)):
            self._settle()  # R-THB-12: nobody plays (folded or void); no more cards; the dealer's cards are discarded
        elif self.stage is Stage.DEALING and not self.due and len(self.board) == 5:
            self._settle()

    def _settle(self) -> None:
        """R-THB-7: the croupier's hand, then the boxes from 7 down to 1; the bonus on each box's two cards, against
        the croupier's only where they were turned (R-THB-9, R-THB-12)."""
        if not self.live_boxes and self.settings.turn_dealer_cards_for_aces:
            aces = [b for b in self.boxes if b not in self.voided_boxes and "bonus" in self.bets[b]
                    and holds_aces(self.cards[b])]
            if aces:  # R-THB-12 (decision): turned for the A-A bonus alone
                self.trigger_event(self.DealerCardsTurnedForBonus, boxes=aces)
        dealer_value = dealer_strength(self.dealer, self.board) if self.live_boxes else 0
        seen = self.dealer if self.live_boxes or self.dealer_turned_for_bonus else []
        for box in sorted(self.boxes, reverse=True):  # R-THB-7: from box 7 down to 1
            if box in self.voided_boxes:
                continue
            result = box_result(self.bets[box], self.cards[box], self.board, dealer_value,
                                folded=box in self.folded, dealer_seen=seen, settings=self.settings)
            self.trigger_event(self.BoxSettled, box=box, result=result,
                               bonus_class=bonus_class(self.cards[box], seen) if "bonus" in self.bets[box]
                               else None)
        self._complete_if_approved()

    def _complete_if_approved(self) -> None:
        if not self.pending_approval and self.stage is not Stage.VOID:
            self.trigger_event(self.Completed, bank_result=self.bank_result())
