"""Hand values as the regulation states them (R-CARD-3 … R-CARD-7, R-SYNTH-1), with the croupier's words."""

from __future__ import annotations

import pytest

from domain.cards.hand_classes import Category
from domain.cards.hand_rules import HAND_RULES
from domain.cards.ranking import hand_ranking
from domain.errors import InvalidCardsError
from tests.support.cards import cards


def value(text: str, deck: int = 52, flush_beats_full_house: bool | None = None) -> int:
    return hand_ranking(deck, flush_beats_full_house).evaluate(cards(text)).strength


def category(text: str, deck: int = 52) -> Category:
    return hand_ranking(deck).evaluate(cards(text)).category


# R-CARD-3: the ace plays high or below the lowest rank of the deck; no wrap-around.

def test_the_ace_plays_low_in_a_52_card_deck_a_2_3_4_5() -> None:
    wheel = hand_ranking(52).evaluate(cards("As 2d 3c 4h 5s"))
    assert wheel.category is Category.STRAIGHT
    assert wheel.describe() == "straight, five high"
    assert wheel.describe("es") == "escalera al cinco"
    assert value("As 2d 3c 4h 5s") < value("2d 3c 4h 5s 6d")


def test_a_7_8_9_10_is_a_straight_in_the_32_card_deck_below_7_to_jack() -> None:
    low = hand_ranking(32).evaluate(cards("As 7d 8c 9h Td"))
    assert low.category is Category.STRAIGHT and low.describe() == "straight, ten high"
    assert low.strength < value("7d 8c 9h Td Js", 32)
    assert value("Ts Jd Qc Kh As", 32) > value("7d 8c 9h Td Js", 32)


def test_a_8_9_10_j_is_a_straight_in_the_28_card_deck() -> None:
    assert category("As 8d 9c Th Jd", 28) is Category.STRAIGHT
    assert hand_ranking(28).evaluate(cards("Ah 8h 9h Th Jh")).describe() == "straight flush, jack high"


def test_a_7_8_9_10_is_no_straight_in_the_52_card_deck() -> None:
    assert category("As 7d 8c 9h Td") is Category.HIGH_CARD


def test_there_is_no_wrap_around_q_k_a_2_3() -> None:
    assert category("Qs Kd Ac 2h 3d") is Category.HIGH_CARD


# R-CARD-4: categories and ties.

@pytest.mark.parametrize(
    ("text", "expected", "english", "spanish"),
    [
        ("As Kd 9c 7h 4s", Category.HIGH_CARD, "high card, ace", "carta alta, as"),
        ("9s 9d Ac 7h 4s", Category.PAIR, "pair of nines", "pareja de nueves"),
        ("Ks Kd 9c 9h 4s", Category.TWO_PAIR, "two pair, kings and nines", "doble pareja de reyes y nueves"),
        ("7s 7d 7c Ah 4s", Category.THREE_OF_A_KIND, "three of a kind, sevens", "trío de sietes"),
        ("6s 7d 8c 9h Ts", Category.STRAIGHT, "straight, ten high", "escalera al diez"),
        ("As Js 9s 7s 4s", Category.FLUSH, "flush, ace high", "color al as"),
        ("Js 9s 7s 4s 2s", Category.FLUSH, "flush, jack high", "color a la jota"),
        ("Qd Jc Th 9s 8s", Category.STRAIGHT, "straight, queen high", "escalera a la dama"),
        ("9s 9d 9c Ah As", Category.FULL_HOUSE, "full house, nines over aces", "full de nueves y ases"),
        ("Qs Qd Qc Qh 4s", Category.FOUR_OF_A_KIND, "four of a kind, queens", "póker de damas"),
        ("5h 6h 7h 8h 9h", Category.STRAIGHT_FLUSH, "straight flush, nine high", "escalera de color al nueve"),
        ("Th Jh Qh Kh Ah", Category.STRAIGHT_FLUSH, "royal flush", "escalera real"),
        ("Js Jd 6c 6h 2s", Category.TWO_PAIR, "two pair, jacks and sixes", "doble pareja de jotas y seises"),
    ],
)
def test_each_category_is_named_as_the_croupier_announces_it(
    text: str, expected: Category, english: str, spanish: str
) -> None:
    hand = hand_ranking(52).evaluate(cards(text))
    assert hand.category is expected
    assert hand.describe("en") == english
    assert hand.describe("es") == spanish


def test_suits_carry_no_rank_so_equal_hands_tie() -> None:
    assert value("As Kd 9c 7h 4s") == value("Ah Kc 9d 7s 4h")
    assert value("Ts Js Qs Ks As") == value("Th Jh Qh Kh Ah")


def test_ties_inside_a_category_are_broken_by_ranks_in_order() -> None:
    assert value("9s 9d 9c 2h 2s") > value("8s 8d 8c Ah As")  # full house: the trips first
    assert value("As Js 9s 7s 4s") > value("As Js 9s 7s 3s")  # flush: highest card down
    assert value("Ks Kd 9c 9h 4s") > value("Ks Kd 8c 8h As")  # two pair: the higher pair, then the lower
    assert value("Ks Kd 9c 9h 5s") > value("Ks Kd 9c 9h 4s")  # then the kicker
    assert value("9s 9d Ac 7h 4s") > value("9s 9d Kc Qh Js")  # pair: then the kickers


