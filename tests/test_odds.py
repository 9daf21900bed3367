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

from domain.batch import batch_evaluator
from domain.hand_classes import Category
from service.odds import cdp_chunk, thb_chunk
from tests.test_category_counts import all_five_card_hands

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
