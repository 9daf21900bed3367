"""Seen by every test folder: the hypothesis profile, PostgreSQL's schema hooks, and assertion rewriting for the helpers
of tests/support/ (their asserts report as a test's own do). Shared code lives in tests/support/ (tests/README.md)."""

from __future__ import annotations

import pytest
from hypothesis import settings

pytest.register_assert_rewrite("tests.support")

from tests.support.postgres_schemas import (  # noqa: E402, F401 (after the rewrite; hooks and the autouse fixture)
    drop_postgres_schemas,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_terminal_summary,
)

# Lookup tables are built on first use (up to a second); examples are not timed.
settings.register_profile("pokertable", deadline=None)
settings.load_profile("pokertable")


