"""Dealing a circle-poker hand (RULES §2, §4): the slots of each street (burns, players' cards up or down, board
cards), the cards as they arrive, and the face-up rules (R-CIRC-9)."""

from __future__ import annotations

from collections import deque

from domain.cards.cards import Card
from domain.cards.decks import lowest_rank
from domain.circle.core import HandRuleError, HandStateCore, Phase, Slot, SlotKind


class CircleDealing(HandStateCore):
    """The deal: which card is due where, and what each card that arrives does."""

    def verify_deal(self, card: Card) -> Slot:
        """R-DECK-4 / R-CARD-2: a card of the deck in play, never seen before in this hand, when a card is due."""
        slot = self.next_slot
        if slot is None:
            raise HandRuleError(f"no card is due now ({self.phase.value})", rule="R-CIRC-2")
        if card.rank < lowest_rank(self.deck_size):
            raise HandRuleError(f"{card} is not in a {self.deck_size}-card deck", rule="R-CARD-2")
        if card in self.seen:
            raise HandRuleError(f"{card} was already dealt in this hand", rule="R-DECK-4")
        return slot

    def begin(self) -> None:
        """After the forced bets: the first street's deal."""
        self._begin_street(0)

    def face_up(self, slot: Slot) -> bool:
        """Whether the card due in ``slot`` is dealt face up: an up card of the street, or a player's next down card
        after he exposed one by mistake (R-CIRC-9)."""
        return slot.face_up or (slot.kind is SlotKind.HOLE and slot.position in self.next_card_up)

    def apply_card(self, card: Card, face_up: bool | None = None) -> None:
        """The next due card arrives from the shoe or the croupier; ``face_up`` as recorded (else as due)."""
        slot = self.slots.popleft()
        self.seen.add(card)
        if slot.kind is SlotKind.BURN:
            self.burned.append(card)
        elif slot.kind is SlotKind.BOARD:
            self.board.append(card)
        else:  # a player who has already shown (all-in) gets his later cards face up
            up = self.face_up(slot) if face_up is None else face_up
            self.hole[slot.position].append((card, up or self.shown.get(slot.position, False)))
            if up and not slot.face_up:  # R-CIRC-9: the exposure's penalty card has been dealt
                self.next_card_up.discard(slot.position)
        if not self.slots:
            if self.phase is Phase.DRAWING:
                self._next_drawer()
            else:
                self._begin_betting()

    def apply_exposed_by_mistake(self, position: int) -> None:
        """R-CIRC-9: the card is covered again and the hand stays valid; his next personal card that would be dealt
        face down is dealt face up, in every game (draw: his first replacement card; stud: his next down card;
        Hold'em, Omaha, sintético: his next hole card if the deal is not over)."""
        self.next_card_up.add(position)

    def _begin_street(self, index: int) -> None:
        self.street_index = index
        street = self.street
        self.bets = [0] * self.n if index else self.bets
        if street.discard is not None:  # R-DRAW-4: each player still in draws once, in turn, from the opener;
            start = self.opener if self.opener is not None else 0  # R-PINE-1: each discards one, in any order
            order = [(start + k) % self.n for k in range(self.n)]
            self.drawers = deque(p for p in order if not self.folded[p])
            self.slots = deque()
            self.phase = Phase.DRAWING
            return
        self._deal_street()

    def _deal_street(self) -> None:
        """The cards of the current street are due (its burn, hole and board cards), then its interval."""
        index, street, players = self.street_index, self.street, self.in_hand
        slots: list[Slot] = []
        hole_needed = len(street.hole) * len(players)
        # decision: a burn is skipped when the stock could not serve the street after it (five-card stud, 32 cards)
        burn = self.settings.burn_cards and street.burn and self.stock_left > hole_needed + street.board
        if (self.variant.community_when_short and street.hole and index == len(self.variant.streets) - 1
                and self.stock_left - burn < hole_needed):
            # R-STUD7-1: one community card instead; the burn only if a card is left for it
            if burn and self.stock_left >= 2:
                slots.append(Slot(SlotKind.BURN))
            slots.append(Slot(SlotKind.BOARD, -1, True))
        else:
            if burn:
                slots.append(Slot(SlotKind.BURN))
            for face_up in street.hole:
                slots.extend(Slot(SlotKind.HOLE, p, face_up) for p in players)
            slots.extend(Slot(SlotKind.BOARD, -1, True) for _ in range(street.board))
        self.slots = deque(slots)
        self.phase = Phase.DEALING
        if not self.slots:
            self._begin_betting()

