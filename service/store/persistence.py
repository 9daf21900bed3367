"""Where the events live, chosen by a URL: an SQLite file (the embedded default) or PostgreSQL.

>>> environment("sqlite:////var/pokertable.db")["SQLITE_DBNAME"], environment("sqlite:///tables.db")["SQLITE_DBNAME"]
('/var/pokertable.db', 'tables.db')
>>> environment("table.db")["PERSISTENCE_MODULE"]
'eventsourcing.sqlite'
>>> env = environment("postgresql://postgres@127.0.0.1:5432/pokertable")
>>> env["POSTGRES_HOST"], env["POSTGRES_PORT"], env["POSTGRES_DBNAME"], env["POSTGRES_USER"]
('127.0.0.1', '5432', 'pokertable', 'postgres')
>>> environment("postgresql://postgres@db/casino?schema=mesa_7")["POSTGRES_SCHEMA"]
'mesa_7'
>>> environment("memory:")["PERSISTENCE_MODULE"]
'eventsourcing.popo'
>>> environment("sqlite:///t.db", sole_writer=True)["AGGREGATE_CACHE_FASTFORWARD"]
'n'
>>> inspected = environment("sqlite:////nowhere/evidence.db", read_only=True)  # nothing writes it: immutable
>>> inspected["SQLITE_DBNAME"], inspected["CREATE_TABLE"], inspected[READ_ONLY]
('file:/nowhere/evidence.db?mode=ro&immutable=1', 'n', 'y')
>>> environment("postgresql://auditor@db/casino", read_only=True)[READ_ONLY]
'y'
>>> masked_url("postgresql://casino:s3cret@db.local:5432/pokertable?schema=mesa_7")
'postgresql://casino:***@db.local:5432/pokertable?schema=mesa_7'
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from eventsourcing.persistence import ApplicationRecorder, Notification

DEFAULT_DB = "sqlite:///pokertable.db"
READ_ONLY = "POKERTABLE_READ_ONLY"
"""The setting (``y``) of a store opened read-only by :func:`environment` (R-AUD-1: an inspection never writes the
evidence): :class:`service.app.application.PokerTables` then opens PostgreSQL's connections read-only
(:func:`read_only_connections`); SQLite's are read-only by their URI."""
POSTGRES_READ_ONLY_OPTIONS = "-c default_transaction_read_only=on"
"""libpq's ``options`` of a read-only connection: every transaction of the session is read-only (a write is refused
by the server: "cannot execute INSERT in a read-only transaction")."""


def masked_url(url: str) -> str:
    """``url`` as it may be shown (logs, messages, the status line): a password in it replaced by ``***``.

    A password written with an unencoded ``#``, ``?`` or ``/`` makes the URL ambiguous (a parser reads the rest as a
    fragment, a query or a path, and finds no password): whatever lies between the user's ``:`` and the last ``@``
    is masked then, so a password is never shown whole, whatever it holds (issue 32).

    >>> masked_url("postgresql://casino:pa#ss?w/rd@db.lan:5432/tables")
    'postgresql://casino:***@db.lan:5432/tables'
    """
    scheme, separator, rest = url.partition("://")
    user, colon, _ = rest.rpartition("@")[0].partition(":")
    if separator and colon and "/" not in user and any(mark in rest.rpartition("@")[0] for mark in "#?/"):
        return f"{scheme}://{user}:***@{rest.rpartition('@')[2]}"
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # not a URL at all (a port that is not a number): show nothing of what follows the scheme
        return url.partition("://")[0] + "://***" if "://" in url else url
    if password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


class PersistenceUrlError(ValueError):
    """A ``--db`` URL that names no supported store."""


class StoreInUseError(RuntimeError):
    """An SQLite database that another process already writes (its sole writer)."""


