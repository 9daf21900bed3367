"""The state of one circle-poker hand and its rules: dealing, betting, showdown (RULES §2, §4, §5).

:class:`HandState` knows whose turn it is, what each player may do and for how much, what is in each pot,
and who wins what.  It is driven by the :class:`domain.hand.Hand` aggregate: every ``verify_*`` method raises a
:class:`HandRuleError` naming the rule an action would break and changes nothing; every ``apply_*`` method is the
mutation of one event and never fails for an action its ``verify_*`` accepted.

Positions, not seat numbers, index the players: position 0 is the first player clockwise from the button (in stud,
the first from the croupier's left), and the button is the last position.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import Enum

from domain.cards import Card, Rank
from domain.decks import lowest_rank
from domain.errors import RuleError
from domain.hand_classes import Category, rank_name
from domain.hand_rules import HAND_RULES, HandRule
from domain.pots import Pot, rake_for, side_pots, split
from domain.ranking import HandRanking, HandValue, hand_ranking
from domain.stud import best_exposed, highest_up_card, lowest_up_card, shows_open_pair
from domain.table_settings import AntePot, BettingStructure, MinRaise, ShowdownOrder, TableSettings
from domain.variants import DiscardRule, Opening, Street, Variant


class HandRuleError(RuleError):
    """A command the rules do not allow now; the hand is unchanged."""


class Phase(Enum):
    """Where the hand is."""

    DEALING = "dealing"
    BETTING = "betting"
    DRAWING = "drawing"
    SHOWDOWN = "showdown"
    PASSED = "passed"  # blank hand, or a false opener left nobody to claim: the pot carries (R-DRAW-3, R-DRAW-7)
    COMPLETE = "complete"
    VOID = "void"


class SlotKind(Enum):
    """What the next card from the shoe is for."""

    BURN = "burn"
    HOLE = "hole"
    BOARD = "board"


@dataclass(frozen=True, slots=True)
class Slot:
    """The place of the next card: a burn, a player's card (up or down), or a board card."""

    kind: SlotKind
    position: int = -1
    face_up: bool = False


