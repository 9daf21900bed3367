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
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain.banked import BankedHand
from domain.cards import Card, parse_cards  # noqa: F401  (parse_cards: doctest)
from domain.decks import BackColour, DeckIdentity  # noqa: F401  (BackColour: doctest)
from domain.ids import TABLES_NAMESPACE  # noqa: F401  (doctest)
from domain.paytables import bonus_class
from domain.thb_settings import STANDARD_LIMITS, ThbLimits, ThbRuleError, ThbSettings
from domain.thb_settlement import box_result, dealer_strength, holds_aces, refused_bonus_net

BOXES = 7
__all__ = ["BOXES", "SPOTS", "STANDARD_LIMITS", "Due", "Stage", "ThbHand", "ThbLimits", "ThbRuleError",
           "ThbSettings"]


class Stage(Enum):
    """Where a Texas Hold'em Bonus hand is."""

    BETTING = "betting"  # antes and bonuses, until "no va más"
    DEALING = "dealing"
    PREFLOP = "preflop"  # fold or flop bet (R-THB-5)
    TURN = "turn"  # check or turn bet (R-THB-6)
    RIVER = "river"  # check or river bet
    APPROVAL = "approval"  # a 1000:1 bonus waits for the games director (R-THB-10)
    COMPLETE = "complete"
    VOID = "void"


SPOTS = ("ante", "flop", "turn", "river", "bonus")


@dataclass(frozen=True, slots=True)
class Due:
    """The next card: to a box, to a dealer spot (left or right), burned, or to the board."""

    kind: str
    box: int = 0