def environment(url: str, *, sole_writer: bool = False, read_only: bool = False) -> dict[str, str]:
    """The eventsourcing settings for a database URL.

    ``sqlite:///relative/path``, ``sqlite:////absolute/path`` (as SQLAlchemy writes them) or a plain path: an SQLite
    file (WAL, so a crash loses no acknowledged event);
    ``postgresql://user:password@host:port/dbname[?schema=NAME]``: PostgreSQL; ``memory:``: in memory, for tests
    and demos.

    ``sole_writer`` (SQLite, with the :class:`SoleWriter` claim held): this process is the only one that writes the
    file, so its cached aggregates are the truth and are not fast-forwarded from the store before each command
    (a query saved per aggregate, per command). Several writers share a store on PostgreSQL, where the cache is
    always fast-forwarded.

    ``read_only`` (the inspection commands: ``reconstruct``, ``history``, ``export``, ``hands``): nothing is written,
    not even the tables eventsourcing makes at start (``CREATE_TABLE=n``). An SQLite file is opened by the URI of
    :func:`sqlite_read_only_uri`; PostgreSQL's sessions are read-only (:data:`READ_ONLY`).
    """
    if url in ("memory:", "memory://"):
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    parts = urlsplit(url)
    if parts.scheme in ("postgresql", "postgres"):
        if not parts.hostname or not parts.path.strip("/"):
            raise PersistenceUrlError(f"a PostgreSQL URL names a host and a database: {masked_url(url)!r}")
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_HOST": parts.hostname,
            "POSTGRES_PORT": str(parts.port or 5432),
            "POSTGRES_DBNAME": unquote(parts.path.strip("/")),
            "POSTGRES_USER": unquote(parts.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(parts.password or ""),
            "POSTGRES_POOL_SIZE": "8",
            "POSTGRES_LOCK_TIMEOUT": "5",
            "APPLICATION_RECORDER_TOPIC": "service.store.chain_postgres:ChainedPostgresRecorder",  # tamper evidence
        }
        schema = dict(parse_qsl(parts.query)).get("schema")
        if schema:
            env["POSTGRES_SCHEMA"] = schema
        if read_only:
            env.update({"CREATE_TABLE": "n", READ_ONLY: "y"})
        return env
    if parts.scheme in ("sqlite", ""):
        path = url[len("sqlite:///"):] if parts.scheme else url
        if not path:
            raise PersistenceUrlError("an SQLite URL names a file")
        env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path, "SQLITE_LOCK_TIMEOUT": "10",
               "APPLICATION_RECORDER_TOPIC": "service.store.audit:ChainedSQLiteRecorder"}  # tamper evidence
        if sole_writer:
            env["AGGREGATE_CACHE_FASTFORWARD"] = "n"
        if read_only:
            env.update({"SQLITE_DBNAME": sqlite_read_only_uri(path), "CREATE_TABLE": "n", READ_ONLY: "y"})
        return env
    raise PersistenceUrlError(f"unsupported database URL {masked_url(url)!r}: use sqlite:///FILE or postgresql://…")


def sqlite_read_only_uri(path: str) -> str:
    """The SQLite URI that reads the database file ``path`` without changing a byte of it, nor of its directory.

    ``mode=ro``: no write of the file. On a database in WAL mode (the service's) that is not enough: a reader maps
    the write-ahead log's index, so ``mode=ro`` creates ``FILE-wal`` and ``FILE-shm`` beside it and leaves them there
    (and cannot open it at all in a directory it may not write). So, when no pokertable process holds the file as its
    sole writer (:class:`SoleWriter`) and no write-ahead log or rollback journal beside it holds anything, the file
    is also opened ``immutable=1``: no lock, no index, no companion file, read as it is. Otherwise (a service writing
    it, or a copy taken with its ``-wal``) the log beside it must be read: ``mode=ro`` alone, which reads the file
    and its log as SQLite's other readers do and never writes either (it may create the ``-shm`` index).

    >>> sqlite_read_only_uri("/nowhere/Mesa 1?.db")
    'file:/nowhere/Mesa%201%3F.db?mode=ro&immutable=1'
    """
    file = Path(path).absolute()
    uri = f"file:{quote(str(file))}?mode=ro"
    return uri if _being_written(file) else f"{uri}&immutable=1"


