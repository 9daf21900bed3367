"""The commands of a Texas Hold'em Bonus hand for what goes wrong and what is approved: cards shown or found by
mistake, wrong counts and voids (R-THB-11), the 1000:1 approval (R-THB-10), the dispute reconstruction (R-THB-13)
(``verify_x`` / ``can_x`` / ``x``).

:class:`domain.banked.thb.ThbHand` composes them; its events stay nested in it (their stored topics are
``domain.banked.thb:ThbHand.<Event>``), so these commands name them through the aggregate.
"""

from __future__ import annotations

from domain.banked.thb_settings import ThbRuleError
from domain.banked.thb_state import Stage, ThbCommands, passes, require_name


class ThbIrregularities(ThbCommands):
    """Irregularities (R-THB-11), approvals (R-THB-10) and reconstructions (R-THB-13)."""

    # -- irregularities (R-THB-11) and approvals (R-THB-10) ---------------------------------------------

    @property
    def all_decisions_made(self) -> bool:
        """R-THB-11 (a): every box in play has folded, or bet or checked the flop, turn and river (only the river
        cards, or nothing, are still to come); true when no box plays."""
        if not self.live_boxes:
            return True
        return self.stage is Stage.DEALING and len(self.board) >= 4

    def verify_dealer_card_shown(self) -> None:
        """R-THB-11 (a): the croupier's cards are dealt and not yet turned for the settlement (R-THB-7)."""
        if self.stage not in (Stage.DEALING, Stage.PREFLOP, Stage.TURN, Stage.RIVER):
            raise ThbRuleError(f"no dealer card can be shown by mistake now ({self.stage.value}): the croupier's "
                               "cards are dealt after the bets and turned at the settlement", rule="R-THB-11")
        if not self.dealer:
            raise ThbRuleError("the croupier has no card yet", rule="R-THB-11")

    def can_dealer_card_shown(self) -> bool:
        """Whether a dealer card shown by mistake can be recorded now."""
        return passes(self.verify_dealer_card_shown)

    def dealer_card_shown(self) -> None:
        """R-THB-11 (a): a dealer card shown before every box has made all its decisions voids the hand (every bet
        returned); shown after the last decision, it counts and play goes on (recorded)."""
        self.verify_dealer_card_shown()
        if self.all_decisions_made:
            self.trigger_event(self.DealerCardShown, rule="R-THB-11", counts=True)
        else:
            self.trigger_event(self.Voided, rule="R-THB-11", reason="a dealer card was shown before the decisions",
                               reshuffle=False)

    def verify_void(self, rule: str, reason: str) -> None:
        """R-THB-11 (1.c): an open hand, not yet settled, voided naming the rule and the reason."""
        if self.stage is Stage.APPROVAL:
            raise ThbRuleError("the boxes are settled: the 1000:1 waits for the games director's approval or "
                               "refusal", rule="R-THB-10")
        super().verify_void(rule, reason)

    def void(self, rule: str, reason: str) -> None:
        """R-THB-11 (1.c, "EL JUEGO"): any other error in the distribution of the cards voids the whole play: every
        bet is returned, the rule and the reason recorded (the pit's void)."""
        self.verify_void(rule, reason)
        self.trigger_event(self.Voided, rule=rule, reason=reason.strip(), reshuffle=False)

    def verify_wrong_card_count(self, box: int | None, *, correctable: bool = False) -> None:
        """R-THB-11 (d): a box, or the dealer (``None``), got the wrong number of cards, before the settlement: a box
        in play, or one that just folded (decision: its cards are counted as they are fanned); the dealer's count
        correctable only while his cards are face down (issue 33)."""
        if self.is_complete or self.stage is Stage.BETTING:
            raise ThbRuleError("no cards are being dealt", rule="R-THB-11")
        if self.stage is Stage.APPROVAL:
            raise ThbRuleError("the boxes are already settled", rule="R-THB-11")
        fanned = box in self.folded and box not in self.voided_boxes  # (d), decision: counted as its cards fan out
        if box is not None and box not in self.live_boxes and not fanned:
            raise ThbRuleError(f"box {box} is not in play", rule="R-THB-11")
        if box is not None and correctable:
            raise ThbRuleError("only the croupier's own count may be corrected; a box dealt the wrong number of "
                               "cards has its hand void", rule="R-THB-11")
        if box is None and correctable and (self.dealer_card_shown_late or self.dealer_turned_for_bonus):
            raise ThbRuleError("the croupier's cards have been turned up: his wrong count is never corrected once "
                               "they are, the hand is void", rule="R-THB-11")

    def wrong_card_count(self, box: int | None, *, correctable: bool = False) -> None:
        """R-THB-11 (d): a player dealt the wrong number of cards has his hand void (his bets returned) and a full
        reshuffle is required before the next hand (the table records it); the other boxes play on.  The dealer
        dealt the wrong number voids the hand, unless it can be corrected without changing the card sequence while
        the cards are still face down (``correctable``), in which case the deal simply goes on."""
        self.verify_wrong_card_count(box, correctable=correctable)
        if box is not None:
            self.trigger_event(self.BoxVoided, box=box, rule="R-THB-11", reshuffle=True)
        elif not correctable:
            self.trigger_event(self.Voided, rule="R-THB-11", reason="the dealer got the wrong number of cards",
                               reshuffle=False)
        else:
            self.trigger_event(self.DealerCountCorrected)
        self._settle_if_ready()

    def verify_decide_bonus(self, box: int) -> None:
        """R-THB-10: a 1000:1 bonus waiting for the games director."""
        if box not in self.pending_approval:
            raise ThbRuleError(f"box {box} has no bonus waiting for approval", rule="R-THB-10")

    def approve_bonus(self, box: int, director: str, reason: str) -> None:
        """R-THB-10: the games director authorises the 1000:1 payment, stating what he checked (issue 32: the
        approval is recorded with who approved and why)."""
        self.verify_decide_bonus(box)
        require_name(director, "who approves", "R-THB-10")
        require_name(reason, "what the games director checked", "R-THB-10")
        self.trigger_event(self.BonusApproved, box=box, director=director, reason=reason)
        self._complete_if_approved()

    def refuse_bonus(self, box: int, director: str, reason: str) -> None:
        """R-THB-10 (decision, setting ``refused_bonus``): the games director refuses it, an irregularity he found:
        the bonus stake is returned (or, by setting, paid as aces), recorded with who refused and why; nothing else
        of the box changes."""
        self.verify_decide_bonus(box)
        require_name(director, "who refuses", "R-THB-10")
        require_name(reason, "why", "R-THB-10")
        self.trigger_event(self.BonusRefused, box=box, director=director, reason=reason)
        self._complete_if_approved()

    def verify_request_reconstruction(self, pit_boss: str, games_director: str, reason: str) -> None:
        """R-THB-13: a finished hand, with the pit boss present and the games director informed."""
        if not self.is_complete:
            raise ThbRuleError("only a finished hand is reconstructed", rule="R-THB-13")
        for text, what in ((pit_boss, "the pit boss"), (games_director, "the games director"), (reason, "why")):
            require_name(text, what, "R-THB-13")

    def request_reconstruction(self, pit_boss: str, games_director: str, reason: str) -> None:
        """R-THB-13: record who reconstructs the hand for a dispute, who was informed, and why."""
        self.verify_request_reconstruction(pit_boss, games_director, reason)
        self.trigger_event(self.ReconstructionRequested, pit_boss=pit_boss, games_director=games_director,
                           reason=reason)
