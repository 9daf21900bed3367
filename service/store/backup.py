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

import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.store import backup_end
from service.store.backup_files import Backup, BackupError, Restored, companions, written
from service.store.backup_postgres import backup_postgres, restore_postgres
from service.store.persistence import SoleWriter, StoreInUseError, environment

SQLITE_MAGIC = b"SQLite format 3\x00"
POSTGRES_MAGIC = b"PGDMP"
"""The first bytes of an SQLite database and of a ``pg_dump`` custom-format archive."""
SQLITE_TABLES = ("stored_events", "stored_events_chain")


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


def backup(url: str, destination: Path, *, force: bool = False, key: Ed25519PrivateKey | None = None) -> Backup:
    """Back the store at ``url`` up into the file ``destination`` (an existing file only with ``force``), while the
    service may be writing it, with its end signed by ``key`` (:mod:`service.store.backup_end`; ``None``: unsigned).
    :class:`BackupError` (and nothing written) when it cannot;
    :class:`service.store.persistence.PersistenceUrlError` for a URL that names no store."""
    env = environment(url)
    if "SQLITE_DBNAME" in env:
        source = Path(env["SQLITE_DBNAME"])
        if not source.is_file():
            raise BackupError(f"no database {source}")
        if destination.exists() and destination.samefile(source):
            raise BackupError(f"{destination} is the database itself: back it up into another file")
    elif "POSTGRES_HOST" not in env:
        raise BackupError(f"{url} is kept in memory: there is nothing to back up")
    with written(destination, force) as partial:
        store_file = partial.with_name(partial.name + ".store")
        try:
            made = _backup_sqlite(source, store_file) if "SQLITE_DBNAME" in env else \
                backup_postgres(url, env, store_file)
            end = backup_end.sign_end(key, made.store, made.head, store_file, time.time_ns() // 1000)
            backup_end.write(partial, made.store, made.events, end, store_file)
        finally:
            for leftover in (store_file, *companions(store_file)):
                leftover.unlink(missing_ok=True)
    return Backup(destination, made.store, made.events, made.head, destination.stat().st_size, end.signed)


def read(source: Path, into: Path) -> backup_end.Contents | None:
    """A version-2 backup's manifest, its store extracted to ``into`` (its digest checked); ``None``: ``source`` is
    a version-1 backup (the store itself), or no backup (:func:`restore` says which)."""
    try:
        with source.open("rb"):
            pass
    except OSError as error:
        raise BackupError(f"cannot read the backup {source}: {error.strerror or error}") from None
    return backup_end.extract(source, into) if backup_end.is_archive(source) else None


def restore(source: Path, url: str, *, force: bool = False) -> Restored:
    """Restore the backup ``source`` (a version-1 backup: the store itself; version 2: the store extracted from it,
    see :func:`read`) into the store at ``url``: a new SQLite file, or the backup's schema on PostgreSQL; a store
    that holds anything only with ``force``. :class:`BackupError` when refused or failed (an SQLite file then as it
    was, a PostgreSQL schema too: one transaction). The log is not checked here: run
    :func:`service.store.audit.verify` on it, and :func:`service.store.backup_end.end_problem`."""
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
        return restore_postgres(source, url, env, force)
    where = "a postgresql:// URL" if kind == "PostgreSQL" else "an sqlite:/// URL"
    raise BackupError(f"{source} is a backup of a {kind} store: restore it to {where}")


# -- SQLite -------------------------------------------------------------------------------------------------------


def _backup_sqlite(source: Path, partial: Path) -> Backup:
    """The database ``source`` copied into ``partial``."""
    reader = _read_only(source)
    try:
        _check_sqlite_store(reader, str(source))
        copy = sqlite3.connect(partial)
        try:
            reader.backup(copy)  # every page in one step: one read transaction, one moment of the log
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            events, head = _sqlite_log(copy)
        finally:
            copy.close()
    except sqlite3.Error as error:
        raise BackupError(f"cannot back up {source}: {error}") from None
    finally:
        reader.close()
    return Backup(partial, "SQLite", events, head, partial.stat().st_size)


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
            for leftover in (target, *companions(target)):
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
