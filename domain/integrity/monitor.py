"""The shuffler integrity monitor (issue 19, item 1; docs/integrity.md): three tests of one shuffler's deck, each at
99 % confidence with the false-alarm rate held over a shift.

The tests, on every shuffle seen (:class:`domain.integrity.observations.ShuffleSample`), summed over the shift:

- **adjacent pairs** (``adjacent-pairs``): the successions of the cards' relative order — a too-short riffle keeps
  neighbours together.  Null law: the convolution of the exact per-shuffle laws; p = P(sum ≥ observed).
- **positions** (``positions``): where each card lands against where it went in, the places binned (``position_bins``
  bins each way): the counts of a shift against their mean, weighed by their covariance, which is known exactly
  (the observed cells are a block of a uniform permutation matrix: ``Cov = (R ⊗ Q) / (n-1)`` with ``R = diag(k) -
  kkᵀ/n`` over the known places going in, ``Q`` likewise over the places read).  ``dᵀ Cov⁺ d`` is chi-square with
  rank(Cov) degrees of freedom as the shuffles add up; the test applies once the cells expect ``min_expected`` on
  average.  With an unknown gathering it tests each card itself against where it lands.
- **rising sequences** (``rising-sequences``, Bayer–Diaconis): k riffles leave at most 2^k; null law the convolution
  of Eulerian laws; p = P(sum ≤ observed).

**The false-alarm rate over a shift** (``level``, default 0.01: 99 % confidence that a shift on the whole floor raises
no false alarm).  The monitor looks after every shuffle of a deck, at most ``looks`` per shift (the shuffles of one
deck a shift holds), runs each applicable test at each look, on each of the ``decks`` shuffler decks of the floor:
Bonferroni over all of them, so each test at each look is run at ``level / (tests × looks × decks)``.  The
statistics restart every ``looks`` shuffles (a new shift).

>>> from domain.integrity.observations import ShuffleSample
>>> monitor = ShufflerMonitor(52, MonitorSettings())
>>> kept = ShuffleSample(52, tuple((i, i) for i in range(20)), tuple(range(20)), 20)  # nothing moved
>>> monitor.add(kept)
True
>>> monitor.result().verdict, monitor.result().alarm_test
('fail', 'adjacent-pairs')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from domain.errors import RuleError
from domain.integrity.distributions import (
    Pmf,
    chi2_sf,
    convolve,
    lower_tail,
    mean_of,
    rising_pmf,
    successions_pmf,
    upper_tail,
)
from domain.integrity.observations import Gathering, ShuffleSample, rising_sequences, successions

ADJACENT, POSITIONS, RISING = "adjacent-pairs", "positions", "rising-sequences"
TESTS = (ADJACENT, POSITIONS, RISING)
PASS, FAIL, NOT_ENOUGH = "pass", "fail", "not enough data"
VERDICTS = (PASS, FAIL, NOT_ENOUGH)


class MonitorSettingsError(RuleError):
    """A monitor setting out of its range."""


@dataclass(frozen=True)
class MonitorSettings:
    """The monitor's settings (docs/integrity.md; each a ``[shufflers]`` setting of the service)."""

    level: float = 0.01
    """The probability of any false alarm on the floor in a shift (99 % confidence)."""
    looks: int = 160
    """The shuffles of one deck a shift holds (8 hours at up to 40 hands an hour, the decks alternating)."""
    gathering: Gathering = Gathering.READ_THEN_STUB
    """How the cards go back into the shuffler (:class:`Gathering`)."""
    position_bins: int = 8
    """Bins of places, each way, of the per-position test."""
    min_expected: float = 5.0
    """The average count the per-position test's cells must expect before it applies."""
    min_shuffles: int = 10
    """Shuffles seen before a shuffler without alarm is said to pass (fewer: not enough data)."""

    def __post_init__(self) -> None:
        if not 0 < self.level < 1:
            raise MonitorSettingsError("the false-alarm level is a probability between 0 and 1", rule="R-DECK-2")
        if self.looks < 1 or self.min_shuffles < 1:
            raise MonitorSettingsError("looks and the shuffles needed are at least 1", rule="R-DECK-2")
        if not 2 <= self.position_bins <= 28 or self.min_expected <= 0:
            raise MonitorSettingsError("2 to 28 position bins, a positive expected count", rule="R-DECK-2")

    def tests(self) -> tuple[str, ...]:
        """The tests that apply: all three when the order going in is known, else the per-position test alone."""
        return TESTS if self.gathering.knows_input_order else (POSITIONS,)

    def test_level(self, decks: int = 1) -> float:
        """The level of one test at one look: Bonferroni over tests × looks × decks."""
        return self.level / (len(self.tests()) * self.looks * max(1, decks))


@dataclass(frozen=True)
class TestResult:
    """One test over the shuffles of the current shift: its statistic, what a uniform shuffle would give on
    average (degrees of freedom for ``positions``), and its p-value (``None``: not enough data yet)."""

    test: str
    statistic: float
    expected: float
    p_value: float | None


@dataclass(frozen=True)
class MonitorResult:
    """A shuffler deck's verdict (``pass``, ``fail``, ``not enough data``), the shuffles seen, the first alarm (the
    shuffle it came at, counted from 1, and the test), the level each test was held to, and the tests' figures."""

    shuffles: int
    verdict: str
    alarm_at: int | None
    alarm_test: str | None
    test_level: float
    tests: tuple[TestResult, ...]


