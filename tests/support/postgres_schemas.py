"""Tests leave no PostgreSQL schema behind (issue 17, item 9).

Every schema ``tests.support.stores.postgres_store`` makes is noted here and dropped (``DROP SCHEMA ... CASCADE``)
after the test that made it, passed or failed, by the autouse fixture :func:`drop_postgres_schemas`; a schema whose
tables a connection the test left open still locks is freed by ending those connections (theirs alone: only they
hold locks in it).  A fixture of a wider scope than a function must not take its schema from ``postgres_store``.

The session counts the schemas (and the databases) of the test server when it starts and when it ends.  What is
new at the end and named as this project's tests and benchmarks name what they make (:data:`MADE_HERE`) was left
behind: the summary says so and the run fails -- unless another test session was running on the same server (they
hold a shared advisory lock while they run): then it may be that session's, and the summary warns instead.  What
is new and named otherwise belongs to another program using the same server (issue 31: a run failed with every
test passing because a database appeared that it never made): the summary names it, and the run passes.  Schemas
noted here and still present fail the run in any case.  Without a server the check is a visible line of the summary
(and a failure in CI, where PostgreSQL is required)."""

from __future__ import annotations

import contextlib
import gc
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
from psycopg import sql

__all__ = ["CREATED", "aside", "drop_postgres_schemas", "drop_schemas", "pytest_sessionfinish",
           "pytest_sessionstart", "pytest_terminal_summary"]

CREATED: list[str] = []  # made by postgres_store and not dropped yet, in order
MADE_HERE = re.compile(r"(t|bench|year)_[0-9a-f]{10,12}|verify_log_selftest"  # schemas
                       r"|pokertable_restore_[0-9a-f]{12}|(pt|bench)_group_[abg]_[0-9a-f]{8}")  # databases
"""The names the tests (tests/, tools/verifier) and the benchmarks they run give the schemas and databases they
make: what else appears on the server meanwhile is another program's."""
LOCK_KEY = 0x706F6B65  # the advisory lock every test session holds shared while it runs ("poke")
SYSTEM = ("pg_catalog", "information_schema", "public")


@dataclass
class _Guard:
    """What the session saw at its start, and what it found at its end."""

    connection: psycopg.Connection[Any] | None = None
    schemas: set[str] = field(default_factory=set)
    databases: set[str] = field(default_factory=set)
    others_at_start: int = 0
    unreachable: str = ""
    failed_drops: list[str] = field(default_factory=list)
    report: list[str] = field(default_factory=list)
    failing: bool = False


_GUARD = _Guard()


def _settings() -> dict[str, str]:
    from service.store.persistence import environment
    from tests.support.stores import POSTGRES_URL

    return environment(POSTGRES_URL)


def _connect(dbname: str | None = None, *, timeout: int = 3) -> psycopg.Connection[Any]:
    env = _settings()
    return psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                           password=env.get("POSTGRES_PASSWORD") or None, dbname=dbname or env["POSTGRES_DBNAME"],
                           autocommit=True, connect_timeout=timeout, application_name="pokertable-tests")


def _schemas() -> set[str]:
    """The test database's schemas but PostgreSQL's own and public (none when the database does not exist yet)."""
    with _connect("postgres") as admin:
        if not admin.execute("select 1 from pg_database where datname = %s",
                             (_settings()["POSTGRES_DBNAME"],)).fetchone():
            return set()
    with _connect() as connection:
        rows = connection.execute("select nspname from pg_namespace where nspname not like 'pg\\_%%' "
                                  "and nspname <> all(%s)", (list(SYSTEM),)).fetchall()
    return {str(row[0]) for row in rows}


def _databases(connection: psycopg.Connection[Any]) -> set[str]:
    """The server's databases but the templates and the test database (where the tests' schemas live)."""
    rows = connection.execute("select datname from pg_database where not datistemplate and datname <> %s",
                              (_settings()["POSTGRES_DBNAME"],)).fetchall()
    return {str(row[0]) for row in rows}


def _other_sessions(connection: psycopg.Connection[Any]) -> int:
    row = connection.execute(
        "select count(distinct pid) from pg_locks where locktype = 'advisory' and granted and objsubid = 1 "
        "and ((classid::bigint << 32) | objid::bigint) = %s and pid <> pg_backend_pid()", (LOCK_KEY,)).fetchone()
    return int(row[0]) if row else 0


# the connections holding a lock on the schema itself (a table being created in it) or on a table in it
_HOLDERS = """
    select pg_terminate_backend(pid) from (
        select l.pid from pg_locks l join pg_namespace n on l.locktype = 'object'
            and l.classid = 'pg_namespace'::regclass and l.objid = n.oid where n.nspname = %(schema)s
        union
        select l.pid from pg_locks l join pg_class c on c.oid = l.relation
            join pg_namespace n on n.oid = c.relnamespace where n.nspname = %(schema)s
    ) holders where pid <> pg_backend_pid()
"""


