"""Random complete hands played by pokerkit, written as PHH: the oracle of the circle-poker engine.

Every amount (stacks, forced bets, bets) is a multiple of 2,520 = lcm(1…9), so every split pot divides evenly:
odd-chip placement is the one place where our rules (R-CIRC-11) and pokerkit's differ, and it is tested on its own.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pokerkit import (
    Automation,
    FixedLimitSevenCardStud,
    FixedLimitTexasHoldem,
    HandHistory,
    NoLimitTexasHoldem,
    PotLimitOmahaHoldem,
    State,
)

UNIT = 2520
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


@dataclass(frozen=True)
class OracleHand:
    """A hand pokerkit played: its PHH text and pokerkit's finishing stacks."""

    phh: str
    final_stacks: tuple[int, ...]


def _game(variant: str, rng: random.Random) -> Any:
    if variant == "NT":
        ante = rng.choice((0, UNIT))
        return NoLimitTexasHoldem(AUTOMATIONS, True, ante, (UNIT, 2 * UNIT), 2 * UNIT)
    if variant == "FT":
        return FixedLimitTexasHoldem(AUTOMATIONS, True, 0, (UNIT, 2 * UNIT), 2 * UNIT, 4 * UNIT)
    if variant == "PO":
        return PotLimitOmahaHoldem(AUTOMATIONS, True, 0, (UNIT, 2 * UNIT), 2 * UNIT)
    return FixedLimitSevenCardStud(AUTOMATIONS, True, UNIT, UNIT, 2 * UNIT, 4 * UNIT)


def _stacks(players: int, rng: random.Random) -> list[int]:
    """Short and uneven stacks, so that all-ins and side pots are common."""
    return [UNIT * rng.randint(3, 60) for _ in range(players)]


def _act(state: State, rng: random.Random) -> None:
    roll = rng.random()
    if state.can_post_bring_in() and (roll < 0.7 or not state.can_complete_bet_or_raise_to()):
        state.post_bring_in()
        return
    if state.can_complete_bet_or_raise_to() and (roll < 0.35 or state.can_post_bring_in()):
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        assert low is not None and high is not None
        choices = list(range(-(-low // UNIT) * UNIT, high + 1, UNIT)) or [high]
        state.complete_bet_or_raise_to(rng.choice([*choices, high]))
        return
    if state.can_fold() and roll < 0.5 and state.checking_or_calling_amount:
        state.fold()
        return
    state.check_or_call()


def play(variant: str, seed: int) -> OracleHand:
    """One random hand of ``variant`` (``NT``, ``FT``, ``PO`` or ``F7S``) with 2–9 players (stud 2–7: 52 cards)."""
    rng = random.Random(seed)
    players = rng.randint(2, 7 if variant == "F7S" else 9)
    game = _game(variant, rng)
    state = game(_stacks(players, rng), players)
    while state.status:
        _act(state, rng)
    history = HandHistory.from_game_state(game, state)
    return OracleHand(history.dumps(), tuple(state.stacks))


def hands(variant: str, count: int, first_seed: int = 0) -> Iterator[OracleHand]:
    """``count`` random hands of a variant."""
    for seed in range(first_seed, first_seed + count):
        yield play(variant, seed)
