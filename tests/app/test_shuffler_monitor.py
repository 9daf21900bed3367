"""The shuffler integrity monitor (issue 19, item 1; docs/integrity.md): each statistic against its exact law on
small decks (every permutation enumerated), the per-position test's covariance against enumeration, a uniform shuffle
passing at the stated rate, a 1-riffle shuffler failing at once, and the projection over events played through the
application with a shuffler whose reports and reads the test controls."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.shuffler_monitor import riffles, samples, stuck, uniform
from domain.actions import Action, Deal
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.cards import Card
from domain.cards.decks import composition
from domain.device_reports import HAND_SHUFFLE, DeviceReport
from domain.integrity.distributions import chi2_sf, eulerian, rising_pmf, succession_counts, successions_pmf
from domain.integrity.monitor import (
    ADJACENT,
    FAIL,
    NOT_ENOUGH,
    PASS,
    POSITIONS,
    RISING,
    MonitorSettings,
    MonitorSettingsError,
    ShufflerMonitor,
    _Shift,
)
from domain.integrity.observations import (
    Gathering,
    ObservationError,
    ShuffleObservation,
    ShuffleSample,
    rising_sequences,
    successions,
)
from service.app.application import PokerTables
from service.app.commands import Act, OpenTable, RecordDeviceReport
from service.app.shufflers import shoe_reads, shuffler_report, shuffles_seen
from service.cli.main import main
from service.cli.report import verdict_document
from service.store.persistence import environment
from tests.support.app_play import (
    PIT,
    Ids,
    _banked_command,
    banked_hand_in_progress,
    dealer,
    next_deck,
    start_banked_hand,
)
from tests.support.shuffler_floor import _app, _Floor, _pass_through, _uniform

# -- the exact laws ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 8))
def test_successions_of_a_uniform_permutation_follow_the_exact_law(n: int) -> None:
    counted = Counter(successions(p) for p in itertools.permutations(range(n)))
    assert tuple(counted.get(k, 0) for k in range(n)) == succession_counts(n)
    assert sum(succession_counts(n)) == math.factorial(n)
    assert math.isclose(sum(successions_pmf(n)), 1.0)


@pytest.mark.parametrize("n", range(1, 8))
def test_rising_sequences_of_a_uniform_permutation_follow_the_eulerian_numbers(n: int) -> None:
    counted = Counter(rising_sequences(p) for p in itertools.permutations(range(n)))
    assert tuple(counted.get(r, 0) for r in range(1, n + 1)) == eulerian(n)
    assert [round(p * math.factorial(n)) for p in rising_pmf(n)] == [0, *eulerian(n)]


@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 10, 25])
def test_the_chi_square_tail_matches_its_density_integrated(df: int) -> None:
    x = np.linspace(1e-9, 200.0, 400_001)
    density = np.exp((df / 2 - 1) * np.log(x) - x / 2 - (df / 2) * math.log(2) - math.lgamma(df / 2))
    for point in (0.5, df, 2.0 * df + 3, 30.0):
        inside = x >= point
        tail = float(np.trapezoid(density[inside], x[inside]))
        assert chi2_sf(point, df) == pytest.approx(tail, rel=2e-3, abs=1e-7)
    assert chi2_sf(6.634897, 1) == pytest.approx(0.01, abs=1e-7)  # the 99 % points of the tables
    assert chi2_sf(21.665994, 9) == pytest.approx(0.01, abs=1e-7)


def test_the_per_position_covariance_is_exact_on_a_partly_seen_deck() -> None:
    """Every permutation of 6 cards, 4 of whose places going in are known and 3 read coming out, 3 bins: the counts'
    mean and covariance over all 720 equal the monitor's formula."""
    n, bins, known, read = 6, 3, (0, 1, 2, 4), 3
    counts = []
    for perm in itertools.permutations(range(n)):  # perm[out] = the place it went in
        pairs = tuple((perm[out], out) for out in range(read) if perm[out] in known)
        shift = _Shift(bins)
        shift.add(ShuffleSample(n, pairs, known, read))
        counts.append(shift.observed.copy())
    table = np.array(counts)
    formula = _Shift(bins)
    formula.add(ShuffleSample(n, (), known, read))
    assert np.allclose(table.mean(axis=0), formula.expected)
    assert np.allclose(np.cov(table.T, bias=True), formula.covariance)


# -- observations --------------------------------------------------------------------------------------------------


