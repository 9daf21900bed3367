"""Signed snapshots of the tables (issue 30, item 2): a table's first command after a restart, and every table
answering after it, cost what happened since its last snapshot, not its whole life.

Every :data:`SNAPSHOT_EVERY` events of a table (circle or banked) the service stores that table's state as it holds
it after the command (built from events whose links were checked, R-AUD-1), in the store's snapshot table beside
the log. A snapshot is not evidence (the log is) but a table loaded from one is served, so whoever can write the
database must not be able to give a table chips through it: each snapshot is signed with the service's signing key
(Ed25519, the key that signs the chain's heads) over what identifies it and its whole state, and is used only if its
signature verifies under a key the service trusts (its own, and its keyring's). A snapshot whose signature does not
verify is refused and said as an ERROR (``pokertable.snapshots``); the table is built from its events, as without
one. A
snapshot taken by another release of the software is passed over quietly (the shape of a table's state may differ);
the next snapshot taken replaces it.

The stored state of a snapshot: ``PTS1``, the signer's public key (32 bytes), the release's length (u16, big-endian)
and its text (UTF-8), the signature (64 bytes), then the snapshot's state as eventsourcing stores it. A snapshot
signed by a key the service does not trust (one rotated away before the last start, another casino's) is passed
over quietly, as one of another release is; one whose signature fails under a key it trusts was changed: refused,
and said. The signed message: ``pokertable snapshot v1``, a
NUL, the release, a NUL, the originator id (36-character text), a NUL, the version (i64 big-endian), the topic, a
NUL, the state.

Readers that trust no key (the read-only inspections: ``reconstruct``, ``history``, ``export``) read no snapshot.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from uuid import UUID

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from eventsourcing.domain import Snapshot
from eventsourcing.persistence import EventStore, Recording, StoredEvent

from service.store.state_transcodings import plain, restored

SNAPSHOT_EVERY = 200
"""A table's events between two of its snapshots (a circle hand is 30-70 events: a snapshot every few hands)."""
MAGIC = b"PTS1"
DOMAIN = b"pokertable snapshot v1"
_SIGNATURE = 64
_KEY = 32
_log = logging.getLogger("pokertable.snapshots")


def release() -> str:
    """This software's release, as the snapshots it takes name it (the installed distribution's version)."""
    from importlib import metadata

    try:
        return metadata.version("pokertable")
    except metadata.PackageNotFoundError:
        return "unknown"


def snapshot_message(made_by: str, stored: StoredEvent) -> bytes:
    """What a snapshot's signature covers (see the module's text)."""
    return b"\0".join((DOMAIN, made_by.encode(), str(stored.originator_id).encode(),
                       struct.pack(">q", stored.originator_version) + stored.topic.encode(), bytes(stored.state)))


class TableSnapshot(Snapshot):
    """A table's snapshot: its state written as plain data (:func:`service.store.state_transcodings.plain`) and
    restored exactly."""

    @classmethod
    def take(cls, aggregate: Any) -> Any:
        snapshot = super().take(aggregate)
        object.__setattr__(snapshot, "state", plain(snapshot.state))
        return snapshot

    def mutate(self, _: None) -> Any:
        shown = Snapshot(originator_id=self.originator_id, originator_version=self.originator_version,
                         timestamp=self.timestamp, topic=self.topic, state=restored(self.state))
        return shown.mutate(None)


