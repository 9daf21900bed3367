"""``pokertable odds``: the figures a regulator reads, checked against exact counts where they exist."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from domain.banked.cdp import CdpSettings
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.banked.thb_settings import REFUSED_BONUS
from domain.cards.batch import batch_evaluator
from domain.cards.cards import ALL_CARDS
from domain.cards.hand_classes import Category
from service.cli.odds import THB_STRATEGIES, ThbDeals, cdp_chunk, thb_chunk, thb_deals
from tests.support.banked_support import thb_hand
from tests.support.cards import all_five_card_hands

SCRIPT = shutil.which("pokertable", path=str(Path(sys.executable).parent)) or "pokertable"


def odds(*args: str) -> dict[str, Any]:
    result = subprocess.run([SCRIPT, "odds", *args, "--json"], capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_bonus_bet_is_computed_exactly_and_printed_to_four_decimals() -> None:
    figures = odds("holdem-bonus", "--bet", "bonus")
    assert figures["method"] == "exact enumeration"
    assert round(figures["house_edge"], 6) == 0.085406
    assert round(figures["hit_frequency"], 6) == 0.095023
    text = subprocess.run([SCRIPT, "odds", "holdem-bonus", "--bet", "bonus"], capture_output=True, text=True,
                          check=True).stdout
    assert "8.5406 %" in text


def test_the_main_game_is_simulated_with_a_stated_strategy_and_a_confidence_interval() -> None:
    basic = odds("holdem-bonus", "--hands", "60000", "--strategy", "basic")
    always = odds("holdem-bonus", "--hands", "60000", "--strategy", "always")
    for figures in (basic, always):
        low, high = figures["house_edge_ci95"]
        assert figures["hands"] == 60000 and low < figures["house_edge"] < high
        assert 0 < figures["element_of_risk"] < figures["house_edge"]
    assert basic["house_edge"] < always["house_edge"]  # betting the turn and river with good hands helps


def test_simulations_are_reproducible_by_seed_and_split_across_processes_without_overlap() -> None:
    one = odds("holdem-bonus", "--hands", "20000", "--seed", "7")
    two = odds("holdem-bonus", "--hands", "20000", "--seed", "7")
    other = odds("holdem-bonus", "--hands", "20000", "--seed", "8")
    assert one == two and one != other


def test_the_bank_qualifies_as_often_as_the_exact_count_of_five_card_hands_says() -> None:
    """R-CDP-4: P(pair of eights or better) over all 2,598,960 hands, against the simulation's count."""
    evaluator = batch_evaluator(52)
    strengths = evaluator.strengths(all_five_card_hands(52))
    classes = evaluator.ranking.classes
    qualifying = np.array([c.category > Category.PAIR or (c.category is Category.PAIR and c.ranks[0] >= 8)
                           for c in classes])
    exact = qualifying[strengths - 1].mean()
    result = cdp_chunk(seed=11, rows=20000, strategy="stand-pat")
    before = result.extra[0] / result.hands
    assert abs(before - exact) < 4 * math.sqrt(exact * (1 - exact) / result.hands)
    assert result.extra[1] > result.extra[0]  # the exchange helps the bank qualify


def test_casino_draw_reports_qualification_before_and_after_the_exchange() -> None:
    figures = odds("casino-draw", "--hands", "5000", "--strategy", "basic")
    assert 0.25 < figures["bank_qualifies_before_exchange"] < figures["bank_qualifies_after_exchange"] < 0.7
    assert figures["house_edge_ci95"][0] < figures["house_edge"] < figures["house_edge_ci95"][1]


def test_a_table_of_seven_boxes_shares_one_dealer_per_deal() -> None:
    seven = thb_chunk(seed=3, rows=2000, strategy="basic", boxes=7)
    assert seven.hands == 14000 and seven.deals == 2000
    report = seven.report()
    assert report["house_edge_ci95"][0] < report["house_edge"] < report["house_edge_ci95"][1]


