"""The application with a signed snapshot every few events of a table, as the service runs it."""

from __future__ import annotations

from typing import Any, ClassVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.banked.table import BankedTable
from domain.circle.table import Table
from service.app.application import PokerTables
from service.store.snapshots import use_keys

EVERY = 10
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))


class Snapshotting(PokerTables):
    """The application with a snapshot every few events of a table (the service's: every 200)."""

    name = "pokertable"
    snapshotting_intervals: ClassVar[dict[Any, int]] = {Table: EVERY, BankedTable: EVERY}


def _served(env: dict[str, str], key: Ed25519PrivateKey | None = KEY) -> Snapshotting:
    """An instance as the service runs it: its key signs the snapshots it takes and it trusts its own."""
    app = Snapshotting(env=env)
    if key is not None:
        use_keys(app.snapshots, key)
    return app