# R-CARD-5: in reduced decks a flush beats a full house; four of a kind stays above.

def test_in_the_32_card_deck_a_flush_beats_a_full_house() -> None:
    assert value("7s 9s Js Qs Ks", 32) > value("As Ad Ac Kh Ks", 32)
    assert value("Ah Ad Ac As 7s", 32) > value("7s 9s Js Qs As", 32)


def test_in_the_52_card_deck_a_full_house_beats_a_flush() -> None:
    assert value("2s 2d 2c 3h 3s") > value("As Js 9s 7s 4s")


def test_the_flush_setting_can_be_changed_by_the_table() -> None:
    assert value("7s 9s Js Qs Ks", 32, flush_beats_full_house=False) < value("As Ad Ac Kh Ks", 32, False)
    assert value("As Js 9s 7s 4s", 52, flush_beats_full_house=True) > value("As Ad Ac Kh Ks", 52, True)


def test_in_the_32_card_deck_the_lowest_flush_beats_the_highest_full_house() -> None:
    worst_flush = value("7s 8s 9s Js Qs", 32)
    best_full = value("As Ad Ac Kh Ks", 32)
    assert worst_flush > best_full
    assert hand_ranking(32).evaluate(cards("7s 8s 9s Js Qs")).describe("es") == "color a la dama"


# R-CARD-6 / R-CARD-7: best five; Omaha and sintético use exactly two own cards and three of the board.

def test_holdem_plays_the_board_when_it_is_best() -> None:
    board = "Ts Js Qs Ks As"
    hand = HAND_RULES["holdem"].evaluate(hand_ranking(52), cards("2c 3d"), cards(board))
    assert hand.describe() == "royal flush" and set(hand.best_five) == set(cards(board))


def test_the_hand_is_played_at_its_highest_combination_even_unnoticed() -> None:
    hand = hand_ranking(52).evaluate(cards("2h 7h Kh 3c 9h 4d Jh"))
    assert hand.category is Category.FLUSH and hand.describe() == "flush, king high"


def test_omaha_needs_two_own_cards_for_a_flush() -> None:
    omaha = HAND_RULES["omaha"]
    # four spades on the board and one in hand: a flush in Hold'em, not in Omaha
    hand = omaha.evaluate(hand_ranking(52), cards("As Kd 7c 2h"), cards("Qs Js 9s 3s 4d"))
    assert hand.describe() == "high card, ace"
    holdem = HAND_RULES["holdem"].evaluate(hand_ranking(52), cards("As Kd"), cards("Qs Js 9s 3s 4d"))
    assert holdem.category is Category.FLUSH


def test_omaha_uses_no_more_than_two_own_cards() -> None:
    # four aces in hand are only a pair of aces in Omaha
    hand = HAND_RULES["omaha"].evaluate(hand_ranking(52), cards("As Ad Ac Ah"), cards("2s 7d 9c Jh 4d"))
    assert hand.describe() == "pair of aces"


def test_sintetico_uses_both_own_cards_and_three_of_the_board() -> None:
    """R-SYNTH-1: a 28-card deck; the hand is both down cards plus exactly three community cards."""
    sintetico = HAND_RULES["sintetico"]
    ranking = hand_ranking(sintetico.default_deck)
    hand = sintetico.evaluate(ranking, cards("8c 9d"), cards("Ts Js Qs Ks As"))
    assert hand.describe() == "straight, queen high"  # 8-9 with T-J-Q, not the royal flush on the board
    assert hand.describe("es") == "escalera a la dama"
    assert set(cards("8c 9d")) <= set(hand.best_five)


# Bad hands are rejected with the rule they break.

@pytest.mark.parametrize(
    ("text", "deck", "rule"),
    [
        ("As As Kd 2c 3c", 52, "R-DECK-4"),
        ("As Kd Qc Jh 2c", 32, "R-CARD-2"),
        ("As Kd Qc Jh", 52, "R-CARD-6"),
        ("As Kd Qc Jh Tc 9c 8c 7c", 52, "R-CARD-6"),
    ],
)
def test_impossible_hands_are_rejected_naming_the_rule(text: str, deck: int, rule: str) -> None:
    with pytest.raises(InvalidCardsError) as error:
        hand_ranking(deck).evaluate(cards(text))
    assert error.value.rule == rule
    assert rule in str(error.value)


def test_a_game_rejects_the_wrong_number_of_own_or_board_cards() -> None:
    with pytest.raises(InvalidCardsError) as error:
        HAND_RULES["omaha"].evaluate(hand_ranking(52), cards("As Kd"), cards("2c 3c 4c"))
    assert error.value.rule == "R-CARD-6"
    with pytest.raises(InvalidCardsError) as error:
        HAND_RULES["sintetico"].evaluate(hand_ranking(28), cards("As Kd Qd"), cards("8c 9c Tc"))
    assert error.value.rule == "R-SYNTH-1"
