"""A backup carries its own end (issue 29, item 0; R-AUD-1): the chain head it ends at, signed with the service's
key, inside the backup file, so that anything appended to the backup, or to the log restored from it, is reported.

A backup file (version 2) is a POSIX tar archive of two members, in this order:

- ``pokertable-backup.json``: what the backup is (``format`` 2, ``store`` ``SQLite`` or ``PostgreSQL``, ``member``,
  ``events``) and its **end**: ``position``, ``chain_hash`` (hex), ``store_sha256`` (the SHA-256 of the store member,
  hex), ``signed_at`` (microseconds since the epoch, UTC), ``key`` (the signing key's fingerprint; empty: unsigned)
  and ``signature`` (hex);
- the store itself: ``store.sqlite`` (an SQLite database) or ``store.pgdump`` (a ``pg_dump`` custom archive).

The end's signature (Ed25519) covers, integers big-endian and ``text(x)`` the UTF-8 bytes of ``x`` after their length
in 4 bytes::

    "pokertable backup end v1\\n" ‖ position (8) ‖ chain_hash (32) ‖ signed_at (8) ‖ text(store) ‖ store_sha256 (32)

A backup file written before issue 29 is the store itself (version 1): it restores, and says it carries no end.

>>> end = End(12, bytes(32), b"\\x01" * 32, 1_700_000_000_000_000, "", b"")
>>> end_message(end, "SQLite")[:25]
b'pokertable backup end v1\\n'
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from service.store.backup_files import BackupError
from service.store.signing import fingerprint

MANIFEST = "pokertable-backup.json"
MEMBERS = {"SQLite": "store.sqlite", "PostgreSQL": "store.pgdump"}
DOMAIN = b"pokertable backup end v1\n"
FORMAT = 2
_CHUNK = 1 << 20


@dataclass(frozen=True)
class End:
    """Where a backup's log ends, the digest of its store, and who signed that (``key`` empty: nobody)."""

    position: int
    chain_hash: bytes
    store_sha256: bytes
    signed_at: int
    key: str
    signature: bytes

    @property
    def signed(self) -> bool:
        return bool(self.key)


@dataclass(frozen=True)
class Contents:
    """A backup file read: its kind, its end (``None``: a version-1 backup, which carries none) and the store."""

    store: str
    end: End | None
    events: int


def end_message(end: End, store: str) -> bytes:
    """The bytes an end's signature covers."""
    data = store.encode()
    return (DOMAIN + struct.pack(">q", end.position) + end.chain_hash + struct.pack(">q", end.signed_at)
            + struct.pack(">I", len(data)) + data + end.store_sha256)


