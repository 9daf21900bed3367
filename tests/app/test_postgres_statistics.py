"""Issue 30, item 4: a service on a PostgreSQL server that does not keep the planner's statistics (autovacuum off)
says so at its start, once, as a WARNING naming what to do; on a server that keeps them, and on SQLite, it says
nothing. Read against the real server's own setting (required in CI), never a copy of it."""

from __future__ import annotations

import logging
from pathlib import Path

import psycopg
import pytest

from service.app.application import PokerTables
from service.grpc.server import _warn_without_statistics
from service.store.chain_postgres import ChainedPostgresRecorder
from service.store.persistence import environment
from tests.support.stores import postgres_store

WARNING = "runs without autovacuum"


def _server_keeps_statistics(env: dict[str, str]) -> bool:
    with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                         dbname=env["POSTGRES_DBNAME"]) as conn:
        row = conn.execute("SELECT current_setting('autovacuum'), current_setting('track_counts')").fetchone()
    assert row is not None
    return tuple(row) == ("on", "on")


def test_the_start_on_postgresql_warns_exactly_when_the_server_keeps_no_statistics(
        caplog: pytest.LogCaptureFixture) -> None:
    env = postgres_store()
    app = PokerTables(env=env)
    try:
        recorder = app.recorder
        assert isinstance(recorder, ChainedPostgresRecorder)
        assert recorder.planner_statistics_kept() is _server_keeps_statistics(env)
        with caplog.at_level(logging.WARNING, logger="service.grpc.server"):
            _warn_without_statistics(app)
    finally:
        app.close()
    said = [record for record in caplog.records if WARNING in record.getMessage()]
    if _server_keeps_statistics(env):
        assert said == []
    else:
        [record] = said  # once, a WARNING naming the remedy and the document
        assert record.levelno == logging.WARNING
        assert "ANALYZE" in record.getMessage() and "docs/ops/install.md" in record.getMessage()


def test_the_start_on_sqlite_says_nothing_of_autovacuum(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    app = PokerTables(env=environment(f"sqlite:///{tmp_path / 'tables.db'}"))
    try:
        with caplog.at_level(logging.DEBUG, logger="service.grpc.server"):
            _warn_without_statistics(app)
    finally:
        app.close()
    assert not [record for record in caplog.records if "autovacuum" in record.getMessage()]
