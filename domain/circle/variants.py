"""Circle-poker variants as data: streets, cards up or down, board cards, burns, who acts first, hand rule.

Adding a variant adds an entry here; the betting state machine in :mod:`domain.circle.hand` never changes for it.

>>> [street.name for street in VARIANTS["holdem"].streets]
['preflop', 'flop', 'turn', 'river']
>>> VARIANTS["stud7"].streets[0].hole
(False, False, True)
>>> VARIANTS["pineapple"].streets[2].discard == PINEAPPLE
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Opening(Enum):
    """Who acts first in a betting interval."""

    POSITION = "position"  # left of the biggest blind on the first street, else the first player left of the button
    BRING_IN = "bring-in"  # the lowest up card (R-STUD7-1; ties by suit, clubs lowest)
    HIGH_CARD = "high-card"  # the highest up card (R-STUD5-3; ties: the first clockwise from the croupier's left)
    BEST_EXPOSED = "best-exposed"  # the best exposed hand (R-STUD7-1, R-STUD5-3)
    OPENER = "opener"  # the player who opened (R-DRAW-4, R-DRAW-6)


@dataclass(frozen=True, slots=True)
class DiscardRule:
    """Before a street's cards are dealt, each player still in discards once, face down (issue 14: the draw as data).

    ``min_cards``/``max_cards``: how many he throws; ``replacement``: he is served as many from the stock before the
    next player discards (five-card draw, R-DRAW-4); ``in_turn``: clockwise from the opener (or from the first player
    left of the button), else in any order (all at once); ``keep_for_openers``: the opener's discards are kept face
    down to prove his openers (R-DRAW-5); ``rule``: the rule id errors name.
    """

    min_cards: int
    max_cards: int
    replacement: bool
    in_turn: bool
    keep_for_openers: bool
    rule: str


DRAW = DiscardRule(0, 4, replacement=True, in_turn=True, keep_for_openers=True, rule="R-DRAW-4")
"""Five-card draw: 0 to 4 cards, in turn from the opener, each served before the next (R-DRAW-4, R-DRAW-5)."""

PINEAPPLE = DiscardRule(1, 1, replacement=False, in_turn=False, keep_for_openers=False, rule="R-PINE-1")
"""Pineapple (house game, not in the regulation; R-PINE-1 is this project's id, docs/circle.md): after the flop
betting every player still in throws exactly one hole card, face down, all at once, and gets none back."""


@dataclass(frozen=True, slots=True)
class Street:
    """One dealing round and the betting interval after it.

    ``hole`` lists the cards each player still in receives, in order, ``True`` for face up.
    ``big_bet`` selects the fixed-limit size of the interval.  ``discard``: before the street's deal, each player
    still in discards as the rule says (five-card draw: 0–4 cards, each replaced, R-DRAW-4; Pineapple: one, none
    replaced).  ``needs_openers``: the first bet of the interval needs openers (R-DRAW-2), and if nobody bets the
    hand is blank (R-DRAW-3).
    """

    name: str
    hole: tuple[bool, ...]
    board: int
    burn: bool
    opening: Opening
    big_bet: bool
    discard: DiscardRule | None = None
    needs_openers: bool = False


@dataclass(frozen=True, slots=True)
class Variant:
    """A circle-poker game as data."""

    code: str
    name: str
    deck_size: int
    streets: tuple[Street, ...]
    hand_rule: str
    """Key of :data:`domain.cards.hand_rules.HAND_RULES`: how the best five cards are chosen."""
    button: bool
    """Whether positions turn with a button (R-CIRC-1); stud deals from the croupier's left (R-STUD5-2)."""
    open_pair_big_bet: bool = False
    """Seven-card stud: a big bet is allowed on 4th street when anyone shows a pair (R-STUD7-1)."""
    community_when_short: bool = False
    """Seven-card stud: one community card when the stock cannot give every player a last card (R-STUD7-1)."""
    stud_odd_chip: bool = False
    """Stud games give an odd chip to the winner with the highest card by suit (R-CIRC-11)."""
    min_players: int = 2
    """The fewest players a hand is dealt to (R-SYNTH-1: 4)."""
    max_players: int = 10
    """The most players the deck can serve (five-card stud: 6 × 5 of 32 cards)."""
    deck_by_players: bool = False
    """Five-card draw: the deck size follows the number of players dealt in (R-DRAW-8)."""

    def players_problem(self, players: int) -> tuple[str, str] | None:
        """Why a hand of this game cannot be dealt to ``players`` players (message, rule), or ``None``."""
        if self.min_players <= players <= self.max_players:
            return None
        rule = {"sintetico": "R-SYNTH-1", "stud5": "R-STUD5-1", "draw": "R-DRAW-8"}.get(self.code, "R-CIRC-2")
        return (f"{self.name} deals a hand to {self.min_players} to {self.max_players} players, not {players}",
                rule)


_FLOP_STREETS = (
    ("flop", 3),
    ("turn", 1),
    ("river", 1),
)


def _community(name: str, code: str, hole_cards: int, rule: str) -> Variant:
    """Hold'em and Omaha: down cards, then flop, turn and river, each after a burn (R-FLOP-2, R-FLOP-3)."""
    preflop = Street("preflop", (False,) * hole_cards, 0, burn=False, opening=Opening.POSITION, big_bet=False)
    later = tuple(
        Street(street, (), count, burn=True, opening=Opening.POSITION, big_bet=street != "flop")
        for street, count in _FLOP_STREETS
    )
    return Variant(code, name, 52, (preflop, *later), rule, button=True)


def _pineapple() -> Variant:
    """Crazy Pineapple as casinos deal it: Hold'em with three down cards, one thrown after the flop betting (before
    the turn's burn), face down and not replaced; the hand is the best five of the two kept and the board."""
    holdem = _community("Pineapple (house game)", "pineapple", 3, "holdem")
    flop, turn, river = holdem.streets[1:]
    preflop = holdem.streets[0]
    turn = Street(turn.name, turn.hole, turn.board, turn.burn, turn.opening, turn.big_bet, discard=PINEAPPLE)
    return Variant("pineapple", holdem.name, 52, (preflop, flop, turn, river), "holdem", button=True)


VARIANTS: dict[str, Variant] = {
    "holdem": _community("Texas Hold'em", "holdem", 2, "holdem"),
    "omaha": _community("Omaha", "omaha", 4, "omaha"),
    "stud7": Variant(
        "stud7",
        "Seven-card stud",
        52,
        (
            Street("third", (False, False, True), 0, burn=False, opening=Opening.BRING_IN, big_bet=False),
            Street("fourth", (True,), 0, burn=True, opening=Opening.BEST_EXPOSED, big_bet=False),
            Street("fifth", (True,), 0, burn=True, opening=Opening.BEST_EXPOSED, big_bet=True),
            Street("sixth", (True,), 0, burn=True, opening=Opening.BEST_EXPOSED, big_bet=True),
            Street("seventh", (False,), 0, burn=True, opening=Opening.BEST_EXPOSED, big_bet=True),
        ),
        "stud",
        button=False,
        max_players=8,
        open_pair_big_bet=True,
        community_when_short=True,
        stud_odd_chip=True,
    ),
}
"""The variants of this release, by code."""

VARIANTS["draw"] = Variant(
    "draw",
    "Five-card draw with openers",
    52,
    (
        Street("deal", (False,) * 5, 0, burn=False, opening=Opening.POSITION, big_bet=False, needs_openers=True),
        Street("draw", (), 0, burn=False, opening=Opening.OPENER, big_bet=True, discard=DRAW),
    ),
    "draw",
    button=True,
    deck_by_players=True,
    max_players=9,  # R-DRAW-8: 9 × 5 = 45 of 52 cards leave a burn and four for the opener, who draws first
)
VARIANTS["stud5"] = Variant(
    "stud5",
    "Five-card stud",
    32,
    (
        Street("second", (False, True), 0, burn=False, opening=Opening.HIGH_CARD, big_bet=False),
        # R-STUD5-2 (decision: the regulation stops at the first interval): one more up card to each player still in,
        # an interval after each, until each has five cards
        Street("third", (True,), 0, burn=True, opening=Opening.BEST_EXPOSED, big_bet=False),
        Street("fourth", (True,), 0, burn=True, opening=Opening.BEST_EXPOSED, big_bet=True),
        Street("fifth", (True,), 0, burn=True, opening=Opening.BEST_EXPOSED, big_bet=True),
    ),
    "stud",
    button=False,
    stud_odd_chip=True,
    max_players=6,
)
VARIANTS["sintetico"] = Variant(
    "sintetico",
    "Póquer sintético",
    28,
    (
        Street("down", (False, False), 0, burn=False, opening=Opening.POSITION, big_bet=False),
        *(Street(name, (), 1, burn=False, opening=Opening.POSITION, big_bet=big)
          for name, big in (("first", False), ("second", False), ("third", True), ("fourth", True), ("fifth", True))),
    ),
    "sintetico",
    button=True,
    min_players=4,
)
VARIANTS["pineapple"] = _pineapple()  # a casino's own choice, not in the regulation; not dealt by the demo


def draw_deck_size(players: int) -> int:
    """R-DRAW-8: the deck by players dealt in: up to 4 → 32, 5 → 36, 6 → 40, 7 → 44, 8 → 48, 9 or more → 52."""
    return {5: 36, 6: 40, 7: 44, 8: 48}.get(players, 32 if players <= 4 else 52)
