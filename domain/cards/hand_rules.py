"""Which cards make a hand in each game, for evaluation (R-CARD-6, R-SYNTH-1).

>>> HAND_RULES["omaha"].own_used, HAND_RULES["sintetico"].default_deck
(2, 28)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.cards.cards import Card
from domain.cards.ranking import HandRanking, HandValue
from domain.errors import InvalidCardsError


@dataclass(frozen=True, slots=True)
class HandRule:
    """How many own and board cards a game's hand has, and how the best five are chosen.

    ``own_used``/``board_used`` of ``None`` mean the best five of all the cards, in any mix
    (Hold'em, stud, draw); Omaha and sintético use exactly 2 own and 3 board cards.
    """

    game: str
    own_cards: tuple[int, ...]
    board_cards: tuple[int, ...]
    own_used: int | None
    board_used: int | None
    default_deck: int
    rule: str

    def check_counts(self, own: int, board: int) -> None:
        """Reject a hand with the wrong number of own or board cards for this game."""
        if own not in self.own_cards or board not in self.board_cards:
            expected = f"{_counts(self.own_cards)} own"
            if self.board_cards != (0,):
                expected += f" and {_counts(self.board_cards)} board"
            message = f"{self.game} takes {expected} cards, {own} own and {board} board given"
            raise InvalidCardsError(message, rule=self.rule)

    def evaluate(self, ranking: HandRanking, own: Sequence[Card], board: Sequence[Card] = ()) -> HandValue:
        """The value of a hand of this game, checked."""
        self.check_counts(len(own), len(board))
        if self.own_used is None or self.board_used is None:
            return ranking.evaluate([*own, *board])
        return ranking.evaluate_split(own, board, self.own_used, self.board_used)


def _counts(counts: tuple[int, ...]) -> str:
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"


HAND_RULES: dict[str, HandRule] = {
    "holdem": HandRule("holdem", (2,), (3, 4, 5), None, None, 52, "R-CARD-6"),
    "omaha": HandRule("omaha", (4,), (3, 4, 5), 2, 3, 52, "R-CARD-6"),
    "sintetico": HandRule("sintetico", (2,), (3, 4, 5), 2, 3, 28, "R-SYNTH-1"),
    "stud": HandRule("stud", (5, 6, 7), (0,), None, None, 52, "R-CARD-6"),
    "draw": HandRule("draw", (5,), (0,), None, None, 52, "R-CARD-6"),
}
"""Hand rules by game name, as the CLI names the games."""
