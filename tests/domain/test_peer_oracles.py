"""The evaluator agrees with the public evaluators on random 52-card hands: order and ties (R-CARD-4, R-CARD-6).

pokerkit is the reference; phevaluator, eval7 and treys are checked on more hands since they are fast.
The peers only know the 52-card ranking, so reduced decks are checked by enumeration in test_category_counts.
"""

from __future__ import annotations

import eval7
import numpy as np
import pytest
import treys
from numpy.typing import NDArray
from phevaluator import _pheval
from pokerkit import Card as PokerkitCard
from pokerkit import OmahaHoldemHand, StandardHighHand

from domain.cards.batch import batch_evaluator
from domain.cards.cards import ALL_CARDS
from domain.cards.ranking import hand_ranking
from tests.support.cards import assert_same_order
from tests.support.sizes import sample

NAMES = [str(card) for card in ALL_CARDS]
POKERKIT_CARDS = [next(iter(PokerkitCard.parse(name))) for name in NAMES]


def pokerkit_cards(codes: list[int]) -> list[PokerkitCard]:
    """pokerkit's cards for our codes."""
    return [POKERKIT_CARDS[c] for c in codes]


def random_hands(count: int, size: int, seed: int) -> NDArray[np.uint8]:
    """``count`` hands of ``size`` distinct cards of the 52-card deck."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :size].astype(np.uint8)


RANDOM_HANDS = {5: 100_000, 6: sample(10_000, 100_000), 7: sample(10_000, 100_000)}
"""Random hands of each size checked against pokerkit: in ``make test`` (tests/support/sizes.py) 20,000 of six and of
seven cards (pokerkit takes the best of 6 and 21 fives: the costly ones), which hold every category, straight flushes
included, and 4,000 and 3,300 of the hand classes; 100,000 of five cards (cheap), as in ``make test-slow``."""


@pytest.mark.slow
@pytest.mark.parametrize("size", [5, 6, 7])
def test_agrees_with_pokerkit_on_random_hands(size: int) -> None:
    hands = random_hands(RANDOM_HANDS[size], size, seed=size)
    ranking = hand_ranking(52)
    ours = [ranking.strength(hand) for hand in hands.tolist()]
    theirs = [StandardHighHand.from_game(pokerkit_cards(hand)).entry.index for hand in hands.tolist()]
    assert_same_order(ours, theirs)
    assert batch_evaluator(52).strengths(hands).tolist() == ours


@pytest.mark.slow
@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_agrees_with_pokerkit_on_random_omaha_hands(board_size: int) -> None:
    hands = random_hands(sample(2_000, 4_000), 4 + board_size, seed=100 + board_size)
    ranking = hand_ranking(52)
    ours = [ranking.strength_split(hand[:4], hand[4:]) for hand in hands.tolist()]
    theirs = [
        OmahaHoldemHand.from_game(pokerkit_cards(hand[:4]), pokerkit_cards(hand[4:])).entry.index
        for hand in hands.tolist()
    ]
    assert_same_order(ours, theirs)
    assert batch_evaluator(52).strengths_split(hands[:, :4], hands[:, 4:]).tolist() == ours


@pytest.mark.slow
def test_agrees_with_phevaluator_eval7_and_treys_on_300000_seven_card_hands() -> None:
    hands = random_hands(300_000, 7, seed=7)
    rows = hands.tolist()
    ours = batch_evaluator(52).strengths(hands).tolist()
    ph = [-_pheval.evaluate_7cards(*hand) for hand in rows]  # smaller is stronger in phevaluator
    assert_same_order(ours, ph)
    e7_cards = [eval7.Card(name) for name in NAMES]
    assert_same_order(ours[:100_000], [eval7.evaluate([e7_cards[c] for c in hand]) for hand in rows[:100_000]])
    treys_cards = [treys.Card.new(name) for name in NAMES]
    evaluator = treys.Evaluator()
    treys_values = [
        -evaluator.evaluate([treys_cards[c] for c in h[:2]], [treys_cards[c] for c in h[2:]]) for h in rows[:30_000]
    ]
    assert_same_order(ours[:30_000], treys_values)


def test_the_strengths_match_phevaluator_rank_for_rank_on_every_5_card_class() -> None:
    """Both are dense over the 7,462 classes, so ours is 7463 minus phevaluator's rank."""
    ranking = hand_ranking(52)
    hands = random_hands(50_000, 5, seed=5)
    for hand in hands.tolist()[:20_000]:
        assert ranking.strength(hand) == 7463 - _pheval.evaluate_5cards(*hand)
