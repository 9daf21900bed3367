"""How many random hands the sampling tests (marker ``slow``) draw.

``make test`` draws samples big enough to prove each property with every case it must hold exercised many times
(each test says what it checks of its sample); ``make test-slow`` (``POKERTABLE_FULL_SIZE=1``) runs the ``slow``
tests at the full size they were written for, e.g. before a release or after a change of the evaluator or the
engine."""

from __future__ import annotations

import os

FULL_SIZE = os.environ.get("POKERTABLE_FULL_SIZE", "") not in ("", "0")
"""True under ``make test-slow``: the full samples."""


def sample(quick: int, full: int) -> int:
    """``full`` under ``make test-slow``, ``quick`` otherwise."""
    return full if FULL_SIZE else quick
