"""Backups of the event store (issue 17, item 6): the whole log with its hash chain and signed heads in one file, taken
while the service runs, and restored into a new store, whose chain ``audit verify`` then checks (R-AUD-1).

- **SQLite**: SQLite's online backup API (``sqlite3.Connection.backup``) from a read-only connection, every page in
  one step, so one read transaction: the copy is the database as its last commit before the copy left it, the WAL's
  pages included. No sole-writer claim is needed (:class:`service.store.persistence.SoleWriter`): the service keeps
  writing meanwhile. The copy is one self-contained file (rollback journal, no ``-wal`` beside it).
- **PostgreSQL**: ``pg_dump --format=custom`` of the store's schema (the URL's ``?schema=``, else ``public``), run
  in a snapshot exported by a read-only transaction that reads the chain head first: the head reported is the
  dump's. ``pg_dump`` never blocks the service (it takes ACCESS SHARE locks; the recorders' EXCLUSIVE lock allows
  them).

A backup is written to a temporary file beside its destination (mode 0600: it holds every card of every hand), then
renamed onto it: a backup file is never half written. Its chain head (``POSITION:HASH``) is reported, so that
``audit verify --head`` can later prove a restored store is that backup.

A restore refuses to overwrite a store that holds anything unless forced, refuses an SQLite file that a service has
claimed, and, on PostgreSQL, restores into the schema the backup was taken from (``pg_restore`` cannot rename a
schema; the recorders' insert function names it in its body): into another database to keep it beside the live one.

The password of a PostgreSQL URL is never put on a command line (``ps`` shows those to every user): ``pg_dump`` and
``pg_restore`` get it in ``PGPASSWORD``, in their own environment only, and every message here masks it
(:func:`hide`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import psycopg
from psycopg import IsolationLevel, sql
from psycopg.conninfo import make_conninfo
from psycopg.rows import TupleRow

from service.store.persistence import SoleWriter, StoreInUseError, environment

SQLITE_MAGIC = b"SQLite format 3\x00"
POSTGRES_MAGIC = b"PGDMP"
"""The first bytes of an SQLite database and of a ``pg_dump`` custom-format archive."""
SQLITE_TABLES = ("stored_events", "stored_events_chain")
POSTGRES_TABLES = ("pokertable_events", "pokertable_events_chain")
"""The events and their chain, as the recorders of :mod:`service.store.chain` name them on each store (the SQLite
recorder's default table; on PostgreSQL the application's name, ``pokertable``, is the prefix)."""
DEFAULT_SCHEMA = "public"
LOCK_WAIT_MS = 30_000
"""How long ``pg_dump`` waits for a table that someone has locked exclusively (a migration, a ``VACUUM FULL``)."""


class BackupError(RuntimeError):
    """A backup or restore refused or failed; the message says why and what to do (any password masked)."""


@dataclass(frozen=True)
class Backup:
    """A backup written: where, of which kind of store, and the log it holds (its events and chain head)."""

    path: Path
    store: str
    """``SQLite`` or ``PostgreSQL``."""
    events: int
    head: tuple[int, bytes]
    """The last chain link in the backup: position and hash (0 and 32 zero bytes for an empty log)."""
    size: int


@dataclass(frozen=True)
class Restored:
    """A backup restored: its kind and, on PostgreSQL, the schema restored."""

    store: str
    schema: str | None = None


def mask(url: str) -> str:
    """A database URL as it may be printed: its password replaced by ``***``.

    >>> mask("postgresql://casino:s3cret@db.local:5432/tables?schema=pit")
    'postgresql://casino:***@db.local:5432/tables?schema=pit'
    >>> mask("sqlite:///var/pokertable.db")
    'sqlite:///var/pokertable.db'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.netloc.rpartition("@")[0].partition(":")[0]
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def hide(text: str, url: str) -> str:
    """``text`` with the URL masked and its password, wherever else it appears (raw or %-encoded), as ``***``.

    >>> hide("cannot open postgresql://u:p%40ss@h/d: bad password p@ss", "postgresql://u:p%40ss@h/d")
    'cannot open postgresql://u:***@h/d: bad password ***'
    """
    text = text.replace(url, mask(url))
    password = urlsplit(url).password
    if password:
        for secret in sorted({password, unquote(password)}, key=len, reverse=True):
            text = text.replace(secret, "***")
    return text


def kind_of(head: bytes) -> str | None:
    """The kind of backup a file is, from its first bytes: ``SQLite``, ``PostgreSQL`` (a ``pg_dump`` custom archive)
    or ``None``.

    >>> kind_of(SQLITE_MAGIC + bytes(84)), kind_of(b"PGDMP\\x01\\x0e\\x00"), kind_of(b"hand,seat,chips")
    ('SQLite', 'PostgreSQL', None)
    """
    if head.startswith(SQLITE_MAGIC):
        return "SQLite"
    if head.startswith(POSTGRES_MAGIC):
        return "PostgreSQL"
    return None


