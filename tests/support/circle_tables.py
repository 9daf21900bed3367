"""Random circle tables (a hypothesis strategy over every variant, with short, uneven stacks), a hand started at one,
its chips in play and its cards where they are, and one step of random legal play."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import strategies as st

from domain.cards.cards import Rank
from domain.cards.decks import DECK_SIZES
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, RakePolicy, TableSettings
from domain.circle.variants import VARIANTS
from tests.support.circle_support import Stock, start


@dataclass(frozen=True)
class Table:
    """What a random hand is started with."""

    settings: TableSettings
    stacks: list[int]
    openers: Rank = Rank.JACK
    carried_pot: int = 0


@st.composite
def tables(draw: st.DrawFn, variants: tuple[str, ...] = tuple(VARIANTS)) -> Table:
    """Settings of a variant, with short, uneven stacks so all-ins and side pots are common."""
    variant = draw(st.sampled_from(variants))
    rake = draw(st.sampled_from([RakePolicy(), RakePolicy(5, 7)]))
    burn = draw(st.booleans())
    structure = draw(st.sampled_from(list(BettingStructure)))
    openers, carried = Rank.JACK, 0
    if variant == "stud7":
        settings = TableSettings.create("stud7", BettingStructure.FIXED_LIMIT, antes=draw(st.integers(0, 3)),
                                        bring_in=2, small_bet=5, big_bet=10, rake=rake, burn_cards=burn)
        players = draw(st.integers(2, 8))
    elif variant == "draw":
        players = draw(st.integers(2, 9))  # R-DRAW-8: at most 9 players
        sizes = [None, *(size for size in DECK_SIZES if size >= 5 * players + 1)]
        settings = TableSettings.create("draw", structure, antes=draw(st.integers(1, 3)), small_bet=2, big_bet=4,
                                        min_bet=2, rake=rake, burn_cards=burn, deck_size=draw(st.sampled_from(sizes)))
        openers = draw(st.sampled_from([Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE]))
        carried = draw(st.sampled_from([0, 0, 9]))
    elif variant == "stud5":
        settings = TableSettings.create("stud5", structure, antes=1, bring_in=draw(st.sampled_from([0, 1])),
                                        small_bet=2, big_bet=4, min_bet=2, rake=rake, burn_cards=burn)
        players = draw(st.integers(2, 6))
    elif variant == "sintetico":
        settings = TableSettings.create("sintetico", structure, antes=1, blinds=draw(st.sampled_from([(), (1, 2)])),
                                        small_bet=2, big_bet=4, min_bet=2, rake=rake)
        players = draw(st.integers(4, 10))
    else:
        structure = draw(st.sampled_from(list(BettingStructure)))
        settings = TableSettings.create(variant, structure, blinds=(1, 2), antes=draw(st.integers(0, 1)),
                                        small_bet=2, big_bet=4, rake=rake, burn_cards=burn)
        players = draw(st.integers(2, 10 if variant == "holdem" else 9))
    stacks = draw(st.lists(st.integers(1, 200), min_size=players, max_size=players))
    return Table(settings, stacks, openers, carried)


def chips_in_play(hand: Hand) -> int:
    """Stacks, plus chips still in the pots (a carried pot included), plus the rake taken."""
    state = hand.state
    awarded = sum(award.pot.amount for award in state.awards)
    rake = sum(award.rake for award in state.awards)
    return sum(state.stacks) + sum(state.contributed) + state.dead_money - awarded + rake


def dealt_cards(hand: Hand) -> list[str]:
    """Every card where it is now: in a hand, on the board, burned, or in a discard pile."""
    state = hand.state
    piles = state.board + state.burned + state.discards + state.opener_discards
    return [str(c) for cards in state.hole for c, _ in cards] + [str(c) for c in piles]


def start_table(table: Table) -> Hand:
    return start(table.settings, table.stacks, openers=table.openers, carried_pot=table.carried_pot)


def _one_step(hand: Hand, rng: random.Random, deck: Stock) -> None:
    """One card, action or show of random legal play."""
    from tests.support.circle_support import _random_action

    if hand.state.next_slot is not None:
        if hand.can_reshuffle_discards():
            deck.reshuffle(hand)
        hand.deal(next(deck), source="test")
    elif (drawer := hand.drawer_seat) is not None:
        position = hand.position_of(drawer)
        held = hand.state.cards_of(position)
        count = rng.randint(hand.state.min_discard(position), hand.state.max_discard(position))
        hand.discard(drawer, rng.sample(held, count))
    elif (legal := hand.legal_actions()) is not None:
        _random_action(hand, legal.seat, rng)
    else:
        seat = hand.seat_of(next(p for p in hand.state.in_hand if p not in hand.state.shown))
        hand.show(hand.next_to_show_seat or seat)  # R-CIRC-13 order at the showdown
