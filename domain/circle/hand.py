"""The event-sourced circle-poker hand (R-AUD-1): every deal, burn, bet, show, payment and void is an event.

Each command has ``can_x`` / ``verify_x`` / ``x``: ``verify_x`` raises a :class:`HandRuleError` naming the rule
an action would break, ``can_x`` says whether it would pass, and ``x`` records the event.  A refused command
records nothing and changes nothing.  Cards always come from outside (the shoe, the croupier, a test); the hand
never draws at random, so replaying its events deals the same cards.

>>> from domain.cards.cards import parse_cards
>>> from domain.cards.decks import BackColour, DeckIdentity
>>> from domain.circle.settings import BettingStructure, TableSettings
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

from domain.cards.cards import Card, Rank
from domain.cards.decks import DeckIdentity
from domain.circle.hand_corrections import HandCorrections, HandHistory
from domain.circle.hand_play import SOURCES as SOURCES  # noqa: PLC0414  (its old home: re-exported)
from domain.circle.hand_play import HandPlay
from domain.circle.hand_queries import HandQueries
from domain.circle.hand_showdown import HandShowdown
from domain.circle.pots import Pot
from domain.circle.seating import dealing_order
from domain.circle.settings import TableSettings
from domain.circle.state import Award, HandRuleError, HandState, Phase
from domain.ids import TABLES_NAMESPACE as TABLES_NAMESPACE  # noqa: PLC0414  (its old home: re-exported)


class Hand(HandQueries, HandPlay, HandShowdown, HandCorrections, Aggregate):
    """One hand of circle poker at a table."""

    # -- creation -----------------------------------------------------------------------------------

    @staticmethod
    def create_id(table_id: UUID, number: int, **_: Any) -> UUID:
        """Hands have deterministic ids: the table's hands' namespace
        (:attr:`domain.tables.TableRecord.hands_namespace`; the table's id for a table opened before it) and the hand
        number."""
        return uuid5(table_id, f"hand/{number}")

    class Started(Aggregate.Created):
        """The hand's table, number, settings, seats in dealing order with their stacks, button, deck, the openers in
        force and the pot carried in (R-CIRC-2, R-DRAW-3); kept first in the hand's history."""

        table_id: UUID
        number: int
        settings: dict[str, Any]
        seats: list[int]
        stacks: list[int]
        button_seat: int
        deck: dict[str, Any]
        openers: int
        carried_pot: int

        def mutate(self, aggregate: Any) -> Any:
            hand: Hand = super().mutate(aggregate)  # type: ignore[assignment]  # a Created event makes the hand
            hand.history.events.append(self)
            return hand

    @event(Started)
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
        self.history = HandHistory()  # every event applied, for a correction's rebuild (domain.circle.hand_corrections)
        self.pending_correction: dict[str, Any] | None = None

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
        hands: UUID | None = None,
    ) -> Hand:
        """Start a hand: seats in dealing order (clockwise from the button; in stud from the croupier's left),
        their stacks, and the deck in play; the antes and blinds are posted at once (R-CIRC-2, R-FLOP-1).
        Five-card draw also takes the openers in force and the pot carried from blank hands (R-DRAW-3). ``hands``:
        the namespace of the table's hands' ids (default: the table's id)."""
        if len(set(seats)) != len(seats) or len(seats) != len(stacks):
            raise HandRuleError("each seat once, with its stack", rule="R-CIRC-2")
        seats, stacks = dealing_order(settings, seats, stacks, button_seat)
        expected = settings.deck_for(len(seats))
        if deck.size != expected:
            rule = "R-DRAW-8" if settings.deck_by_players else "R-CARD-2"
            raise HandRuleError(f"this hand is played with a {expected}-card deck, not {deck.size}", rule=rule)
        HandState(settings, list(stacks), deck_size=deck.size, openers=openers, dead_money=carried_pot)  # validates
        hand = cls._create(
            cls.Started,
            id=cls.create_id(table_id if hands is None else hands, number),
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

    # -- events: past tense, under the aggregate; ``apply`` only mutates ---------------------------------

    class ForcedBetsPosted(Aggregate.Event):
        """Antes and blinds/straddles by position, posted before the deal (R-CIRC-2, R-FLOP-1)."""

        antes: list[int]
        blinds: list[int]

        def apply(self, aggregate: Aggregate) -> None:
            state = _hand(aggregate, self).state
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
            hand = _hand(aggregate, self)
            hand.state.apply_card(Card.parse(self.card), self.face_up)
            if self.source == "shoe":
                hand.last_shoe_read = self.sequence

    class Folded(Aggregate.Event):
        """The seat folded (R-CIRC-3)."""

        seat: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_fold(hand.position_of(self.seat))

    class Checked(Aggregate.Event):
        """The seat checked (R-CIRC-3)."""

        seat: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_check(hand.position_of(self.seat))

    class Called(Aggregate.Event):
        """The seat called ``amount`` more chips (R-CIRC-3, R-CIRC-6)."""

        seat: int
        amount: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_call(hand.position_of(self.seat), self.amount)

    class BetOrRaised(Aggregate.Event):
        """The seat bet, raised or completed to ``to`` in this interval, adding ``added`` chips."""

        seat: int
        to: int
        added: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_raise_to(hand.position_of(self.seat), self.to)

    class BringInPosted(Aggregate.Event):
        """The lowest up card brought in (R-STUD7-1)."""

        seat: int
        amount: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_bring_in(hand.position_of(self.seat), self.amount)

    class Shown(Aggregate.Event):
        """The seat showed these cards."""

        seat: int
        cards: list[str]

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_show(hand.position_of(self.seat))

    class Mucked(Aggregate.Event):
        """The seat gave up its claim without showing."""

        seat: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_muck(hand.position_of(self.seat))

    class CardExposed(Aggregate.Event):
        """A down card exposed by mistake and covered again (R-CIRC-9)."""

        seat: int
        card: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_exposed_by_mistake(hand.position_of(self.seat))

    class Forfeited(Aggregate.Event):
        """The seat lost its hand by rule ``rule`` (R-CIRC-9, R-CIRC-10)."""

        seat: int
        rule: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            position = hand.position_of(self.seat)
            if hand.state.phase is Phase.DRAWING:  # absent at his turn to draw (R-CIRC-10, decision; issue 33)
                hand.state.apply_absent_at_draw(position)
            else:
                hand.state.apply_fold(position)

    class Discarded(Aggregate.Event):
        """The seat discarded these cards (none: stood pat); an opener's are kept to prove his openers."""

        seat: int
        cards: list[str]
        kept_for_openers: bool

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_discard(hand.position_of(self.seat), [Card.parse(c) for c in self.cards])

    class DiscardsReshuffled(Aggregate.Event):
        """R-DRAW-8: these discards became the stock again (a card is burned next)."""

        cards: list[str]

        def apply(self, aggregate: Aggregate) -> None:
            _hand(aggregate, self).state.apply_reshuffle([Card.parse(c) for c in self.cards])

    class PassedOut(Aggregate.Event):
        """Nobody wins: ``amount`` chips carry to the next hand (R-DRAW-3 blank hand, R-DRAW-7)."""

        amount: int
        rule: str

        def apply(self, aggregate: Aggregate) -> None:
            _hand(aggregate, self).state.apply_passed_out(self.amount, self.rule)

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
            hand = _hand(aggregate, self)
            where = hand.position_of
            pot = Pot(self.amount, tuple(map(where, self.eligible)), tuple(map(where, self.contributors)),
                      self.carried_in)
            hand.state.apply_award(Award(pot, self.rake, tuple((where(s), a) for s, a in self.shares)))

    class Completed(Aggregate.Event):
        """Every pot is paid; the finishing stacks by position."""

        stacks: list[int]

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_complete()
            hand.note_hand_over()

    class CorrectionRequested(Aggregate.Event):
        """R-AUD-1: the croupier asks to replace the hand's last action (``corrects``, the event at
        ``corrects_version``, of ``seat``) with ``action`` (``amount``: a bet's total) for ``reason``; pending."""

        seat: int
        corrects: str
        corrects_version: int
        action: str
        amount: int | None
        reason: str
        by: str

        def apply(self, aggregate: Aggregate) -> None:
            request = {"seat": self.seat, "corrects": self.corrects, "corrects_version": self.corrects_version,
                       "action": self.action, "amount": self.amount, "reason": self.reason, "by": self.by}
            _hand(aggregate, self).note_correction_requested(request)

    class CorrectionApproved(Aggregate.Event):
        """R-AUD-1: the pit approved the pending correction: the hand is back as it was at ``restored_version``
        (before the action at ``corrects_version``); the replacement's own event follows."""

        corrects_version: int
        restored_version: int
        reason: str
        by: str

        def apply(self, aggregate: Aggregate) -> None:
            _hand(aggregate, self).note_correction_approved(self.restored_version, self.originator_version)

    class CorrectionRefused(Aggregate.Event):
        """R-AUD-1: the pit refused the pending correction of the action at ``corrects_version``: nothing changes."""

        corrects_version: int
        reason: str
        by: str

        def apply(self, aggregate: Aggregate) -> None:
            _hand(aggregate, self).note_correction_refused()

    class Voided(Aggregate.Event):
        """The hand is void under ``rule``; every chip goes back."""

        rule: str
        reason: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _hand(aggregate, self)
            hand.state.apply_void(self.rule)
            hand.note_hand_over()


def _hand(aggregate: Aggregate, event: Aggregate.Event) -> Hand:
    """The hand ``event`` applies to, which keeps it in its history (a correction's rebuild replays it)."""
    assert isinstance(aggregate, Hand)
    aggregate.history.events.append(event)
    return aggregate
