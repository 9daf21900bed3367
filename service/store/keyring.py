"""The keys a service trusts and the files beside its signing key (issue 29, item 1; R-AUD-1).

- **The keyring** (``trusted-keys.pem`` beside the key): the public keys an administrator trusts, as PEM blocks one
  after the other: the service's first key (written there when the key is created: installing the service is the
  administrator's act) and, for several instances each with its own key, theirs (``pokertable audit trust``). The
  service's own audit starts from these and follows the log's key announcements, as ``audit verify
  --public-key`` does.
- **The journal** (``<key file>.journal``, or ``<key file>.<writer>.journal`` for a named instance): the positions
  this instance wrote since its last head (:mod:`service.store.claims`).
- **A rotation in progress** (``<key file>.next``): the new key, written before it is announced; renamed over the
  key once the announcement is stored. A crash in between is finished at the next start (:func:`finish_rotation`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from service.store.heads import KEY_ANNOUNCEMENT_TOPIC, raw
from service.store.signer import HeadSigner
from service.store.signing import SigningKeyError, fingerprint, load_signing_key, public_pem
from service.store.snapshots import use_keys

KEYRING_NAME = "trusted-keys.pem"
_PEM = re.compile(rb"-----BEGIN PUBLIC KEY-----.+?-----END PUBLIC KEY-----", re.DOTALL)


def keyring_path(key_path: Path) -> Path:
    """The keyring beside a signing key."""
    return key_path.parent / KEYRING_NAME


def journal_path(key_path: Path, writer: str = "") -> Path:
    """The journal of claims of the instance named ``writer`` (``""``: the only one) signing with ``key_path``."""
    label = re.sub(r"[^A-Za-z0-9_.-]+", "_", writer)
    return key_path.with_name(f"{key_path.name}.{label}.journal" if label else f"{key_path.name}.journal")


def load_keyring(path: Path) -> list[Ed25519PublicKey]:
    """The public keys in a PEM file of one or more (``audit verify --public-key``, the keyring)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SigningKeyError(f"cannot read the public keys {path}: {error.strerror or error}") from None
    keys = []
    for block in _PEM.findall(data):
        try:
            key = serialization.load_pem_public_key(block)
        except ValueError as error:
            raise SigningKeyError(f"{path} holds a PEM block that is not a public key: {error}") from None
        if not isinstance(key, Ed25519PublicKey):
            raise SigningKeyError(f"{path} holds a public key that is not Ed25519")
        keys.append(key)
    if not keys:
        raise SigningKeyError(f"{path} holds no PEM public key")
    return keys


def trust_key(path: Path, key: Ed25519PublicKey) -> bool:
    """Add ``key`` to the keyring at ``path`` (made, mode 0644, if absent); False if it was there already."""
    if path.exists() and fingerprint(key) in {fingerprint(known) for known in load_keyring(path)}:
        return False
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(descriptor, public_pem(key).encode())
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return True


def next_key_path(key_path: Path) -> Path:
    """Where a rotation writes the new key before announcing it."""
    return key_path.with_name(key_path.name + ".next")


def rotate(signer: HeadSigner, key_path: Path, reason: str = "key rotation") -> str:
    """Rotate the key of a running signer: the new key written beside the old (0600), announced in the log signed
    by the old one, then renamed over the key file. Returns the new key's fingerprint."""
    new = Ed25519PrivateKey.generate()
    pending = next_key_path(key_path)
    descriptor = os.open(pending, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(descriptor, 0o600)
        os.write(descriptor, new.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    signer.rotate(new, reason)
    os.replace(pending, key_path)
    use_keys(getattr(signer.app, "snapshots", None), new)  # the tables' snapshots are signed by the new key too
    return signer.fingerprint


def finish_rotation(app: Any, key_path: Path, key: Ed25519PrivateKey) -> Ed25519PrivateKey:
    """At start: a new key left by a rotation cut short is taken if the log announced it, removed otherwise."""
    pending = next_key_path(key_path)
    if not pending.exists():
        return key
    new = load_signing_key(pending)
    wanted = raw(new.public_key()).hex()
    for notification in app.recorder.select_notifications(1, 1_000_000, topics=[KEY_ANNOUNCEMENT_TOPIC]):
        if app.mapper.to_domain_event(notification).new_key == wanted:
            os.replace(pending, key_path)
            return new
    pending.unlink()
    return key
