"""The draw of a circle-poker hand as a discard rule (:class:`domain.circle.variants.DiscardRule`): five-card draw
(R-DRAW-4, R-DRAW-5, R-DRAW-8: discards served in turn, the reshuffle of the discards) and Pineapple (R-PINE-1:
one discard each, no replacement)."""

from __future__ import annotations

from collections import deque

from domain.cards.cards import Card
from domain.circle.core import HandRuleError, HandStateCore, Phase, Slot, SlotKind
from domain.circle.variants import DiscardRule


class CircleDraw(HandStateCore):
    """The draw: who discards next, what he may discard, and the reshuffle of the discards (R-DRAW-8)."""

    @property
    def drawer(self) -> int | None:
        """The position to draw or discard next (R-DRAW-4): in turn, once the previous player has been served; when
        the rule lets players discard in any order (Pineapple, R-PINE-1), the first still to discard clockwise."""
        return self.drawers[0] if self.phase is Phase.DRAWING and self.drawers and not self.slots else None

    @property
    def discard_rule(self) -> DiscardRule | None:
        """The variant's discard rule (five-card draw, Pineapple), or ``None`` in a game without one."""
        return next((street.discard for street in self.variant.streets if street.discard is not None), None)

    def verify_discard(self, position: int, cards: list[Card]) -> None:
        """R-DRAW-4: in turn, 0 to 4 of his own cards (0 stands pat); R-PINE-1: exactly one, once, in any order."""
        rule = self.street.discard if self.phase is Phase.DRAWING else None
        if rule is None:
            general = self.discard_rule
            if general is None or general.replacement:
                raise HandRuleError("there is no draw now", rule=general.rule if general else "R-DRAW-4")
            raise HandRuleError("there is no discard now: each player discards after the flop betting",
                                rule=general.rule)
        if self.slots:
            raise HandRuleError("the previous player is still being served", rule=rule.rule)
        if rule.in_turn and self.drawers[0] != position:
            raise HandRuleError(f"it is {self.name(self.drawers[0])}'s turn to draw, not {self.name(position)}'s",
                                rule=rule.rule)
        if position not in self.drawers:
            raise HandRuleError(f"{self.name(position)} has already discarded or is not in the hand", rule=rule.rule)
        if not rule.min_cards <= len(cards) <= rule.max_cards:
            if rule.min_cards == rule.max_cards:
                raise HandRuleError(f"each player still in discards exactly {rule.min_cards} card(s), not "
                                    f"{len(cards)}", rule=rule.rule)
            raise HandRuleError(f"a player draws {rule.min_cards} to {rule.max_cards} cards, not {len(cards)}",
                                rule=rule.rule)
        if len(cards) > self.max_discard(position):
            raise HandRuleError(f"only {self.max_discard(position)} cards can be served to the opener: his discards "
                                "are kept and the stock and the other discards are short", rule="R-DRAW-8")
        held = self.cards_of(position)
        if len(set(cards)) != len(cards) or any(card not in held for card in cards):
            raise HandRuleError("a player discards only his own cards, each once", rule=rule.rule)

    def min_discard(self, position: int) -> int:
        """How many cards the player must discard now: 0 in five-card draw (he may stand pat), 1 in Pineapple."""
        rule = self.street.discard
        return 0 if rule is None or position not in self.drawers else rule.min_cards

    def max_discard(self, position: int) -> int:
        """How many cards a player may exchange: up to 4, and the opener no more than the stock and the others'
        discards can serve, since his own are kept (R-DRAW-4, R-DRAW-5, R-DRAW-8); in Pineapple one (R-PINE-1)."""
        rule = self.street.discard or self.discard_rule
        if rule is None:
            return 0
        if position != self.opener or not (rule.keep_for_openers and rule.replacement):
            return rule.max_cards
        return min(rule.max_cards, self.stock_left + len(self.discards) + len(self.folded_cards()))

    def folded_cards(self) -> list[Card]:
        """The cards of the folded hands, still on the table."""
        return [card for p in range(self.n) if self.folded[p] for card, _ in self.hole[p]]

    def reshufflable(self) -> list[Card]:
        """R-DRAW-8: the cards that form a new stock: the other players' discards so far and the folded hands, never
        the opener's kept discards; the drawer's own discards only when those cannot serve him (decision: a player
        may then get back a card he threw)."""
        own = set(self.drawer_discards)
        others = [card for card in self.discards if card not in own] + self.folded_cards()
        if self.stock_left + len(others) >= len(self.slots) + 1:  # + 1: the burn after the reshuffle
            return others
        return list(self.discards) + self.folded_cards()

    def verify_reshuffle(self) -> list[Card]:
        """R-DRAW-8: only when the stock cannot serve the player drawing; returns the cards to reshuffle."""
        if self.phase is not Phase.DRAWING or not self.slots:
            raise HandRuleError("discards are reshuffled only when a draw cannot be served", rule="R-DRAW-8")
        if self.stock_left >= len(self.slots):
            raise HandRuleError(f"the stock still holds {self.stock_left} cards", rule="R-DRAW-8")
        cards = self.reshufflable()
        if not cards:
            raise HandRuleError("there are no discards to reshuffle", rule="R-DRAW-8")
        return cards

    def apply_discard(self, position: int, cards: list[Card]) -> None:
        """The player's discards leave his hand; as many cards are due to him when the rule replaces them
        (R-DRAW-4, R-DRAW-5), none in Pineapple (R-PINE-1)."""
        rule = self.street.discard
        assert rule is not None  # verify_discard accepted it: a discard street
        gone = set(cards)
        self.hole[position] = [(card, up) for card, up in self.hole[position] if card not in gone]
        kept = rule.keep_for_openers and position == self.opener
        (self.opener_discards if kept else self.discards).extend(cards)
        self.drawers.remove(position)
        self.drawer_discards = list(cards)
        self.slots = deque(Slot(SlotKind.HOLE, position, False) for _ in cards) if rule.replacement else deque()
        if not self.slots:
            self._next_drawer()

    def apply_reshuffle(self, cards: list[Card]) -> None:
        """R-DRAW-8: the discards become the stock again, and one card is burned first."""
        back = set(cards)
        self.seen -= back
        self.discards = [card for card in self.discards if card not in back]
        for p in range(self.n):  # the folded hands' cards leave the table with them
            if self.folded[p]:
                self.hole[p] = [(card, up) for card, up in self.hole[p] if card not in back]
        if self.stock_left > len(self.slots):  # decision: no burn when it would leave the player unserved
            self.slots.appendleft(Slot(SlotKind.BURN))

    def apply_passed_out(self, amount: int, rule: str) -> None:
        """The pot carries to the next hand (R-DRAW-3, R-DRAW-7)."""
        self.carried = amount
        self.passed_rule = rule
        self.phase = Phase.COMPLETE

    def apply_absent_at_draw(self, position: int) -> None:
        """R-CIRC-10 (decision): the player absent at his turn to draw is out of the hand, and loses what he put in;
        his cards stay on the table with the folded hands'.  Alone with a claim, the last player wins; else the draw
        goes on with the next player (issue 33)."""
        self.folded[position] = True
        if position in self.drawers:
            self.drawers.remove(position)
        if len(self.in_hand) <= 1:
            self.drawers.clear()
            self.phase = Phase.SHOWDOWN
            return
        self._next_drawer()

    def _next_drawer(self) -> None:
        """The last discarder is served; when every player still in has discarded, the street's deal (none in
        five-card draw), then its interval (R-DRAW-6, decision: the second interval starts with the opener)."""
        self.drawer_discards = []
        if not self.drawers:
            self._deal_street()

