"""Signed chain heads (R-AUD-1): the service signs the head of the hash chain with an Ed25519 key it holds, and stores
each signed head as an event of the log, so that ``pokertable audit verify --public-key FILE`` can prove, with only
the public key, that the log up to the last signed head is the one the service wrote.

The chain alone (:mod:`service.store.audit`) has a public formula: whoever can write the database can append events
after the last safekept head, or rewrite a stretch and recompute every later link, and the chain still checks. A signed
head cannot be made without the key, so:

- an event changed, removed or inserted before a signed head, even with the chain recomputed, no longer leads to the
  signed hash: ``rewritten``;
- a signed head forged or altered, or signed by another key: ``signature``;
- events after the last signed head (the *unsigned tail*, at most ``--sign-every`` events plus one group commit, or
  whatever came after an unclean stop) are reported, with the first of them named: they are chained, not signed.

The service signs once ``every`` events have been stored since the head it last signed, when a table closes, and when
it stops (``pokertable serve``; SIGINT or SIGTERM); ``pokertable audit sign`` signs a store that no service is
writing (a shift's end with the service down). The key file is created on the service's first start, readable by its
owner only (0600), and refused if its group or others may read or write it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import Mapper, Notification
from eventsourcing.utils import get_topic

from service.store import heads
from service.store.topics import old_topics

DEFAULT_EVERY = 1000
"""Events between two signed heads, at most (plus the commands committed in the same group as the last)."""
KEY_FILE_NAME = "signing.key"
"""The signing key's file beside the stations file, unless ``pokertable serve --signing-key`` names another."""
HEADS_NAMESPACE = uuid5(NAMESPACE_URL, "https://pokertable.invalid/signed-heads")
DOMAIN = b"pokertable chain head v1\n"
"""What every signed message starts with: a signature over a chain head is never valid as anything else."""

log = logging.getLogger(__name__)


class SigningKeyError(ValueError):
    """A signing or public key file that cannot be used (unreadable, not Ed25519, or open to group or others)."""


def head_message(position: int, chain_hash: bytes) -> bytes:
    """The bytes signed for the chain head at ``position``."""
    return DOMAIN + struct.pack(">q", position) + chain_hash


def fingerprint(public_key: Ed25519PublicKey) -> str:
    """A short name of a public key: the first 16 hex digits of the SHA-256 of its 32 raw bytes."""
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def public_pem(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The public key as PEM (SubjectPublicKeyInfo), to hand to whoever verifies the log."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def load_signing_key(path: Path) -> Ed25519PrivateKey:
    """The service's private key; :class:`SigningKeyError` if its group or others have any access to the file."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise SigningKeyError(f"cannot read the signing key {path}: {error.strerror or error}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SigningKeyError(f"the signing key {path} is open to group or others (mode {stat.filemode(mode)}): "
                              f"chmod 600 {path}")
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except OSError as error:
        raise SigningKeyError(f"cannot read the signing key {path}: {error.strerror or error}") from None
    except (ValueError, TypeError) as error:
        raise SigningKeyError(f"{path} is not a PEM private key: {error}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path} is not an Ed25519 key")
    return key


def load_or_create_signing_key(path: Path) -> tuple[Ed25519PrivateKey, bool]:
    """The key in ``path``, or a new one written there with mode 0600 (first start); and whether it was created."""
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load_signing_key(path), False
    except OSError as error:
        raise SigningKeyError(f"cannot create the signing key {path}: {error.strerror or error}") from None
    try:
        os.fchmod(descriptor, 0o600)  # whatever the umask
        os.write(descriptor, pem)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return key, True


def load_public_key(path: Path) -> Ed25519PublicKey:
    """A public key file as ``pokertable audit key`` prints it."""
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except OSError as error:
        raise SigningKeyError(f"cannot read the public key {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise SigningKeyError(f"{path} is not a PEM public key: {error}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningKeyError(f"{path} is not an Ed25519 public key")
    return key


class SignedHead(Aggregate):
    """A chain head signed by the service: the position and hash of the chain at that moment, the Ed25519 signature
    over :func:`head_message`, the key's fingerprint and why it was signed then. One event per signed head."""

    @staticmethod
    def create_id(position: int, chain_hash: str, **_: Any) -> UUID:
        """One record per head: two services signing the same head store it once."""
        return uuid5(HEADS_NAMESPACE, f"{position}:{chain_hash}")

    @event("Signed")
    def __init__(self, *, position: int, chain_hash: str, signature: str, key: str, reason: str) -> None:
        self.position, self.chain_hash, self.signature = position, chain_hash, signature
        self.key, self.reason = key, reason

    @classmethod
    def sign(cls, key: Ed25519PrivateKey, position: int, chain_hash: bytes, reason: str) -> SignedHead:
        """The signed head of the chain at ``position``."""
        return cls(position=position, chain_hash=chain_hash.hex(), reason=reason,
                   signature=key.sign(head_message(position, chain_hash)).hex(), key=fingerprint(key.public_key()))


SIGNED_HEAD_TOPIC = get_topic(SignedHead.Signed)  # type: ignore[attr-defined]
SIGNED_HEAD_TOPICS = old_topics(SIGNED_HEAD_TOPIC)
"""The signed heads' topic, and the one heads stored before issue 14's move carry."""


@dataclass(frozen=True)
class HeadRecord:
    """A signed head as read back from the log."""

    at: int  # the position of the signed-head event itself
    position: int  # the chain position it signs
    chain_hash: bytes
    signature: bytes
    key: str
    reason: str
    signed_at: float | None = None
    """When it was signed (seconds since the epoch; ``None``: not read)."""
    message: bytes | None = None
    """A version-2 head's signed message (:func:`service.store.heads.head_message`); ``None``: version 1."""


def read_head(mapper: Mapper[UUID], notification: Notification) -> HeadRecord:
    """The signed head stored in a notification (ValueError if it cannot be read as one)."""
    try:
        signed: Any = mapper.to_domain_event(notification)
        message = heads.stored_head_message(signed) if hasattr(signed, "since") else None
        return HeadRecord(notification.id, int(signed.position), bytes.fromhex(signed.chain_hash),
                          bytes.fromhex(signed.signature), str(signed.key), str(signed.reason),
                          signed.timestamp.timestamp(), message)
    except Exception as error:
        raise ValueError(f"position {notification.id}: a signed head that cannot be read ({error})") from None


def signature_problem(public_keys: Ed25519PublicKey | Sequence[Ed25519PublicKey], head: HeadRecord) -> str | None:
    """Why a signed head is not one the holder of a key in ``public_keys`` made (several: the keys of a log whose key
    was rotated), or ``None`` if it is."""
    keys = {fingerprint(key): key for key in ((public_keys,) if isinstance(public_keys, Ed25519PublicKey)
                                              else public_keys)}
    public_key = keys.get(head.key)
    if public_key is None:
        return (f"position {head.at}: the head of position {head.position} says it was signed with key {head.key}, "
                f"not with the given {'key' if len(keys) == 1 else 'keys'} {', '.join(keys)}")
    if not (0 if head.message is not None else 1) <= head.position < head.at:
        return f"position {head.at}: a signed head of position {head.position}, which is not before it"
    try:
        public_key.verify(head.signature, head.message if head.message is not None else
                          head_message(head.position, head.chain_hash))
    except InvalidSignature:
        return (f"position {head.at}: the signature of the head of position {head.position} is not valid under the "
                "given key: forged or altered")
    return None
