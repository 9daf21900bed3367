"""The 52-card deck's hand-ranking tables kept by the build (service/store/ranking_tables.py): what this release's
code builds, ranked the same, and never taken from a file anyone changed (issue 30: a start in milliseconds, not 1.4 s).

An attacker who can write the file (the package directory) tries to make a hand rank higher: a strength changed, a
file of another release, a file cut short, rubbish; each is passed over with a WARNING and the tables are built.
"""

from __future__ import annotations

import logging
import random
from itertools import combinations
from pathlib import Path

import pytest

from domain.cards.ranking import HandRanking, RankingRules, RankingTables, hand_ranking
from service.store import ranking_tables as ranking


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The file as the build writes it, from this release's code (1.4 s: once for the module)."""
    target = tmp_path_factory.mktemp("ranking") / "pokertable-52.tables"
    ranking.write(target)
    return target


def test_the_file_this_release_writes_is_the_one_its_digest_names(written: Path) -> None:
    assert ranking.digest(written.read_bytes()) == ranking.DIGEST, (
        "the ranking's code changed: set service.store.ranking_tables.DIGEST to the new tables' SHA-256 "
        f"{ranking.digest(written.read_bytes())} once the change is meant")
    assert ranking.encode(ranking.decode(written.read_bytes())) == written.read_bytes()  # read back, the same bytes


def test_the_kept_tables_rank_every_hand_as_the_built_ones(written: Path) -> None:
    built = hand_ranking(52)
    kept = HandRanking(RankingRules(52), ranking.decode(written.read_bytes()))
    assert kept.tables() == built.tables()
    rng = random.Random(30)
    for size in (5, 6, 7):
        for _ in range(3000):
            codes = rng.sample(range(52), size)
            assert kept.strength(codes) == built.strength(codes)
    board = rng.sample(range(52), 9)  # Omaha's split (2 own + 3 board) reads the same tables
    own, shared = board[:4], board[4:]
    assert kept.strength_split_by_fives(own, shared) == built.strength_split_by_fives(own, shared)
    assert [kept.strength(list(five)) for five in combinations(range(0, 52, 7), 5)] == [
        built.strength(list(five)) for five in combinations(range(0, 52, 7), 5)]


def test_the_build_installs_the_file_that_the_service_s_start_takes(caplog: pytest.LogCaptureFixture) -> None:
    """``make``'s install ran the build hook: the package holds this release's file, and a start takes it."""
    assert ranking.FILE.exists(), "the build hook (hatch_build.py) did not write service/store/pokertable-52.tables"
    assert ranking.digest(ranking.FILE.read_bytes()) == ranking.DIGEST
    with caplog.at_level(logging.INFO, logger="service.store.ranking_tables"):
        assert ranking.load() is hand_ranking(52)  # the one in use (built earlier in this process, or taken now)
    assert not [record for record in caplog.records if record.name == "service.store.ranking_tables"]


def _altered(data: bytes, at: int, value: int) -> bytes:
    """``data`` with the 64-bit integer at ``at`` (counted after the magic) set to ``value``."""
    start = len(ranking.MAGIC) + 8 * at
    return data[:start] + value.to_bytes(8, "little", signed=True) + data[start + 8:]


@pytest.mark.parametrize("attack", ["a strength raised", "cut short", "rubbish", "another magic", "empty"])
def test_a_file_anyone_changed_is_passed_over_with_a_warning_and_the_tables_are_built(
        written: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, attack: str) -> None:
    data = written.read_bytes()
    changed = {
        "a strength raised": _altered(data, 3 + 2 + 40, 7462),  # the second class's last rank, into the strongest
        "cut short": data[:-8],
        "rubbish": bytes(random.Random(1).randbytes(len(data))),
        "another magic": b"pokertable hand-ranking tables 0\n" + data[len(ranking.MAGIC):],
        "empty": b"",
    }[attack]
    target = tmp_path / "pokertable-52.tables"
    target.write_bytes(changed)
    with caplog.at_level(logging.INFO, logger="service.store.ranking_tables"):
        assert ranking.load(target) is None
    [said] = [record for record in caplog.records if record.name == "service.store.ranking_tables"]
    assert said.levelno == logging.WARNING and "not this release's" in said.getMessage()
    assert ranking.DIGEST in said.getMessage()


def test_a_missing_file_is_said_and_the_tables_are_built(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="service.store.ranking_tables"):
        assert ranking.load(tmp_path / "none.tables") is None
    [said] = [record for record in caplog.records if record.name == "service.store.ranking_tables"]
    assert said.levelno == logging.INFO and "built instead" in said.getMessage()


def test_malformed_tables_are_refused_whole_whatever_their_digest(written: Path) -> None:
    """Beyond the digest, the format and the shape are checked: a file of the right digest could only be this
    release's, but a reader of another release's code, or a bug, must not take half a table."""
    data = written.read_bytes()
    for bad in (data[:-8], data + bytes(8), data[:len(ranking.MAGIC)] + bytes(7), b"not tables"):
        with pytest.raises(ValueError):
            ranking.decode(bad)
    good = ranking.decode(data)
    rules = RankingRules(52)
    too_strong = RankingTables(good.deck_size, good.flush_over_full, good.classes, good.without_flush,
                               (good.flush_by_bits[0] + len(good.classes) + 1, *good.flush_by_bits[1:]), good.flush5)
    for bad_tables in (
        RankingTables(32, True, good.classes, good.without_flush, good.flush_by_bits, good.flush5),  # another deck
        RankingTables(52, False, good.classes, good.without_flush[:2], good.flush_by_bits, good.flush5),
        RankingTables(52, False, good.classes, good.without_flush, good.flush_by_bits[:-1], good.flush5),
        too_strong,
        RankingTables(52, False, good.classes, good.without_flush, good.flush_by_bits,
                      (good.flush5[0], (0, *good.flush5[1][1:]))),  # a strength of no class
    ):
        with pytest.raises(ValueError):
            HandRanking(rules, bad_tables)
