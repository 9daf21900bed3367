"""Backups of a PostgreSQL event store (issue 17, item 6; :mod:`service.store.backup`): ``pg_dump --format=custom``
of the store's schema in a snapshot whose chain head is read first, and ``pg_restore`` into the schema it came from,
the password reaching both in their environment only (R-AUD-1)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import psycopg
from psycopg import IsolationLevel, sql
from psycopg.conninfo import make_conninfo
from psycopg.rows import TupleRow

from service.store.backup_files import Backup, BackupError, Restored, hide, one_line
from service.store.persistence import masked_url

POSTGRES_TABLES = ("pokertable_events", "pokertable_events_chain")
"""The events and their chain, as the recorders of :mod:`service.store.chain` name them on each store (the SQLite
recorder's default table; on PostgreSQL the application's name, ``pokertable``, is the prefix)."""
DEFAULT_SCHEMA = "public"
LOCK_WAIT_MS = 30_000
"""How long ``pg_dump`` waits for a table that someone has locked exclusively (a migration, a ``VACUUM FULL``)."""


def backup_postgres(url: str, env: Mapping[str, str], partial: Path) -> Backup:
    """The store's schema dumped into ``partial``."""
    pg_dump = _client("pg_dump")
    schema = env.get("POSTGRES_SCHEMA", DEFAULT_SCHEMA)
    with _connect(url, env) as connection:
        connection.isolation_level = IsolationLevel.REPEATABLE_READ
        connection.read_only = True
        try:
            snapshot = _one(connection, sql.SQL("SELECT pg_export_snapshot()"))
            events_table, chain_table = _postgres_tables(connection, schema, url)
            events = _one(connection, sql.SQL("SELECT count(*) FROM {}").format(events_table))
            head = connection.execute(sql.SQL("SELECT position, hash FROM {} ORDER BY position DESC LIMIT 1")
                                      .format(chain_table)).fetchone()
        except psycopg.Error as error:
            raise BackupError(hide(f"cannot read {masked_url(url)}: {one_line(error)}", url)) from None
        _run([pg_dump, "--format=custom", f"--schema={_pattern(schema)}", f"--snapshot={snapshot}",
              f"--lock-wait-timeout={LOCK_WAIT_MS}", "--no-password", f"--file={partial}",
              f"--dbname={_conninfo(env)}"], url, env)
        connection.rollback()
    return Backup(partial, "PostgreSQL", int(events), (int(head[0]), bytes(head[1])) if head else (0, bytes(32)),
                  partial.stat().st_size)


def restore_postgres(source: Path, url: str, env: Mapping[str, str], force: bool) -> Restored:
    pg_restore = _client("pg_restore")
    try:
        listing = _run([pg_restore, "--list", str(source)], url, env)
    except BackupError:
        raise BackupError(f"{source} is not a pokertable backup (pg_restore cannot read it)") from None
    schema = _archive_schema(listing, source)
    target = env.get("POSTGRES_SCHEMA", DEFAULT_SCHEMA)
    if schema != target:
        raise BackupError(f"{source} holds the schema {schema!r}, which pg_restore cannot rename: restore it with "
                          f"?schema={schema} (into another database to keep it beside the live one)")
    with _connect(url, env) as connection:
        connection.autocommit = True
        try:
            existed, relations = connection.execute(
                "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = %s), (SELECT count(*) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s)", (schema, schema)).fetchone() \
                or (False, 0)
            if relations and not force:
                raise BackupError(f"the schema {schema!r} of {masked_url(url)} is not empty (it holds {relations} "
                                  "relations): restore into an empty schema, or give --force to replace what the "
                                  "backup holds (stop its services first)")
            connection.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        except psycopg.Error as error:
            raise BackupError(hide(f"cannot prepare {masked_url(url)}: {one_line(error)}", url)) from None
        try:
            _pg_restore(pg_restore, source, listing, url, env, force=force)
        except BaseException:
            if not existed:  # the restore was one transaction: the schema made for it is empty again
                with contextlib.suppress(psycopg.Error):
                    connection.execute(sql.SQL("DROP SCHEMA IF EXISTS {} RESTRICT").format(sql.Identifier(schema)))
            raise
        _analyze(connection, schema, url)
    return Restored("PostgreSQL", schema)