def sha256_of(path: Path) -> bytes:
    """The SHA-256 of a file, read a megabyte at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.digest()


def sign_end(key: Ed25519PrivateKey | None, store: str, head: tuple[int, bytes], store_file: Path,
             signed_at: int) -> End:
    """The end of a backup whose store is ``store_file`` and whose log ends at ``head``, signed with ``key``."""
    unsigned = End(head[0], head[1], sha256_of(store_file), signed_at, "", b"")
    if key is None:
        return unsigned
    return End(unsigned.position, unsigned.chain_hash, unsigned.store_sha256, signed_at,
               fingerprint(key.public_key()), key.sign(end_message(unsigned, store)))


def write(archive: Path, store: str, events: int, end: End, store_file: Path) -> None:
    """Write the backup file: the manifest, then the store."""
    manifest = json.dumps({"format": FORMAT, "store": store, "member": MEMBERS[store], "events": events, "end": {
        "position": end.position, "chain_hash": end.chain_hash.hex(), "store_sha256": end.store_sha256.hex(),
        "signed_at": end.signed_at, "key": end.key, "signature": end.signature.hex()}}, indent=1).encode()
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo(MANIFEST)
        info.size, info.mode, info.mtime = len(manifest), 0o600, end.signed_at // 1_000_000
        tar.addfile(info, io.BytesIO(manifest))
        member = tar.gettarinfo(str(store_file), MEMBERS[store])
        member.mode, member.uid, member.gid, member.uname, member.gname = 0o600, 0, 0, "", ""
        with store_file.open("rb") as file:
            tar.addfile(member, file)


def is_archive(path: Path) -> bool:
    """Whether ``path`` is a version-2 backup (a tar archive)."""
    try:
        return tarfile.is_tarfile(path)
    except OSError:
        return False


def extract(archive: Path, into: Path) -> Contents:
    """Read a version-2 backup: its manifest, and its store written to ``into``, whose SHA-256 must be the end's
    (:class:`BackupError` otherwise: changed or damaged, nothing restored)."""
    try:
        with tarfile.open(archive, "r") as tar:
            manifest = tar.extractfile(MANIFEST)
            if manifest is None:
                raise BackupError(f"{archive} is not a pokertable backup (no {MANIFEST})")
            contents, member = _manifest(archive, json.loads(manifest.read()))
            source = tar.extractfile(member)
            if source is None:
                raise BackupError(f"{archive} is damaged: no {member}")
            digest = hashlib.sha256()
            with into.open("wb") as target:
                while chunk := source.read(_CHUNK):
                    digest.update(chunk)
                    target.write(chunk)
    except (tarfile.TarError, KeyError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BackupError(f"{archive} is not a pokertable backup, or is damaged: {error}") from None
    if contents.end is not None and digest.digest() != contents.end.store_sha256:
        raise BackupError(f"{archive} was changed after it was written: its store does not have the digest its "
                          "end names; nothing restored (R-AUD-1)")
    return contents


def _manifest(archive: Path, data: object) -> tuple[Contents, str]:
    try:
        assert isinstance(data, dict)
        store, end = str(data["store"]), data["end"]
        assert int(data["format"]) == FORMAT and store in MEMBERS and isinstance(end, dict)
        return Contents(store, End(int(end["position"]), bytes.fromhex(end["chain_hash"]),
                                   bytes.fromhex(end["store_sha256"]), int(end["signed_at"]), str(end["key"]),
                                   bytes.fromhex(end["signature"])), int(data["events"])), MEMBERS[store]
    except (AssertionError, KeyError, TypeError, ValueError):
        raise BackupError(f"{archive} is not a pokertable backup: its {MANIFEST} cannot be read") from None


def unsigned(end: End | None) -> str | None:
    """Why nothing signed says where a backup's log ends (``None``: its end is signed)."""
    if end is None:
        return "the backup carries no end (written before issue 29): nothing signed says where its log ended"
    return None if end.signed else "the backup's end is not signed (backed up without the service's key)"


def signature_problem(end: End, store: str, keys: Mapping[str, Ed25519PublicKey]) -> str | None:
    """Why a signed end was not signed by one of ``keys`` (``None``: it was)."""
    key = keys.get(end.key)
    if key is None:
        return f"the backup's end is signed with key {end.key}, which is not trusted: forged"
    try:
        key.verify(end.signature, end_message(end, store))
    except InvalidSignature:
        return "the backup's end has a signature that is not valid: forged or altered"
    return None


def end_problem(end: End, store: str, head: tuple[int, bytes],
                keys: Mapping[str, Ed25519PublicKey] | None) -> str | None:
    """Why the restored log (ending at ``head``) is not the backup's as its end says, or ``None`` if it is.

    ``keys``: the keys trusted (those given and those the log's announcements handed on); ``None``: no key given,
    the signature is not checked."""
    if keys is not None and end.signed and (problem := signature_problem(end, store, keys)) is not None:
        return problem
    if head[0] > end.position:
        return (f"the restored log goes on past the backup's end at position {end.position}, to position {head[0]}: "
                "events were appended to the backup")
    if head != (end.position, end.chain_hash):
        return f"the restored log does not end at the backup's end (position {end.position}): changed or cut short"
    return None
