"""Random complete hands played by pokerkit, written as PHH: the oracle of the circle-poker engine.

Each hand draws its own table: 2–9 players (stud 2–7, as 52 cards must suffice), no ante, a uniform ante, a big-blind
ante or unequal antes, blinds with or without straddles, pokerkit's ante trimming on or off (``ante_trimming_status``,
the two readings of an ante, docs/circle.md), and short stacks — some shorter than the player's forced bets, so that
an ante or a blind puts him all-in before the deal.  The players act at random; all-ins are frequent.

Every amount (stacks, forced bets, bets) is a multiple of 2,520 = lcm(1…9), so every split pot divides evenly:
odd-chip placement is the one place where our rules (R-CIRC-11) and pokerkit's differ, and it is tested on its own.

pokerkit's loader repairs a history it cannot play (it folds or checks for a player, or drops an action), so
:func:`loads_as_written` checks that the written history loads back into pokerkit with every action applied as written
and the same finishing stacks: the oracle's file says exactly what pokerkit played.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pokerkit import (
    Automation,
    BringInPosting,
    CheckingOrCalling,
    ChipsPushing,
    CompletionBettingOrRaisingTo,
    FixedLimitSevenCardStud,
    FixedLimitTexasHoldem,
    Folding,
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
ANTE_KINDS = ("none", "uniform", "big blind", "unequal")
PLAYER_OPERATIONS = (Folding, CheckingOrCalling, CompletionBettingOrRaisingTo, BringInPosting)


@dataclass(frozen=True)
class OracleHand:
    """A hand pokerkit played: its PHH text, pokerkit's finishing stacks and the table it was drawn at."""

    phh: str
    final_stacks: tuple[int, ...]
    table: str
    """How the table was drawn (antes, blinds, trimming, stacks), for failure messages."""
    redrawn: int = 0
    """Tables drawn before this one that pokerkit itself could not play."""
    pots: int = 0
    """The pots pokerkit paid (more than one: side pots)."""


def _antes(kind: str, players: int, rng: random.Random) -> list[int]:
    if kind == "uniform":
        return [rng.choice((1, 2)) * UNIT] * players
    if kind == "big blind":  # the big blind's position, as pokerkit lists it (heads-up too: it swaps them back)
        return [0, rng.randint(1, 4) * UNIT] + [0] * (players - 2)
    if kind == "unequal":
        return [rng.randint(0, 3) * UNIT for _ in range(players)]
    return [0] * players


def _blinds(players: int, rng: random.Random) -> list[int]:
    blinds = [UNIT, 2 * UNIT]
    straddles = rng.choice((0, 0, 1, 2)) if players >= 3 else 0
    for _ in range(min(straddles, players - 2)):
        blinds.append(2 * blinds[-1])  # each straddle doubles the last blind or straddle
    return blinds + [0] * (players - len(blinds))


def _game(variant: str, antes: list[int], blinds: list[int], trimming: bool) -> Any:
    if variant == "NT":
        return NoLimitTexasHoldem(AUTOMATIONS, trimming, antes, blinds, 2 * UNIT)
    if variant == "FT":
        return FixedLimitTexasHoldem(AUTOMATIONS, trimming, antes, blinds, 2 * UNIT, 4 * UNIT)
    if variant == "PO":
        return PotLimitOmahaHoldem(AUTOMATIONS, trimming, antes, blinds, 2 * UNIT)
    return FixedLimitSevenCardStud(AUTOMATIONS, trimming, antes, UNIT, 2 * UNIT, 4 * UNIT)


