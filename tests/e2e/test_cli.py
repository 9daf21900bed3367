"""``pokertable hand`` and ``pokertable demo`` as a user runs them: the installed console script, in a real process."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = shutil.which("pokertable", path=str(Path(sys.executable).parent)) or "pokertable"


def pokertable(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCRIPT, *args], input=stdin, capture_output=True, text=True, timeout=60, check=False)


def test_a_single_hand_prints_best_hand_category_and_description() -> None:
    result = pokertable("hand", "As", "Ks", "--board", "Qs", "Js", "Ts", "2c", "3d")
    assert result.returncode == 0, result.stderr
    assert "A♠ K♠ Q♠ J♠ T♠" in result.stdout
    assert "straight flush" in result.stdout
    assert "royal flush" in result.stdout
    assert "7462 of 7462" in result.stdout


def test_a_single_hand_in_spanish_in_a_reduced_deck() -> None:
    result = pokertable("hand", "9c", "9h", "--board", "9s", "Ad", "Ac", "--deck", "32", "--lang", "es")
    assert result.returncode == 0, result.stderr
    assert "full de nueves y ases" in result.stdout


def test_sintetico_defaults_to_the_28_card_deck_and_rejects_a_deuce() -> None:
    result = pokertable("hand", "9c", "2h", "--board", "8s", "9d", "Th", "--game", "sintetico")
    assert result.returncode == 1
    assert "2h is not in a 28-card deck (R-CARD-2)" in result.stderr
    assert result.stdout == ""


def test_batch_prints_strength_category_and_description_per_line() -> None:
    lines = "AsKd7c7h2s3d9c\nAh Kh Qh Jh Th 2c 3c\n9s 9h 9d Ac Ah 2c 3d\n"
    result = pokertable("hand", "--batch", stdin=lines)
    assert result.returncode == 0, result.stderr
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert [row[1:] for row in rows] == [
        ["pair", "pair of sevens"],
        ["straight flush", "royal flush"],
        ["full house", "full house, nines over aces"],
    ]
    assert int(rows[1][0]) > int(rows[2][0]) > int(rows[0][0])


def test_batch_strengths_order_hands_and_equal_strengths_tie() -> None:
    result = pokertable("hand", "--batch", "--game", "stud", stdin="As Kd 9c 7h 4s\nAh Kc 9d 7s 4h\nAs Kd 9c 7h 3s\n")
    first, second, third = (int(line.split("\t")[0]) for line in result.stdout.splitlines())
    assert first == second > third


def test_batch_omaha_takes_own_cards_bar_board() -> None:
    result = pokertable("hand", "--batch", "--game", "omaha", "--lang", "es", stdin="AsAdAcAh | 2s7d9cJh4d\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\t")[1:] == ["pareja", "pareja de ases\n"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("AsKd7c7h2s3dXx", "unknown card"),
        ("As As Kd 2c 3c", "As appears twice (R-DECK-4)"),
        ("AsKd", "holdem takes 2 own and 3–5 board cards"),
        ("AsKd7c7h2s3d9c8c", "R-CARD-6"),
    ],
)
def test_a_bad_batch_line_is_reported_by_number_and_prints_nothing(line: str, message: str) -> None:
    result = pokertable("hand", "--batch", stdin=f"AsKdQhJcTc\n{line}\n2c3d4h5s7c\n")
    assert result.returncode == 1
    assert result.stderr.startswith("line 2: ")
    assert message in result.stderr
    described = [row.split("\t")[2] for row in result.stdout.splitlines()]
    assert described == ["straight, ace high", "high card, seven"]


def test_batch_rejects_cards_not_in_the_chosen_deck() -> None:
    result = pokertable("hand", "--batch", "--deck", "32", stdin="As Kd 7c 7h 9s\nAs Kd 6c 7h 9s\n")
    assert result.returncode == 1
    assert "line 2: 6c is not in a 32-card deck (R-CARD-2)" in result.stderr
    assert len(result.stdout.splitlines()) == 1


def test_omaha_batch_without_the_bar_is_rejected() -> None:
    result = pokertable("hand", "--batch", "--game", "omaha", stdin="AsKdQhJc2c3c4c5c6c\n")
    assert result.returncode == 1
    assert "line 1: omaha takes 4 own and 3–5 board cards" in result.stderr


def test_demo_plays_every_game_through_the_service_and_ends_cleanly() -> None:
    result = pokertable("demo", "--seed", "11")
    assert result.returncode == 0, result.stderr
    for title in ("Texas Hold'em", "Omaha", "Póquer sintético", "Five-card stud", "Seven-card stud", "draw"):
        assert title in result.stdout
    assert result.stdout.count("← wins") >= 6
    assert "28-card deck" in result.stdout and "flush beats full house" in result.stdout
    for table in ("Hold'em", "Omaha", "Seven-card stud", "Five-card draw", "Five-card stud", "Sintético",
                  "Texas Hold'em Bonus", "Casino Draw Poker"):
        assert f"  {table} " in result.stdout.split("== Summary")[1]  # played over gRPC against the service
    assert "the service stopped cleanly" in result.stdout


def test_the_station_is_full_screen_and_says_so_without_a_terminal() -> None:
    """``pokertable station`` is the full-screen station (issue 15): piped, with no terminal to draw on, it names the
    line-by-line ``--plain`` station instead of failing with a traceback (the plain one runs scripts:
    tests/e2e/test_crash_safety.py)."""
    done = subprocess.run([SCRIPT, "station", "--server", "127.0.0.1:9", "--table", "Mesa 1", "--token", "t" * 20],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert done.returncode == 2
    assert "needs a terminal; use --plain" in done.stderr and "Traceback" not in done.stderr
    usage = subprocess.run([SCRIPT, "station", "--help"], capture_output=True, text=True, timeout=60, check=True)
    assert "--plain" in usage.stdout and "--lang" in usage.stdout
