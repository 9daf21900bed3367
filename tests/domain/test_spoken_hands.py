"""Issue 15: a hand named as the croupier calls it (domain/cards/spoken.py), in Spanish casino usage and in English,
from the cards: every category (R-CARD-4), the reduced decks' ace-low straights (R-CARD-2, R-CARD-3), the flush
against the full house (R-CARD-5) and the best five of each game (R-CARD-6, R-SYNTH-1, R-STUD7-1)."""

from __future__ import annotations

import pytest

from domain.cards.cards import format_cards, parse_cards
from domain.cards.hand_classes import Category
from domain.cards.spoken import best_hand, spoken_hand
from domain.errors import InvalidCardsError

EVERY_CATEGORY = [
    # five cards, Spanish, English
    ("As Jd 9c 5h 3s", "carta alta, as", "high card, ace"),
    ("8s 8d Ac 6h 2s", "pareja de ochos", "pair of eights"),
    ("Ks Kd 5c 5h 2s", "doble pareja de reyes y cincos", "two pair, kings and fives"),
    ("7s 7d 7c Kh 2s", "trío de sietes", "three of a kind, sevens"),
    ("Ks Qd Jc Th 9s", "escalera al rey", "straight, king high"),
    ("Ah Th 7h 6h 2h", "color al as", "flush, ace high"),
    ("9s 9h 9d Ac Ah", "full de nueves y ases", "full house, nines over aces"),
    ("Qs Qh Qd Qc 2h", "póker de damas", "four of a kind, queens"),
    ("Td 9d 8d 7d 6d", "escalera de color al diez", "straight flush, ten high"),
    ("As Ks Qs Js Ts", "escalera real", "royal flush"),
]


@pytest.mark.parametrize(("cards", "spanish", "english"), EVERY_CATEGORY)
def test_every_category_is_called_as_the_croupier_calls_it(cards: str, spanish: str, english: str) -> None:
    hand = parse_cards(cards)
    assert spoken_hand(hand, language="es") == spanish
    assert spoken_hand(hand, language="en") == english


def test_every_category_has_its_own_call() -> None:
    named = {best_hand(parse_cards(cards)).category for cards, _, _ in EVERY_CATEGORY}
    assert named == set(Category)


def test_a_queen_or_a_jack_at_the_top_is_said_with_la_in_spanish() -> None:
    assert spoken_hand(parse_cards("Qs Jd Tc 9h 8s"), language="es") == "escalera a la dama"
    assert spoken_hand(parse_cards("Jh 9h 7h 4h 2h"), language="es") == "color a la jota"
    assert spoken_hand(parse_cards("Jh 9c 7h 4d 2s"), language="es") == "carta alta, jota"


@pytest.mark.parametrize(("deck", "cards", "spanish", "english"), [
    (52, "Ah 2c 3d 4s 5h", "escalera al cinco", "straight, five high"),
    (36, "Ah 6c 7d 8s 9h", "escalera al nueve", "straight, nine high"),
    (32, "Ah 7c 8d 9s Th", "escalera al diez", "straight, ten high"),
    (28, "Ah 8c 9d Ts Jh", "escalera a la jota", "straight, jack high"),
    (32, "As 7s 8s 9s Ts", "escalera de color al diez", "straight flush, ten high"),
    (28, "Ad 8d 9d Td Jd", "escalera de color a la jota", "straight flush, jack high"),
])
def test_the_ace_low_straight_of_each_deck_is_called_by_its_top_card(
        deck: int, cards: str, spanish: str, english: str) -> None:
    """R-CARD-3: the ace plays below the lowest rank of the deck; the straight is called by its top card."""
    hand = parse_cards(cards)
    assert spoken_hand(hand, deck_size=deck, language="es") == spanish
    assert spoken_hand(hand, deck_size=deck, language="en") == english


def test_in_a_full_deck_ace_seven_to_ten_is_no_straight() -> None:
    assert spoken_hand(parse_cards("Ah 7c 8d 9s Th")) == "high card, ace"
    assert spoken_hand(parse_cards("Ah 7c 8d 9s Th"), deck_size=32) == "straight, ten high"