def test_bad_arguments_are_refused() -> None:
    result = subprocess.run([SCRIPT, "odds", "casino-draw", "--strategy", "always"], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 2 and "--strategy" in result.stderr


# -- bug 8: the simulator settles as the tables do --------------------------------------------------------------

ALL_THB_SETTINGS = [
    ThbSettings(STANDARD_LIMITS[5], ante_pays_from=floor, refused_bonus=refused, turn_dealer_cards_for_aces=turn)
    for floor in (Category.STRAIGHT, Category.FLUSH) for refused in REFUSED_BONUS for turn in (True, False)
]


def play_as_the_table_does(cards: list[int], burns: list[int], deals: ThbDeals, row: int, *,
                           settings: ThbSettings) -> dict[int, int]:
    """One simulated deal played through the domain's hand with the simulator's decisions: each box's net in antes."""
    boxes = deals.net.shape[1]
    hand = thb_hand({box: 10 for box in range(1, boxes + 1)}, settings=settings)
    card = [ALL_CARDS[c] for c in cards]
    hole = {box: card[2 * (box - 1):2 * box] for box in range(1, boxes + 1)}
    dealer, board = card[2 * boxes:2 * boxes + 2], card[2 * boxes + 2:2 * boxes + 7]
    burn = [ALL_CARDS[c] for c in burns]
    for round_ in (0, 1):
        for box in range(1, boxes + 1):
            hand.deal(hole[box][round_])
        hand.deal(dealer[round_])
    for box in range(1, boxes + 1):
        hand.flop_bet(box, 20) if deals.plays[row, box - 1] else hand.fold(box)
    streets = ((burn[0], *board[:3]), (burn[1], board[3]), (burn[2], board[4]))
    for street, cards_of_street in enumerate(streets):
        if hand.is_complete:
            break
        for next_card in cards_of_street:
            hand.deal(next_card)
        decisions = (deals.turn, deals.river)[street] if street < 2 else None
        while decisions is not None and (decider := hand.to_decide) is not None:
            hand.street_bet(decider, 10) if decisions[row, decider - 1] else hand.check(decider)
    assert hand.is_complete
    return {box: sum(result.values()) // 10 for box, result in hand.results.items()}


def assert_fast_path_is_the_domains(seed: int, rows: int, strategy: str, boxes: int, settings: ThbSettings) -> None:
    shuffled = np.random.default_rng(seed).permuted(np.tile(np.arange(52, dtype=np.uint8), (rows, 1)), axis=1)
    deals = thb_deals(shuffled[:, :2 * boxes + 7], strategy, boxes, settings)
    for row in range(rows):
        cards = shuffled[row].tolist()
        table = play_as_the_table_does(cards[:2 * boxes + 7], cards[2 * boxes + 7:2 * boxes + 10], deals, row,
                                       settings=settings)
        fast = {box: int(deals.net[row, box - 1]) for box in range(1, boxes + 1)}
        assert fast == table, f"seed {seed}, deal {row}: {settings}"


@pytest.mark.parametrize("strategy", THB_STRATEGIES)
@pytest.mark.parametrize("settings", ALL_THB_SETTINGS, ids=lambda s: f"{s.ante_pays_from.name}-{s.refused_bonus}-"
                         f"{'turned' if s.turn_dealer_cards_for_aces else 'unseen'}")
def test_r_thb_8_the_simulators_fast_path_settles_every_deal_as_the_tables_hand_does(
    settings: ThbSettings, strategy: str
) -> None:
    """Bug 8: every box of random deals, under every setting, nets in the vectorised simulator exactly what the
    domain's ThbHand settles, decisions included."""
    assert_fast_path_is_the_domains(ALL_THB_SETTINGS.index(settings) * 7 + len(strategy), 40, strategy, 4, settings)


@hyp_settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(THB_STRATEGIES), st.integers(1, 7), st.sampled_from(ALL_THB_SETTINGS))
def test_r_thb_8_the_fast_path_is_the_domains_on_any_seed_and_table_size(
    seed: int, strategy: str, boxes: int, settings: ThbSettings
) -> None:
    assert_fast_path_is_the_domains(seed, 12, strategy, boxes, settings)


def test_r_thb_8_the_odds_honour_the_ante_pays_from_a_flush_setting() -> None:
    """Bug 8: a table whose ante pays only from a flush pays less, so its house edge is higher, on the same deals."""
    straight = odds("holdem-bonus", "--hands", "20000", "--seed", "5")
    flush = odds("holdem-bonus", "--hands", "20000", "--seed", "5", "--ante-pays-from", "flush")
    assert straight["ante_pays_from"] == "straight" and flush["ante_pays_from"] == "flush"
    assert flush["house_edge"] > straight["house_edge"]
    chunk_straight = thb_chunk(seed=5, rows=5000, strategy="basic")
    chunk_flush = thb_chunk(seed=5, rows=5000, strategy="basic", settings=ALL_THB_SETTINGS[4].to_dict())
    assert chunk_flush.net < chunk_straight.net and chunk_flush.wagered == chunk_straight.wagered


def test_r_cdp_5_the_casino_draw_odds_honour_the_play_bet_setting() -> None:
    returned = cdp_chunk(seed=3, rows=3000, strategy="basic")
    paid = cdp_chunk(seed=3, rows=3000, strategy="basic", settings=CdpSettings(1, 1, unqualified_play_bet="paid")
                     .to_dict())
    assert paid.net > returned.net and paid.extra == returned.extra
