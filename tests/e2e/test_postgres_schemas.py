"""Tests leave no PostgreSQL schema behind (issue 17, item 9; tests/support/postgres_schemas.py): a schema a failing
test made is dropped, even with a transaction of the test still holding a lock in it, and a schema a test made by other
means and kept is named at the session's end -- as a failure of the run when no other test session ran beside it.
What another program makes on the same server meanwhile is named too, and never fails the run (issue 31)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support import postgres_schemas
from tests.support.stores import POSTGRES_URL, _postgres_available

ROOT = Path(__file__).resolve().parents[2]

INNER = '''
import uuid

import psycopg

from service.store.persistence import environment
from tests.support.stores import POSTGRES_URL, postgres_store

KEPT = []


def _connect(**options):
    env = environment(POSTGRES_URL)
    return psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                           dbname=env["POSTGRES_DBNAME"], **options)


def test_fails_with_a_transaction_open_in_its_schema():
    schema = postgres_store()["POSTGRES_SCHEMA"]
    print(f"MADE {schema}")
    connection = _connect()  # a transaction left open: it locks the table until the connection ends
    connection.execute(f"create table {schema}.hands (id int)")
    connection.execute(f"insert into {schema}.hands values (1)")
    KEPT.append(connection)
    assert False, "fails on purpose"


def test_keeps_a_schema_it_made_itself():
    schema = f"t_{uuid.uuid4().hex[:12]}"  # named as the tests name theirs
    with _connect(autocommit=True) as connection:
        connection.execute(f"create schema {schema}")
    print(f"KEPT {schema}")


def test_passes_while_another_program_makes_a_database_and_a_schema():
    name = f"casino_reports_{uuid.uuid4().hex[:8]}"  # the casino's reporting tool, on the same server
    with _connect(autocommit=True) as connection:
        connection.execute(f'create database "{name}"')
        connection.execute(f'create schema "{name}"')
    print(f"OTHER {name}")
'''


def _exists(schema: str) -> bool:
    with postgres_schemas._connect() as connection:
        return connection.execute("select 1 from pg_namespace where nspname = %s", (schema,)).fetchone() is not None


def _inner(tmp_path: Path, test: str) -> subprocess.CompletedProcess[str]:
    """A pytest session of its own with this project's schema guard, running one test of ``INNER``."""
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(INNER), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.support.postgres_schemas", "-s", "-q", "-p",
                           "no:cacheprovider", "--rootdir", str(tmp_path), f"{tmp_path / 'test_inner.py'}::{test}"],
                          capture_output=True, text=True, timeout=120, check=False, cwd=ROOT,
                          env={k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"})


@pytest.fixture(autouse=True)
def _server() -> None:
    if not _postgres_available():
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI ({POSTGRES_URL})")
        pytest.skip(f"no PostgreSQL at {POSTGRES_URL}")


def test_a_failing_test_schema_is_dropped_even_with_a_lock_held_in_it(tmp_path: Path) -> None:
    inner = _inner(tmp_path, "test_fails_with_a_transaction_open_in_its_schema")
    assert inner.returncode == 1, inner.stdout + inner.stderr
    assert "1 failed" in inner.stdout
    made = re.search(r"MADE (\w+)", inner.stdout)
    assert made is not None, inner.stdout
    assert not _exists(made.group(1))
    assert "not dropped" not in inner.stdout, inner.stdout


def test_a_schema_kept_is_named_at_the_end_of_the_session(tmp_path: Path) -> None:
    with postgres_schemas.aside():  # as in CI, no other session on the server (unless others test meanwhile)
        inner = _inner(tmp_path, "test_keeps_a_schema_it_made_itself")
    kept = re.search(r"KEPT (\w+)", inner.stdout)
    assert kept is not None, inner.stdout + inner.stderr
    try:
        assert _exists(kept.group(1))
        assert f"schema {kept.group(1)}" in inner.stdout  # named in the summary
        if "maybe another test session's" in inner.stdout:  # another session ran beside it: a warning
            assert re.search(r"maybe another test session's \((\d+) ran beside it\)", inner.stdout)
            assert inner.returncode == 0, inner.stdout
        else:  # alone on the server: the run fails although its test passed
            assert "left behind on PostgreSQL by this session" in inner.stdout
            assert "1 passed" in inner.stdout
            assert inner.returncode == 1, inner.stdout
    finally:
        postgres_schemas.drop_schemas([kept.group(1)])
    assert not _exists(kept.group(1))


def test_what_another_program_makes_on_the_server_meanwhile_is_named_and_never_fails_the_run(tmp_path: Path) -> None:
    """Issue 31: a run failed with every test passing on a server other programs also use, its check counting a
    database it never made. Now a database and a schema named otherwise than the tests name theirs are said to be
    another program's, and left alone."""
    with postgres_schemas.aside():
        inner = _inner(tmp_path, "test_passes_while_another_program_makes_a_database_and_a_schema")
    other = re.search(r"OTHER (\w+)", inner.stdout)
    assert other is not None, inner.stdout + inner.stderr
    name = other.group(1)
    try:
        assert inner.returncode == 0 and "1 passed" in inner.stdout, inner.stdout
        assert "another program's; left alone" in inner.stdout and f"database {name}" in inner.stdout, inner.stdout
        assert f"schema {name}" in inner.stdout and "left behind on PostgreSQL by this session" not in inner.stdout
        assert _exists(name)  # left alone
    finally:
        postgres_schemas.drop_schemas([name])
        with postgres_schemas._connect("postgres") as admin:
            admin.autocommit = True
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
