"""``pokertable hand``: evaluate one hand from the command line, or a batch of hands from standard input."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import TextIO

import numpy as np

from domain.cards.batch import BatchEvaluator, batch_evaluator
from domain.cards.cards import Card, format_cards, parse_cards
from domain.cards.decks import DECK_SIZES
from domain.cards.hand_classes import Language
from domain.cards.hand_rules import HAND_RULES, HandRule
from domain.cards.ranking import hand_ranking
from domain.errors import RuleError

BLOCK_LINES = 1 << 16


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``hand`` on the CLI."""
    parser = commands.add_parser(
        "hand",
        help="evaluate a hand (or, with --batch, one hand per line of standard input)",
        description="Evaluate the best hand (R-CARD-3 … R-CARD-7). "
        "Example: pokertable hand As Ks --board Qs Js Ts 2c 3d",
    )
    parser.add_argument("cards", nargs="*", help="own cards: As Kd, 10h, or run together (AsKd)")
    parser.add_argument("--board", nargs="*", default=[], help="board (community) cards")
    parser.add_argument("--game", choices=sorted(HAND_RULES), default="holdem")
    parser.add_argument("--deck", type=int, choices=DECK_SIZES, help="deck size (default: 28 for sintetico, else 52)")
    parser.add_argument("--flush-beats-full-house", choices=("yes", "no"),
                        help="R-CARD-5 setting (default: yes in reduced decks, no in 52 cards)")
    parser.add_argument("--lang", choices=("en", "es"), default="en", help="language of the category and description")
    parser.add_argument("--batch", action="store_true",
                        help="read one hand per line from standard input; print strength<TAB>category<TAB>description")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``pokertable hand``; returns the exit status."""
    rule = HAND_RULES[args.game]
    deck = args.deck or rule.default_deck
    flush_setting = None if args.flush_beats_full_house is None else args.flush_beats_full_house == "yes"
    evaluator = batch_evaluator(deck, flush_setting)
    if args.batch:
        if args.cards or args.board:
            print("pokertable hand: --batch reads standard input; give no cards on the command line", file=sys.stderr)
            return 2
        return evaluate_lines(sys.stdin, sys.stdout, sys.stderr, rule=rule, evaluator=evaluator, language=args.lang)
    try:
        own = parse_cards(" ".join(args.cards))
        board = parse_cards(" ".join(args.board))
        value = rule.evaluate(hand_ranking(deck, flush_setting), own, board)
    except RuleError as error:
        print(f"pokertable hand: {error}", file=sys.stderr)
        return 1
    language: Language = args.lang
    print(f"best hand    {format_cards(value.best_five, pretty=True)}")
    print(f"category     {value.category.label(language)}")
    print(f"description  {value.describe(language)}")
    print(f"strength     {value.strength} of {len(evaluator.ranking.classes)} ({args.game}, {deck}-card deck)")
    return 0


@dataclass(frozen=True, slots=True)
class ParsedHand:
    """One valid input line: its own and board card codes."""

    own: tuple[int, ...]
    board: tuple[int, ...]


def parse_line(text: str, rule: HandRule, evaluator: BatchEvaluator) -> ParsedHand:
    """Parse and check one batch line: cards, optionally ``own | board``; raises :class:`RuleError`."""
    own_text, bar, board_text = text.partition("|")
    own = parse_cards(own_text)
    board = parse_cards(board_text) if bar else []
    if not bar and rule.own_used is None and len(rule.own_cards) == 1 and rule.board_cards != (0,):
        own, board = own[:rule.own_cards[0]], own[rule.own_cards[0]:]  # Hold'em: own cards first, then the board
    rule.check_counts(len(own), len(board))
    cards: list[Card] = [*own, *board]
    evaluator.ranking.check(cards, counts=(len(cards),))
    return ParsedHand(tuple(c.code for c in own), tuple(c.code for c in board))


def evaluate_lines(
    lines: Iterable[str], out: TextIO, err: TextIO, *, rule: HandRule, evaluator: BatchEvaluator, language: Language
) -> int:
    """Evaluate one hand per line; bad lines are reported on ``err`` by number and print nothing on ``out``.

    Blank lines are skipped.  Returns 1 if any line was bad, else 0.
    """
    status = 0
    numbered: Iterator[tuple[int, str]] = enumerate(lines, start=1)
    while block := list(islice(numbered, BLOCK_LINES)):
        parsed: dict[int, ParsedHand] = {}
        for number, text in block:
            if not text.strip():
                continue
            try:
                parsed[number] = parse_line(text, rule, evaluator)
            except RuleError as error:
                err.write(f"line {number}: {error}\n")
                status = 1
        strengths = _evaluate(parsed, rule, evaluator)
        ranking = evaluator.ranking
        for number in sorted(strengths):
            hand_class = ranking.hand_class(strengths[number])
            out.write(f"{strengths[number]}\t{hand_class.category.label(language)}\t{hand_class.describe(language)}\n")
    return status


def _evaluate(parsed: dict[int, ParsedHand], rule: HandRule, evaluator: BatchEvaluator) -> dict[int, int]:
    """Strengths by line number, evaluating lines of the same shape together with the batch evaluator."""
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for number, hand in parsed.items():
        groups[len(hand.own), len(hand.board)].append(number)
    result: dict[int, int] = {}
    for numbers in groups.values():
        own = np.array([parsed[n].own for n in numbers], dtype=np.uint8)
        board = np.array([parsed[n].board for n in numbers], dtype=np.uint8).reshape(len(numbers), -1)
        if rule.own_used is None or rule.board_used is None:
            values = evaluator.strengths(np.concatenate([own, board], axis=1), check=False)
        else:
            values = evaluator.strengths_split(own, board, rule.own_used, rule.board_used, check=False)
        result.update(zip(numbers, (int(v) for v in values), strict=True))
    return result