class ThbHand(BankedHand):
    """One hand of Texas Hold'em Bonus at a table of up to seven boxes."""

    ID_PREFIX = "thb-hand"
    ERROR = ThbRuleError
    RULE = "R-THB-1"

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
    def start(cls, table_id: UUID, number: int, settings: ThbSettings, deck: DeckIdentity) -> ThbHand:
        """Open a hand for bets (R-THB-1: a 52-card deck)."""
        return cls._open(table_id, number, settings.to_dict(), deck)

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

    # -- bets before the deal (R-THB-2, R-THB-3) ------------------------------------------------------

    def verify_place_ante(self, box: int, amount: int) -> None:
        """R-THB-1, R-THB-2: a box 1–7, before "no va más", once, within the table limits."""
        self._require_stage(Stage.BETTING, "R-THB-3", "bets are placed before the deal")
        if not 1 <= box <= BOXES:
            raise ThbRuleError(f"box {box} is not on the table (1–7)", rule="R-THB-1")
        if box in self.bets:
            raise ThbRuleError(f"box {box} already has an ante", rule="R-THB-1")
        limits = self.settings.limits
        _require_chips(amount, limits.ante_min, limits.ante_max, "ante", "R-THB-2")
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
        _require_chips(amount, limits.bonus_min, limits.bonus_max, "bonus", "R-THB-2")

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
        return _passes(self.verify_dealer_card_shown)

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
        """R-THB-11 (d): a box, or the dealer (``None``), got the wrong number of cards, before the settlement."""
        if self.is_complete or self.stage is Stage.BETTING:
            raise ThbRuleError("no cards are being dealt", rule="R-THB-11")
        if self.stage is Stage.APPROVAL:
            raise ThbRuleError("the boxes are already settled", rule="R-THB-11")
        if box is not None and box not in self.live_boxes:
            raise ThbRuleError(f"box {box} is not in play", rule="R-THB-11")
        if box is not None and correctable:
            raise ThbRuleError("only the croupier's own count may be corrected; a box dealt the wrong number of "
                               "cards has its hand void", rule="R-THB-11")

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

    def approve_bonus(self, box: int, director: str) -> None:
        """R-THB-10: the games director authorises the 1000:1 payment."""
        self.verify_decide_bonus(box)
        _require_name(director, "who approves", "R-THB-10")
        self.trigger_event(self.BonusApproved, box=box, director=director)
        self._complete_if_approved()

    def refuse_bonus(self, box: int, director: str, reason: str) -> None:
        """R-THB-10 (decision, setting ``refused_bonus``): the games director refuses it, an irregularity he found:
        the bonus stake is returned (or, by setting, paid as aces), recorded with who refused and why; nothing else
        of the box changes."""
        self.verify_decide_bonus(box)
        _require_name(director, "who refuses", "R-THB-10")
        _require_name(reason, "why", "R-THB-10")
        self.trigger_event(self.BonusRefused, box=box, director=director, reason=reason)
        self._complete_if_approved()

    def verify_request_reconstruction(self, pit_boss: str, games_director: str, reason: str) -> None:
        """R-THB-13: a finished hand, with the pit boss present and the games director informed."""
        if not self.is_complete:
            raise ThbRuleError("only a finished hand is reconstructed", rule="R-THB-13")
        for text, what in ((pit_boss, "the pit boss"), (games_director, "the games director"), (reason, "why")):
            _require_name(text, what, "R-THB-13")

    def request_reconstruction(self, pit_boss: str, games_director: str, reason: str) -> None:
        """R-THB-13: record who reconstructs the hand for a dispute, who was informed, and why."""
        self.verify_request_reconstruction(pit_boss, games_director, reason)
        self.trigger_event(self.ReconstructionRequested, pit_boss=pit_boss, games_director=games_director,
                           reason=reason)

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

    def _require_stage(self, stage: Stage, rule: str, message: str) -> None:
        if self.stage is not stage:
            raise ThbRuleError(message, rule=rule)

    def _require_decider(self, box: int, stage: Stage | None, rule: str) -> None:
        if stage is not None and self.stage is not stage:
            raise ThbRuleError(f"that decision is not open now ({self.stage.value})", rule=rule)
        if stage is None and self.stage not in (Stage.TURN, Stage.RIVER):
            raise ThbRuleError(f"no turn or river bet is open now ({self.stage.value})", rule=rule)
        deciding = self.to_decide
        if deciding is None:
            raise ThbRuleError(f"no box decides now ({self.stage.value})", rule=rule)
        if deciding != box:
            raise ThbRuleError(f"box {deciding} decides now, not box {box}", rule=rule)

    # -- events ---------------------------------------------------------------------------------------

    class BetPlaced(Aggregate.Event):
        """A bet on a spot of a box: ante, bonus, flop, turn or river."""

        box: int
        spot: str
        amount: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            hand.bets.setdefault(self.box, {})[self.spot] = self.amount
            if self.spot not in {"ante", "bonus"}:
                hand.decided.add(self.box)
                hand._after_decision()

    class Checked(Aggregate.Event):
        """No turn or river bet for the box."""

        box: int
        street: str

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            hand.decided.add(self.box)
            hand._after_decision()

    class Folded(Aggregate.Event):
        """The box folded: its ante is lost, its bonus stays in action."""

        box: int

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            hand.folded.add(self.box)
            hand._after_decision()

    class BetsClosed(Aggregate.Event):
        """"No va más": the deal begins, one card to each box from the croupier's left, then the dealer's left
        spot, a second card to each box, then the dealer's right spot (R-THB-4)."""

        def apply(self, aggregate: Aggregate) -> None:
            hand = _thb(aggregate)
            boxes = hand.boxes
            hand.due = deque([*(Due("box", b) for b in boxes), Due("dealer-left"),
                              *(Due("box", b) for b in boxes), Due("dealer-right")])
            hand.cards = {b: [] for b in boxes}
            hand.stage = Stage.DEALING

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
        """R-THB-10: the games director authorised the payment."""

        box: int
        director: str

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


def _require_chips(amount: int, low: int, high: int, what: str, rule: str) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ThbRuleError("chips are whole numbers", rule=rule)
    if not low <= amount <= high:
        raise ThbRuleError(f"the {what} is {low} to {high}, not {amount}", rule=rule)


def _require_name(text: str, what: str, rule: str) -> None:
    if not isinstance(text, str) or not text.strip() or len(text) > 200:
        raise ThbRuleError(f"{what} is recorded (1–200 characters)", rule=rule)


def _passes(verify: Callable[[], None]) -> bool:
    try:
        verify()
    except ThbRuleError:
        return False
    return True

