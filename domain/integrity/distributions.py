"""Exact null distributions of the shuffler monitor's statistics (docs/integrity.md): what a *uniform* shuffle gives.

Under a uniform shuffle every order of the cards is equally likely, whatever order they went in, so the relative
order of any cards we saw go in and come out is a uniform random permutation of them.  Two counts of such a
permutation have distributions known exactly:

- **successions** (adjacent pairs kept: a card followed directly by the card that followed it going in): the number
  of permutations of ``n`` with exactly ``k`` successions is ``C(n-1, k) · d(n-1-k)``, where ``d`` is OEIS A000255
  (``d(0) = d(1) = 1``, ``d(m) = m·d(m-1) + (m-1)·d(m-2)``);
- **rising sequences** (Bayer–Diaconis: maximal runs of consecutive values in increasing position): a permutation of
  ``n`` with ``r`` rising sequences has ``r - 1`` descents in its inverse, so their number is the Eulerian number
  ``A(n, r-1)``.

Sums over many shuffles are convolutions of these; tail probabilities are summed from the exact law.  The per-position
test is a quadratic form with an exactly known covariance whose law is chi-square; :func:`chi2_sf` is its survival
function for a whole number of degrees of freedom, in closed form (no special-function library).

>>> successions_pmf(3)  # 123 has 2 successions; 132, 213 one... of 6 permutations
(0.5, 0.3333333333333333, 0.16666666666666666)
>>> [round(p * 24) for p in rising_pmf(4)]  # the Eulerian numbers 1, 11, 11, 1 (r = 1 … 4)
[0, 1, 11, 11, 1]
>>> round(chi2_sf(6.634897, 1), 6), round(chi2_sf(23.209251, 10), 6)  # the 99 % points
(0.01, 0.01)
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import numpy.typing as npt

Pmf = npt.NDArray[np.float64]


@cache
def _no_successions(m: int) -> int:
    """OEIS A000255: permutations of ``m + 1`` with no succession."""
    if m <= 1:
        return 1
    return m * _no_successions(m - 1) + (m - 1) * _no_successions(m - 2)


def succession_counts(n: int) -> tuple[int, ...]:
    """How many permutations of ``n`` have exactly 0, 1, …, n-1 successions (they sum to ``n!``)."""
    if n <= 1:
        return (1,)
    return tuple(math.comb(n - 1, k) * _no_successions(n - 1 - k) for k in range(n))


@cache
def successions_pmf(n: int) -> tuple[float, ...]:
    """P(k successions), k = 0 … n-1, for a uniform permutation of ``n``."""
    total = math.factorial(n)
    return tuple(count / total for count in succession_counts(n))


@cache
def eulerian(n: int) -> tuple[int, ...]:
    """The Eulerian numbers A(n, 0 … n-1): permutations of ``n`` with that many descents (``(1,)`` for n ≤ 1)."""
    row: tuple[int, ...] = (1,)
    for size in range(2, n + 1):
        row = tuple((size - m) * (row[m - 1] if m >= 1 else 0) + (m + 1) * (row[m] if m < len(row) else 0)
                    for m in range(size))
    return row


@cache
def rising_pmf(n: int) -> tuple[float, ...]:
    """P(r rising sequences), indexed by r = 0 … n (index 0 has probability 0 for n ≥ 1), for a uniform
    permutation of ``n``."""
    if n == 0:
        return (1.0,)
    total = math.factorial(n)
    return (0.0, *(count / total for count in eulerian(n)))


def convolve(first: Pmf, second: tuple[float, ...] | Pmf) -> Pmf:
    """The law of the sum of two independent counts (each a pmf indexed from 0)."""
    return np.convolve(first, np.asarray(second, dtype=np.float64))


def upper_tail(pmf: Pmf, observed: int) -> float:
    """P(X ≥ observed)."""
    if observed <= 0:
        return 1.0
    return min(1.0, float(pmf[observed:].sum()))


def lower_tail(pmf: Pmf, observed: int) -> float:
    """P(X ≤ observed)."""
    if observed < 0:
        return 0.0
    return min(1.0, float(pmf[: observed + 1].sum()))


def mean_of(pmf: Pmf) -> float:
    """The expectation of a count with this pmf."""
    return float(np.dot(np.arange(len(pmf)), pmf))


def chi2_sf(x: float, df: int) -> float:
    """P(χ²_df ≥ x) for a whole number of degrees of freedom ``df`` ≥ 1, in closed form: for even ``df``
    ``e^(-x/2) Σ_{j<df/2} (x/2)^j / j!``; for odd ``df`` ``erfc(√(x/2)) + e^(-x/2) Σ_{j=1}^{(df-1)/2} (x/2)^(j-1/2)
    / Γ(j+1/2)`` (terms summed in logarithms, so a large ``x`` or ``df`` does not overflow)."""
    if df < 1:
        raise ValueError("a chi-square has at least one degree of freedom")
    if x <= 0:
        return 1.0
    half = x / 2
    log_half = math.log(half)
    if df % 2 == 0:
        total = sum(math.exp(-half + j * log_half - math.lgamma(j + 1)) for j in range(df // 2))
    else:
        total = math.erfc(math.sqrt(half)) + sum(
            math.exp(-half + (j - 0.5) * log_half - math.lgamma(j + 0.5)) for j in range(1, (df - 1) // 2 + 1))
    return min(1.0, total)