def drop_schemas(names: Iterable[str]) -> list[str]:
    """Drop each schema with everything in it; the names that could not be dropped (reported at the session's
    end).  A connection left open with a lock on a table of the schema is ended first if the drop waits on it."""
    names = list(names)
    if not names:
        return []
    failed = []
    with _connect(timeout=10) as connection:
        connection.execute("set lock_timeout = '2s'")
        for name in names:
            try:
                connection.execute(sql.SQL("drop schema if exists {} cascade").format(sql.Identifier(name)))
            except psycopg.errors.LockNotAvailable:
                connection.execute(_HOLDERS, {"schema": name})
                try:
                    connection.execute(sql.SQL("drop schema if exists {} cascade").format(sql.Identifier(name)))
                except psycopg.Error:
                    failed.append(name)
            except psycopg.Error:
                failed.append(name)
    return failed


@pytest.fixture(autouse=True)
def drop_postgres_schemas() -> Iterator[None]:
    """Drop the schemas ``postgres_store`` made during the test (and its fixtures), however it ended."""
    start = len(CREATED)
    yield
    made = CREATED[start:]
    del CREATED[start:]
    if made:  # the test's applications are unreachable now: their connections closed, not left to pile up
        gc.collect()
    _GUARD.failed_drops.extend(drop_schemas(made))


@contextlib.contextmanager
def aside() -> Iterator[None]:
    """This session out of other sessions' sight for a while (its shared lock released): a test of the check runs a
    session of its own, which must not take this one for a session beside it."""
    connection = _GUARD.connection
    if connection is not None:
        connection.execute("select pg_advisory_unlock_shared(%s)", (LOCK_KEY,))
    try:
        yield
    finally:
        if connection is not None:
            connection.execute("select pg_advisory_lock_shared(%s)", (LOCK_KEY,))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Count the server's schemas and databases; hold the shared lock that tells other sessions this one runs."""
    del session
    try:
        _GUARD.connection = _connect("postgres")
        _GUARD.connection.execute("select pg_advisory_lock_shared(%s)", (LOCK_KEY,))
        _GUARD.others_at_start = _other_sessions(_GUARD.connection)
        _GUARD.databases = _databases(_GUARD.connection)
        _GUARD.schemas = _schemas()
    except psycopg.Error as error:
        _GUARD.connection = None
        _GUARD.unreachable = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Compare with the start; fail the run when this session left a schema or a database behind."""
    del exitstatus
    guard = _GUARD
    if guard.connection is None:
        if os.environ.get("CI") == "true":
            guard.report.append(f"PostgreSQL is required in CI; schemas not checked: {guard.unreachable}")
            guard.failing = True
        else:
            guard.report.append(f"PostgreSQL schemas not checked: no server ({guard.unreachable})")
        _fail_if(session, guard)
        return
    try:
        others = max(guard.others_at_start, _other_sessions(guard.connection))
        schemas, databases = _schemas(), _databases(guard.connection)
    finally:
        guard.connection.close()
    new_schemas, new_databases = sorted(schemas - guard.schemas), sorted(databases - guard.databases)
    ours = sorted((set(CREATED) | set(guard.failed_drops)) & schemas)
    if ours:
        guard.report.append(f"{len(ours)} PostgreSQL schema(s) of this session's tests not dropped: {', '.join(ours)}")
        guard.failing = True
    made = [f"schema {name}" for name in new_schemas if name not in ours and MADE_HERE.fullmatch(name)] + \
           [f"database {name}" for name in new_databases if MADE_HERE.fullmatch(name)]
    foreign = [f"schema {name}" for name in new_schemas if name not in ours and not MADE_HERE.fullmatch(name)] + \
              [f"database {name}" for name in new_databases if not MADE_HERE.fullmatch(name)]
    if made and others:
        guard.report.append(f"new since this session started, maybe another test session's ({others} ran beside "
                            f"it): {', '.join(made)}")
    elif made:
        guard.report.append(f"left behind on PostgreSQL by this session: {', '.join(made)}")
        guard.failing = True
    if foreign:
        guard.report.append(f"new on the server since this session started, not named as this project's tests name "
                            f"what they make (another program's; left alone): {', '.join(foreign)}")
    if not guard.failing and not made:
        guard.report.insert(0, f"PostgreSQL: no schema or database left behind ({len(schemas)} schemas on the "
                               "server at the end)")
    _fail_if(session, guard)


def _fail_if(session: pytest.Session, guard: _Guard) -> None:
    if guard.failing and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The check's verdict, last in the summary (red when it fails the run)."""
    if not _GUARD.report:
        return
    if _GUARD.failing:
        terminalreporter.write_sep("=", "PostgreSQL left behind", red=True, bold=True)
    for line in _GUARD.report:
        terminalreporter.write_line(line, red=_GUARD.failing, yellow=not _GUARD.failing and "maybe" in line)
