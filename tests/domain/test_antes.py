"""Forced bets and the pots they go into (R-CIRC-2, R-FLOP-1, R-CIRC-3, R-CIRC-6, R-CIRC-7): the decision ``ante_pot``.

``matched`` (default): an ante is the player's chips in the pot like a bet; the part of an ante above every other
player's is never matched and stays with him.  ``main``: the antes are dead money in the main pot, contested by every
player still in (a big-blind ante).  With equal antes that every player posts in full the two readings agree.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from domain.circle.hand import Hand
from domain.circle.settings import AntePot, BettingStructure, TableSettings
from tests.support.circle_support import deal, holdem, play_randomly, shuffled, start


def _forced(hand: Hand) -> dict[str, Any]:
    event = next(vars(e) for e in hand.collect_events() if type(e).__qualname__ == "Hand.ForcedBetsPosted")
    return {"antes": list(event["antes"]), "blinds": list(event["blinds"])}


def _check_down(hand: Hand) -> None:
    """Every player still to act checks (or calls what is owed) until no bet is open."""
    while (legal := hand.legal_actions()) is not None:
        if legal.check:
            hand.check(legal.seat)
        else:
            hand.call(legal.seat)


def _board(hand: Hand, board: str) -> None:
    """Flop, turn and river, each after a betting interval in which nobody bets."""
    cards = board.split()
    for street in (cards[:3], cards[3:4], cards[4:]):
        _check_down(hand)
        deal(hand, " ".join(street))
    _check_down(hand)


def _show_down(hand: Hand) -> None:
    while not hand.is_complete:
        turn = hand.state.to_show
        position = turn if turn is not None else next(p for p in hand.state.in_hand if p not in hand.state.shown)
        hand.show(hand.seat_of(position))


def test_r_circ_6_decision_ante_pot_main_a_big_blind_ante_is_dead_money_in_the_main_pot() -> None:
    """The big blind (seat 2) antes 10 and has 2 left for his blind: all-in before the deal.  His ante is dead money
    in the main pot, which he wins with 2 from each player; the others' raise makes a side pot between them."""
    settings = holdem(antes=(0, 10, 0), ante_pot=AntePot.MAIN)
    hand = start(settings, [100, 12, 100])
    assert _forced(hand) == {"antes": [0, 10, 0], "blinds": [1, 2, 0]} and hand.stacks == [99, 0, 100]
    deal(hand, "Ks As Qs Kd Ad Qd")  # seat 1 kings, seat 2 aces, seat 3 queens
    hand.bet_or_raise_to(3, 50)
    hand.call(1)
    _board(hand, "2c 7h 9d 3s 4c")
    _show_down(hand)
    assert [(a.pot.amount, a.shares) for a in hand.state.awards] == [(16, ((1, 16),)), (96, ((0, 96),))]
    assert hand.stacks == [146, 16, 50]


def test_r_circ_6_decision_ante_pot_matched_an_ante_nobody_else_posts_is_not_taken() -> None:
    """Under ``matched`` the part of an ante above every other player's ante would come straight back: a big-blind
    ante alone is not posted, and the big blind keeps his chips for the betting."""
    hand = start(holdem(antes=(0, 10, 0)), [100, 12, 100])
    assert _forced(hand) == {"antes": [0, 0, 0], "blinds": [1, 2, 0]} and hand.stacks == [99, 10, 100]


def test_r_circ_6_a_player_all_in_for_part_of_his_ante_wins_what_each_reading_gives_him() -> None:
    """Seat 3 has 5 chips for an ante of 10.  Matched: he wins 5 from each player (R-CIRC-6, the proportional part).
    Main: the antes are dead money in the main pot and he wins all of them."""
    won = {}
    for reading in AntePot:
        hand = start(holdem(antes=10, ante_pot=reading), [100, 100, 5])
        assert _forced(hand)["antes"] == [10, 10, 5] and hand.stacks[2] == 0
        deal(hand, "2c 3d As 4h 5s Ad")  # seat 3 holds the aces
        _board(hand, "Kc 9d 7h Jc 8s")  # seat 3 is all-in and never acts
        _show_down(hand)
        won[reading] = hand.stacks[2]
        assert sum(hand.stacks) == 205
    assert won == {AntePot.MATCHED: 15, AntePot.MAIN: 25}


