"""The event-sourced circle-poker hand (R-AUD-1): every deal, burn, bet, show, payment and void is an event.

Each command has ``can_x`` / ``verify_x`` / ``x``: ``verify_x`` raises a :class:`HandRuleError` naming the rule
an action would break, ``can_x`` says whether it would pass, and ``x`` records the event.  A refused command
records nothing and changes nothing.  Cards always come from outside (the shoe, the croupier, a test); the hand
never draws at random, so replaying its events deals the same cards.

>>> from domain.cards import parse_cards
>>> from domain.decks import BackColour, DeckIdentity
>>> from domain.table_settings import BettingStructure, TableSettings
>>> settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
>>> hand = Hand.start(TABLES_NAMESPACE, 1, settings, seats=[1, 2], stacks=[100, 100], button_seat=2,
...                   deck=DeckIdentity(52, BackColour.RED))
>>> for card in parse_cards("As Kd Ah Kc"):
...     hand.deal(card)
>>> hand.legal_actions()
LegalActions(seat=2, fold=True, check=False, call=1, bring_in=None, raise_min=4, raise_max=100)
>>> hand.fold(2)
>>> hand.is_complete, hand.stacks
(True, [101, 99])
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.cards import Card, Rank
from domain.decks import DeckIdentity, shoe_read_problem
from domain.hand_state import Award, HandRuleError, HandState, LegalActions, Phase, SlotKind
from domain.ids import TABLES_NAMESPACE as TABLES_NAMESPACE  # noqa: PLC0414  (its old home: re-exported)
from domain.pots import Pot
from domain.table_settings import TableSettings

SOURCES = ("shoe", "croupier", "replay", "test")
"""Where a card comes from: the card-reading shoe (with its sequence number), keyed in by the croupier, a replayed
history, or a test."""


class Hand(Aggregate):
    """One hand of circle poker at a table."""

    # -- creation -----------------------------------------------------------------------------------

    @staticmethod
    def create_id(table_id: UUID, number: int, **_: Any) -> UUID:
        """Hands have deterministic ids: the table's id and the hand number."""
        return uuid5(table_id, f"hand/{number}")

    @event("Started")
    def __init__(
        self,
        *,
        table_id: UUID,
        number: int,
        settings: dict[str, Any],
        seats: list[int],
        stacks: list[int],
        button_seat: int,
        deck: dict[str, Any],
        openers: int,
        carried_pot: int,
    ) -> None:
        self.table_id = table_id
        self.number = number
        self.seats = list(seats)
        self.button_seat = button_seat
        self.deck = dict(deck)
        self.state = HandState(TableSettings.from_dict(settings), list(stacks), deck_size=deck["size"],
                               openers=Rank(openers), dead_money=carried_pot, seats=list(seats))
        self._position = {seat: i for i, seat in enumerate(self.seats)}
        self.last_shoe_read: int | None = None

    @classmethod
    def start(
        cls,
        table_id: UUID,
        number: int,
        settings: TableSettings,
        *,
        seats: list[int],
        stacks: list[int],
        button_seat: int,
        deck: DeckIdentity,
        openers: Rank = Rank.JACK,
        carried_pot: int = 0,
    ) -> Hand:
        """Start a hand: seats in dealing order (clockwise from the button; in stud from the croupier's left),
        their stacks, and the deck in play; the antes and blinds are posted at once (R-CIRC-2, R-FLOP-1).
        Five-card draw also takes the openers in force and the pot carried from blank hands (R-DRAW-3)."""
        if len(set(seats)) != len(seats) or len(seats) != len(stacks):
            raise HandRuleError("each seat once, with its stack", rule="R-CIRC-2")
        expected = settings.deck_for(len(seats))
        if deck.size != expected:
            rule = "R-DRAW-8" if settings.deck_by_players else "R-CARD-2"
            raise HandRuleError(f"this hand is played with a {expected}-card deck, not {deck.size}", rule=rule)
        HandState(settings, list(stacks), deck_size=deck.size, openers=openers, dead_money=carried_pot)  # validates
        hand = cls(
            table_id=table_id,
            number=number,
            settings=settings.to_dict(),
            seats=list(seats),
            stacks=list(stacks),
            button_seat=button_seat,
            deck={"size": deck.size, "colour": deck.colour.value, "label": deck.label},
            openers=int(openers),
            carried_pot=carried_pot,
        )
        state = hand.state
        antes, blinds = state.forced_bets()
        hand.trigger_event(cls.ForcedBetsPosted, antes=antes, blinds=blinds)
        return hand

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

    def legal_actions(self) -> LegalActions | None:
        """What the player to act may do now, with amounts; ``None`` when nobody is to act."""
        return self.state.legal_actions(self.seats)

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
        return _passes(self.verify_deal, card, source, sequence)

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
        return _passes(self.verify_fold, seat)

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
        return _passes(self.verify_check, seat)

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
        return _passes(self.verify_call, seat)

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
        return _passes(self.verify_bet_or_raise_to, seat, amount)

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
        return _passes(self.verify_all_in, seat)

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
        return _passes(self.verify_post_bring_in, seat)

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
        return _passes(self.verify_discard, seat, cards)

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
        return _passes(self.verify_reshuffle_discards)

    def reshuffle_discards(self) -> None:
        """R-DRAW-8: the discards so far (never the opener's) become the stock; one card is burned."""
        cards = self.state.verify_reshuffle()
        self.trigger_event(self.DiscardsReshuffled, cards=[str(c) for c in cards])

    # -- showdown -----------------------------------------------------------------------------------

    def verify_show(self, seat: int) -> None:
        """At the showdown, or once every bet is in (all-in), a player still in may show."""
        self.state.verify_show(self.position_of(seat))

    def can_show(self, seat: int) -> bool:
        """Whether the seat may show now."""
        return _passes(self.verify_show, seat)

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
        return _passes(self.verify_muck, seat)

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
        return _passes(self.verify_expose_card, seat, card)

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
        """R-CIRC-10: only when the absent player's turn comes."""
        position = self.position_of(seat)
        if self.state.actor != position:
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

    # -- events: past tense, under the aggregate; ``apply`` only mutates ---------------------------------

    class ForcedBetsPosted(Aggregate.Event):
        """Antes and blinds/straddles by position, posted before the deal (R-CIRC-2, R-FLOP-1)."""

        antes: list[int]
        blinds: list[int]

        def apply(self, aggregate: Aggregate) -> None:
            state = _hand(aggregate).state
            for position, amount in enumerate(self.antes):
                if amount:
                    state.apply_forced_bet(position, amount, ante=True)
            for position, amount in enumerate(self.blinds):
                if amount:
                    state.apply_forced_bet(position, amount, ante=False)
            state.begin()

    class CardDealt(Aggregate.Event):
        """A card from the shoe or the croupier: burned, to a seat (up or down) or to the board (R-AUD-1)."""

        kind: str
        seat: int | None
        card: str
        face_up: bool
        source: str
        sequence: int | None

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_card(Card.parse(self.card), self.face_up)
            if self.source == "shoe":
                hand.last_shoe_read = self.sequence

    class Folded(Aggregate.Event):
        """The seat folded (R-CIRC-3)."""

        seat: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_fold(hand.position_of(self.seat))

    class Checked(Aggregate.Event):
        """The seat checked (R-CIRC-3)."""

        seat: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_check(hand.position_of(self.seat))

    class Called(Aggregate.Event):
        """The seat called ``amount`` more chips (R-CIRC-3, R-CIRC-6)."""

        seat: int
        amount: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_call(hand.position_of(self.seat), self.amount)

    class BetOrRaised(Aggregate.Event):
        """The seat bet, raised or completed to ``to`` in this interval, adding ``added`` chips."""

        seat: int
        to: int
        added: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_raise_to(hand.position_of(self.seat), self.to)

    class BringInPosted(Aggregate.Event):
        """The lowest up card brought in (R-STUD7-1)."""

        seat: int
        amount: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_bring_in(hand.position_of(self.seat), self.amount)

    class Shown(Aggregate.Event):
        """The seat showed these cards."""

        seat: int
        cards: list[str]

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_show(hand.position_of(self.seat))

    class Mucked(Aggregate.Event):
        """The seat gave up its claim without showing."""

        seat: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_muck(hand.position_of(self.seat))

    class CardExposed(Aggregate.Event):
        """A down card exposed by mistake and covered again (R-CIRC-9)."""

        seat: int
        card: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_exposed_by_mistake(hand.position_of(self.seat))

    class Forfeited(Aggregate.Event):
        """The seat lost its hand by rule ``rule`` (R-CIRC-9, R-CIRC-10)."""

        seat: int
        rule: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_fold(hand.position_of(self.seat))

    class Discarded(Aggregate.Event):
        """The seat discarded these cards (none: stood pat); an opener's are kept to prove his openers."""

        seat: int
        cards: list[str]
        kept_for_openers: bool

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            hand.state.apply_discard(hand.position_of(self.seat), [Card.parse(c) for c in self.cards])

    class DiscardsReshuffled(Aggregate.Event):
        """R-DRAW-8: these discards became the stock again (a card is burned next)."""

        cards: list[str]

        def apply(self, aggregate: Aggregate) -> None:
            _hand(aggregate).state.apply_reshuffle([Card.parse(c) for c in self.cards])

    class PassedOut(Aggregate.Event):
        """Nobody wins: ``amount`` chips carry to the next hand (R-DRAW-3 blank hand, R-DRAW-7)."""

        amount: int
        rule: str

        def apply(self, aggregate: Aggregate) -> None:
            _hand(aggregate).state.apply_passed_out(self.amount, self.rule)

    class PotAwarded(Aggregate.Event):
        """Pot ``index`` (0 is the main pot): its chips, the rake, who could win it and each winner's share."""

        index: int
        amount: int
        rake: int
        eligible: list[int]
        contributors: list[int]
        shares: list[list[int]]
        carried_in: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate)
            where = hand.position_of
            pot = Pot(self.amount, tuple(map(where, self.eligible)), tuple(map(where, self.contributors)),
                      self.carried_in)
            hand.state.apply_award(Award(pot, self.rake, tuple((where(s), a) for s, a in self.shares)))

    class Completed(Aggregate.Event):
        """Every pot is paid; the finishing stacks by position."""

        stacks: list[int]

        def apply(self, aggregate: Aggregate) -> None:
            _hand(aggregate).state.apply_complete()

    class Voided(Aggregate.Event):
        """The hand is void under ``rule``; every chip goes back."""

        rule: str
        reason: str

        def apply(self, aggregate: Aggregate) -> None:
            _hand(aggregate).state.apply_void(self.rule)


def _hand(aggregate: Aggregate) -> Hand:
    assert isinstance(aggregate, Hand)
    return aggregate


def _passes(verify: Any, *args: Any) -> bool:
    try:
        verify(*args)
    except HandRuleError:
        return False
    return True