def backup(url: str, destination: Path, *, force: bool = False) -> Backup:
    """Back the store at ``url`` up into the file ``destination`` (an existing file only with ``force``), while the
    service may be writing it. :class:`BackupError` (and nothing written) when it cannot;
    :class:`service.store.persistence.PersistenceUrlError` for a URL that names no store."""
    env = environment(url)
    if "SQLITE_DBNAME" in env:
        return _backup_sqlite(env["SQLITE_DBNAME"], destination, force)
    if "POSTGRES_HOST" in env:
        return _backup_postgres(url, env, destination, force)
    raise BackupError(f"{url} is kept in memory: there is nothing to back up")


def restore(source: Path, url: str, *, force: bool = False) -> Restored:
    """Restore the backup ``source`` into the store at ``url``: a new SQLite file, or the backup's schema on
    PostgreSQL; a store that holds anything only with ``force``. :class:`BackupError` when refused or failed (an
    SQLite file then as it was, a PostgreSQL schema too: one transaction). The log is not checked here: run
    :func:`service.store.audit.verify` on it."""
    env = environment(url)
    try:
        with source.open("rb") as file:
            head = file.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise BackupError(f"cannot read the backup {source}: {error.strerror or error}") from None
    kind = kind_of(head)
    if kind is None:
        raise BackupError(f"{source} is not a pokertable backup (neither an SQLite database nor a pg_dump archive)")
    if "SQLITE_DBNAME" in env and kind == "SQLite":
        return _restore_sqlite(source, env["SQLITE_DBNAME"], force)
    if "POSTGRES_HOST" in env and kind == "PostgreSQL":
        return _restore_postgres(source, url, env, force)
    where = "a postgresql:// URL" if kind == "PostgreSQL" else "an sqlite:/// URL"
    raise BackupError(f"{source} is a backup of a {kind} store: restore it to {where}")


# -- SQLite -------------------------------------------------------------------------------------------------------


def _backup_sqlite(database: str, destination: Path, force: bool) -> Backup:
    source = Path(database)
    if not source.is_file():
        raise BackupError(f"no database {database}")
    if destination.exists() and destination.samefile(source):
        raise BackupError(f"{destination} is the database itself: back it up into another file")
    with _written(destination, force) as partial:
        reader = _read_only(source)
        try:
            _check_sqlite_store(reader, database)
            copy = sqlite3.connect(partial)
            try:
                reader.backup(copy)  # every page in one step: one read transaction, one moment of the log
                copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
                events, head = _sqlite_log(copy)
            finally:
                copy.close()
        except sqlite3.Error as error:
            raise BackupError(f"cannot back up {database}: {error}") from None
        finally:
            reader.close()
    return Backup(destination, "SQLite", events, head, destination.stat().st_size)


def _restore_sqlite(source: Path, database: str, force: bool) -> Restored:
    target = Path(database)
    if target.exists() and target.samefile(source):
        raise BackupError(f"{source} is the database {database} itself")
    reader = _read_only(source)
    try:
        _check_sqlite_store(reader, f"the backup {source}", backup=True)
        if not force and _holds_anything(target):
            raise BackupError(f"{database} exists and is not empty: restore into a new file, or give --force to "
                              "replace it (stop its service first)")
        existed = target.exists()
        try:
            claim = SoleWriter(database)  # held while the file is written: no service starts on it meanwhile
        except StoreInUseError as error:
            raise BackupError(f"{error}; a restore replaces the whole file: stop that service first") from None
        except OSError as error:
            raise BackupError(f"cannot write {database}: {error.strerror or error}") from None
        try:
            if not force and _holds_anything(target):  # written between the look and the claim
                raise BackupError(f"{database} was written meanwhile: restore into a new file, or give --force")
            _copy_into(reader, target, force, created=not existed)
        finally:
            claim.release()
    finally:
        reader.close()
    return Restored("SQLite")


def _copy_into(reader: sqlite3.Connection, target: Path, force: bool, *, created: bool) -> None:
    """The backup's pages into the claimed file, in place (the claim binds the file, not its name)."""
    try:
        writer = sqlite3.connect(target)
        try:
            if force:  # the old database's WAL checkpointed and gone: nothing of it is replayed over the restore
                writer.execute("PRAGMA journal_mode=DELETE")
            reader.backup(writer)  # one write transaction: on failure the file is as it was
        finally:
            writer.close()
    except BaseException as error:
        if created:
            for leftover in (target, *_companions(target)):
                leftover.unlink(missing_ok=True)
        if isinstance(error, sqlite3.Error):
            raise BackupError(f"cannot restore into {target}: {error}") from None
        raise


def _holds_anything(path: Path) -> bool:
    return path.exists() and path.stat().st_size > 0


def _read_only(path: Path) -> sqlite3.Connection:
    try:
        return sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise BackupError(f"cannot read {path}: {error}") from None


