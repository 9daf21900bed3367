"""The signed records of the log, version 2 (issue 29; R-AUD-1): heads that claim what their writer wrote, and key
announcements that hand trust from one key to the next. Their bytes are specified in docs/audit.md ("The format"),
so that a regulator can verify a log without this code.

A **head** (:class:`WriterHead`) is signed by a service instance (its *writer* name, stable across its restarts)
with its Ed25519 key. It says: the chain led to ``chain_hash`` at ``position``; of the positions after ``since`` up to
``position``, this writer wrote exactly ``claims``; it was signed at ``signed_at`` (microseconds since the epoch,
UTC); its ``kind``: ``start`` (the writer begins; its claims are what its journal recovered of an unclean stop),
``run`` (every N events, a table closed), ``stop`` (the writer ends) or ``hand`` (``pokertable audit sign``: an
attestation of the log as found, claiming nothing).

A **key announcement** (:class:`KeyAnnouncement`) is signed by a key the log already trusts and names a new public
key: a rotation (``retires``: the announcing key signs nothing after it) or another instance's key. Trust starts
from the keys an administrator gave (``audit verify --public-key``; the service's keyring file) and follows the
announcements in log order, and nothing else.

>>> head_message(12, bytes(32), since=9, signed_at=1_700_000_000_000_000, kind="run", claims="10-12",
...              writer="mesa-1:50051", reason="1000 events")[:26]
b'pokertable signed head v2\\n'
"""

from __future__ import annotations

import struct
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from eventsourcing.domain import Aggregate, event
from eventsourcing.utils import get_topic

HEAD_DOMAIN = b"pokertable signed head v2\n"
"""What every signed head (version 2) message starts with."""
KEY_DOMAIN = b"pokertable key announcement v1\n"
"""What every key announcement message starts with: a signature over one is never valid as the other."""
KINDS = ("start", "run", "stop", "hand")
_NAMESPACE = uuid5(NAMESPACE_URL, "https://pokertable.invalid/signed-records-v2")


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack(">I", len(data)) + data


def head_message(position: int, chain_hash: bytes, *, since: int, signed_at: int, kind: str, claims: str,
                 writer: str, reason: str) -> bytes:
    """The bytes a version-2 head's signature covers (docs/audit.md, "The signed head")."""
    return (HEAD_DOMAIN + struct.pack(">q", position) + chain_hash + struct.pack(">qq", since, signed_at)
            + _text(kind) + _text(claims) + _text(writer) + _text(reason))


def stored_head_message(head: Any) -> bytes:
    """The message a stored version-2 head (its event, as read back) says was signed."""
    return head_message(int(head.position), bytes.fromhex(head.chain_hash), since=int(head.since),
                        signed_at=int(head.signed_at), kind=str(head.kind), claims=str(head.claims),
                        writer=str(head.writer), reason=str(head.reason))


def announcement_message(new_key: bytes, position: int, retires: bool, reason: str) -> bytes:
    """The bytes a key announcement's signature covers (docs/audit.md, "The key announcement")."""
    return KEY_DOMAIN + new_key + struct.pack(">q?", position, retires) + _text(reason)


def raw(key: Ed25519PublicKey) -> bytes:
    """A public key's 32 raw bytes."""
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


class WriterHead(Aggregate):
    """A head signed by a service instance, claiming the positions it wrote (one event per head)."""

    @staticmethod
    def create_id(position: int, chain_hash: str, writer: str, kind: str, **_: Any) -> UUID:
        """One record per writer, head and kind."""
        return uuid5(_NAMESPACE, f"head:{writer}:{kind}:{position}:{chain_hash}")

    @event("Signed")
    def __init__(self, *, position: int, chain_hash: str, since: int, signed_at: int, kind: str, claims: str,
                 writer: str, reason: str, key: str, signature: str) -> None:
        self.position, self.chain_hash, self.since, self.signed_at = position, chain_hash, since, signed_at
        self.kind, self.claims, self.writer, self.reason = kind, claims, writer, reason
        self.key, self.signature = key, signature

    @classmethod
    def sign(cls, key: Ed25519PrivateKey, fingerprint: str, *, position: int, chain_hash: bytes, since: int,
             signed_at: int, kind: str, claims: str, writer: str, reason: str) -> WriterHead:
        """The head, signed with ``key`` (whose fingerprint is ``fingerprint``)."""
        message = head_message(position, chain_hash, since=since, signed_at=signed_at, kind=kind, claims=claims,
                               writer=writer, reason=reason)
        return cls(position=position, chain_hash=chain_hash.hex(), since=since, signed_at=signed_at, kind=kind,
                   claims=claims, writer=writer, reason=reason, key=fingerprint,
                   signature=key.sign(message).hex())


class KeyAnnouncement(Aggregate):
    """A new public key, announced by a key already trusted (one event per announcement)."""

    @staticmethod
    def create_id(new_key: str, by: str, **_: Any) -> UUID:
        """One record per key and announcer."""
        return uuid5(_NAMESPACE, f"key:{by}:{new_key}")

    @event("Announced")
    def __init__(self, *, new_key: str, position: int, retires: bool, reason: str, by: str,
                 signature: str) -> None:
        self.new_key, self.position, self.retires, self.reason = new_key, position, retires, reason
        self.by, self.signature = by, signature

    @classmethod
    def sign(cls, key: Ed25519PrivateKey, fingerprint: str, new_key: Ed25519PublicKey, *, position: int,
             retires: bool, reason: str) -> KeyAnnouncement:
        """``new_key`` announced by ``key`` (fingerprint ``fingerprint``) at chain ``position``."""
        data = raw(new_key)
        return cls(new_key=data.hex(), position=position, retires=retires, reason=reason, by=fingerprint,
                   signature=key.sign(announcement_message(data, position, retires, reason)).hex())


WRITER_HEAD_TOPIC = get_topic(WriterHead.Signed)  # type: ignore[attr-defined]
KEY_ANNOUNCEMENT_TOPIC = get_topic(KeyAnnouncement.Announced)  # type: ignore[attr-defined]
