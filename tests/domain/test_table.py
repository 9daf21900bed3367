"""The table between hands: seats, stacks and the button (R-CIRC-1, R-CIRC-6)."""

from __future__ import annotations

import random

import pytest

from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.state import HandRuleError
from domain.circle.table import Table
from tests.support.circle_support import Hands, play_randomly, shuffled

RED = DeckIdentity(52, BackColour.RED)


def new_table(variant: str = "holdem") -> Table:
    if variant == "stud7":
        settings = TableSettings.create("stud7", BettingStructure.FIXED_LIMIT, antes=1, bring_in=2, small_bet=5,
                                        big_bet=10)
    else:
        settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2))
    table = Table.open("Mesa 3", settings)
    for seat in (2, 5, 9):
        table.sit(seat, 100)
    return table


def test_the_button_moves_clockwise_to_the_next_player_every_deal() -> None:
    table = new_table()
    rng = random.Random(1)
    buttons = []
    for _ in range(5):
        hand = table.start_hand(RED)
        buttons.append(table.button_seat)
        assert hand.seats[-1] == table.button_seat
        play_randomly(hand, rng, shuffled(52, rng))
        table.finish_hand(hand)
        if sum(1 for s in table.stacks.values() if s) < 2:
            break
    assert buttons[:3] == [2, 5, 9]


def test_stacks_carry_from_hand_to_hand_and_chips_are_conserved() -> None:
    table = new_table()
    rng = random.Random(2)
    for _ in range(20):
        if sum(1 for s in table.stacks.values() if s) < 2:
            break
        hand = table.start_hand(RED)
        play_randomly(hand, rng, shuffled(52, rng))
        table.finish_hand(hand)
        assert sum(table.stacks.values()) == 300
        assert dict(zip(hand.seats, hand.stacks, strict=True)).items() <= table.stacks.items()


def test_stud_is_dealt_from_the_croupiers_left_without_a_button() -> None:
    table = new_table("stud7")
    hand = table.start_hand(RED)
    assert hand.seats == [2, 5, 9]


def test_no_second_hand_while_one_is_in_progress_and_no_leaving_mid_hand() -> None:
    table = new_table()
    table.start_hand(RED)
    with pytest.raises(HandRuleError):
        table.start_hand(RED)
    with pytest.raises(HandRuleError):
        table.leave(2)
    with pytest.raises(HandRuleError):
        table.add_chips(2, 50)


@pytest.mark.parametrize(("seat", "stack"), [(0, 100), (11, 100), (2, 100), (3, 0), (3, -5)])
def test_seating_needs_a_free_seat_of_the_table_and_chips(seat: int, stack: int) -> None:
    table = new_table()
    with pytest.raises(HandRuleError):
        table.sit(seat, stack)


def test_a_table_and_its_hands_replay_from_stored_events() -> None:
    table = new_table()
    app = Hands()
    rng = random.Random(3)
    hand = table.start_hand(RED)
    app.save(table, hand)
    play_randomly(hand, rng, shuffled(52, rng))
    table.finish_hand(hand)
    app.save(table, hand)
    stored: object = app.repository.get(table.id)
    assert isinstance(stored, Table)
    assert stored.stacks == table.stacks and stored.button_seat == table.button_seat
    assert stored.hand_in_progress is None and stored.hands_started == 1