def test_the_gathering_model_places_the_cards_read_going_in() -> None:
    seen = ShuffleObservation.of(32, before=["As", "Kd", "10c"], after=["Tc", "9h", "As"])
    assert seen.input_positions(Gathering.READ_THEN_STUB) == {"As": 0, "Kd": 1, "Tc": 2}
    assert seen.input_positions(Gathering.STUB_THEN_READ) == {"As": 29, "Kd": 30, "Tc": 31}
    assert seen.relative_order(Gathering.READ_THEN_STUB) == (1, 0)  # Tc (in 3rd) came out before As (in 1st)
    assert seen.sample(Gathering.READ_THEN_STUB).pairs == ((2, 0), (0, 2))
    unknown = seen.sample(Gathering.UNKNOWN)  # each card's own place in the deck, for the per-position test only
    assert not unknown.ordered and len(unknown.known_in) == 32 and len(unknown.pairs) == 3


@pytest.mark.parametrize(("before", "after", "rule"), [(("As", "As"), (), "R-DECK-4"), ((), ("2c",), "R-DECK-4")])
def test_an_impossible_observation_is_refused(before: tuple[str, ...], after: tuple[str, ...], rule: str) -> None:
    with pytest.raises(ObservationError) as refused:
        ShuffleObservation(32, before, after)  # a card twice, a 2 in a 32-card deck
    assert refused.value.rule == rule


def test_bad_monitor_settings_are_refused() -> None:
    for bad in ({"level": 0.0}, {"level": 1.5}, {"looks": 0}, {"position_bins": 1}):
        with pytest.raises(MonitorSettingsError):
            MonitorSettings(**bad)
    with pytest.raises(MonitorSettingsError, match="R-CARD-2"):
        ShufflerMonitor(52, MonitorSettings()).add(ShuffleSample(32, (), (), 0))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**32 - 1), st.sampled_from([28, 32, 52]))
def test_k_riffles_leave_at_most_2_to_the_k_rising_sequences(k: int, seed: int, size: int) -> None:
    (permutation,) = riffles(np.random.default_rng(seed), 1, size, k)
    assert sorted(permutation.tolist()) == list(range(size))
    assert rising_sequences(permutation.tolist()) <= 2**k


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(12))), st.integers(0, 12), st.integers(0, 12))
def test_the_relative_order_is_a_permutation_of_the_cards_seen_both_ways(perm: list[int], known: int,
                                                                          read: int) -> None:
    pairs = tuple((place, out) for out, place in enumerate(perm[:read]) if place < known)
    order = ShuffleSample(12, pairs, tuple(range(known)), read).relative_order()
    assert sorted(order) == list(range(len(pairs)))
    assert 0 <= successions(order) <= max(0, len(order) - 1)
    assert (rising_sequences(order) == 0) == (not order)


# -- the monitor on simulated shufflers ----------------------------------------------------------------------------

Model = Callable[[np.random.Generator, int, int], np.ndarray]


def _alarm(model: Model, rng: np.random.Generator, settings_: MonitorSettings, *, size: int = 52,
           read: int = 20, decks: int = 1) -> int | None:
    count = settings_.looks + 1
    monitor = ShufflerMonitor(size, settings_, decks)
    for hand, sample in enumerate(samples(model(rng, count, size), np.full(count, read)), start=1):
        if monitor.add(sample):
            return hand
    return None


def test_a_uniform_shuffle_raises_false_alarms_at_no_more_than_the_stated_rate() -> None:
    """A lax level (0.2 a shift of 30 looks) so that a modest simulation measures the rate: in 150 shifts the false
    alarms stay within the binomial 99.9 % bound of that rate."""
    lax = MonitorSettings(level=0.2, looks=30, min_shuffles=5)
    rng = np.random.default_rng(19)
    alarms = sum(_alarm(uniform, rng, lax, size=32, read=16) is not None for _ in range(150))
    bound = 0.2 * 150 + 3.1 * math.sqrt(150 * 0.2 * 0.8)
    assert alarms <= bound


def test_each_tests_p_value_is_valid_under_a_uniform_shuffle() -> None:
    """At one look after 12 uniform shuffles, P(p ≤ 0.1) ≤ 0.1 for each test (binomial tolerance)."""
    rng = np.random.default_rng(7)
    small: Counter[str] = Counter()
    runs = 300
    for _ in range(runs):
        shift = _Shift(4)
        for sample in samples(uniform(rng, 13, 32), np.full(13, 20)):
            shift.add(sample)
        for result in shift.results(MonitorSettings(position_bins=4, min_expected=3.0)):
            small[result.test] += result.p_value is not None and result.p_value <= 0.1
    for test in (ADJACENT, POSITIONS, RISING):
        assert small[test] <= 0.1 * runs + 3.1 * math.sqrt(runs * 0.09), (test, small)


