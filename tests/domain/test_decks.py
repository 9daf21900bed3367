"""Deck compositions (R-CARD-2), back colours (R-DECK-2) and deck checks (R-DECK-1, R-DECK-3)."""

from __future__ import annotations

import pytest

from domain.cards.cards import Rank
from domain.cards.decks import (
    DECK_SIZES,
    ArrangedDeck,
    BackColour,
    DeckIdentity,
    check_deck,
    composition,
    deck_ranks,
    lowest_rank,
)
from domain.errors import InvalidCardsError
from tests.support.cards import cards


@pytest.mark.parametrize(
    ("size", "lowest"),
    [(52, Rank.TWO), (48, Rank.THREE), (44, Rank.FOUR), (40, Rank.FIVE), (36, Rank.SIX), (32, Rank.SEVEN),
     (28, Rank.EIGHT)],
)
def test_reduced_decks_remove_the_lowest_ranks(size: int, lowest: Rank) -> None:
    deck = composition(size)
    assert len(deck) == len(set(deck)) == size
    assert min(card.rank for card in deck) == lowest == lowest_rank(size)
    assert max(card.rank for card in deck) == Rank.ACE
    assert all(sum(1 for c in deck if c.rank == rank) == 4 for rank in deck_ranks(size))


def test_the_32_card_deck_runs_from_seven_to_ace_and_the_28_from_eight() -> None:
    assert [r.symbol for r in deck_ranks(32)] == list("789TJQKA")
    assert [r.symbol for r in deck_ranks(28)] == list("89TJQKA")


@pytest.mark.parametrize("size", [0, 50, 24, 54])
def test_other_sizes_are_not_decks(size: int) -> None:
    assert size not in DECK_SIZES
    with pytest.raises(InvalidCardsError) as error:
        composition(size)
    assert error.value.rule == "R-CARD-2"


def test_the_back_colour_is_part_of_a_decks_identity() -> None:
    red = DeckIdentity(52, BackColour.RED, "table 3")
    blue = DeckIdentity(52, BackColour.BLUE, "table 3")
    assert red != blue
    assert red == DeckIdentity(52, BackColour.RED, "table 3")
    assert BackColour.RED.other is BackColour.BLUE and BackColour.BLUE.other is BackColour.RED
    assert str(blue) == "blue 52-card deck table 3"


def test_a_deck_check_reports_missing_duplicated_and_foreign_cards() -> None:
    counted = [*composition(32)[2:], *cards("Ah 2c")]
    result = check_deck(counted, 32)
    assert not result.complete
    assert result.missing == tuple(cards("7c 7d"))
    assert result.duplicates == tuple(cards("Ah"))
    assert result.foreign == tuple(cards("2c"))
    assert result.counted == 32
    assert "missing: 7c 7d" in str(result)
    assert check_deck(composition(28), 28).complete


def test_an_arranged_deck_must_be_complete() -> None:
    identity = DeckIdentity(28, BackColour.RED)
    order = tuple(reversed(composition(28)))
    assert ArrangedDeck.of(identity, order).order == order
    with pytest.raises(InvalidCardsError) as error:
        ArrangedDeck.of(identity, order[:-1])
    assert error.value.rule == "R-DECK-1"
    with pytest.raises(InvalidCardsError):
        ArrangedDeck.of(identity, (*order[:-1], order[0]))