def _stacks(forced: list[int], rng: random.Random) -> list[int]:
    """Short and uneven stacks, so that all-ins and side pots are common; now and then a stack no larger than the
    player's forced bets (all-in before the deal)."""
    stacks = []
    for owed in forced:
        if owed and rng.random() < 0.12:
            stacks.append(UNIT * rng.randint(1, owed // UNIT))
        else:
            stacks.append(UNIT * rng.randint(1, 60))
    return stacks


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
    """One random hand of ``variant`` (``NT``, ``FT``, ``PO`` or ``F7S``) at a randomly drawn table.

    A table where pokerkit itself fails (an assertion of its own, or chips it burns when a pot is left with nobody
    entitled to it, which happens with unequal antes) is not a hand pokerkit can play: another table is drawn, and
    :attr:`OracleHand.redrawn` counts them."""
    rng = random.Random(seed)
    for redrawn in range(100):
        players = rng.randint(2, 7 if variant == "F7S" else 9)
        kind = rng.choice(("uniform", "unequal") if variant == "F7S" else ANTE_KINDS)
        antes = _antes(kind, players, rng)
        blinds = [0] * players if variant == "F7S" else _blinds(players, rng)
        trimming = rng.random() < 0.5
        game = _game(variant, antes, blinds, trimming)
        forced = [a + b for a, b in zip(_by_player(antes), _by_player(blinds), strict=True)]
        stacks = _stacks(forced, rng)
        table = (f"{variant} seed {seed}: {players} players, {kind} antes {antes}, blinds {blinds}, "
                 f"ante trimming {trimming}, stacks {stacks}")
        saved = random.getstate()  # pokerkit shuffles its deck with the random module: seeded here, then put back
        random.seed(rng.getrandbits(64))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the chips pokerkit burns are counted below
                state = game(stacks, players)
                while state.status:
                    _act(state, rng)
        except AssertionError:
            continue
        finally:
            random.setstate(saved)
        if sum(state.stacks) != sum(state.starting_stacks):
            continue
        # pokerkit's writer drops the game's ante trimming (it would write the default, false): given here
        history = HandHistory.from_game_state(game, state, ante_trimming_status=trimming)
        pots = len({op.pot_index for op in state.operations if isinstance(op, ChipsPushing)})
        return OracleHand(history.dumps(), tuple(state.stacks), table, redrawn, pots)
    raise AssertionError(f"pokerkit could play no table drawn from seed {seed}")  # pragma: no cover


def _by_player(values: list[int]) -> list[int]:
    """pokerkit's per-player forced bets: heads-up it swaps the two (the big blind's position is listed second)."""
    return values[::-1] if len(values) == 2 else values


def hands(variant: str, count: int, first_seed: int = 0) -> Iterator[OracleHand]:
    """``count`` random hands of a variant, from consecutive seeds."""
    for seed in range(first_seed, first_seed + count):
        yield play(variant, seed)


def loads_as_written(hand: OracleHand) -> list[str]:
    """What is wrong when pokerkit loads the hand's PHH text back (empty if nothing): an action it did not apply as
    written, a player action it made up to repair the history, or other finishing stacks."""
    history = HandHistory.loads(hand.phh)
    problems: list[str] = []
    applied: list[str] = []
    state: State | None = None
    try:
        for state, action in history.state_actions:  # noqa: B007 (the last state is the hand's end)
            if action is not None:
                applied.append(action)
    except Exception as error:  # pokerkit fails in its own ways on a history it cannot play
        problems.append(f"pokerkit cannot load it: {error!r}")
    if applied != list(history.actions):
        missing = next((a for a, b in zip(history.actions, [*applied, None], strict=False) if a != b), None)
        problems.append(f"action {missing!r} was not applied as written")
    if state is not None:
        made = sum(isinstance(op, PLAYER_OPERATIONS) for op in state.operations)
        written = sum(1 for a in history.actions if a.split()[1] in ("f", "cc", "cbr", "pb"))
        if made != written:
            problems.append(f"pokerkit played {made} player actions where the file has {written}")
        if tuple(state.stacks) != hand.final_stacks:
            problems.append(f"loaded it ends in {list(state.stacks)}, not {list(hand.final_stacks)}")
    return problems