def test_a_1_riffle_shuffler_fails_at_once() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        at = _alarm(lambda r, c, s: riffles(r, c, s, 1), rng, MonitorSettings(), decks=20)
        assert at is not None and at <= 2


def test_a_stuck_shuffler_fails_within_a_shift() -> None:
    rng = np.random.default_rng(2)
    for _ in range(5):
        at = _alarm(stuck, rng, MonitorSettings(), decks=20)
        assert at is not None and at <= 40


def test_with_an_unknown_gathering_only_the_per_position_test_applies_and_catches_a_stacked_deck() -> None:
    """A shuffler that delivers the same order every time (a stacked deck), whatever went in: caught by the cards'
    own places alone."""
    chosen = MonitorSettings(gathering=Gathering.UNKNOWN)
    monitor = ShufflerMonitor(52, chosen)
    deck = [str(card) for card in composition(52)]
    random.Random(5).shuffle(deck)
    alarmed = None
    for hand in range(1, 60):
        before = tuple(random.Random(hand).sample(deck, 22))
        if monitor.add(ShuffleObservation(52, before, tuple(deck[:22])).sample(Gathering.UNKNOWN)):
            alarmed = hand
            break
    result = monitor.result()
    assert [test.test for test in result.tests] == [POSITIONS]
    assert alarmed is not None and result.verdict == FAIL and result.alarm_test == POSITIONS


# -- the projection over events played through the application ------------------------------------------------------


def test_a_shuffler_that_does_not_shuffle_fails_from_the_events_and_a_uniform_one_passes() -> None:
    app = _app()
    good, bad = _Floor(app, "Mesa A"), _Floor(app, "Mesa B")
    for _ in range(24):
        good.hand(_uniform, serial="SN-GOOD")
        bad.hand(_pass_through, serial="SN-BAD")
    verdicts = {(v.serial, v.colour): v for v in shuffler_report(app)}
    assert set(verdicts) == {("SN-GOOD", "red"), ("SN-GOOD", "blue"), ("SN-BAD", "red"), ("SN-BAD", "blue")}
    for colour in ("red", "blue"):
        good_deck, bad_deck = verdicts["SN-GOOD", colour], verdicts["SN-BAD", colour]
        assert good_deck.result.shuffles == 11 and good_deck.tables == ("Mesa A",)  # 12 hands: 11 shuffles seen
        assert good_deck.result.verdict == PASS
        assert bad_deck.result.verdict == FAIL and bad_deck.result.alarm_at == 1
        # 11 cards read a hand (3 players), each time in the order they went in: 10 pairs kept, 11 shuffles
        assert verdict_document(bad_deck)["tests"][ADJACENT]["statistic"] == 10 * 11


def test_only_shuffles_by_an_automatic_shuffler_and_clean_shoe_reads_are_seen() -> None:
    app = _app()
    floor = _Floor(app)
    for _ in range(2):
        floor.hand(_uniform)  # the first red and blue hands: nothing read before them
    floor.hand(_uniform, device=HAND_SHUFFLE, serial="station-1")  # red, shuffled by hand: not the shuffler's
    floor.hand(_uniform, keyed_at=4)  # blue: the 4th card keyed in, so 3 reads count
    floor.hand(_uniform)  # red: shuffled by the shuffler, from what hand 3 read
    floor.hand(_uniform)  # blue
    seen = shuffles_seen(app)
    assert [(s.hand, s.colour) for s in seen] == [(4, "blue"), (5, "red"), (6, "blue")]  # not 3: shuffled by hand
    assert len(seen[0].observation.after) == 3 and len(seen[2].observation.before) == 3
    record = app.table("Mesa S")
    assert len(shoe_reads(app.events.get(record.hand_id(4)))) == 3
    verdicts = {v.colour: v.result for v in shuffler_report(app)}
    assert (verdicts["blue"].verdict, verdicts["blue"].shuffles) == (NOT_ENOUGH, 2)
    assert (verdicts["red"].verdict, verdicts["red"].shuffles) == (NOT_ENOUGH, 1)
    later = shuffler_report(app, since=seen[-1].started)  # the range: by the start of the hand after the shuffle
    assert [(v.colour, v.result.shuffles) for v in later] == [("blue", 1)]


