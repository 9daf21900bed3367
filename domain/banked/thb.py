"""Texas Hold'em Bonus (RULES §6): each box plays the house; every bet, card, payment, approval and void is an event.

Boxes are numbered 1 to 7 from the croupier's left, where the deal starts (R-THB-4); boxes are opened from 7 down
to 1 (R-THB-7).  Amounts are chips (integers); a box's result per spot is its net: the win (+), 0 for a push, or the
stake lost (−).

>>> hand = ThbHand.start(TABLES_NAMESPACE, 1, ThbSettings(STANDARD_LIMITS[5]), DeckIdentity(52, BackColour.RED))
>>> hand.place_ante(1, 10); hand.place_bonus(1, 5); hand.close_bets()
>>> for card in parse_cards("As Kd Ad Kc"):  # box 1, dealer left, box 1, dealer right
...     hand.deal(card)
>>> hand.flop_bet(1, 20)
>>> for card in parse_cards("2s Ah 7h 9c"):  # burn, flop
...     hand.deal(card)
>>> hand.check(1)
>>> for card in parse_cards("3d 4s"):  # burn, turn
...     hand.deal(card)
>>> hand.street_bet(1, 10)
>>> for card in parse_cards("5d 6c"):  # burn, river
...     hand.deal(card)
>>> hand.results[1], hand.bank_result()
({'ante': 0, 'flop': 20, 'river': 10, 'bonus': 150}, -180)
"""

from __future__ import annotations

from collections import deque
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain.banked.box_hand import BankedHand
from domain.banked.thb_commands import ThbPlay
from domain.banked.thb_irregularities import ThbIrregularities
from domain.banked.thb_settings import STANDARD_LIMITS, ThbLimits, ThbRuleError, ThbSettings
from domain.banked.thb_settlement import refused_bonus_net
from domain.banked.thb_state import BOXES, SPOTS, Due, Stage
from domain.cards.cards import Card, parse_cards  # noqa: F401  (parse_cards: doctest)
from domain.cards.decks import BackColour, DeckIdentity  # noqa: F401  (BackColour: doctest)
from domain.ids import TABLES_NAMESPACE  # noqa: F401  (doctest)

__all__ = ["BOXES", "SPOTS", "STANDARD_LIMITS", "Due", "Stage", "ThbHand", "ThbLimits", "ThbRuleError",
           "ThbSettings"]