def test_r_circ_2_a_blind_the_stack_cannot_cover_puts_the_player_all_in_before_the_deal() -> None:
    hand = start(holdem(antes=2), [100, 3, 1, 100])
    assert _forced(hand) == {"antes": [2, 2, 1, 2], "blinds": [1, 1, 0, 0]}
    assert hand.stacks == [97, 0, 0, 98]
    deal(hand, "2c 3c 4c 5c 2d 3d 4d 5d")
    assert hand.actor_seat == 4  # the player after the big blind who can act: seat 3 is all-in on his ante


def test_r_circ_3_the_big_blind_checks_when_nobody_is_left_to_bet_against_him() -> None:
    """Seat 1 is all-in on his small blind; seat 3 folds; seat 4 calls all-in.  The big blind has not acted: he keeps
    his turn, and the only thing left to him is to check (pokerkit plays, and PHH records, the same)."""
    hand = start(holdem(), [1, 100, 100, 2])
    deal(hand, "2c 3c 4c 5c 2d 3d 4d 5d")
    hand.fold(3)
    hand.call(4)
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 2
    assert legal.check and legal.call is None and legal.raise_min is None
    hand.check(2)
    assert hand.state.next_slot is not None  # the flop is due: the betting is over for good


def test_r_circ_3_a_player_whose_bet_covers_everyone_is_not_asked_to_act() -> None:
    """The big blind's 2 already covers seat 1 (all-in on his blind) and seat 3 (2 chips): nothing he could do
    changes anything, so seat 3 alone acts."""
    hand = start(holdem(), [1, 100, 2])
    deal(hand, "2c 3c 4c 5c 2d 3d")
    assert hand.actor_seat == 3
    hand.call(3)
    assert hand.actor_seat is None and hand.state.next_slot is not None


def test_r_flop_1_heads_up_a_big_blind_ante_stays_with_the_big_blind() -> None:
    """Antes are listed by position like the blinds; heads-up both are swapped (the button posts the small blind),
    so a big-blind ante is posted by the big blind (PHH and pokerkit list them the same way)."""
    hand = start(holdem(antes=(0, 10), ante_pot=AntePot.MAIN), [100, 100])
    assert _forced(hand) == {"antes": [10, 0], "blinds": [2, 1]}


def test_r_circ_6_a_bet_nobody_matched_in_its_interval_comes_back_even_when_unequal_antes_even_the_totals() -> None:
    """Seat 1 antes 5 and the others 10.  On the river seat 1 bets 30 and seat 2 calls all-in for 25: seat 1's
    5 comes back although both have put 35 in the pot in all."""
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, antes=(5, 10, 10), min_bet=2, burn_cards=False)
    hand = start(settings, [100, 35, 100])
    deal(hand, "2c As 4h 3d Ad 5s")
    for board in ("Kc 9d 7h", "Jc", "8s"):
        _check_down(hand)
        deal(hand, board)
    while (legal := hand.legal_actions()) is not None:
        if legal.seat == 1:
            hand.bet_or_raise_to(1, 30)
        elif legal.seat == 2 and legal.call:
            hand.call(2)
        elif legal.call:
            hand.fold(legal.seat)
        else:
            hand.check(legal.seat)
    _show_down(hand)
    assert hand.stacks == [70, 75, 90]


@given(st.integers(0, 2**32), st.sampled_from(list(AntePot)), st.integers(2, 9))
def test_r_circ_6_chips_are_conserved_with_any_antes_blinds_and_stacks(seed: int, reading: AntePot,
                                                                      players: int) -> None:
    """Random antes (equal, big-blind or unequal), blinds and straddles, stacks short of the forced bets: every chip
    put in is paid back out to someone (no rake), under either reading of the antes."""
    rng = random.Random(seed)
    antes = tuple(rng.choice((0, 0, 1, 5, 10)) for _ in range(players))
    blinds = (1, 2, 4)[: rng.randint(1, 3)] if rng.random() < 0.8 else ()
    stacks = [rng.randint(1, 60) for _ in range(players)]
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, antes=antes, blinds=blinds, min_bet=2,
                                    burn_cards=False, ante_pot=reading)
    hand = start(settings, stacks)
    play_randomly(hand, rng, shuffled(52, rng))
    assert hand.is_complete and sum(hand.stacks) == sum(stacks)
    assert all(stack >= 0 for stack in hand.stacks)