def test_the_projection_reads_a_postgresql_store_alike() -> None:
    from tests.support.stores import postgres_store

    app = PokerTables(env=postgres_store())
    floor = _Floor(app)
    for _ in range(6):
        floor.hand(_pass_through, serial="SN-PG")
    verdicts = shuffler_report(app)
    assert [(v.serial, v.colour, v.result.verdict, v.result.alarm_test) for v in verdicts] == [
        ("SN-PG", "blue", FAIL, ADJACENT), ("SN-PG", "red", FAIL, ADJACENT)]
    app.close()


# -- pokertable report shufflers ------------------------------------------------------------------------------------


def test_report_shufflers_prints_a_table_csv_and_json_and_exits_1_on_a_failed_shuffler(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    app = PokerTables(env=environment(url))
    good, bad = _Floor(app, "Mesa A"), _Floor(app, "Mesa B")
    for _ in range(4):
        good.hand(_uniform, serial="SN-GOOD")
        bad.hand(_pass_through, serial="SN-BAD")
    app.close()
    status = main(["report", "shufflers", "--db", url, "--format", "json", "--from", "2020-01-01 00:00"])
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert status == 1 and err == "4 shuffler deck(s), 2 failed\n"
    assert document["settings"] == {"gathering": "read-then-stub", "level": 0.01, "looks": 160, "position_bins": 8}
    assert document["from"].startswith("2020-01-01 00:00:00+01:00")  # the casino's zone, Europe/Madrid by default
    assert {(s["serial"], s["colour"], s["verdict"]) for s in document["shufflers"]} == {
        ("SN-BAD", "blue", FAIL), ("SN-BAD", "red", FAIL), ("SN-GOOD", "blue", NOT_ENOUGH),
        ("SN-GOOD", "red", NOT_ENOUGH)}
    status = main(["report", "shufflers", "--db", url, "--format", "csv", "--gathering", "unknown"])
    out, _ = capsys.readouterr()
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0][:8] == ["serial", "device", "colour", "deck", "tables", "shuffles", "verdict", "alarm"]
    assert len(rows) == 5 and {row[7] for row in rows[1:]} == {"-"}  # only the per-position test: no data yet
    assert status == 0
    status = main(["report", "shufflers", "--db", url])
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert status == 1 and lines[0].split()[:3] == ["serial", "device", "colour"]
    assert any("SN-BAD" in line and "shuffle 1: adjacent-pairs" in line for line in lines)


@pytest.mark.parametrize("argv", [["--level", "2"], ["--looks", "0"], ["--from", "yesterday"],
                                  ["--from", "2026-11-25 22:00", "--to", "2026-11-25 21:00"]])
def test_report_shufflers_refuses_a_bad_setting_or_range_as_usage(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    PokerTables(env=environment(url)).close()
    assert main(["report", "shufflers", "--db", url, *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("pokertable report: ")


def test_a_banked_tables_shuffler_is_judged_from_its_hands_shoe_reads() -> None:
    """Texas Hold'em Bonus through the application: the dealer's and the boxes' cards read by the shoe; a shuffler
    that passes the deck through fails on both decks."""
    app = _app()
    ids, rng, read = Ids("thb"), random.Random(3), itertools.count(1)
    app.handle(OpenTable(ids(), "THB S", ThbSettings(STANDARD_LIMITS[10])))
    orders: dict[str, list[Card]] = {}
    for _ in range(6):
        colour = next_deck(app, "THB S").colour.value
        order = orders[colour] = orders.get(colour) or _uniform(list(composition(52)), rng)
        app.handle(RecordDeviceReport(ids(), "THB S", DeviceReport("PT-SHUF", "SN-THB", "delivery", colour, "ok")), PIT)
        start_banked_hand(app, "THB S", ids, {1: 10, 2: 10})
        cards = iter(order)
        while (hand := banked_hand_in_progress(app, "THB S")) is not None:
            if hand.next_card is not None:
                command: Action = Deal(card=next(cards), source="shoe", sequence=next(read))
            else:
                command = _banked_command(hand, rng, iter(()))
            app.handle(Act(ids(), "THB S", command), dealer("THB S"))
    verdicts = shuffler_report(app)
    assert [(v.colour, v.deck_size, v.result.shuffles, v.result.verdict) for v in verdicts] == [
        ("blue", 52, 2, FAIL), ("red", 52, 2, FAIL)]
