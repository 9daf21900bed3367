"""The command line in a process of its own (``pokertable backup``, ``restore``...), and a PostgreSQL schema or
database of a test's own, with an administrator's connection to the server."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from urllib.parse import quote

import psycopg
import pytest

from service.store.persistence import environment
from tests.support.serve_process import SCRIPT
from tests.support.stores import POSTGRES_URL, postgres_store


def pokertable(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the ``pokertable`` command line."""
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False)


def _url(schema: str, *, database: str | None = None, password: str | None = None, port: int | None = None) -> str:
    """A URL of the test server (another database, a password, another port if given)."""
    env = environment(POSTGRES_URL)
    secret = f":{password}" if password else ""
    return (f"postgresql://{quote(env['POSTGRES_USER'])}{secret}@{env['POSTGRES_HOST']}:{port or env['POSTGRES_PORT']}/"
            f"{database or env['POSTGRES_DBNAME']}?schema={schema}")


def _admin(database: str | None = None) -> psycopg.Connection[tuple[object, ...]]:
    env = environment(POSTGRES_URL)
    return psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                           password=env["POSTGRES_PASSWORD"] or None, dbname=database or env["POSTGRES_DBNAME"],
                           autocommit=True)


@pytest.fixture
def pg_schema() -> Iterator[str]:
    """A fresh schema in the test database (required in CI, a visible skip elsewhere), dropped after, whatever
    happened."""
    schema = postgres_store()["POSTGRES_SCHEMA"]
    try:
        yield schema
    finally:
        with _admin() as connection:
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def pg_database(pg_schema: str) -> Iterator[str]:
    """A fresh database on the same server, to restore into beside the live schema; dropped after, whatever happened
    (with every schema a restore made in it)."""
    database = f"pokertable_restore_{uuid.uuid4().hex[:12]}"
    with _admin() as connection:
        connection.execute(f'CREATE DATABASE "{database}"')
    try:
        yield database
    finally:
        with _admin() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