class ThbHand(ThbPlay, ThbIrregularities, BankedHand):
    """One hand of Texas Hold'em Bonus at a table of up to seven boxes."""

    ID_PREFIX = "thb-hand"
    ERROR = ThbRuleError
    RULE = "R-THB-1"
    GAME = "holdem-bonus"

    def _house_snapshot(self) -> dict[str, Any]:
        return {"dealer": [str(c) for c in self.dealer], "board": [str(c) for c in self.board],
                "burned": [str(c) for c in self.burned], "discarded": [str(c) for c in self.discarded]}

    def __init__(self, table_id: UUID, number: int, settings: dict[str, Any], deck: dict[str, Any]) -> None:
        self.table_id, self.number, self.deck = table_id, number, dict(deck)
        self.settings = ThbSettings.from_dict(settings)
        self.stage = Stage.BETTING
        self.bets: dict[int, dict[str, int]] = {}
        self.cards: dict[int, list[Card]] = {}
        self.dealer: list[Card] = []
        self.board: list[Card] = []
        self.burned: list[Card] = []
        self.discarded: list[Card] = []
        self.seen: set[Card] = set()
        self.last_shoe_read: int | None = None
        self.due: deque[Due] = deque()
        self.folded: set[int] = set()
        self.decided: set[int] = set()
        self.voided_boxes: dict[int, str] = {}
        self.results: dict[int, dict[str, int]] = {}
        self.pending_approval: set[int] = set()
        self.face_up_found = 0
        self.void_rule: str | None = None
        self.reshuffle_required = False
        self.dealer_turned_for_bonus = False
        self.dealer_card_shown_late = False
        self.reconstructions = 0

    @classmethod
    def start(cls, table_id: UUID, number: int, settings: ThbSettings, deck: DeckIdentity, *,
              hands: UUID | None = None) -> ThbHand:
        """Open a hand for bets (R-THB-1: a 52-card deck). ``hands``: the namespace of the table's hands' ids
        (default: the table's id)."""
        return cls._open(table_id, number, settings.to_dict(), deck, hands)

    # -- queries ------------------------------------------------------------------------------------

    @property
    def boxes(self) -> list[int]:
        """Boxes in play (with an ante), from the croupier's left."""
        return sorted(self.bets)

    @property
    def live_boxes(self) -> list[int]:
        """Boxes still playing against the dealer."""
        return [b for b in self.boxes if b not in self.folded and b not in self.voided_boxes]

    @property
    def next_card(self) -> Due | None:
        """Where the next card from the shoe goes."""
        return self.due[0] if self.stage is Stage.DEALING and self.due else None

    @property
    def to_decide(self) -> int | None:
        """The box whose player decides now (in turn from the croupier's left), or ``None``."""
        if self.stage not in (Stage.PREFLOP, Stage.TURN, Stage.RIVER):
            return None
        return next((b for b in self.live_boxes if b not in self.decided), None)

    @property
    def is_complete(self) -> bool:
        """Settled, or void."""
        return self.stage in (Stage.COMPLETE, Stage.VOID)

    def staked(self) -> int:
        """All chips on the layout (for chip conservation)."""
        return sum(sum(spots.values()) for spots in self.bets.values())

    def bank_result(self) -> int:
        """The house's net result of the settled boxes: what the boxes lost minus what they won."""
        return -sum(sum(result.values()) for result in self.results.values())

    # -- events (BetPlaced, BetsClosed and Folded: declared once for every banked game, domain.banked.box_hand;
    # named here with what they mean at this game, and each said by a hook of the hand) --------------------------

    def _on_bet_placed(self, box: int, spot: str, amount: int) -> None:
        """A bet on a spot of a box: ante, bonus, flop, turn or river."""
        self.bets.setdefault(box, {})[spot] = amount
        if spot not in {"ante", "bonus"}:
            self.decided.add(box)
            self._after_decision()

    def _on_folded(self, box: int) -> None:
        """The box folded: its ante is lost, its bonus stays in action."""
        self.folded.add(box)
        self._after_decision()

    def _on_bets_closed(self) -> None:
        """"No va más": the deal begins, one card to each box from the croupier's left, then the dealer's left spot,
        a second card to each box, then the dealer's right spot (R-THB-4)."""
        boxes = self.boxes
        self.due = deque([*(Due("box", b) for b in boxes), Due("dealer-left"),
                          *(Due("box", b) for b in boxes), Due("dealer-right")])
        self.cards = {b: [] for b in boxes}
        self.stage = Stage.DEALING

    class BetPlaced(BankedHand.BetPlaced):
        """A bet on a spot of a box: ante, bonus, flop, turn or river."""

    class Folded(BankedHand.Folded):
        """The box folded: its ante is lost, its bonus stays in action."""

    class BetsClosed(BankedHand.BetsClosed):
        """"No va más": the deal begins, one card to each box from the croupier's left, then the dealer's left
        spot, a second card to each box, then the dealer's right spot (R-THB-4)."""

    class Checked(Aggregate.Event):
        """No turn or river bet for the box."""

        box: int
        street: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            hand.decided.add(self.box)
            hand._after_decision()

    class CardDealt(Aggregate.Event):
        """A card from the shoe or the croupier, to a box, a dealer spot, the burn or the board."""

        kind: str
        box: int
        card: str
        source: str
        sequence: int | None

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            card = Card.parse(self.card)
            hand.due.popleft()
            hand.seen.add(card)
            if self.source == "shoe":
                hand.last_shoe_read = self.sequence
            if self.kind == "box":
                hand.cards[self.box].append(card)
            elif self.kind.startswith("dealer"):
                hand.dealer.append(card)
            elif self.kind == "burn":
                hand.burned.append(card)
            else:
                hand.board.append(card)
            if not hand.due:
                hand._after_cards()

    class FaceUpCardDiscarded(Aggregate.Event):
        """R-THB-11: a card found face up in the deck, not used."""

        card: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            card = Card.parse(self.card)
            hand.seen.add(card)
            hand.discarded.append(card)
            hand.face_up_found += 1

    class BoxVoided(Aggregate.Event):
        """A box's hand is void: its bets are returned (R-THB-11 d); ``reshuffle``: a full reshuffle is required
        before the next hand.  Version 2 added ``reshuffle``; stored version-1 events did not require one."""

        class_version = 2
        box: int
        rule: str
        reshuffle: bool

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Events stored before the reshuffle was recorded: none was required then."""
            state["reshuffle"] = False

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            hand.voided_boxes[self.box] = self.rule
            hand.reshuffle_required = hand.reshuffle_required or self.reshuffle
            hand.due = deque(due for due in hand.due if due.box != self.box)
            if hand.stage is Stage.DEALING and not hand.due:
                hand._after_cards()
            else:
                hand._after_decision()

    class DealerCardShown(Aggregate.Event):
        """R-THB-11 (a): a croupier's card shown after every box's last decision: it counts, play goes on."""

        rule: str
        counts: bool

        def apply(self, aggregate: Aggregate) -> None:
            _thb(aggregate).dealer_card_shown_late = True

    class DealerCardsTurnedForBonus(Aggregate.Event):
        """R-THB-12 (decision): nobody plays, but these boxes' A-A bonuses are in action: the croupier's two cards
        are turned for the bonus alone, so the 1000:1 can be judged (R-THB-9)."""

        boxes: list[int]

        def apply(self, aggregate: Aggregate) -> None:
            _thb(aggregate).dealer_turned_for_bonus = True

    class DealerCountCorrected(Aggregate.Event):
        """R-THB-11: the dealer's wrong count was corrected without changing the card sequence."""

        def apply(self, aggregate: Aggregate) -> None:
            del aggregate

    class BoxSettled(Aggregate.Event):
        """A box opened and paid: the net result of each spot, and the bonus outcome."""

        box: int
        result: dict[str, int]
        bonus_class: str | None

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            hand.results[self.box] = dict(self.result)
            pays = hand.settings.bonus_table
            if self.bonus_class is not None and pays.pays[self.bonus_class] > pays.approval_over:
                hand.pending_approval.add(self.box)
                hand.stage = Stage.APPROVAL

    class BonusApproved(Aggregate.Event):
        """R-THB-10: the games director authorised the payment, and what he checked."""

        box: int
        director: str
        reason: str
        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Approvals stored before issue 32 recorded no reason."""
            state["reason"] = ""

        def apply(self, aggregate: Aggregate) -> None:
            _thb(aggregate).pending_approval.discard(self.box)

    class BonusRefused(Aggregate.Event):
        """R-THB-10: the games director refused the payment; the bonus stake is returned."""

        box: int
        director: str
        reason: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            hand.pending_approval.discard(self.box)
            stake = hand.bets[self.box]["bonus"]
            hand.results[self.box]["bonus"] = refused_bonus_net(stake, hand.settings)

    class Completed(Aggregate.Event):
        """Every box is paid; the house's net result."""

        bank_result: int

        def apply(self, aggregate: Aggregate) -> None:
            _thb(aggregate).stage = Stage.COMPLETE

    class ReconstructionRequested(Aggregate.Event):
        """R-THB-13: a dispute reconstruction, before the pit boss, the games director informed."""

        pit_boss: str
        games_director: str
        reason: str

        def apply(self, aggregate: Aggregate) -> None:
            _thb(aggregate).reconstructions += 1

    class Voided(Aggregate.Event):
        """The hand is void: every bet is returned (R-THB-11)."""

        rule: str
        reason: str
        reshuffle: bool

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            hand.stage = Stage.VOID
            hand.void_rule = self.rule
            hand.reshuffle_required = self.reshuffle
            hand.due.clear()

    # -- flow (called from events) --------------------------------------------------------------------

    def _after_cards(self) -> None:
        streets = {0: Stage.PREFLOP, 3: Stage.TURN, 4: Stage.RIVER}
        if len(self.board) in streets and not (len(self.board) == 0 and len(self.dealer) < 2):
            self.stage = streets[len(self.board)]
            self.decided = set()
            if not self.live_boxes or self.to_decide is None:
                self._after_decision()

    def _after_decision(self) -> None:
        if self.to_decide is not None or self.stage not in (Stage.PREFLOP, Stage.TURN, Stage.RIVER):
            return
        if self.stage is Stage.PREFLOP and not self.live_boxes:
            return  # R-THB-12: settled at once, nobody plays
        count = {Stage.PREFLOP: 3, Stage.TURN: 1, Stage.RIVER: 1}[self.stage]
        self.due = deque([Due("burn"), *(Due("board") for _ in range(count))])  # R-THB-6: burn, then the cards
        self.stage = Stage.DEALING


def _thb(aggregate: Aggregate) -> ThbHand:
    assert isinstance(aggregate, ThbHand)
    return aggregate