def _analyze(connection: psycopg.Connection[TupleRow], schema: str, url: str) -> None:
    """ANALYZE every table of the restored schema (issue 30, item 4): pg_restore leaves the planner no statistics,
    and until autovacuum gets to them (never, on a server where it is off) the first reads of a large log were
    measured 100-250 times slower."""
    try:
        tables = connection.execute("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                                    "WHERE n.nspname = %s AND c.relkind = 'r'", (schema,)).fetchall()
        for (table,) in tables:
            connection.execute(sql.SQL("ANALYZE {}.{}").format(sql.Identifier(schema), sql.Identifier(table)))
    except psycopg.Error as error:  # the store is restored: slower reads until autovacuum, not a failed restore
        print(f"pokertable restore: ANALYZE of the restored tables failed ({hide(one_line(error), url)}): run it "
              f"by hand (docs/ops/backup.md)", file=sys.stderr)


def _pg_restore(pg_restore: str, source: Path, listing: str, url: str, env: Mapping[str, str], *,
                force: bool) -> None:
    """Every entry of the archive but the schema's own (made beforehand), in one transaction."""
    entries = "".join(line + "\n" for line in listing.splitlines() if not _SCHEMA_ENTRY.match(line))
    with tempfile.NamedTemporaryFile("w", prefix="pokertable-restore-", suffix=".list") as chosen:
        chosen.write(entries)
        chosen.flush()
        _run([pg_restore, f"--use-list={chosen.name}", "--single-transaction", "--exit-on-error", "--no-owner",
              "--no-acl", "--no-password", *(["--clean", "--if-exists"] if force else []),
              f"--dbname={_conninfo(env)}", str(source)], url, env)


_TABLE_ENTRY = re.compile(r"^\d+; \d+ \d+ TABLE (?P<schema>\S+) (?P<name>\S+) ")
_SCHEMA_ENTRY = re.compile(r"^\d+; \d+ \d+ (SCHEMA|COMMENT|ACL) - ")


def _archive_schema(listing: str, source: Path) -> str:
    """The schema holding the log and its chain in a ``pg_restore --list`` of a backup."""
    tables = {(match["schema"], match["name"]) for line in listing.splitlines() if (match := _TABLE_ENTRY.match(line))}
    events, chain = POSTGRES_TABLES
    schemas = {schema for schema, name in tables if name == events and (schema, chain) in tables}
    if len(schemas) != 1:
        raise BackupError(f"{source} is not a pokertable backup (no {events} table with its chain)"
                          if not schemas else f"{source} holds several pokertable stores: {sorted(schemas)}")
    return schemas.pop()


def _postgres_tables(connection: psycopg.Connection[TupleRow], schema: str,
                     url: str) -> tuple[sql.Composed, sql.Composed]:
    found = connection.execute("SELECT to_regclass(%s), to_regclass(%s)",
                               tuple(f"{sql.Identifier(schema).as_string(connection)}."
                                     f"{sql.Identifier(table).as_string(connection)}" for table in POSTGRES_TABLES)
                               ).fetchone()
    if found is None or None in found:
        raise BackupError(f"{masked_url(url)} holds no pokertable store in the schema {schema!r} (no "
                          f"{POSTGRES_TABLES[0]} table with its chain)")
    events, chain = (sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table))
                     for table in POSTGRES_TABLES)
    return events, chain


def _one(connection: psycopg.Connection[TupleRow], query: sql.SQL | sql.Composed) -> Any:
    row = connection.execute(query).fetchone()
    assert row is not None
    return row[0]


def _pattern(schema: str) -> str:
    """A schema name as a ``pg_dump`` pattern that matches it alone (quoted: no wildcards, case kept).

    >>> _pattern("t_3f2a"), _pattern('odd"name*')
    ('"t_3f2a"', '"odd""name*"')
    """
    return '"' + schema.replace('"', '""') + '"'


def _conninfo(env: Mapping[str, str]) -> str:
    """The connection string of the store, without its password (it goes in ``PGPASSWORD``)."""
    return make_conninfo(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], dbname=env["POSTGRES_DBNAME"],
                         user=env["POSTGRES_USER"], application_name="pokertable backup")


@contextlib.contextmanager
def _connect(url: str, env: Mapping[str, str]) -> Iterator[psycopg.Connection[TupleRow]]:
    try:
        connection = psycopg.connect(_conninfo(env), password=env["POSTGRES_PASSWORD"] or None, connect_timeout=10)
    except psycopg.Error as error:
        raise BackupError(hide(f"cannot connect to {masked_url(url)}: {one_line(error)}", url)) from None
    with connection:
        yield connection



def _client(name: str) -> str:
    """The path of a PostgreSQL client program, or what to do without it."""
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not on PATH: install PostgreSQL's client programs, of the server's major "
                          "version or newer (Debian: apt-get install postgresql-client), or add their directory "
                          "to PATH (docs/ops/backup.md)")
    return found


def _run(command: list[str], url: str, env: Mapping[str, str]) -> str:
    """Run a PostgreSQL client with the password in its environment alone; its output, or its error in one line."""
    child = dict(os.environ)
    if env["POSTGRES_PASSWORD"]:
        child["PGPASSWORD"] = env["POSTGRES_PASSWORD"]
    with subprocess.Popen(command, env=child, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as running:
        try:
            out, err = running.communicate()
        except BaseException:  # Ctrl-C: the client stops with us, and is waited for (no partial file, no zombie)
            running.kill()
            running.wait()
            raise
    if running.returncode != 0:
        name = Path(command[0]).name
        lines = [line.strip().removeprefix(f"{name}: ").removeprefix("error: ") for line in err.splitlines()
                 if line.strip()]
        raise BackupError(hide(f"{name} failed: {'; '.join(lines) or f'exit status {running.returncode}'}", url))
    return out
