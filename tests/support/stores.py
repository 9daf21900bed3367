"""A fresh store for a test: an SQLite file or a PostgreSQL schema of its own (required in CI; locally a visible skip
without a server)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.store.persistence import environment
from tests.support.postgres_schemas import CREATED

POSTGRES_URL = os.environ.get("POKERTABLE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/pokertable_test")


def _postgres_available() -> bool:
    try:
        import psycopg

        parts = environment(POSTGRES_URL)
        with psycopg.connect(host=parts["POSTGRES_HOST"], port=parts["POSTGRES_PORT"], user=parts["POSTGRES_USER"],
                             dbname="postgres", autocommit=True, connect_timeout=3) as conn:
            exists = conn.execute("select 1 from pg_database where datname = %s",
                                  (parts["POSTGRES_DBNAME"],)).fetchone()
            if not exists:
                conn.execute(f'create database "{parts["POSTGRES_DBNAME"]}"')
        return True
    except Exception:
        return False


def postgres_store() -> dict[str, str]:
    """A fresh PostgreSQL schema for one test, dropped after it (so never for a fixture wider than a function);
    required in CI, a visible skip elsewhere without a server."""
    if not _postgres_available():
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI ({POSTGRES_URL})")
        pytest.skip(f"no PostgreSQL at {POSTGRES_URL}")
    import psycopg

    env = environment(POSTGRES_URL)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                         dbname=env["POSTGRES_DBNAME"], autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    CREATED.append(schema)  # dropped after the test, however it ends (tests/support/postgres_schemas.py)
    return {**env, "POSTGRES_SCHEMA": schema}


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The settings of a fresh store of each kind."""
    if request.param == "sqlite":
        yield environment(f"sqlite:///{tmp_path / 'tables.db'}")
        return
    yield postgres_store()