@dataclass
class _Shift:
    """The sums of the shuffles of one shift."""

    bins: int
    shuffles: int = 0
    adjacent: int = 0
    adjacent_law: Pmf = field(default_factory=lambda: np.ones(1))
    rising: int = 0
    rising_law: Pmf = field(default_factory=lambda: np.ones(1))
    observed: npt.NDArray[np.float64] = field(init=False)
    expected: npt.NDArray[np.float64] = field(init=False)
    covariance: npt.NDArray[np.float64] = field(init=False)

    def __post_init__(self) -> None:
        cells = self.bins * self.bins
        self.observed, self.expected = np.zeros(cells), np.zeros(cells)
        self.covariance = np.zeros((cells, cells))

    def add(self, sample: ShuffleSample) -> None:
        self.shuffles += 1
        if sample.ordered:
            order = sample.relative_order()
            if len(order) >= 2:
                self.adjacent += successions(order)
                self.adjacent_law = convolve(self.adjacent_law, successions_pmf(len(order)))
                self.rising += rising_sequences(order)
                self.rising_law = convolve(self.rising_law, rising_pmf(len(order)))
        n, bins = sample.deck_size, self.bins
        known = np.bincount([place * bins // n for place in sample.known_in], minlength=bins).astype(np.float64)
        read = np.bincount([place * bins // n for place in range(sample.read)], minlength=bins).astype(np.float64)
        cells = [(place_in * bins // n) * bins + place_out * bins // n for place_in, place_out in sample.pairs]
        self.observed += np.bincount(cells, minlength=bins * bins)
        self.expected += np.outer(known, read).ravel() / n
        rows = np.diag(known) - np.outer(known, known) / n
        columns = np.diag(read) - np.outer(read, read) / n
        self.covariance += np.kron(rows, columns) / (n - 1)

    def positions(self, min_expected: float) -> TestResult:
        active = self.expected > 0
        if not active.any() or self.expected[active].mean() < min_expected:
            return TestResult(POSITIONS, 0.0, 0.0, None)
        # cells no shuffle could fill have no mean and no variance: left out before the (pseudo-)inverse
        values, vectors = np.linalg.eigh(self.covariance[np.ix_(active, active)])
        keep = values > values.max() * 1e-9
        if not keep.any():
            return TestResult(POSITIONS, 0.0, 0.0, None)
        projected = vectors[:, keep].T @ (self.observed - self.expected)[active]
        statistic = float(np.sum(projected**2 / values[keep]))
        df = int(keep.sum())
        return TestResult(POSITIONS, statistic, float(df), chi2_sf(statistic, df))

    def results(self, settings: MonitorSettings) -> tuple[TestResult, ...]:
        found = {POSITIONS: self.positions(settings.min_expected)}
        if settings.gathering.knows_input_order:
            seen = len(self.adjacent_law) > 1
            found[ADJACENT] = TestResult(ADJACENT, self.adjacent, mean_of(self.adjacent_law),
                                         upper_tail(self.adjacent_law, self.adjacent) if seen else None)
            found[RISING] = TestResult(RISING, self.rising, mean_of(self.rising_law),
                                       lower_tail(self.rising_law, self.rising) if seen else None)
        return tuple(found[test] for test in settings.tests())


class ShufflerMonitor:
    """The monitor of one shuffler's deck (a serial number and a colour): shuffles added in the order they were
    made; an alarm at the first look where a test's p-value falls below :meth:`MonitorSettings.test_level`."""

    def __init__(self, deck_size: int, settings: MonitorSettings, decks: int = 1) -> None:
        self.deck_size = deck_size
        self.settings = settings
        self.level = settings.test_level(decks)
        self.shuffles = 0
        self.alarm: tuple[int, str] | None = None
        self._shift = _Shift(settings.position_bins)
        self._last: tuple[TestResult, ...] = self._shift.results(settings)

    def add(self, sample: ShuffleSample) -> bool:
        """Add a shuffle and look: ``True`` when this look raises the deck's first alarm."""
        if sample.deck_size != self.deck_size:
            raise MonitorSettingsError(f"a {sample.deck_size}-card shuffle is not of this {self.deck_size}-card "
                                       "deck", rule="R-CARD-2")
        if self._shift.shuffles == self.settings.looks:
            self._shift = _Shift(self.settings.position_bins)  # a new shift: its own looks, its own sums
        self._shift.add(sample)
        self.shuffles += 1
        self._last = self._shift.results(self.settings)
        if self.alarm is not None:
            return False
        failed = [result.test for result in self._last if result.p_value is not None and result.p_value < self.level]
        if failed:
            self.alarm = (self.shuffles, failed[0])
        return bool(failed)

    def result(self) -> MonitorResult:
        """The verdict so far and the figures of the current shift."""
        if self.alarm is not None:
            verdict = FAIL
        elif self.shuffles < self.settings.min_shuffles or all(r.p_value is None for r in self._last):
            verdict = NOT_ENOUGH
        else:
            verdict = PASS
        at, test = self.alarm if self.alarm is not None else (None, None)
        return MonitorResult(self.shuffles, verdict, at, test, self.level, self._last)