def test_where_a_flush_beats_a_full_house_the_best_five_change_not_the_names() -> None:
    """R-CARD-5: Omaha from a 32-card deck, where both a flush (Ah 7h with Kh 9h 8h) and a full house (Ks 9s with
    Kh Kc 9h) can be made: the flush is the hand by default; with the setting off, the full house."""
    own, board = parse_cards("Ah 7h Ks 9s"), parse_cards("Kh Kc 9h 8h Td")
    flush = best_hand(own, board, game="omaha", deck_size=32)
    full = best_hand(own, board, game="omaha", deck_size=32, flush_beats_full_house=False)
    assert format_cards(flush.best_five) == "Ah Kh 9h 8h 7h"
    assert flush.hand_class.describe("es") == "color al as" and flush.hand_class.describe() == "flush, ace high"
    assert full.hand_class.describe("es") == "full de reyes y nueves"
    assert full.hand_class.describe() == "full house, kings over nines"


def test_holdem_names_the_best_five_of_seven() -> None:
    """R-CARD-6: any mix of the two own cards and the five board cards; the board alone may be the hand."""
    board = parse_cards("9c 9d 9h Ac Ad")
    assert spoken_hand(parse_cards("2s 3s"), board, language="es") == "full de nueves y ases"
    assert spoken_hand(parse_cards("9s 3s"), board, language="es") == "póker de nueves"
    assert spoken_hand(parse_cards("As 3s"), board) == "full house, aces over nines"


def test_omaha_and_sintetico_use_exactly_two_own_and_three_board_cards() -> None:
    """R-CARD-6, R-SYNTH-1: four board hearts and one in hand make no flush; three aces on the board and a king in
    hand make no full house (the five would hold one own card), only three aces with both own cards."""
    assert spoken_hand(parse_cards("Ah 2c 3c 4d"), parse_cards("Kh Qh Jh Th 5s"), game="omaha") == "high card, ace"
    assert spoken_hand(parse_cards("Ah Kc 3c 4d"), parse_cards("Qh Jh Th 8s 5s"), game="omaha") == "straight, ace high"
    assert spoken_hand(parse_cards("Ah Ac"), parse_cards("Ad Ks Kd Jc 9h"), game="sintetico",
                       language="es") == "full de ases y reyes"
    assert spoken_hand(parse_cards("Kh 8c"), parse_cards("Ad As Ac Kd Jc"), game="sintetico",
                       language="es") == "trío de ases"
    assert spoken_hand(parse_cards("Kh 8c"), parse_cards("Ad As Ac Kd Jc"), deck_size=28,
                       language="es") == "full de ases y reyes"  # Hold'em's any five, for contrast


def test_stud_names_the_best_five_of_the_players_cards_and_the_community_card() -> None:
    """R-CARD-6 and R-STUD7-1: seven cards of his own, or six and the community card when the stock ran out."""
    assert spoken_hand(parse_cards("9c 9d 4s 4h 2c 8s Ks"), game="stud") == "two pair, nines and fours"
    assert spoken_hand(parse_cards("9c 9d 4s 4h 2c 8s"), parse_cards("9s"), game="stud",
                       language="es") == "full de nueves y cuatros"
    assert spoken_hand(parse_cards("Ac Kc Qc Jc 7d"), game="stud", deck_size=32, language="es") == "carta alta, as"


def test_five_card_draw_names_the_five_cards_of_its_deck() -> None:
    """R-DRAW-8: a short deck by players; a card not in it (a four in 32 cards) makes no hand (R-CARD-2)."""
    full = spoken_hand(parse_cards("Js Jd 8c 8h 8s"), game="draw", deck_size=32, language="es")
    assert full == "full de ochos y jotas"
    assert spoken_hand(parse_cards("Js Jd 4c 4h 4s"), game="draw", language="es") == "full de cuatros y jotas"
    with pytest.raises(InvalidCardsError, match="32-card deck") as foreign:
        spoken_hand(parse_cards("Js Jd 4c 4h 4s"), game="draw", deck_size=32)
    assert foreign.value.rule == "R-CARD-2"


def test_cards_that_make_no_hand_are_refused_with_the_rule() -> None:
    """Too few cards (a hand not yet complete) or a card twice is no hand: the station names nothing then."""
    with pytest.raises(InvalidCardsError) as few:
        spoken_hand(parse_cards("As Kd"), parse_cards("Qc Jh"))
    assert few.value.rule == "R-CARD-6"
    with pytest.raises(InvalidCardsError) as twice:
        spoken_hand(parse_cards("As Kd"), parse_cards("As Jh Tc"))
    assert twice.value.rule == "R-DECK-4"
    with pytest.raises(InvalidCardsError, match="no hand rule"):
        spoken_hand(parse_cards("As Kd Qc Jh Tc"), game="bridge")
