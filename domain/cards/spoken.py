"""A poker hand named as the croupier calls it at the showdown, in Spanish (Spanish casino usage) and English
(issue 15: the dealer station's showdown panel).

The name is the hand class's own (:meth:`domain.cards.hand_classes.HandClass.describe`: its category and the ranks
that make it, R-CARD-4, as the CLI and the demo announce it too), of the best five cards under the game's rule
(R-CARD-6: any five of seven in Hold'em and stud, exactly two own and three board cards in Omaha and sintético) and
the deck's (R-CARD-2, R-CARD-3, R-CARD-5).  The reduced decks change which straights exist and, where a flush beats a
full house, which five cards are best; never the names.

>>> from domain.cards.cards import parse_cards as cards
>>> spoken_hand(cards("9s 9h 9d Ac Ah"), language="es"), spoken_hand(cards("9s 9h 9d Ac Ah"))
('full de nueves y ases', 'full house, nines over aces')
>>> [spoken_hand(cards("Kh Qd"), cards("Jc Ts 9h 2c 2d"), language=language) for language in ("en", "es")]
['straight, king high', 'escalera al rey']
>>> spoken_hand(cards("As 8d"), cards("7c 9h Td Kc Qd"), deck_size=32, language="es")  # A-7-8-9-10 (R-CARD-3)
'escalera al diez'
>>> spoken_hand(cards("Ah Kh 2c 3d"), cards("Qh Jh Th 4s 5s"), game="omaha", language="es")
'escalera real'
>>> spoken_hand(cards("Ah 2c 3c 4d"), cards("Kh Qh Jh Th 5s"), game="omaha")  # four board hearts, one own: no flush
'high card, ace'
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards.cards import Card
from domain.cards.hand_classes import Language
from domain.cards.hand_rules import HAND_RULES
from domain.cards.ranking import HandValue, hand_ranking
from domain.errors import InvalidCardsError


def best_hand(
    own: Sequence[Card],
    board: Sequence[Card] = (),
    *,
    game: str = "holdem",
    deck_size: int | None = None,
    flush_beats_full_house: bool | None = None,
) -> HandValue:
    """The best five of a player's cards and the board under ``game``'s rule (a name of
    :data:`domain.cards.hand_rules.HAND_RULES`: holdem, omaha, sintetico, stud, draw), from a deck of ``deck_size``
    cards (default: the game's) with the R-CARD-5 setting (default: the deck's).  Checked: a card twice, a card not in
    the deck or too few cards raise :class:`domain.errors.InvalidCardsError`.

    Where a game takes any five (Hold'em, stud, draw), all the cards count together, so that a stud hand with the
    community card of R-STUD7-1 is named like any other; Omaha and sintético use exactly two own and three board
    cards (R-CARD-6, R-SYNTH-1).

    >>> from domain.cards.cards import format_cards, parse_cards as cards
    >>> format_cards(best_hand(cards("9c 9d 4s 4h 2c 8s Ks"), game="stud").best_five)
    '9d 9c 4s 4h Ks'
    """
    try:
        rule = HAND_RULES[game]
    except KeyError:
        raise InvalidCardsError(f"no hand rule for the game {game!r} ({', '.join(HAND_RULES)})",
                                rule="R-CARD-6") from None
    ranking = hand_ranking(deck_size or rule.default_deck, flush_beats_full_house)
    if rule.own_used is None or rule.board_used is None:
        return ranking.evaluate([*own, *board])
    return rule.evaluate(ranking, own, board)


def spoken_hand(
    own: Sequence[Card],
    board: Sequence[Card] = (),
    *,
    game: str = "holdem",
    deck_size: int | None = None,
    flush_beats_full_house: bool | None = None,
    language: Language = "en",
) -> str:
    """The best hand of these cards (:func:`best_hand`) as the croupier calls it
    (:meth:`domain.cards.hand_classes.HandClass.describe`)."""
    value = best_hand(own, board, game=game, deck_size=deck_size, flush_beats_full_house=flush_beats_full_house)
    return value.hand_class.describe(language)