@dataclass(frozen=True, slots=True)
class Award:
    """One pot as awarded: amount, rake and each winner's share (positions)."""

    pot: Pot
    rake: int
    shares: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the player to act may do, with the amounts (what a dealer screen enables)."""

    seat: int
    fold: bool
    check: bool
    call: int | None
    bring_in: int | None
    raise_min: int | None
    raise_max: int | None


@dataclass
class HandState:
    """A circle-poker hand in progress."""

    settings: TableSettings
    stacks: list[int]
    deck_size: int = 0
    openers: Rank = Rank.JACK
    dead_money: int = 0
    seats: list[int] = field(default_factory=list)
    """Seat numbers by position, for messages (positions when empty)."""
    variant: Variant = field(init=False)
    ranking: HandRanking = field(init=False)
    hand_rule: HandRule = field(init=False)
    n: int = field(init=False)
    bets: list[int] = field(init=False)
    contributed: list[int] = field(init=False)
    antes: list[int] = field(init=False)
    """Each position's ante, part of ``contributed`` (dead money in the main pot under ``ante_pot = main``)."""
    uncalled: list[int] = field(init=False)
    """The part of ``contributed`` bet in an interval and matched by nobody in it: it comes back to the bettor."""
    folded: list[bool] = field(init=False)
    hole: list[list[tuple[Card, bool]]] = field(init=False)
    board: list[Card] = field(init=False)
    burned: list[Card] = field(init=False)
    seen: set[Card] = field(init=False)
    next_card_up: set[int] = field(init=False)
    phase: Phase = Phase.DEALING
    street_index: int = 0
    slots: deque[Slot] = field(init=False)
    queue: deque[int] = field(init=False)
    raise_increment: int = 0
    raise_count: int = 0
    acted: set[int] = field(init=False)
    short_all_ins: list[int] = field(init=False)
    bring_in_pending: bool = False
    last_aggressor: int | None = None
    """The last player to bet or raise in the current interval (R-CIRC-13)."""
    completion_pending: bool = False
    betting_closed: bool = False
    shown: dict[int, bool] = field(init=False)
    awards: list[Award] = field(init=False)
    void_rule: str | None = None
    opener: int | None = None
    drawers: deque[int] = field(init=False)
    discards: list[Card] = field(init=False)
    opener_discards: list[Card] = field(init=False)
    carried: int = 0
    passed_rule: str | None = None
    drawer_discards: list[Card] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.variant = self.settings.variant_rules
        self.deck_size = self.deck_size or self.settings.deck_size
        self.ranking = hand_ranking(self.deck_size, self.settings.flush_beats_full_house)
        self.hand_rule = HAND_RULES[self.variant.hand_rule]
        self.n = len(self.stacks)
        if not 2 <= self.n <= 10:
            raise HandRuleError(f"a circle hand needs 2 to 10 players, not {self.n}", rule="R-CIRC-2")
        if problem := self.variant.players_problem(self.n):
            raise HandRuleError(problem[0], rule=problem[1])
        if self.dead_money < 0:
            raise HandRuleError("a carried pot is never negative", rule="R-DRAW-3")
        if any(stack <= 0 for stack in self.stacks):
            raise HandRuleError("every player dealt in has chips (table stakes)", rule="R-CIRC-6")
        self.stacks = list(self.stacks)
        self.bets = [0] * self.n
        self.contributed = [0] * self.n
        self.antes = [0] * self.n
        self.uncalled = [0] * self.n
        self.folded = [False] * self.n
        self.hole = [[] for _ in range(self.n)]
        self.board, self.burned = [], []
        self.seen, self.next_card_up, self.acted = set(), set(), set()
        self.slots, self.queue = deque(), deque()
        self.short_all_ins = []
        self.shown, self.awards = {}, []
        self.drawers = deque()
        self.discards, self.opener_discards = [], []

    # -- queries ------------------------------------------------------------------------------------

    def name(self, position: int) -> str:
        """How a player is named in messages: ``seat 4``."""
        return f"seat {self.seats[position]}" if self.seats else f"position {position}"

    @property
    def street(self) -> Street:
        """The current street."""
        return self.variant.streets[self.street_index]

    @property
    def actor(self) -> int | None:
        """The position to act, or ``None`` outside betting."""
        return self.queue[0] if self.phase is Phase.BETTING and self.queue else None

    @property
    def bet_to(self) -> int:
        """The highest bet of this interval."""
        return max(self.bets)

    @property
    def pot_total(self) -> int:
        """All chips put in this hand, bets of this interval included."""
        return sum(self.contributed)

    @property
    def in_hand(self) -> list[int]:
        """Positions that have not folded."""
        return [i for i in range(self.n) if not self.folded[i]]

    @property
    def next_slot(self) -> Slot | None:
        """Where the next card goes, or ``None`` when no card is due."""
        return self.slots[0] if self.phase in (Phase.DEALING, Phase.DRAWING) and self.slots else None

    @property
    def stock_left(self) -> int:
        """Cards not yet dealt or burned."""
        return self.deck_size - len(self.seen)

    def up_cards(self, position: int) -> list[Card]:
        """A player's face-up cards."""
        return [card for card, up in self.hole[position] if up]

    def cards_of(self, position: int) -> list[Card]:
        """A player's cards, up and down."""
        return [card for card, _ in self.hole[position]]

    def _require_actor(self, position: int) -> None:
        if self.phase is not Phase.BETTING or not self.queue:
            raise HandRuleError("no betting interval is open", rule="R-CIRC-3")
        if self.queue[0] != position:
            turn = f"it is {self.name(self.queue[0])}'s turn, not {self.name(position)}'s"
            raise HandRuleError(turn, rule="R-CIRC-3")

    def _can_raise_reason(self, position: int) -> str | None:
        """Why the player may not complete, bet or raise now (``None`` if he may)."""
        to_call = self.bet_to - self.bets[position]
        if self.bring_in_pending:
            return None
        reopens = self.settings.min_raise is MinRaise.ANY  # R-CIRC-3b setting: every raise reopens the betting
        if to_call < self.raise_increment and not reopens:
            return "a short all-in cannot be raised by a player who already acted"
        if self.settings.raise_cap is not None and self.raise_count >= self.settings.raise_cap \
                and self.settings.structure is BettingStructure.FIXED_LIMIT and len(self.in_hand) > 2:
            return f"the interval is capped at {self.settings.raise_cap} bets and raises"
        if self.short_all_ins and sum(self.short_all_ins) < self.raise_increment and position in self.acted \
                and not reopens:
            return "an all-in below a full raise does not reopen the betting (R-CIRC-3b, decision: min_raise standard)"
        if self.stacks[position] <= to_call:
            return "the player cannot cover more than a call"
        if not any(i != position and not self.folded[i] and self.stacks[i] + self.bets[i] > self.bet_to
                   for i in range(self.n)):
            return "every other player has folded or is all-in"
        return None

    def _street_min_bet(self) -> int:
        stakes = self.settings.stakes
        if self.settings.structure is BettingStructure.FIXED_LIMIT:
            return stakes.big_bet if self.street.big_bet else stakes.small_bet
        return stakes.min_bet

    def raise_range(self, position: int) -> tuple[int, int]:
        """The smallest and largest legal 'to' amounts of a bet, raise or completion (R-CIRC-5)."""
        cap = self.stacks[position] + self.bets[position]
        increment = max(self.raise_increment, self._street_min_bet())
        if self.settings.min_raise is MinRaise.ANY and self.bet_to and not self.completion_pending and \
                self.settings.structure is not BettingStructure.FIXED_LIMIT:
            increment = 1  # R-CIRC-3b setting ``any``: a raise of at least one chip (the first bet stays the minimum)
        low = increment if self.completion_pending else self.bet_to + increment
        structure = self.settings.structure
        if structure is BettingStructure.FIXED_LIMIT:
            high = low
            if self._big_bet_option():
                high = self.bet_to + self.settings.stakes.big_bet
        elif structure is BettingStructure.POT_LIMIT:
            high = max(low, 2 * self.bet_to - self.bets[position] + self.pot_total)
        else:
            high = cap
        return min(low, cap), min(high, cap)

    def _big_bet_option(self) -> bool:
        """R-STUD7-1: on 4th street, with an open pair showing, the first bet may be a big bet."""
        return (self.variant.open_pair_big_bet and self.street_index == 1 and self.raise_count == 0
                and shows_open_pair([self.up_cards(i) for i in self.in_hand]))

    def legal_actions(self, seats: list[int] | None = None) -> LegalActions | None:
        """The actions open to the player to act, with their amounts; ``None`` outside betting.

        ``seat`` is the seat number from ``seats`` (by position), or the position itself without them."""
        position = self.actor
        if position is None:
            return None
        seat = seats[position] if seats is not None else position
        to_call = min(self.bet_to - self.bets[position], self.stacks[position])
        can_raise = self._can_raise_reason(position) is None
        low, high = self.raise_range(position) if can_raise else (None, None)
        if self.bring_in_pending:
            return LegalActions(seat, False, False, None, min(self.settings.stakes.bring_in, self.stacks[position]),
                                low, high)
        can_fold = not (self.street.needs_openers and self.opener is None)
        if low is not None and self.street.needs_openers and self.opener is None \
                and not self.has_openers(self.cards_of(position)):
            low = high = None  # R-DRAW-2: no openers, no opening bet
        return LegalActions(seat, can_fold, to_call == 0, to_call if to_call > 0 else None, None, low, high)

    # -- verification -------------------------------------------------------------------------------

    def verify_fold(self, position: int) -> None:
        """R-CIRC-3: a player folds in turn; the bring-in must be posted first; before anyone opens, one checks."""
        self._require_actor(position)
        if self.bring_in_pending:
            raise HandRuleError("the lowest up card must bring in or complete", rule="R-STUD7-1")
        if self.street.needs_openers and self.opener is None:
            raise HandRuleError("nobody has opened: check (pass) instead of folding", rule="R-DRAW-2")

    def verify_check(self, position: int) -> None:
        """R-CIRC-3: checking only while nobody has bet in this interval."""
        self._require_actor(position)
        if self.bring_in_pending:
            raise HandRuleError("the lowest up card must bring in or complete", rule="R-STUD7-1")
        if self.bets[position] < self.bet_to:
            raise HandRuleError("cannot check: there is a bet to call", rule="R-CIRC-3")

    def verify_call(self, position: int) -> int:
        """R-CIRC-3 / R-CIRC-6: calling what is owed, or all-in for less; returns the chips put in."""
        self._require_actor(position)
        if self.bring_in_pending:
            raise HandRuleError("the lowest up card must bring in or complete", rule="R-STUD7-1")
        owed = self.bet_to - self.bets[position]
        if owed <= 0:
            raise HandRuleError("nothing to call: check instead", rule="R-CIRC-3")
        return min(owed, self.stacks[position])

    def verify_bring_in(self, position: int) -> int:
        """R-STUD7-1: the lowest up card brings in (all-in for less if short); returns the amount."""
        self._require_actor(position)
        if not self.bring_in_pending:
            raise HandRuleError("no bring-in is due", rule="R-STUD7-1")
        return min(self.settings.stakes.bring_in, self.stacks[position])

    def verify_raise_to(self, position: int, amount: int) -> None:
        """R-CIRC-3 / R-CIRC-4 / R-CIRC-5 / R-CIRC-6: bet, raise or complete to ``amount`` in total this interval."""
        self._require_actor(position)
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise HandRuleError("chips are whole numbers", rule="R-CIRC-5")
        reason = self._can_raise_reason(position)
        if reason is not None:
            raise HandRuleError(f"cannot raise: {reason}", rule="R-CIRC-4" if "capped" in reason else "R-CIRC-6")
        low, high = self.raise_range(position)
        if amount > self.stacks[position] + self.bets[position]:
            raise HandRuleError(f"{amount} is more than the player has ({self.stacks[position]} behind)",
                                rule="R-CIRC-6")
        if not low <= amount <= high:
            structure = self.settings.structure.value
            if low == high:
                raise HandRuleError(f"in {structure} the bet here is exactly {low}", rule="R-CIRC-5")
            raise HandRuleError(f"in {structure} the bet here is {low} to {high}, not {amount}", rule="R-CIRC-5")
        if self.settings.structure is BettingStructure.FIXED_LIMIT and high > low and amount not in (low, high):
            raise HandRuleError(f"the bet is {low} or {high}", rule="R-STUD7-1")
        if self.street.needs_openers and self.opener is None and not self.has_openers(self.cards_of(position)):
            raise HandRuleError(f"opening needs a pair of {rank_name(self.openers, plural=True)} or better",
                                rule="R-DRAW-2" if self.openers is Rank.JACK else "R-DRAW-3")

    def has_openers(self, cards: list[Card]) -> bool:
        """Whether five cards hold the openers in force: a pair of ``openers`` or better (R-DRAW-2, R-DRAW-3)."""
        value = self.ranking.evaluate(cards)
        if value.category is Category.PAIR:
            return value.hand_class.ranks[0] >= self.openers
        return value.category > Category.PAIR

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

    def verify_show(self, position: int) -> None:
        """Showing is open once the betting is over for good (showdown, or all-in before the last card); at the
        showdown in the order of R-CIRC-13."""
        self._require_contender(position)
        self._require_turn_to_show(position)

    def verify_muck(self, position: int) -> None:
        """A contender may muck unless he is the last claim on a pot; the opener in five-card draw always may,
        at the price of a dead hand (R-DRAW-7)."""
        self._require_contender(position)
        self._require_turn_to_show(position)
        if position == self.opener:
            return
        for pot in self.pots():
            if position in pot.eligible and len(pot.eligible) > 1 and not any(
                    p != position and self.shown.get(p, True) for p in pot.eligible):
                raise HandRuleError("the last player with a claim on a pot shows his hand", rule="R-CIRC-7")

    @property
    def to_show(self) -> int | None:
        """R-CIRC-13 (decision): the position to show (or muck) next at the showdown: the last player to bet or
        raise in the last interval, then clockwise; with no bet in it, the player still in who would speak first
        in that interval (the opener after the draw, R-DRAW-6; else the first clockwise from position 0: la mano,
        the player left of the button, or in stud the croupier's left).  ``None`` outside the showdown."""
        if self.phase is not Phase.SHOWDOWN or self.settings.showdown_order is ShowdownOrder.ANY:
            return None
        waiting = [p for p in self.in_hand if p not in self.shown]
        if len(self.in_hand) <= 1 or not waiting:
            return None
        if self.last_aggressor is not None:
            start = self.last_aggressor
        elif self.street.opening is Opening.OPENER and self.opener is not None:
            start = self.opener
        else:
            start = 0
        return next(p for p in ((start + k) % self.n for k in range(self.n)) if p in waiting)

    def _require_turn_to_show(self, position: int) -> None:
        if self.settings.showdown_order is ShowdownOrder.ANY:
            return
        turn = self.to_show
        if turn is not None and turn != position:
            raise HandRuleError(f"{self.name(turn)} shows first (decision: the last to bet or raise shows first, then "
                                "clockwise)", rule="R-CIRC-13")

    def _require_contender(self, position: int) -> None:
        if self.phase is Phase.SHOWDOWN or (self.betting_closed and self.phase is Phase.DEALING):
            if self.folded[position]:
                raise HandRuleError("a folded player has no hand to show", rule="R-CIRC-3")
            if position in self.shown:
                raise HandRuleError("the player has already shown or mucked", rule="R-CIRC-7")
            return
        raise HandRuleError("hands are shown only at the showdown", rule="R-CIRC-9")

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

    # -- mutations (event handlers) ------------------------------------------------------------------

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

    def _next_drawer(self) -> None:
        """The last discarder is served; when every player still in has discarded, the street's deal (none in
        five-card draw), then its interval (R-DRAW-6, decision: the second interval starts with the opener)."""
        self.drawer_discards = []
        if not self.drawers:
            self._deal_street()

    def forced_bets(self) -> tuple[list[int], list[int]]:
        """The ante and the blind or straddle each position posts (R-CIRC-2, R-FLOP-1): the ante first, then the
        blind from what is left of the stack; a player who cannot cover them is all-in for what he has.  Under the
        decision ``ante_pot = matched`` the part of an ante above every other player's is never matched and stays
        with him (the blind is still the one owed after the whole ante: pokerkit's order, so PHH replays agree)."""
        antes = [min(self.ante_for(p), self.stacks[p]) for p in range(self.n)]
        blinds = [min(self.blind_for(p), self.stacks[p] - antes[p]) for p in range(self.n)]
        if self.settings.ante_pot is AntePot.MATCHED:
            matched = sorted(antes)[-2]
            antes = [min(ante, matched) for ante in antes]
        return antes, blinds

    def apply_forced_bet(self, position: int, amount: int, *, ante: bool) -> None:
        """An ante or a blind/straddle, posted before the deal (R-CIRC-2)."""
        self.stacks[position] -= amount
        self.contributed[position] += amount
        if ante:
            self.antes[position] += amount
        else:
            self.bets[position] += amount

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

    def apply_fold(self, position: int) -> None:
        """R-CIRC-3: the player forfeits every bet made."""
        self.folded[position] = True
        if self.queue and self.queue[0] == position:
            self.queue.popleft()
        else:
            self.queue = deque(i for i in self.queue if i != position)
        self.acted.add(position)
        self._after_action()

    def apply_check(self, position: int) -> None:
        """R-CIRC-3: check."""
        self.queue.popleft()
        self.acted.add(position)
        self._after_action()

    def apply_call(self, position: int, amount: int) -> None:
        """R-CIRC-3: call (all-in for less when short, R-CIRC-6)."""
        self._move(position, amount)
        self.queue.popleft()
        self.acted.add(position)
        self._after_action()

    def apply_bring_in(self, position: int, amount: int) -> None:
        """R-STUD7-1: the bring-in; the others may call it or complete."""
        self._move(position, amount)
        self.bring_in_pending = False
        self.queue.popleft()
        self.acted.add(position)
        self._after_action()

    def apply_raise_to(self, position: int, amount: int) -> None:
        """A bet, raise or completion to ``amount``; the others must act again."""
        if self.street.needs_openers and self.opener is None:
            self.opener = position  # R-DRAW-2: the first bet opens
        increment = amount - self.bet_to
        self._move(position, amount - self.bets[position])
        self.bring_in_pending = False
        self.completion_pending = False
        self.raise_count += 1
        self.last_aggressor = position  # R-CIRC-13: the last to bet or raise in the last interval shows first
        if increment >= self.raise_increment or self.settings.min_raise is MinRaise.ANY:
            self.acted = {position}
        else:
            self.acted.add(position)
        self.raise_increment = max(self.raise_increment, increment)
        if self.stacks[position]:
            self.short_all_ins.clear()
        else:
            self.short_all_ins.append(increment)
            if sum(self.short_all_ins) >= self.raise_increment:
                self.short_all_ins.clear()
        order = [(position + k) % self.n for k in range(1, self.n)]
        self.queue = deque(i for i in order if not self.folded[i] and self.stacks[i])
        self._after_action()

    def apply_show(self, position: int) -> None:
        """The player shows his cards; they are all face up now."""
        self.shown[position] = True
        self.hole[position] = [(card, True) for card, _ in self.hole[position]]

    def apply_muck(self, position: int) -> None:
        """The player gives up his claim without showing."""
        self.shown[position] = False

    def apply_exposed_by_mistake(self, position: int) -> None:
        """R-CIRC-9: the card is covered again and the hand stays valid; his next personal card that would be dealt
        face down is dealt face up, in every game (draw: his first replacement card; stud: his next down card;
        Hold'em, Omaha, sintético: his next hole card if the deal is not over)."""
        self.next_card_up.add(position)

    def apply_award(self, award: Award) -> None:
        """A pot paid to its winners, less the rake."""
        for position, amount in award.shares:
            self.stacks[position] += amount
        self.awards.append(award)

    def apply_complete(self) -> None:
        """Every pot is paid."""
        self.phase = Phase.COMPLETE
        self.queue.clear()
        self.slots.clear()

    def apply_void(self, rule: str) -> None:
        """The hand is void: every chip put in goes back (e.g. R-DECK-4 irregularities)."""
        for position in range(self.n):
            self.stacks[position] += self.contributed[position]
            self.contributed[position] = 0
            self.bets[position] = 0
        self.phase = Phase.VOID
        self.void_rule = rule
        self.queue.clear()
        self.slots.clear()

    def _move(self, position: int, amount: int) -> None:
        self.stacks[position] -= amount
        self.bets[position] += amount
        self.contributed[position] += amount

    # -- flow ---------------------------------------------------------------------------------------

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

    def _begin_betting(self) -> None:
        self.raise_increment = 0
        self.last_aggressor = None
        # R-CIRC-4: before the flop the big blind is the interval's first bet
        self.raise_count = 1 if self.street_index == 0 and any(self.bets) else 0
        self.acted.clear()
        self.short_all_ins.clear()
        if self.betting_closed:
            self._end_betting()
            return
        opener = self._opener()
        order = [(opener + k) % self.n for k in range(self.n)]
        self.queue = deque(i for i in order if not self.folded[i] and self.stacks[i] and self._can_be_matched(i))
        first = self.street_index == 0 and self.street.opening in (Opening.BRING_IN, Opening.HIGH_CARD)
        self.bring_in_pending = first and self.settings.stakes.bring_in > 0
        self.completion_pending = self.bring_in_pending
        self.phase = Phase.BETTING
        if not self.queue or (len(self.queue) == 1 and self.bets[self.queue[0]] >= self.bet_to):
            self._end_betting()  # nobody to act, or one player alone who has nobody to bet against

    def _opener(self) -> int:
        players = self.in_hand
        match self.street.opening:
            case Opening.POSITION:
                if self.street_index == 0 and any(self.settings.stakes.blinds):
                    blinds = [self._blind(p) for p in range(self.n)]
                    biggest = max(range(self.n), key=lambda p: (self.bets[p] if blinds[p] else 0, p))
                    return (biggest + 1) % self.n
                return 0
            case Opening.BRING_IN:
                ups = [self.up_cards(p) if not self.folded[p] else [] for p in range(self.n)]
                return lowest_up_card(ups)
            case Opening.HIGH_CARD:
                ups = [self.up_cards(p) if not self.folded[p] else [] for p in range(self.n)]
                if self.settings.stakes.bring_in:  # R-STUD5-3 setting: the lowest up card brings in
                    return lowest_up_card(ups)
                return highest_up_card(ups)
            case Opening.OPENER:  # R-DRAW-6: the opener, or the first player still in after him
                start = self.opener if self.opener is not None else 0
                return next(p for p in ((start + k) % self.n for k in range(self.n)) if not self.folded[p])
            case Opening.BEST_EXPOSED:
                return best_exposed([self.up_cards(p) if p in players else [] for p in range(self.n)])
        raise AssertionError(self.street.opening)  # pragma: no cover

    def ante_for(self, position: int) -> int:
        """The ante this position owes; heads-up the two are swapped like the blinds (a big-blind ante stays with the
        big blind), as PHH and pokerkit list them."""
        stakes = self.settings.stakes
        return stakes.ante(self.n - 1 - position) if self.n == 2 else stakes.ante(position)

    def _blind(self, position: int) -> int:
        """The blind a position posts; heads-up the button posts the small blind (reversed order)."""
        stakes = self.settings.stakes
        return stakes.blind(self.n - 1 - position) if self.n == 2 else stakes.blind(position)

    def blind_for(self, position: int) -> int:
        """The blind or straddle this position must post (R-CIRC-2)."""
        return self._blind(position)

    def _after_action(self) -> None:
        """The interval ends when one player is left or every player due to act has acted: a player who has not
        acted yet keeps his turn even when nobody is left to bet against him (the big blind's option: he checks)."""
        if len(self.in_hand) <= 1 or not self.queue:
            self._end_betting()

    def _can_be_matched(self, position: int) -> bool:
        """Another player still in could put in more than this player's bet: acting can change something for him.
        A player whose bet already covers every other player's chips is not asked to act (pokerkit plays the same)."""
        return any(self.stacks[i] + self.bets[i] > self.bets[position] for i in self.in_hand if i != position)

    def _end_betting(self) -> None:
        matched, top = sorted(self.bets)[-2:]
        if top > matched:  # the part of the last bet nobody matched in this interval goes back to its bettor
            self.uncalled[self.bets.index(top)] += top - matched
        self.queue.clear()
        self.bring_in_pending = self.completion_pending = False
        if self.street.needs_openers and self.opener is None:
            self.phase = Phase.PASSED  # R-DRAW-3: everybody checked, a blank hand
            return
        if len(self.in_hand) <= 1:
            self.phase = Phase.SHOWDOWN
            return
        if sum(1 for p in self.in_hand if self.stacks[p]) <= 1:
            self.betting_closed = True
        if self.street_index + 1 < len(self.variant.streets):
            self.bets = [0] * self.n
            self._begin_street(self.street_index + 1)
        else:
            self.phase = Phase.SHOWDOWN

    # -- settlement ---------------------------------------------------------------------------------

    @property
    def ready_to_settle(self) -> bool:
        """Everything is decided: one player left (R-CIRC-7) or every contender has shown or mucked."""
        if self.phase is not Phase.SHOWDOWN:
            return False
        players = self.in_hand
        return len(players) <= 1 or all(p in self.shown for p in players)

    def value_of(self, position: int) -> HandValue:
        """The best hand of a player (R-CARD-6, R-CARD-7); in stud, a community card counts for everyone."""
        own = self.cards_of(position)
        if self.hand_rule.board_cards == (0,):
            return self.ranking.evaluate([*own, *self.board])
        return self.hand_rule.evaluate(self.ranking, own, self.board)

    def strength_of(self, position: int) -> int:
        """The strength of a player's best hand (the fast path of :meth:`value_of`)."""
        own = [card.code for card, _ in self.hole[position]]
        board = [card.code for card in self.board]
        rule = self.hand_rule
        if rule.own_used is None or rule.board_used is None:
            return self.ranking.strength(own + board)
        return self.ranking.strength_split(own, board, rule.own_used, rule.board_used)

    def pots(self) -> list[Pot]:
        """The main pot and side pots of the chips put in this hand (R-CIRC-6): the antes as matched chips, or as dead
        money in the main pot (decision, setting ``ante_pot``); then each bet nobody matched in its interval, which
        simply comes back (with unequal antes a player's total can exceed another's without any bet being uncalled).
        Decision: chips that only players who folded reached (unequal antes) join the highest pot a player still in
        reached (pokerkit burns them)."""
        put = [c - u for c, u in zip(self.contributed, self.uncalled, strict=True)]
        main = self.settings.ante_pot is AntePot.MAIN
        dead = [min(a, c) for a, c in zip(self.antes, put, strict=True)] if main else []
        pots: list[Pot] = []
        for pot in side_pots(put, self.folded, dead):
            if pot.eligible or not self.in_hand:
                pots.append(pot)
            elif pots:  # chips only folded players reached (unequal antes) join the highest pot a player still in
                last = pots[-1]  # reached; the last player in wins them all (R-CIRC-7)
                pots[-1] = Pot(last.amount + pot.amount, last.eligible,
                               tuple(sorted({*last.contributors, *pot.contributors})), last.carried_in)
            else:
                pots.append(Pot(pot.amount, tuple(self.in_hand), pot.contributors))
        return pots + [Pot(amount, (p,), (p,)) for p, amount in enumerate(self.uncalled) if amount]

    def settlement(self) -> tuple[list[Award], int]:
        """Each pot with its rake and winners (R-CIRC-6, R-CIRC-7, R-CIRC-11, R-CIRC-12), and the chips that carry
        to the next hand because nobody is left to claim them (R-DRAW-7)."""
        pots = self.pots()
        if self.dead_money:  # a pot carried from earlier hands joins the main pot
            first = pots[0] if pots else Pot(0, tuple(self.in_hand), ())
            pots[:1] = [Pot(first.amount + self.dead_money, first.eligible, first.contributors, self.dead_money)]
        values = {p: self.strength_of(p) for p in self.in_hand if self.shown.get(p)} if len(self.in_hand) > 1 else {}
        cap_left = self.settings.rake.cap
        awards = []
        carried = 0
        for pot in pots:
            if not pot.contested:  # an uncalled bet goes back to the player who made it
                awards.append(Award(pot, 0, ((pot.contributors[0], pot.amount),)))
                continue
            if not pot.eligible:  # nobody left to claim it (a false opener's dead hand, R-DRAW-7): it carries
                carried += pot.amount
                continue
            claims = [p for p in pot.eligible if self.shown.get(p, True)]
            if not claims and self.opener in pot.eligible:  # R-DRAW-7: the opener did not show; nobody else claims
                carried += pot.amount
                continue
            claims = claims or list(pot.eligible)
            rake = rake_for(pot.amount, self.settings.rake.percent, cap_left)
            cap_left -= rake
            if len(claims) > 1:
                best = max(values[p] for p in claims)
                winners = [p for p in claims if values[p] == best]
            else:
                winners = claims
            awards.append(Award(pot, rake, tuple(split(pot.amount - rake, self._odd_chip_order(winners)))))
        return awards, carried

    def _odd_chip_order(self, winners: list[int]) -> list[int]:
        """R-CIRC-11: clockwise from the button; in stud, the hand holding the highest card by suit first."""
        if self.variant.stud_odd_chip and len(winners) > 1:
            return sorted(winners, key=lambda p: max(self.value_of(p).best_five), reverse=True)
        return sorted(winners)
