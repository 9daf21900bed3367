"""``pokertable demo``: hand evaluation, then the table service on SQLite with a simulated dealer station playing
every game over gRPC, then the batch evaluator's speed.

The shuffle happens here, outside the domain: the domain only receives cards from outside.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from domain.cards.batch import batch_evaluator
from domain.cards.cards import Card, format_cards
from domain.cards.decks import ArrangedDeck, BackColour, DeckIdentity, composition
from domain.cards.hand_rules import HAND_RULES
from domain.cards.ranking import HandValue, hand_ranking
from service.cli.service_demo import run_service_demo

# (title, game, deck size, players, own cards each, board cards)
DEMO_TABLES: tuple[tuple[str, str, int, int, int, int], ...] = (
    ("Texas Hold'em", "holdem", 52, 6, 2, 5),
    ("Omaha", "omaha", 52, 5, 4, 5),
    ("Póquer sintético", "sintetico", 28, 5, 2, 5),
    ("Five-card stud", "stud", 32, 5, 5, 0),
    ("Seven-card stud", "stud", 52, 5, 7, 0),
    ("Five-card draw with a 36-card deck", "draw", 36, 5, 5, 0),
)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``demo`` on the CLI."""
    parser = commands.add_parser("demo", help="deal and evaluate a hand of every circle game, then play every "
                                              "regulation game against the table service over gRPC")
    parser.add_argument("--seed", type=int, default=None, help="seed of the demo's shuffles (default: random)")
    parser.add_argument("--lang", choices=("en", "es"), default="en")
    parser.add_argument("--db", help="where the demo service stores its events (default: a temporary SQLite file)")
    parser.set_defaults(run=run)


def shuffled_deck(size: int, colour: BackColour, rng: random.Random) -> ArrangedDeck:
    """A deck shuffled by this process, standing in for the automatic shuffler (R-DECK-2)."""
    order = list(composition(size))
    rng.shuffle(order)
    return ArrangedDeck.of(DeckIdentity(size, colour, label="demo"), order)


def run(args: argparse.Namespace) -> int:
    """Deal one hand of each demo table and announce every player's hand and the winners."""
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    rng = random.Random(seed)
    print(f"pokertable demo (seed {seed}); decks alternate red and blue as the shuffler delivers them (R-DECK-2)\n")
    print("== Hand evaluation: one deal of every circle game, as the croupier announces it\n")
    colour = BackColour.RED
    for title, game, size, players, own_count, board_count in DEMO_TABLES:
        deck = shuffled_deck(size, colour, rng)
        colour = colour.other
        cards = iter(deck.order)
        hands = [[next(cards) for _ in range(own_count)] for _ in range(players)]
        board = [next(cards) for _ in range(board_count)]
        ranking = hand_ranking(size)
        values = [HAND_RULES[game].evaluate(ranking, own, board) for own in hands]
        _announce(title, deck, hands, board, values, lang=args.lang)
    with tempfile.TemporaryDirectory(prefix="pokertable-demo-") as directory:
        db = args.db or f"sqlite:///{Path(directory) / 'demo.db'}"
        run_service_demo(rng, Path(directory), db, args.lang)
    _batch_figures(rng)
    return 0


def _announce(
    title: str, deck: ArrangedDeck, hands: list[list[Card]], board: list[Card], values: list[HandValue], *, lang: str
) -> None:
    flush_over_full = hand_ranking(deck.identity.size).rules.flush_over_full
    setting = "flush beats full house" if flush_over_full else "full house beats flush"
    print(f"== {title} — {deck.identity} ({setting}, R-CARD-5)")
    if board:
        print(f"   board   {format_cards(board, pretty=True)}")
    best = max(values)
    for seat, (own, value) in enumerate(zip(hands, values, strict=True), start=1):
        mark = "  ← wins" if value.strength == best.strength else ""
        description = value.describe("es" if lang == "es" else "en")
        print(f"   seat {seat}  {format_cards(own, pretty=True):<21} {description:<34} "
              f"{format_cards(value.best_five, pretty=True)}{mark}")
    print()



def _batch_figures(rng: random.Random) -> None:
    """Show the batch evaluator on a million random 7-card hands: the category frequencies of Hold'em."""
    count = 1_000_000
    generator = np.random.default_rng(rng.randrange(1 << 32))
    hands = np.argsort(generator.random((count, 52)), axis=1)[:, :7].astype(np.uint8)
    evaluator = batch_evaluator(52)
    started = time.perf_counter()
    strengths = evaluator.strengths(hands)
    elapsed = time.perf_counter() - started
    categories = np.array([c.category for c in evaluator.ranking.classes], dtype=np.int8)[strengths - 1]
    print(f"== Batch: {count:,} random 7-card hands evaluated in {elapsed * 1000:.0f} ms "
          f"({count / elapsed / 1e6:.1f} M hands/s)")
    for category, label in enumerate(("high card", "pair", "two pair", "three of a kind", "straight", "flush",
                                      "full house", "four of a kind", "straight flush")):
        share = np.count_nonzero(categories == category) / count
        print(f"   {label:<16} {share:8.4%}")
