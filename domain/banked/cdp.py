"""Casino Draw Poker (RULES §7): up to six boxes against the bank, five cards each, exchanges, play or fold.

The rules as pure functions and the table's settings (qualification, the house way, the settlement) are in
:mod:`domain.banked.cdp_rules`; the odds simulator uses the same ones.
"""

from __future__ import annotations

from collections import deque
from enum import Enum
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain.banked.box_hand import BankedHand, allowed
from domain.banked.cdp_rules import HOUSE_WAYS, CdpRuleError, CdpSettings, box_results, house_way, qualifies
from domain.cards.cards import Card
from domain.cards.decks import DeckIdentity

BOXES = 6
__all__ = ["BOXES", "CdpHand", "CdpRuleError", "CdpSettings", "CdpStage", "house_way", "qualifies"]


class CdpStage(Enum):
    """Where a Casino Draw Poker hand is."""

    BETTING = "betting"
    DEALING = "dealing"
    EXCHANGE = "exchange"
    DECISION = "decision"
    BANK = "bank"
    COMPLETE = "complete"
    VOID = "void"


class CdpHand(BankedHand):
    """One hand of Casino Draw Poker."""

    ID_PREFIX = "cdp-hand"
    ERROR = CdpRuleError
    RULE = "R-CDP-1"
    GAME = "casino-draw"
    bank_shown = False
    """The bank has turned its cards (:class:`BankShown`); a hand recorded before that event existed reads False."""
    bank_changed: tuple[Card, ...] = ()
    """The cards the bank changed by the house way (R-CDP-4), face up: it had shown them."""

    def _house_snapshot(self) -> dict[str, Any]:
        return {"bank": [str(c) for c in self.bank], "discards": [str(c) for c in self.discards],
                "bank_shown": self.bank_shown, "bank_changed": [str(c) for c in self.bank_changed]}

    def __init__(self, table_id: UUID, number: int, settings: dict[str, Any], deck: dict[str, Any]) -> None:
        self.table_id, self.number, self.deck = table_id, number, dict(deck)
        self.settings = CdpSettings.from_dict(settings)
        self.stage = CdpStage.BETTING
        self.bets: dict[int, dict[str, int]] = {}
        self.cards: dict[int, list[Card]] = {}
        self.bank: list[Card] = []
        self.discards: list[Card] = []
        self.seen: set[Card] = set()
        self.last_shoe_read: int | None = None
        self.due: deque[int] = deque()  # box numbers; 0 is the bank
        self.decided: set[int] = set()
        self.folded: set[int] = set()
        self.bank_exchanged = False
        self.bank_qualified: bool | None = None
        self.results: dict[int, dict[str, int]] = {}
        self.void_rule: str | None = None

    @classmethod
    def start(cls, table_id: UUID, number: int, settings: CdpSettings, deck: DeckIdentity, *,
              hands: UUID | None = None) -> CdpHand:
        """Open a hand for antes; 52 cards. ``hands``: the namespace of the table's hands' ids (default: the
        table's id)."""
        return cls._open(table_id, number, settings.to_dict(), deck, hands)

    # -- queries ------------------------------------------------------------------------------------

    @property
    def boxes(self) -> list[int]:
        """Boxes with an ante, in dealing order."""
        return sorted(self.bets)

    @property
    def to_decide(self) -> int | None:
        """The box to exchange or decide now (in turn), or ``None``."""
        if self.stage not in (CdpStage.EXCHANGE, CdpStage.DECISION) or self.due:
            return None
        return next((b for b in self.boxes if b not in self.decided and b not in self.folded), None)

    @property
    def next_card(self) -> int | None:
        """The box (0: the bank) the next card goes to."""
        return self.due[0] if self.due else None

    @property
    def next_card_face_up(self) -> bool:
        """Whether the next card is dealt face up: the bank's, once it has shown its hand (R-CDP-4)."""
        return self.next_card == 0 and self.bank_shown

    @property
    def is_complete(self) -> bool:
        """Settled or void."""
        return self.stage in (CdpStage.COMPLETE, CdpStage.VOID)

    def bank_result(self) -> int:
        """The bank's net result: what the boxes lost minus what they won."""
        return -sum(sum(r.values()) for r in self.results.values())

    # -- commands -----------------------------------------------------------------------------------

    def verify_place_ante(self, box: int, amount: int) -> None:
        """R-CDP-1: up to six boxes, an ante within the table's limits, before the deal."""
        if self.stage is not CdpStage.BETTING:
            raise CdpRuleError("antes are placed before the deal", rule="R-CDP-1")
        if not 1 <= box <= BOXES:
            raise CdpRuleError(f"box {box} is not on the table (1–6)", rule="R-CDP-1")
        if box in self.bets:
            raise CdpRuleError(f"box {box} already has an ante", rule="R-CDP-1")
        if isinstance(amount, bool) or not isinstance(amount, int) \
                or not self.settings.ante_min <= amount <= self.settings.ante_max:
            raise CdpRuleError(f"the ante is {self.settings.ante_min} to {self.settings.ante_max}", rule="R-CDP-1")

    def can_place_ante(self, box: int, amount: int) -> bool:
        return allowed(self.verify_place_ante, box, amount)

    def place_ante(self, box: int, amount: int) -> None:
        """Place a box's ante."""
        self.verify_place_ante(box, amount)
        self.trigger_event(self.BetPlaced, box=box, spot="ante", amount=amount)

    def verify_close_bets(self) -> None:
        """R-CDP-1: the bets close once, on at least one ante."""
        if self.stage is not CdpStage.BETTING or not self.bets:
            raise CdpRuleError("the deal needs antes, once", rule="R-CDP-1")

    def can_close_bets(self) -> bool:
        return allowed(self.verify_close_bets)

    def close_bets(self) -> None:
        """Bets are closed: five cards one at a time to each box, then five to the bank (R-CDP-1)."""
        self.verify_close_bets()
        self.trigger_event(self.BetsClosed)

    def verify_deal(self, card: Card, source: str = "croupier", sequence: int | None = None) -> None:
        """The next due card, never seen before in this hand (R-DECK-4)."""
        if not self.due:
            raise CdpRuleError(f"no card is due now ({self.stage.value})", rule="R-CDP-1")
        self._check_card(self.seen, card, source, sequence)

    def can_deal(self, card: Card, source: str = "croupier", sequence: int | None = None) -> bool:
        return allowed(self.verify_deal, card, source, sequence)

    def deal(self, card: Card, source: str = "croupier", sequence: int | None = None) -> None:
        """The next card where it is due."""
        self.verify_deal(card, source, sequence)
        box = self.due[0]
        self.trigger_event(self.CardDealt, box=box, card=str(card), source=source, sequence=sequence,
                           face_up=box == 0 and self.bank_shown)
        self._bank_turn()

    def verify_exchange(self, box: int, cards: list[Card]) -> None:
        """R-CDP-2: in turn, 0, 1 or 2 of the box's own cards."""
        if self.stage is not CdpStage.EXCHANGE:
            raise CdpRuleError(f"no box exchanges now ({self.stage.value})", rule="R-CDP-2")
        if self.to_decide != box:
            raise CdpRuleError(f"{self._waiting_for()}, not box {box}", rule="R-CDP-2")
        if len(cards) > 2 or len(set(cards)) != len(cards) or any(c not in self.cards[box] for c in cards):
            raise CdpRuleError("a player exchanges 0, 1 or 2 of his own cards", rule="R-CDP-2")

    def can_exchange(self, box: int, cards: list[Card]) -> bool:
        return allowed(self.verify_exchange, box, cards)

    def exchange(self, box: int, cards: list[Card]) -> None:
        """The box gives back these cards (none: keeps his hand) and is served as many (R-CDP-2)."""
        self.verify_exchange(box, cards)
        self.trigger_event(self.Exchanged, box=box, cards=[str(c) for c in cards])

    def verify_play(self, box: int, amount: int) -> None:
        """R-CDP-3: the play bet is exactly twice the ante, in turn."""
        self._require_decider(box)
        if amount != 2 * self.bets[box]["ante"]:
            raise CdpRuleError(f"the play bet is exactly 2× the ante ({2 * self.bets[box]['ante']})", rule="R-CDP-3")

    def can_play(self, box: int, amount: int) -> bool:
        return allowed(self.verify_play, box, amount)

    def play(self, box: int, amount: int) -> None:
        """The box plays against the bank."""
        self.verify_play(box, amount)
        self.trigger_event(self.BetPlaced, box=box, spot="play", amount=amount)
        self._bank_turn()

    def verify_fold(self, box: int) -> None:
        """R-CDP-3: in turn."""
        self._require_decider(box)

    def can_fold(self, box: int) -> bool:
        return allowed(self.verify_fold, box)

    def fold(self, box: int) -> None:
        """The box folds and loses its ante (R-CDP-3)."""
        self.verify_fold(box)
        self.trigger_event(self.Folded, box=box)
        self._bank_turn()

    def void(self, rule: str, reason: str) -> None:
        """The pit's void: every bet is returned, the rule and the reason recorded (R-AUD-1)."""
        self.verify_void(rule, reason)
        self.trigger_event(self.Voided, rule=rule, reason=reason.strip())

    def _require_decider(self, box: int) -> None:
        """R-CDP-3: in turn, once every box has exchanged (R-CDP-2). The refusal names what the table waits for: it
        said "box 1 decides now, not box 1" to box 1 playing before its exchange (issue 13)."""
        if self.stage is CdpStage.EXCHANGE:
            raise CdpRuleError(f"every box exchanges first (0, 1 or 2 cards): {self._waiting_for()}", rule="R-CDP-2")
        if self.stage is not CdpStage.DECISION:
            raise CdpRuleError(f"no box decides now ({self.stage.value})", rule="R-CDP-3")
        if self.to_decide != box:
            raise CdpRuleError(f"box {self.to_decide} decides now, not box {box}", rule="R-CDP-3")

    def _waiting_for(self) -> str:
        """What the exchange waits for: the cards due to a box, or the box to exchange."""
        if self.due:
            return f"the cards due to box {self.due[0]} are dealt first"
        return f"box {self.to_decide} exchanges now"

    # -- the bank (R-CDP-4 … R-CDP-6) -----------------------------------------------------------------

    def _bank_turn(self) -> None:
        """Once every box has decided: the bank shows, exchanges if it must, and every box is settled."""
        if self.stage is not CdpStage.BANK or self.due:
            return
        players = [b for b in self.boxes if b not in self.folded]
        if not players:
            self._settle(qualified=None)
            return
        if not self.bank_shown and not self.bank_exchanged:  # exchanged: a hand begun before BankShown existed
            self.trigger_event(self.BankShown, cards=[str(c) for c in self.bank])
        if qualifies(self.bank):
            self._settle(qualified=True)
        elif not self.bank_exchanged:
            changed = HOUSE_WAYS[self.settings.house_way](self.bank)
            self.trigger_event(self.BankExchanged, cards=[str(c) for c in changed])
        else:
            self._settle(qualified=False)

    def _settle(self, qualified: bool | None) -> None:
        results = box_results(self.bets, self.cards, self.bank, folded=self.folded, bank_qualified=qualified,
                              settings=self.settings)
        for box, result in results.items():
            self.trigger_event(self.BoxSettled, box=box, result=result)
        self.trigger_event(self.Completed, bank_qualified=qualified, bank_result=self.bank_result())

    # -- events (BetPlaced, BetsClosed and Folded: declared once for every banked game, domain.banked.box_hand;
    # named here with what they mean at this game, and each said by a hook of the hand) --------------------------

    def _on_bet_placed(self, box: int, spot: str, amount: int) -> None:
        """An ante, or a play bet (2× the ante)."""
        self.bets.setdefault(box, {})[spot] = amount
        if spot == "play":
            self._decided(box)

    def _on_folded(self, box: int) -> None:
        """The box folded: its ante is lost."""
        self.folded.add(box)
        self._decided(box)

    def _on_bets_closed(self) -> None:
        """The deal: five cards one at a time to each box, then five to the bank."""
        self.cards = {b: [] for b in self.boxes}
        self.due = deque([*(self.boxes * 5), *([0] * 5)])
        self.stage = CdpStage.DEALING

    class BetPlaced(BankedHand.BetPlaced):
        """An ante, or a play bet (2× the ante)."""

    class BetsClosed(BankedHand.BetsClosed):
        """The deal: five cards one at a time to each box, then five to the bank."""

    class Folded(BankedHand.Folded):
        """The box folded: its ante is lost."""

    class CardDealt(Aggregate.Event):
        """A card to a box (0: the bank); ``face_up``: a card the bank draws to its shown hand (R-CDP-4), seen by
        everyone at the table.  Version 2 added ``face_up``; every card of a version-1 event was dealt face down."""

        class_version = 2
        box: int
        card: str
        source: str
        sequence: int | None
        face_up: bool

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Cards recorded before ``face_up``: all of them went face down."""
            state["face_up"] = False

        def apply(self, aggregate: Aggregate) -> None:
            hand = _cdp(aggregate)
            card = Card.parse(self.card)
            hand.due.popleft()
            hand.seen.add(card)
            if self.source == "shoe":
                hand.last_shoe_read = self.sequence
            (hand.bank if self.box == 0 else hand.cards[self.box]).append(card)
            hand._advance()

    class Exchanged(Aggregate.Event):
        """The box gave back these cards; as many are due to it."""

        box: int
        cards: list[str]

        def apply(self, aggregate: Aggregate) -> None:
            hand = _cdp(aggregate)
            back = [Card.parse(c) for c in self.cards]
            hand.cards[self.box] = [c for c in hand.cards[self.box] if c not in back]
            hand.discards.extend(back)
            hand.due.extend([self.box] * len(back))
            hand._decided(self.box)

    class BankShown(Aggregate.Event):
        """Every box has decided and one plays: the bank shows its five cards ("la banca muestra su juego",
        R-CDP-4); from now on its cards, those it changes and those it draws are face up."""

        cards: list[str]

        def apply(self, aggregate: Aggregate) -> None:
            _cdp(aggregate).bank_shown = True

    class BankExchanged(Aggregate.Event):
        """R-CDP-4: the bank, shown and not qualified, changes these cards by the house way."""

        cards: list[str]

        def apply(self, aggregate: Aggregate) -> None:
            hand = _cdp(aggregate)
            back = [Card.parse(c) for c in self.cards]
            hand.bank = [c for c in hand.bank if c not in back]
            hand.bank_changed = tuple(back)
            hand.discards.extend(back)
            hand.due.extend([0] * len(back))
            hand.bank_exchanged = True

    class BoxSettled(Aggregate.Event):
        """A box paid: the net result of the ante and the play bet."""

        box: int
        result: dict[str, int]

        def apply(self, aggregate: Aggregate) -> None:
            _cdp(aggregate).results[self.box] = dict(self.result)

    class Completed(Aggregate.Event):
        """Every box is paid: whether the bank qualified, and its net result."""

        bank_qualified: bool | None
        bank_result: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _cdp(aggregate)
            hand.bank_qualified = self.bank_qualified
            hand.stage = CdpStage.COMPLETE

    class Voided(Aggregate.Event):
        """Every bet is returned."""

        rule: str
        reason: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _cdp(aggregate)
            hand.stage = CdpStage.VOID
            hand.void_rule = self.rule
            hand.due.clear()

    def _decided(self, box: int) -> None:
        self.decided.add(box)
        self._advance()

    def _advance(self) -> None:
        """Move to the next stage once no card is due and every box still in has had its turn."""
        if self.due:
            return
        waiting = [b for b in self.boxes if b not in self.decided and b not in self.folded]
        if self.stage is CdpStage.DEALING:
            self.stage = CdpStage.EXCHANGE
        elif self.stage is CdpStage.EXCHANGE and not waiting:
            self.decided = set()
            self.stage = CdpStage.DECISION
        elif self.stage is CdpStage.DECISION and not waiting:
            self.stage = CdpStage.BANK


def _cdp(aggregate: Aggregate) -> CdpHand:
    assert isinstance(aggregate, CdpHand)
    return aggregate
