"""A long five-card draw session on one table: hundreds of hands, blank-hand sequences included.

After every hand the openers requirement (R-DRAW-2, R-DRAW-3), the carried pot and the button (R-CIRC-1) are
exactly what the rules say, and no chip is created or lost.
"""

from __future__ import annotations

import random

from domain.cards.cards import Rank
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.state import LegalActions
from domain.circle.table import Table
from tests.support.circle_support import Stock, shuffled

OPENERS_AFTER_BLANKS = (Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)


def cautious_play(hand: Hand, rng: random.Random, stock: Stock) -> None:
    """Players open only half the time they can, so blank hands come in runs; otherwise random legal play."""
    while not hand.is_complete:
        if hand.state.next_slot is not None:
            if hand.can_reshuffle_discards():
                stock.reshuffle(hand)
            hand.deal(next(stock))
        elif (drawer := hand.drawer_seat) is not None:
            position = hand.position_of(drawer)
            held = hand.state.cards_of(position)
            hand.discard(drawer, rng.sample(held, rng.randint(0, hand.state.max_discard(position))))
        elif (legal := hand.legal_actions()) is not None:
            _bet(hand, legal, rng)
        else:
            contenders = [p for p in hand.state.in_hand if p not in hand.state.shown]
            hand.show(hand.next_to_show_seat or hand.seat_of(contenders[0]))  # R-CIRC-13 order at the showdown


def _bet(hand: Hand, legal: LegalActions, rng: random.Random) -> None:
    opening = hand.opener_seat is None
    if legal.raise_min is not None and rng.random() < (0.5 if opening else 0.2):
        hand.bet_or_raise_to(legal.seat, legal.raise_min)
    elif opening or legal.check:
        hand.check(legal.seat)
    elif rng.random() < 0.3:
        hand.fold(legal.seat)
    else:
        hand.call(legal.seat)


def test_hundreds_of_draw_hands_keep_openers_carried_pots_and_the_button_as_the_rules_say() -> None:
    settings = TableSettings.create("draw", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4)
    table = Table.open("Sesión de cubierto", settings)
    seats = [1, 3, 4, 6, 8]
    for seat in seats:
        table.sit(seat, 60)
    rng = random.Random(2026)
    bought = 60 * len(seats)
    blanks_in_a_row, longest_run, opened_hands, raked = 0, 0, 0, 0
    expected_button: int | None = None
    for _ in range(400):
        for seat in seats:  # a busted player buys in again, so the session goes on
            if table.stacks[seat] == 0:
                table.add_chips(seat, 60)
                bought += 60
        live = sorted(s for s in seats if table.stacks[s] > 0)
        after = expected_button if expected_button is not None else 0
        expected_button = next((s for s in live if s > after), live[0])
        expected_openers = OPENERS_AFTER_BLANKS[min(blanks_in_a_row, 3)]
        carried_in = table.carried_pot
        assert table.openers is expected_openers

        hand = table.start_hand(DeckIdentity(table.deck_size_for_next_hand(), BackColour.RED))
        # R-CIRC-1 (decision, mano_speaks_first): the marker turns clockwise; its holder, la mano, speaks first
        assert table.button_seat == expected_button and hand.seats[0] == expected_button
        assert hand.state.openers is expected_openers and hand.state.dead_money == carried_in
        assert hand.state.deck_size == 36  # R-DRAW-8: five players
        cautious_play(hand, rng, Stock(shuffled(36, rng), rng))
        table.finish_hand(hand)

        if hand.state.passed_rule == "R-DRAW-3":
            blanks_in_a_row += 1
            assert table.carried_pot == carried_in + len(live)  # the pot stays and everyone anted again
        else:
            blanks_in_a_row = 0
            opened_hands += 1
            assert hand.opener_seat is not None
        longest_run = max(longest_run, blanks_in_a_row)
        raked += sum(a.rake for a in hand.state.awards)
        assert sum(table.stacks.values()) + table.carried_pot + raked == bought
    assert opened_hands > 100
    assert longest_run >= 3  # the requirement reached aces at least once