def _check_sqlite_store(connection: sqlite3.Connection, what: str, *, backup: bool = False) -> None:
    """That an SQLite database holds pokertable's log and its chain (and, for a backup, is undamaged)."""
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        damage = connection.execute("PRAGMA quick_check").fetchone()[0] if backup else "ok"
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{what} is not a pokertable backup: {error}") from None
    missing = [table for table in SQLITE_TABLES if table not in tables]
    if missing:
        raise BackupError(f"{what} is not a pokertable {'backup' if backup else 'store'} (no {missing[0]} table)")
    if damage != "ok":
        raise BackupError(f"{what} is damaged: {damage}")


def _sqlite_log(connection: sqlite3.Connection) -> tuple[int, tuple[int, bytes]]:
    events, chain = SQLITE_TABLES
    count = connection.execute(f"SELECT count(*) FROM {events}").fetchone()[0]
    row = connection.execute(f"SELECT position, hash FROM {chain} ORDER BY position DESC LIMIT 1").fetchone()
    return int(count), (int(row[0]), bytes(row[1])) if row else (0, bytes(32))


def _companions(path: Path) -> list[Path]:
    return [path.with_name(path.name + suffix) for suffix in ("-journal", "-wal", "-shm")]


@contextlib.contextmanager
def _written(destination: Path, force: bool) -> Iterator[Path]:
    """A temporary file beside ``destination`` (mode 0600), renamed onto it when the block succeeds, removed when it
    does not: a backup file is whole or absent."""
    if destination.is_dir():
        raise BackupError(f"{destination} is a directory: name the backup file")
    if destination.exists() and not force:
        raise BackupError(f"{destination} exists: give another file (backups are kept, not replaced), or --force")
    try:
        descriptor, name = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".partial",
                                            dir=destination.parent)
    except OSError as error:
        raise BackupError(f"cannot write the backup {destination}: {error.strerror or error}") from None
    os.close(descriptor)
    partial = Path(name)
    try:
        yield partial
        with partial.open("rb+") as file:
            os.fsync(file.fileno())
        os.replace(partial, destination)
        directory = os.open(destination.parent, os.O_RDONLY)
        try:
            os.fsync(directory)  # the rename itself survives a power cut
        finally:
            os.close(directory)
    finally:
        for leftover in (partial, *_companions(partial)):
            leftover.unlink(missing_ok=True)


# -- PostgreSQL ---------------------------------------------------------------------------------------------------


def _backup_postgres(url: str, env: Mapping[str, str], destination: Path, force: bool) -> Backup:
    pg_dump = _client("pg_dump")
    schema = env.get("POSTGRES_SCHEMA", DEFAULT_SCHEMA)
    with _written(destination, force) as partial, _connect(url, env) as connection:
        connection.isolation_level = IsolationLevel.REPEATABLE_READ
        connection.read_only = True
        try:
            snapshot = _one(connection, sql.SQL("SELECT pg_export_snapshot()"))
            events_table, chain_table = _postgres_tables(connection, schema, url)
            events = _one(connection, sql.SQL("SELECT count(*) FROM {}").format(events_table))
            head = connection.execute(sql.SQL("SELECT position, hash FROM {} ORDER BY position DESC LIMIT 1")
                                      .format(chain_table)).fetchone()
        except psycopg.Error as error:
            raise BackupError(hide(f"cannot read {mask(url)}: {_one_line(error)}", url)) from None
        _run([pg_dump, "--format=custom", f"--schema={_pattern(schema)}", f"--snapshot={snapshot}",
              f"--lock-wait-timeout={LOCK_WAIT_MS}", "--no-password", f"--file={partial}",
              f"--dbname={_conninfo(env)}"], url, env)
        connection.rollback()
    return Backup(destination, "PostgreSQL", int(events), (int(head[0]), bytes(head[1])) if head else (0, bytes(32)),
                  destination.stat().st_size)


def _restore_postgres(source: Path, url: str, env: Mapping[str, str], force: bool) -> Restored:
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
                raise BackupError(f"the schema {schema!r} of {mask(url)} is not empty (it holds {relations} "
                                  "relations): restore into an empty schema, or give --force to replace what the "
                                  "backup holds (stop its services first)")
            connection.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        except psycopg.Error as error:
            raise BackupError(hide(f"cannot prepare {mask(url)}: {_one_line(error)}", url)) from None
        try:
            _pg_restore(pg_restore, source, listing, url, env, force=force)
        except BaseException:
            if not existed:  # the restore was one transaction: the schema made for it is empty again
                with contextlib.suppress(psycopg.Error):
                    connection.execute(sql.SQL("DROP SCHEMA IF EXISTS {} RESTRICT").format(sql.Identifier(schema)))
            raise
    return Restored("PostgreSQL", schema)


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
        raise BackupError(f"{mask(url)} holds no pokertable store in the schema {schema!r} (no "
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
        raise BackupError(hide(f"cannot connect to {mask(url)}: {_one_line(error)}", url)) from None
    with connection:
        yield connection


def _one_line(error: Exception) -> str:
    """An error's message on one line (libpq's add a hint on a second)."""
    return " ".join(str(error).split())


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
