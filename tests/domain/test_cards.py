"""Cards: parsing, formatting and codes (R-CARD-1)."""

from __future__ import annotations

import pytest

from domain.cards.cards import ALL_CARDS, Card, Rank, Suit, format_cards, parse_cards
from domain.errors import InvalidCardError


def test_a_card_parses_from_rank_and_suit() -> None:
    assert Card.parse("As") == Card(Rank.ACE, Suit.SPADES)
    assert Card.parse("7c") == Card(Rank.SEVEN, Suit.CLUBS)


def test_ten_is_written_t_or_10() -> None:
    assert Card.parse("Td") == Card.parse("10d") == Card(Rank.TEN, Suit.DIAMONDS)


def test_suits_and_ranks_are_case_insensitive_and_unicode_suits_are_read() -> None:
    assert Card.parse("aS") == Card.parse("AS") == Card.parse("as") == Card.parse("A♠")
    assert Card.parse("kH") == Card.parse("K♥")


def test_cards_parse_separated_or_run_together() -> None:
    expected = ["As", "Kd", "7c", "7h", "2s", "3d", "9c"]
    assert [str(c) for c in parse_cards("AsKd7c7h2s3d9c")] == expected
    assert [str(c) for c in parse_cards("As Kd, 7c 7h  2s 3d 9c")] == expected
    assert [str(c) for c in parse_cards("10d9d 10c")] == ["Td", "9d", "Tc"]
    assert parse_cards("") == []


@pytest.mark.parametrize("text", ["Xs", "Az", "1c", "11d", "As Kx", "AsK", "A s"])
def test_text_that_is_not_a_card_is_rejected_naming_it(text: str) -> None:
    with pytest.raises(InvalidCardError) as error:
        parse_cards(text)
    assert error.value.rule == "R-CARD-1"


def test_codes_are_rank_major_and_round_trip() -> None:
    assert Card.parse("2c").code == 0
    assert Card.parse("2s").code == 3
    assert Card.parse("As").code == 51
    assert [Card.from_code(c.code) for c in ALL_CARDS] == list(ALL_CARDS)
    assert len(set(ALL_CARDS)) == 52
    with pytest.raises(InvalidCardError):
        Card.from_code(52)


def test_suit_order_for_stud_ties_is_clubs_diamonds_hearts_spades() -> None:
    assert sorted(parse_cards("Ks Kh Kd Kc")) == parse_cards("Kc Kd Kh Ks")
    assert Suit.CLUBS < Suit.DIAMONDS < Suit.HEARTS < Suit.SPADES


def test_formatting_plain_and_with_suit_symbols() -> None:
    hand = parse_cards("As Td 7c 2h")
    assert format_cards(hand) == "As Td 7c 2h"
    assert format_cards(hand, pretty=True) == "A♠ T♦ 7♣ 2♥"
    assert all(Card.parse(str(card)) == card and Card.parse(card.pretty()) == card for card in ALL_CARDS)
