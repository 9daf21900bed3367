"""What the banked games share: a hand at a numbered table, dealt from 52 cards, whose cards are checked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Self, cast
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate

from domain.cards.cards import Card
from domain.cards.decks import DeckIdentity, shoe_read_problem
from domain.errors import RuleError


class BankedHand(Aggregate):
    """Base of the banked hands: deterministic ids, the ``Started`` event, the deck check, the card checks."""

    ID_PREFIX: ClassVar[str] = "banked-hand"
    ERROR: ClassVar[type[RuleError]] = RuleError
    last_shoe_read: int | None  # the last shoe read dealt in this hand (R-DECK-4)
    reshuffle_required: bool = False
    """A full reshuffle of this hand's deck is required before the next hand (R-THB-11 b, d)."""
    RULE: ClassVar[str] = "R-AUD-1"
    """The rule that names the game's deck and table (e.g. R-THB-1)."""
    GAME: ClassVar[str] = ""
    """The game's code (``domain.games``)."""

    class Started(Aggregate.Created):
        """A new hand: the table's settings and the deck in play."""

        table_id: UUID
        number: int
        settings: dict[str, Any]
        deck: dict[str, Any]

    @classmethod
    def hand_id(cls, table_id: UUID, number: int) -> UUID:
        """Deterministic ids: the table's hands' namespace (:attr:`domain.tables.TableRecord.hands_namespace`; the
        table's id for a table opened before it) and the hand number."""
        return uuid5(table_id, f"{cls.ID_PREFIX}/{number}")

    @classmethod
    def _open(cls, table_id: UUID, number: int, settings: dict[str, Any], deck: DeckIdentity,
              hands: UUID | None = None) -> Self:
        if deck.size != 52:
            raise cls.ERROR("the game is dealt from 52 cards", rule=cls.RULE)
        deck_data = {"size": deck.size, "colour": deck.colour.value, "label": deck.label}
        return cls._create(cls.Started, id=cls.hand_id(table_id if hands is None else hands, number),
                           table_id=table_id, number=number,
                           settings=settings, deck=deck_data)

    @property
    def is_complete(self) -> bool:
        """Settled, or void."""
        raise NotImplementedError

    @property
    def next_card_face_up(self) -> bool:
        """Whether the next card is dealt face up to a box or the house (a game says where: Casino Draw Poker's
        bank, once shown); the board's are by what it is."""
        return False

    def snapshot(self) -> dict[str, Any]:
        """Everything about the hand as plain data (views, history, reconstruction): boxes, bets, cards, the
        house's cards, results; the game's own parts from :meth:`_house_snapshot`."""
        hand: Any = self  # the attributes below are each game's (domain.banked.thb, domain.banked.cdp)
        return {
            "game": self.GAME,
            "number": hand.number,
            "stage": hand.stage.value,
            "bets": {box: dict(spots) for box, spots in sorted(hand.bets.items())},
            "cards": {box: [str(c) for c in cards] for box, cards in sorted(hand.cards.items())},
            "folded": sorted(hand.folded),
            "to_decide": hand.to_decide,
            "results": {box: dict(result) for box, result in sorted(hand.results.items())},
            **self._house_snapshot(),
        }

    def _house_snapshot(self) -> dict[str, Any]:
        """The game's own part of :meth:`snapshot` (the croupier's or the bank's cards, the board, discards)."""
        raise NotImplementedError

    # -- the events every banked game records alike (each game's class is redefined by eventsourcing under the
    # game's own name and module, ``domain.banked.thb:ThbHand.BetPlaced``: the stored topics are the same) -----------

    class BetPlaced(Aggregate.Event):
        """A bet on a spot of a box (Texas Hold'em Bonus: ante, bonus, flop, turn or river; Casino Draw Poker: ante
        or play)."""

        box: int
        spot: str
        amount: int

        def apply(self, aggregate: Aggregate) -> None:
            cast(BankedHand, aggregate)._on_bet_placed(self.box, self.spot, self.amount)

    class BetsClosed(Aggregate.Event):
        """"No va más": the bets are closed and the deal begins (R-THB-4, R-CDP-1)."""

        def apply(self, aggregate: Aggregate) -> None:
            cast(BankedHand, aggregate)._on_bets_closed()

    class Folded(Aggregate.Event):
        """The box folded: its ante is lost (a Texas Hold'em Bonus box's bonus stays in action)."""

        box: int

        def apply(self, aggregate: Aggregate) -> None:
            cast(BankedHand, aggregate)._on_folded(self.box)

    def _on_bet_placed(self, box: int, spot: str, amount: int) -> None:
        """What a bet does to this game's hand."""
        raise NotImplementedError

    def _on_bets_closed(self) -> None:
        """What closing the bets does to this game's hand (the deal's order)."""
        raise NotImplementedError

    def _on_folded(self, box: int) -> None:
        """What a box's fold does to this game's hand."""
        raise NotImplementedError

    def verify_void(self, rule: str, reason: str) -> None:
        """The pit's void of the whole hand (R-THB-11 1.c; R-AUD-1): an open hand, the rule broken (an ``R-`` id)
        and the reason, recorded."""
        if self.is_complete:
            raise self.ERROR("only an open hand is voided", rule="R-AUD-1")
        if not isinstance(rule, str) or not rule.startswith("R-") or len(rule) > 20:
            raise self.ERROR("a void names the rule broken (an R-… id of RULES.md)", rule="R-AUD-1")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 200:
            raise self.ERROR("a void records its reason (1–200 characters)", rule="R-AUD-1")

    def can_void(self, rule: str, reason: str) -> bool:
        """Whether :meth:`verify_void` passes."""
        return allowed(self.verify_void, rule, reason)

    def _check_card(self, seen: set[Card], card: Card, source: str, sequence: int | None) -> None:
        """A card never seen before in this hand (R-DECK-4), a shoe read with its sequence number (R-AUD-1)."""
        if card in seen:
            raise self.ERROR(f"{card} was already seen in this hand", rule="R-DECK-4")
        if problem := shoe_read_problem(source, sequence, self.last_shoe_read):
            raise self.ERROR(problem[0], rule=problem[1])


def allowed(verify: Callable[..., None], *args: Any) -> bool:
    """``can_x``: whether ``verify_x`` lets the command through (the station greys out what it would refuse)."""
    try:
        verify(*args)
    except RuleError:
        return False
    return True
