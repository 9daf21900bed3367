"""Circle-poker engine speed: random legal 6-max no-limit Hold'em hands through our event-sourced ``Hand``
aggregate (in memory) and through pokerkit's ``State``, the same hands in the same run.

The hands are played once by pokerkit with random legal actions and recorded; then both engines replay the
recorded cards and actions (parsing and card conversion happen before timing).  Our hand records every event
(forced bets, each card, each action, each pot) as it goes; pokerkit automates posting, collection, burning,
showdown and payouts.  Target (issue 3): at least 5× pokerkit's hands per second.

Run with ``.venv/bin/python benchmarks/circle.py [--hands N]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pokerkit import Automation, HandHistory, NoLimitTexasHoldem, State
from pokerkit import Card as PokerkitCard

from domain.cards.cards import Card, parse_cards
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.hand import TABLES_NAMESPACE, Hand
from domain.circle.settings import BettingStructure, TableSettings

PLAYERS = 6
UNIT = 2520  # every amount a multiple of lcm(1…9): split pots divide evenly, so odd-chip rules (R-CIRC-11) never differ
STACK = 200 * UNIT
BLINDS = (UNIT, 2 * UNIT)
FULL_AUTOMATION = (
    Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.BOARD_DEALING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
REPLAY_AUTOMATION = tuple(a for a in FULL_AUTOMATION if a not in (Automation.HOLE_DEALING, Automation.BOARD_DEALING))


@dataclass(frozen=True)
class RecordedHand:
    """One hand, ready for each engine: our cards in dealing order and actions; pokerkit's grouped deals."""

    ours: list[tuple[Any, ...]]
    theirs: list[tuple[Any, ...]]
    final_stacks: tuple[int, ...]


def record(seed: int) -> RecordedHand:
    """A random legal hand played by pokerkit, turned into each engine's operations."""
    rng = random.Random(seed)
    random.seed(seed)  # pokerkit shuffles its own deck with the global generator
    game = NoLimitTexasHoldem(FULL_AUTOMATION, True, 0, BLINDS, BLINDS[1])
    state = game([STACK] * PLAYERS, PLAYERS)
    while state.status:
        roll = rng.random()
        if state.can_complete_bet_or_raise_to() and roll < 0.25:
            low = state.min_completion_betting_or_raising_to_amount
            high = state.max_completion_betting_or_raising_to_amount
            assert low is not None and high is not None
            steps = list(range(-(-low // UNIT) * UNIT, high + 1, UNIT)) or [high]
            state.complete_bet_or_raise_to(rng.choice([*steps[:1], high, rng.choice(steps)]))
        elif state.can_fold() and roll < 0.55 and state.checking_or_calling_amount:
            state.fold()
        else:
            state.check_or_call()
    actions = HandHistory.from_game_state(game, state).actions
    ours: list[tuple[Any, ...]] = []
    theirs: list[tuple[Any, ...]] = []
    hole_round: dict[int, list[Card]] = {}
    for action in actions:
        words = action.split()
        if words[:2] == ["d", "dh"]:
            position = int(words[2][1:]) - 1
            hole_round[position] = parse_cards(words[3])
            theirs.append(("dh", position, list(PokerkitCard.parse(words[3]))))
            continue
        if hole_round:  # one card at a time, clockwise (R-CIRC-2)
            ours.extend(("deal", cards[k]) for k in range(2) for _, cards in sorted(hole_round.items()))
            hole_round = {}
        match words:
            case ["d", "db", cards]:
                ours.extend(("deal", card) for card in parse_cards(cards))
                theirs.append(("db", list(PokerkitCard.parse(cards))))
            case [player, "sm", *shown]:
                ours.append(("show" if shown else "muck", int(player[1:])))
            case [player, verb, *amount]:
                seat = int(player[1:])
                ours.append((verb, seat, *map(int, amount)))
                theirs.append((verb, *map(int, amount)))
    return RecordedHand(ours, theirs, tuple(state.stacks))


SETTINGS = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=BLINDS, burn_cards=False)
DECK = DeckIdentity(52, BackColour.RED, "bench")
SEATS = list(range(1, PLAYERS + 1))


def play_ours(hand_ops: list[tuple[Any, ...]]) -> Hand:
    """Replay one recorded hand through our aggregate."""
    hand = Hand.start(TABLES_NAMESPACE, 1, SETTINGS, seats=SEATS, stacks=[STACK] * PLAYERS, button_seat=PLAYERS,
                      deck=DECK)
    for op in hand_ops:
        match op:
            case ("deal", card):
                hand.deal(card, "replay")
            case ("cc", seat):
                if hand.can_check(seat):
                    hand.check(seat)
                else:
                    hand.call(seat)
            case ("cbr", seat, amount):
                hand.bet_or_raise_to(seat, amount)
            case ("f", seat):
                hand.fold(seat)
            case ("show" | "muck" as verb, seat) if not hand.is_complete:
                (hand.show if verb == "show" else hand.muck)(seat)
    for position in hand.state.in_hand:  # anything pokerkit's showdown automation settled silently
        if not hand.is_complete and position not in hand.state.shown:
            hand.show(hand.seat_of(position))
    hand.last_events = len(hand.collect_events())  # type: ignore[attr-defined]
    return hand


def play_theirs(hand_ops: list[tuple[Any, ...]]) -> State:
    """Replay one recorded hand through pokerkit's state machine."""
    state = NoLimitTexasHoldem(REPLAY_AUTOMATION, True, 0, BLINDS, BLINDS[1])([STACK] * PLAYERS, PLAYERS)
    for op in hand_ops:
        match op:
            case ("dh", position, cards):
                state.deal_hole(cards, position)
            case ("db", cards):
                state.deal_board(cards)
            case ("cc",):
                state.check_or_call()
            case ("cbr", amount):
                state.complete_bet_or_raise_to(amount)
            case ("f",):
                state.fold()
    return state


def timed(run: Callable[[], object]) -> float:
    """Seconds taken by ``run``."""
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    """Record the hands, check both engines agree, time both, print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # pokerkit warns when a dealt card is not in its own (burn-shuffled) deck
    hands = [record(seed) for seed in range(args.hands)]
    for recorded in hands:  # both engines agree on every hand before either is timed
        assert tuple(play_ours(recorded.ours).stacks) == recorded.final_stacks
        assert tuple(play_theirs(recorded.theirs).stacks) == recorded.final_stacks
    events = sum(play_ours(h.ours).last_events for h in hands) / len(hands)  # type: ignore[attr-defined]
    ours = min(timed(lambda: [play_ours(h.ours) for h in hands]) for _ in range(3))
    theirs = min(timed(lambda: [play_theirs(h.theirs) for h in hands]) for _ in range(3))
    print(f"6-max no-limit Hold'em, {len(hands):,} random legal hands replayed, in memory (best of 3); "
          f"ours records {events:.1f} events a hand")
    print(f"  {'engine':<34} {'hands/s':>10} {'vs pokerkit':>12}")
    print(f"  {'ours: Hand aggregate, all events':<34} {len(hands) / ours:>10,.0f} {theirs / ours:>11.2f}×")
    print(f"  {'pokerkit State':<34} {len(hands) / theirs:>10,.0f} {1:>11.2f}×")
    ratio = theirs / ours
    print(f"\nTarget: ≥ 5× pokerkit's hands per second: {ratio:.2f}× {'met' if ratio >= 5 else 'MISSED'}")


if __name__ == "__main__":
    main()