def _being_written(file: Path) -> bool:
    """Whether ``file`` is (or may be) written under a reader: a pokertable process holds its :class:`SoleWriter`
    claim, or its write-ahead log or rollback journal holds pages not yet in the file. Nothing is opened to find
    out (closing a descriptor of the file would drop the POSIX locks SQLite holds on it in this process)."""
    for companion in (file.with_name(f"{file.name}-wal"), file.with_name(f"{file.name}-journal")):
        try:
            if companion.stat().st_size > 0:
                return True
        except FileNotFoundError:
            continue
        except OSError:  # cannot tell: read it as a live database
            return True
    try:
        identity = file.stat()
    except OSError:  # missing or unreadable: SQLite says so when it opens it
        return False
    wanted = f"{os.major(identity.st_dev):02x}:{os.minor(identity.st_dev):02x}:{identity.st_ino}"
    try:
        lines = Path("/proc/locks").read_text(encoding="ascii").splitlines()
    except OSError:  # not Linux: cannot tell, so read it as a live database
        return True
    return any(len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted
               for fields in (line.split() for line in lines))


def read_only_connections(factory: object) -> None:
    """Make every PostgreSQL session of an eventsourcing ``factory``'s connection pool read-only (:data:`READ_ONLY`),
    before the pool opens its first connection (the application's recorder opens it as it is made): the server then
    refuses any write. An SQLite factory is left as it is (its URI is read-only already, :func:`sqlite_read_only_uri`).
    """
    pool = getattr(getattr(factory, "datastore", None), "pool", None)
    kwargs: object = getattr(pool, "kwargs", None)  # psycopg_pool's: the parameters of each connection it makes
    if isinstance(kwargs, dict):
        kwargs["options"] = f"{kwargs.get('options', '')} {POSTGRES_READ_ONLY_OPTIONS}".strip()


class SoleWriter:
    """An exclusive claim on an SQLite database: while a process holds it, no other pokertable process writes the file.

    The embedded default serves one table (or a few) from one process; SQLite has one writer at a time anyway. The
    claim is an ``flock`` on the database file itself, so it binds the file's identity (device and inode), not its
    path: a hard link or a symbolic link to the same file meets the same claim (issue 13, item 6). The kernel drops it
    when the process ends, even by ``kill -9``, and a restarted service claims it again at once. SQLite's own locks are
    POSIX record locks, which ``flock`` does not touch. Readers (audit, export, history) need no claim.
    """

    def __init__(self, database: str) -> None:
        with open(database, "ab"):  # a new database: SQLite takes an empty file as one
            pass
        self.path = Path(database)
        self._file = self.path.open("rb")
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            identity = os.fstat(self._file.fileno())
            self._file.close()
            holder = _flock_holder(identity.st_dev, identity.st_ino)
            raise StoreInUseError(f"{database} is being written by {holder}: one service per SQLite file, whatever "
                                  "the path or link it is reached by (stop it, or use its gRPC API; several services "
                                  "share PostgreSQL)") from None

    def release(self) -> None:
        """Give the claim up (the process's end does too)."""
        if not self._file.closed:
            self._file.close()


def _flock_holder(device: int, inode: int) -> str:
    """Who holds the ``flock`` on a file, as the kernel lists it in /proc/locks (Linux): ``pokertable process PID``."""
    wanted = f"{os.major(device):02x}:{os.minor(device):02x}:{inode}"
    try:
        lines = Path("/proc/locks").read_text(encoding="ascii").splitlines()
    except OSError:
        return "another process"
    for line in lines:
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted:
            return f"pokertable process {fields[4]}"
    return "another process"


def claim_sole_writer(url: str) -> SoleWriter | None:
    """For an SQLite file: this process's :class:`SoleWriter` claim (:class:`StoreInUseError` if another process
    holds it). For PostgreSQL or memory: ``None`` (PostgreSQL takes several writers; memory is one process's)."""
    env = environment(url)
    database = env.get("SQLITE_DBNAME")
    if database is None or database == ":memory:" or database.startswith("file::memory:"):
        return None
    return SoleWriter(database)


def notifications(recorder: ApplicationRecorder, *, stop: int | None = None,
                  page: int = 1000) -> Iterator[Notification]:
    """Every stored event in log order, up to position ``stop`` if given, read a page at a time."""
    start = 1
    while found := recorder.select_notifications(start=start, limit=page, stop=stop):
        yield from found
        start = found[-1].id + 1
