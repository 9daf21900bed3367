"""The one composition root (issue 14): every ``pokertable`` command that opens the event store builds the
application here, and the service is assembled here, so that what a command runs on (the store chosen by its URL,
the SQLite file's sole-writer claim, the stored topics of moved classes, the chain-head signer) is decided once.

>>> with open_store("memory:") as store:
...     type(store.app).__name__
'PokerTables'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from service.app.application import PokerTables
from service.store.keyring import finish_rotation, journal_path, keyring_path, load_keyring, trust_key
from service.store.persistence import SoleWriter, claim_sole_writer, environment
from service.store.signer import HeadSigner
from service.store.signing import load_or_create_signing_key
from service.store.snapshots import use_keys


@dataclass
class Store:
    """The application on one event store, and this process's claim on it (an SQLite file written here)."""

    app: PokerTables
    claim: SoleWriter | None = None
    signer: HeadSigner | None = field(default=None)

    def close(self) -> None:
        """Close the store, then give up the claim (a waiting service or command may then take it)."""
        try:
            self.app.close()
        finally:
            if self.claim is not None:
                self.claim.release()
                self.claim = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def open_store(url: str, *, writer: bool = False, must_exist: bool = False, read_only: bool = False,
               connect_timeout: int | None = None) -> Store:
    """The application on the store at ``url`` (``sqlite:///FILE``, a path, ``postgresql://…``, ``memory://``).

    ``writer``: this process writes, so on an SQLite file it claims the file as its sole writer first
    (:class:`service.store.persistence.StoreInUseError` while a service holds it) and, as the sole writer, trusts its
    aggregate cache. ``must_exist``: an SQLite file that is not there is an error (a reader never creates one).
    ``read_only``: the store's tables are not made (a PostgreSQL role that may only read them will do: the group's
    follower at a casino, :mod:`service.cli.group`). ``connect_timeout``: seconds a PostgreSQL server is waited for
    (eventsourcing's default: 30), for a reader that has other stores to read meanwhile (the same follower).
    Errors: :class:`service.store.persistence.PersistenceUrlError`, ``StoreInUseError``, ``ValueError``."""
    env = environment(url)
    if must_exist and "SQLITE_DBNAME" in env and not Path(env["SQLITE_DBNAME"]).exists():
        raise ValueError(f"no database {env['SQLITE_DBNAME']!r}")
    claim = claim_sole_writer(url) if writer else None
    try:
        env = environment(url, sole_writer=claim is not None)
        if connect_timeout is not None and "POSTGRES_HOST" in env:
            env["POSTGRES_CONNECT_TIMEOUT"] = str(connect_timeout)
        if read_only:
            env["CREATE_TABLE"] = "n"
        return Store(PokerTables(env=env), claim)
    except BaseException:
        if claim is not None:
            claim.release()
        raise


def read_only_application(env: dict[str, str]) -> PokerTables:
    """The application on a store opened read-only (``environment(url, read_only=True)``: nothing is written, not
    even the tables eventsourcing makes at start); for :func:`service.cli.reconstruct.open_read_only`."""
    return PokerTables(env=env)


def open_signed_store(url: str, key_path: Path, every: int, *, writer: str = "") -> tuple[Store, bool, int]:
    """The store a service writes, with its head signer started: ``(store, key created, unsigned events)``.

    The key is loaded (or created, readable by its owner only, and its public key written to the keyring beside it:
    the first key, trusted by the act of installing the service) before the store is claimed: a bad key claims
    nothing. ``writer``: the instance's name in its heads (host and port); its journal of claims lies beside the
    key (:func:`journal_path`). A rotation cut short by a crash (the new key written, not yet in use) is finished
    if the log announced the new key, forgotten otherwise."""
    key, created = load_or_create_signing_key(key_path)
    if created or not keyring_path(key_path).exists():  # a key made before keyrings were: the one trusted
        trust_key(keyring_path(key_path), key.public_key())
    store = open_store(url, writer=True)
    try:
        key = finish_rotation(store.app, key_path, key)
        store.signer = HeadSigner(store.app, key, every, writer=writer, journal=journal_path(key_path, writer))
        use_keys(store.app.snapshots, key, load_keyring(keyring_path(key_path)))  # the tables' snapshots
        unsigned = store.signer.start()
    except BaseException:
        store.close()
        raise
    return store, created, unsigned
