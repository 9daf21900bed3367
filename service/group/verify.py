"""What the group received, checked again without the casinos (issue 18, item 3; ``pokertable group verify``): every
event the group holds of a casino is chained again from the genesis hash and compared with the link received with it,
the last one with the tracked chain hash, and, with the casino's public keys, every signed head carried along is
checked (R-AUD-1): its signature, and that the events received lead to the hash it signs. A row of the group's store
altered after it was received, or a head forged there, is found as it would be in the casino's own log
(:func:`service.store.audit.verify`).

And, with the casino reachable, :func:`reconcile`: the group's totals of the casino against the casino's own, computed
from its log up to the position the group received (:func:`service.group.figures.casino_totals`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventsourcing.persistence import StoredEvent

from service.group.figures import Totals, casino_totals
from service.group.follower import CasinoLog
from service.group.store import GroupStore
from service.store.audit import Finding
from service.store.chain import GENESIS, chain_hash, describe
from service.store.signing import HeadRecord, signature_problem


@dataclass(frozen=True)
class Received:
    """The verdict on what the group holds of one casino."""

    casino: str
    events: int
    head: tuple[int, bytes]
    finding: Finding | None
    heads: int = 0
    signed: int = 0
    """The last position a signed head checked with the casino's keys covers (0: none, or no keys given)."""

    @property
    def clean(self) -> bool:
        return self.finding is None


def verify_received(store: GroupStore, casino: str, keys: Sequence[Ed25519PublicKey] = ()) -> Received:
    """Check what the group holds of ``casino`` (see the module's description)."""
    tracked = store.tracked(casino)
    previous, last, count = GENESIS, 0, 0
    hashes: dict[int, bytes] = {}
    for event in store.received(casino):
        count += 1
        stored = StoredEvent(originator_id=event.originator_id, originator_version=event.originator_version,
                             topic=event.topic, state=event.state)
        if event.position <= last or chain_hash(previous, event.position, stored) != event.hash:
            return Received(casino, count, (last, previous), Finding(
                "altered", event.position, f"position {event.position}: {describe(stored)} as the group holds it "
                "does not match the link received with it: altered in the group's store"))
        previous, last = event.hash, event.position
        hashes[last] = previous
    if (last, previous) != (tracked.position, tracked.chain_hash):
        return Received(casino, count, (last, previous), Finding(
            "removed", last, f"the events held end at position {last}, the position tracked is "
            f"{tracked.position}: events were removed from the group's store"))
    heads, signed = store.heads(casino), 0
    for row in heads if keys else ():
        head = HeadRecord(int(row["at"]), int(row["position"]), bytes(row["chain_hash"]), bytes(row["signature"]),
                          str(row["key"]), str(row["reason"]),
                          message=bytes(row["message"]) if row.get("message") is not None else None)
        if (problem := signature_problem(keys, head)) is not None:
            return Received(casino, count, (last, previous), Finding("signature", head.at, problem), len(heads),
                            signed)
        if (GENESIS if head.position == 0 else hashes.get(head.position)) != head.chain_hash:
            return Received(casino, count, (last, previous), Finding(
                "rewritten", head.position, f"the events held no longer lead to the head signed at position "
                f"{head.at}"), len(heads), signed)
        signed = max(signed, head.position)
    return Received(casino, count, (last, previous), None, len(heads), signed)


@dataclass(frozen=True)
class Reconciled:
    """The group's totals of a casino beside the casino's own, up to the position the group received."""

    casino: str
    position: int
    group: dict[str, Totals]
    own: dict[str, Totals]

    @property
    def equal(self) -> bool:
        return self.group == self.own


def reconcile(store: GroupStore, casino: CasinoLog) -> Reconciled:
    """The group's totals of ``casino`` per game, and the casino's own from its log up to the tracked position."""
    position = store.tracked(casino.name).position
    group = {game: totals for (name, game), totals in store.totals().items() if name == casino.name}
    own = casino_totals(casino.recorder, casino.mapper, stop=position) if position else {}
    return Reconciled(casino.name, position, group, own)
