"""The ground of a circle-poker hand (RULES §2): its phases, slots, awards and legal actions, and the fields and
queries of :class:`HandStateCore`, which the dealing, betting, draw and showdown rules build on.

Positions, not seat numbers, index the players: position 0 is the first player clockwise from the button (in stud,
the first from the croupier's left), and the button is the last position.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from domain.cards.cards import Card, Rank
from domain.cards.hand_rules import HAND_RULES, HandRule
from domain.cards.ranking import HandRanking, hand_ranking
from domain.circle.pots import Pot
from domain.circle.settings import TableSettings
from domain.circle.variants import Street, Variant
from domain.errors import RuleError


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
class HandStateCore:
    """The fields of a circle-poker hand in progress, and the queries every part of its rules asks."""

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

    if TYPE_CHECKING:  # the steps of the hand's flow that one part of the rules hands over to another
        def _begin_street(self, index: int) -> None: ...  # the deal (domain.circle.dealing)
        def _deal_street(self) -> None: ...  # the deal (domain.circle.dealing)
        def _begin_betting(self) -> None: ...  # the betting (domain.circle.betting)
        def _next_drawer(self) -> None: ...  # the draw (domain.circle.draw)
