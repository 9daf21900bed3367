"""What a backup or a restore of the event store gives back, and writing a backup file whole or not at all (issue 17,
item 6; :mod:`service.store.backup`): the results, the error, masking a PostgreSQL password in messages."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from service.store.persistence import masked_url


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
    signed: bool = False
    """Whether its end is signed (:mod:`service.store.backup_end`)."""


@dataclass(frozen=True)
class Restored:
    """A backup restored: its kind and, on PostgreSQL, the schema restored."""

    store: str
    schema: str | None = None


def hide(text: str, url: str) -> str:
    """``text`` with the URL masked and its password, wherever else it appears (raw or %-encoded), as ``***``.

    >>> masked_url("postgresql://casino:s3cret@db.local:5432/tables?schema=pit")
    'postgresql://casino:***@db.local:5432/tables?schema=pit'
    >>> masked_url("sqlite:///var/pokertable.db")
    'sqlite:///var/pokertable.db'
    >>> hide("cannot open postgresql://u:p%40ss@h/d: bad password p@ss", "postgresql://u:p%40ss@h/d")
    'cannot open postgresql://u:***@h/d: bad password ***'
    """
    text = text.replace(url, masked_url(url))
    password = urlsplit(url).password
    if password:
        for secret in sorted({password, unquote(password)}, key=len, reverse=True):
            text = text.replace(secret, "***")
    return text



def one_line(error: Exception) -> str:
    """An error's message on one line (libpq's add a hint on a second)."""
    return " ".join(str(error).split())


def companions(path: Path) -> list[Path]:
    return [path.with_name(path.name + suffix) for suffix in ("-journal", "-wal", "-shm")]


@contextlib.contextmanager
def written(destination: Path, force: bool) -> Iterator[Path]:
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
        for leftover in (partial, *companions(partial)):
            leftover.unlink(missing_ok=True)


