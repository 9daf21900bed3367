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
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qsl, unquote, urlsplit

from eventsourcing.persistence import ApplicationRecorder, Notification

DEFAULT_DB = "sqlite:///pokertable.db"


class PersistenceUrlError(ValueError):
    """A ``--db`` URL that names no supported store."""


def environment(url: str) -> dict[str, str]:
    """The eventsourcing settings for a database URL.

    ``sqlite:///relative/path``, ``sqlite:////absolute/path`` (as SQLAlchemy writes them) or a plain path: an SQLite
    file (WAL, so a crash loses no acknowledged event);
    ``postgresql://user:password@host:port/dbname[?schema=NAME]``: PostgreSQL; ``memory:``: in memory, for tests
    and demos.
    """
    if url in ("memory:", "memory://"):
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    parts = urlsplit(url)
    if parts.scheme in ("postgresql", "postgres"):
        if not parts.hostname or not parts.path.strip("/"):
            raise PersistenceUrlError(f"a PostgreSQL URL names a host and a database: {url!r}")
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_HOST": parts.hostname,
            "POSTGRES_PORT": str(parts.port or 5432),
            "POSTGRES_DBNAME": unquote(parts.path.strip("/")),
            "POSTGRES_USER": unquote(parts.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(parts.password or ""),
            "POSTGRES_POOL_SIZE": "8",
            "POSTGRES_LOCK_TIMEOUT": "5",
            "APPLICATION_RECORDER_TOPIC": "service.audit:ChainedPostgresRecorder",  # tamper evidence
        }
        schema = dict(parse_qsl(parts.query)).get("schema")
        if schema:
            env["POSTGRES_SCHEMA"] = schema
        return env
    if parts.scheme in ("sqlite", ""):
        path = url[len("sqlite:///"):] if parts.scheme else url
        if not path:
            raise PersistenceUrlError("an SQLite URL names a file")
        return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path, "SQLITE_LOCK_TIMEOUT": "10",
                "APPLICATION_RECORDER_TOPIC": "service.audit:ChainedSQLiteRecorder"}  # tamper evidence
    raise PersistenceUrlError(f"unsupported database URL {url!r}: use sqlite:///FILE or postgresql://…")


def notifications(recorder: ApplicationRecorder, *, stop: int | None = None,
                  page: int = 1000) -> Iterator[Notification]:
    """Every stored event in log order, up to position ``stop`` if given, read a page at a time."""
    start = 1
    while found := recorder.select_notifications(start=start, limit=page, stop=stop):
        yield from found
        start = found[-1].id + 1
