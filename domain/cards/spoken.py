"""A poker hand named as the croupier calls it at the showdown, in Spanish (Spanish casino usage) and English
(issue 15: the dealer station's showdown panel).

The name comes from the hand's class (its category and the ranks that make it, R-CARD-4), or from the cards: the best
five of them under the game's rule (R-CARD-6: any five of seven in Hold'em and stud, exactly two own and three board
cards in Omaha and sintético) and the deck's (R-CARD-2, R-CARD-3, R-CARD-5).  The reduced decks change which straights
exist and, where a flush beats a full house, which five cards are best; never the names.

>>> from domain.cards.cards import parse_cards as cards
>>> spoken_hand(cards("9s 9h 9d Ac Ah"), language="es"), spoken_hand(cards("9s 9h 9d Ac Ah"))
('full de nueves y ases', 'nines full of aces')
>>> [spoken_hand(cards("Kh Qd"), cards("Jc Ts 9h 2c 2d"), language=language) for language in ("en", "es")]
['king-high straight', 'escalera al rey']
>>> spoken_hand(cards("As 8d"), cards("7c 9h Td Kc Qd"), deck_size=32, language="es")  # A-7-8-9-10 (R-CARD-3)
'escalera al diez'
>>> spoken_hand(cards("Ah Kh 2c 3d"), cards("Qh Jh Th 4s 5s"), game="omaha", language="es")
'escalera real'
>>> spoken_hand(cards("Ah 2c 3c 4d"), cards("Kh Qh Jh Th 5s"), game="omaha")  # four board hearts, one own: no flush
'ace high'
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards.cards import Card, Rank
from domain.cards.hand_classes import Category, HandClass, Language, rank_name
from domain.cards.hand_rules import HAND_RULES
from domain.cards.ranking import HandValue, hand_ranking
from domain.errors import InvalidCardsError

_CALLS: dict[Language, dict[Category, str]] = {
    "en": {
        Category.HIGH_CARD: "{one} high",
        Category.PAIR: "a pair of {many}",
        Category.TWO_PAIR: "{many} and {second}",
        Category.THREE_OF_A_KIND: "three {many}",
        Category.STRAIGHT: "{one}-high straight",
        Category.FLUSH: "{one}-high flush",
        Category.FULL_HOUSE: "{many} full of {second}",
        Category.FOUR_OF_A_KIND: "four {many}",
        Category.STRAIGHT_FLUSH: "{one}-high straight flush",
    },
    "es": {
        Category.HIGH_CARD: "carta alta, {one}",
        Category.PAIR: "pareja de {many}",
        Category.TWO_PAIR: "dobles parejas de {many} y {second}",
        Category.THREE_OF_A_KIND: "trío de {many}",
        Category.STRAIGHT: "escalera {to_one}",
        Category.FLUSH: "color {to_one}",
        Category.FULL_HOUSE: "full de {many} y {second}",
        Category.FOUR_OF_A_KIND: "póquer de {many}",
        Category.STRAIGHT_FLUSH: "escalera de color {to_one}",
    },
}
"""What the croupier says for each category; ``{one}`` is the top rank, ``{many}`` its plural (the pair, the trips,
the four), ``{second}`` the second rank's plural (the lower pair, the full house's pair), ``{to_one}`` "al rey", "a
la dama"."""
_ROYAL: dict[Language, str] = {"en": "royal flush", "es": "escalera real"}
_FEMININE = (Rank.QUEEN, Rank.JACK)
"""Ranks said with "la" in Spanish: "escalera a la dama", "color a la jota"."""


def spoken(hand: HandClass, language: Language = "en") -> str:
    """The hand's class as the croupier calls it.

    >>> from domain.cards.cards import Rank as R
    >>> C = Category
    >>> hands = [HandClass(C.HIGH_CARD, (R.ACE, R.KING, R.NINE, R.FIVE, R.THREE)),
    ...          HandClass(C.PAIR, (R.EIGHT, R.ACE, R.SIX, R.TWO)), HandClass(C.TWO_PAIR, (R.KING, R.FIVE, R.TWO)),
    ...          HandClass(C.THREE_OF_A_KIND, (R.SEVEN, R.KING, R.TWO)), HandClass(C.STRAIGHT, (R.KING,)),
    ...          HandClass(C.FLUSH, (R.ACE, R.TEN, R.SEVEN, R.SIX, R.TWO)), HandClass(C.FULL_HOUSE, (R.NINE, R.ACE)),
    ...          HandClass(C.FOUR_OF_A_KIND, (R.QUEEN, R.TWO)), HandClass(C.STRAIGHT_FLUSH, (R.TEN,)),
    ...          HandClass(C.STRAIGHT_FLUSH, (R.ACE,))]
    >>> [spoken(hand, "es") for hand in hands]  # doctest: +NORMALIZE_WHITESPACE
    ['carta alta, as', 'pareja de ochos', 'dobles parejas de reyes y cincos', 'trío de sietes', 'escalera al rey',
     'color al as', 'full de nueves y ases', 'póquer de damas', 'escalera de color al diez', 'escalera real']
    >>> [spoken(hand) for hand in hands]  # doctest: +NORMALIZE_WHITESPACE
    ['ace high', 'a pair of eights', 'kings and fives', 'three sevens', 'king-high straight', 'ace-high flush',
     'nines full of aces', 'four queens', 'ten-high straight flush', 'royal flush']
    >>> spoken(HandClass(C.STRAIGHT, (R.QUEEN,)), "es"), spoken(HandClass(C.FLUSH, (R.JACK, R.NINE)), "es")
    ('escalera a la dama', 'color a la jota')
    """
    if hand.is_royal:
        return _ROYAL[language]
    top = hand.ranks[0]
    second = hand.ranks[1] if len(hand.ranks) > 1 else top
    article = "a la" if top in _FEMININE else "al"
    return _CALLS[language][hand.category].format(
        one=rank_name(top, language),
        many=rank_name(top, language, plural=True),
        second=rank_name(second, language, plural=True),
        to_one=f"{article} {rank_name(top, 'es')}",
    )


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
    """The best hand of these cards (:func:`best_hand`) as the croupier calls it (:func:`spoken`)."""
    value = best_hand(own, board, game=game, deck_size=deck_size, flush_beats_full_house=flush_beats_full_house)
    return spoken(value.hand_class, language)