class SignedSnapshots(EventStore[UUID]):
    """The application's snapshot store: snapshots signed as they are stored, and used only when their signature
    verifies under a trusted key and they are of this release (see the module's text). ``key`` (the signing key)
    and ``trusted`` (the public keys accepted) are set by the service once its key is loaded; until then no
    snapshot is stored or read."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.key: Ed25519PrivateKey | None = None
        self.trusted: list[Ed25519PublicKey] = []
        self.release = release()
        self.refused = 0
        """Snapshots refused since the start: their signature did not verify (``pokertable_snapshots_refused``)."""

    def put(self, domain_events: Sequence[Any], **kwargs: Any) -> list[Recording[UUID]]:
        """Store the snapshots, each signed (nothing without a key)."""
        if self.key is None or not domain_events:
            return []
        signed = []
        made_by = self.release.encode()
        signer = self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        for snapshot in domain_events:
            stored = self.mapper.to_stored_event(snapshot)
            signature = self.key.sign(snapshot_message(self.release, stored))
            state = MAGIC + signer + struct.pack(">H", len(made_by)) + made_by + signature + bytes(stored.state)
            signed.append(StoredEvent(originator_id=stored.originator_id, originator_version=stored.originator_version,
                                      topic=stored.topic, state=state))
        self.recorder.insert_events(signed, **kwargs)
        return []

    def take_due(self, aggregates: Mapping[UUID, Any], events: Sequence[Any], intervals: Mapping[type, int]) -> None:
        """A snapshot of each aggregate (of a kind in ``intervals``) whose ``events`` just stored reached a multiple
        of its interval, taken from the aggregate as the command left it (built from checked events: not read
        again); nothing without a key. A snapshot that cannot be taken is said, and fails nothing: the command's
        events are stored, and the next interval tries again."""
        if self.key is None:
            return
        for aggregate_id, aggregate in aggregates.items():
            interval = intervals.get(type(aggregate))
            if interval is None or not any(event.originator_id == aggregate_id and
                                           event.originator_version % interval == 0 for event in events):
                continue
            try:
                self.put([TableSnapshot.take(aggregate)])
            except Exception as error:
                _log.error("snapshot of %s at version %s not taken: %s", aggregate_id, aggregate.version, error)

    def get(self, originator_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
            limit: int | None = None) -> Iterator[Any]:
        """The aggregate's snapshots that verify (see the module's text), newest first when ``desc``."""
        if not self.trusted:
            return
        found = 0
        for stored in self.recorder.select_events(originator_id, gt=gt, lte=lte, desc=desc,
                                                  limit=None if limit is None else limit + 3):
            checked = self._checked(stored)
            if checked is None:
                continue
            yield self.mapper.to_domain_event(checked)
            found += 1
            if limit is not None and found >= limit:
                return

    def _checked(self, stored: StoredEvent) -> StoredEvent | None:
        """The snapshot as eventsourcing stored it, if it is of this release and its signature verifies."""
        state = bytes(stored.state)
        where = f"the snapshot of {stored.originator_id} at version {stored.originator_version}"
        start = len(MAGIC) + _KEY
        if len(state) < start + 2 or not state.startswith(MAGIC):
            self._refuse(f"{where} is not signed")
            return None
        (length,) = struct.unpack(">H", state[start:start + 2])
        body = start + 2 + length + _SIGNATURE
        if len(state) < body:
            self._refuse(f"{where} is cut short")
            return None
        key = self._trusted_by_bytes().get(state[len(MAGIC):start])
        if key is None:  # a key rotated away before this start, or another casino's: passed over, not an alarm
            _log.debug("%s is signed by a key not trusted here: passed over", where)
            return None
        made_by = state[start + 2:start + 2 + length].decode(errors="replace")
        original = StoredEvent(originator_id=stored.originator_id, originator_version=stored.originator_version,
                               topic=stored.topic, state=state[body:])
        try:
            key.verify(state[start + 2 + length:body], snapshot_message(made_by, original))
        except InvalidSignature:
            self._refuse(f"{where} does not match its signature: it was changed after it was signed")
            return None
        if made_by != self.release:  # another release's: its shape may differ from this one's
            return None
        return original

    def _trusted_by_bytes(self) -> dict[bytes, Ed25519PublicKey]:
        return {key.public_bytes(Encoding.Raw, PublicFormat.Raw): key for key in self.trusted}

    def _refuse(self, why: str) -> None:
        self.refused += 1
        _log.error("snapshot refused: %s: the table is built from its events (R-AUD-1)", why)


def use_keys(store: object, key: Ed25519PrivateKey, trusted: Sequence[Ed25519PublicKey] = ()) -> None:
    """Give an application's snapshot store (``store``: its ``snapshots``) the key that signs the snapshots it takes
    and the keys whose snapshots it uses (``trusted``, and ``key``'s own); a store of another kind is left as it is.
    Called at the service's start and at each rotation of its key (the keys trusted before stay trusted)."""
    if not isinstance(store, SignedSnapshots):
        return
    store.key = key
    known = {k.public_bytes(Encoding.Raw, PublicFormat.Raw) for k in store.trusted}
    for public in (*trusted, key.public_key()):
        if public.public_bytes(Encoding.Raw, PublicFormat.Raw) not in known:
            store.trusted.append(public)
            known.add(public.public_bytes(Encoding.Raw, PublicFormat.Raw))
