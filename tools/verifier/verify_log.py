#!/usr/bin/env python3
"""Independent verifier of a pokertable tamper-evident event log.

Written from ``docs/audit-format.md`` alone (sections 1-5 and the output contract of section 7), without reading
the service's code.  It walks the events of a SQLite or PostgreSQL store beside the chain of links, recomputes every
link, checks the signed heads and key announcements against the public keys given, applies the writers' claims, and
prints one JSON verdict::

    verify_log.py (--sqlite FILE | --postgres CONNINFO --schema NAME) [--public-key PEM-FILE]...

Exit status: 0 clean, 1 a finding ended the walk, 2 a usage or read error (a message on standard error).

Only the standard library, ``cryptography`` and (with ``--postgres``) ``psycopg`` 3 are used.  Nothing is written to
the store: SQLite is opened read-only, PostgreSQL in a read-only REPEATABLE READ transaction.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sqlite3
import struct
import sys
import uuid
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

# --------------------------------------------------------------------------------------------------------------------
# Conventions (the preamble of the specification)
# --------------------------------------------------------------------------------------------------------------------

ZERO_HASH = bytes(32)
I64_MIN = -(2**63)
I64_MAX = 2**63 - 1
U32_MAX = 2**32 - 1

TOPICS_HEAD_V1 = frozenset({"service.store.signing:SignedHead.Signed", "service.signing:SignedHead.Signed"})
TOPIC_HEAD_V2 = "service.store.heads:WriterHead.Signed"
TOPIC_ANNOUNCEMENT = "service.store.heads:KeyAnnouncement.Announced"
HEAD_KINDS = frozenset({"start", "run", "stop", "hand"})

PREFIX_HEAD_V1 = b"pokertable chain head v1\n"
PREFIX_HEAD_V2 = b"pokertable signed head v2\n"
PREFIX_ANNOUNCEMENT = b"pokertable key announcement v1\n"

PAGE_SIZE = 1000
PEM_BLOCK = re.compile(rb"-----BEGIN PUBLIC KEY-----.*?-----END PUBLIC KEY-----", re.DOTALL)
HEX32_DIGITS = re.compile(r"[0-9a-fA-F]{32}")
LOWER_HEX = re.compile(r"(?:[0-9a-f]{2})*")
CLAIM_ITEM = re.compile(r"([0-9]+)(?:-([0-9]+))?")


class EncodingError(ValueError):
    """A value cannot be encoded as the specification's conventions require."""


def i64(value: int) -> bytes:
    """Encode a signed 64-bit big-endian two's-complement integer."""
    if not I64_MIN <= value <= I64_MAX:
        raise EncodingError(f"{value} does not fit in an i64")
    return struct.pack(">q", value)


def u32(value: int) -> bytes:
    """Encode an unsigned 32-bit big-endian integer."""
    if not 0 <= value <= U32_MAX:
        raise EncodingError(f"{value} does not fit in a u32")
    return struct.pack(">I", value)


def text(value: str) -> bytes:
    """Encode ``u32(len(utf8(x))) || utf8(x)``."""
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError as error:  # lone surrogates from JSON escapes
        raise EncodingError("text is not valid UTF-8") from error
    return u32(len(data)) + data


def fingerprint(key: Ed25519PublicKey) -> str:
    """First 16 lower-case hex digits of SHA-256 of the 32 raw public-key bytes."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


# --------------------------------------------------------------------------------------------------------------------
# Section 1: rows, and section 2: the chain
# --------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One row of the events table, as read (values are whatever the store holds)."""

    position: int
    originator_id: object
    originator_version: object
    topic: object
    state: object


@dataclass(frozen=True)
class Link:
    """One row of the chain table; ``hash`` is ``None`` when the stored value is not a byte string."""

    position: int
    hash: bytes | None


def canonical_originator(value: object) -> str | None:
    """The canonical 36-character text of the originator UUID, or ``None`` when the value is not a UUID as stored.

    SQLite stores 32 hex digits (they get their hyphens); PostgreSQL's ``uuid`` arrives as :class:`uuid.UUID`.
    """
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, str) and HEX32_DIGITS.fullmatch(value):
        return str(uuid.UUID(hex=value))
    return None


def state_bytes(value: object) -> bytes | None:
    """The bytes of ``state`` as stored (a TEXT value in SQLite is taken as its UTF-8 bytes)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return None


def event_hash(previous: bytes, position: int, event: Event) -> bytes | None:
    """``hash(n)`` of section 2 for ``event`` placed at ``position`` after ``previous``.

    Returns ``None`` when a field of the row cannot be encoded (NULL, wrong type, out of range); such an event can
    match no link.
    """
    originator = canonical_originator(event.originator_id)
    state = state_bytes(event.state)
    version = event.originator_version
    topic = event.topic
    if originator is None or state is None or not isinstance(topic, str):
        return None
    if not isinstance(version, int) or isinstance(version, bool):
        return None
    try:
        data = previous + i64(position) + text(originator) + i64(version) + text(topic) + u32(len(state)) + state
    except EncodingError:
        return None
    return hashlib.sha256(data).digest()


# --------------------------------------------------------------------------------------------------------------------
# Stores
# --------------------------------------------------------------------------------------------------------------------


class ReadError(Exception):
    """The store cannot be read as section 1 describes."""


class Store(Protocol):
    """What the walk needs from a store; every read sees the same snapshot and stops at the bound."""

    def events(self) -> Iterator[Event]:
        """Every event at or below the bound, in ascending position."""
        ...

    def links(self) -> Iterator[Link]:
        """Every link at or below the bound, in ascending position."""
        ...

    def link_at(self, position: int) -> bytes | None:
        """The hash of the link at ``position`` (``None`` if there is none, or it is not a byte string)."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


def as_link(position: object, value: object) -> Link:
    """Build a :class:`Link` from a row, refusing non-integer positions."""
    if not isinstance(position, int) or isinstance(position, bool):
        raise ReadError(f"chain row with a non-integer position {position!r}")
    digest = bytes(value) if isinstance(value, (bytes, bytearray, memoryview)) else None
    return Link(position, digest)


def single_link(rows: Sequence[Sequence[object]]) -> bytes | None:
    """The hash of the only link in ``rows``, else ``None``."""
    if len(rows) != 1:
        return None
    return as_link(0, rows[0][0]).hash


class SqliteStore:
    """A SQLite file (tables ``stored_events`` and ``stored_events_chain``), opened read-only."""

    def __init__(self, path: str) -> None:
        """Open ``path`` read-only, in one read transaction, and fix the bound."""
        if not Path(path).is_file():
            raise ReadError(f"no such file: {path}")
        uri = Path(path).absolute().as_uri()
        try:
            self._connection = self._open(uri + "?mode=ro")
        except sqlite3.Error as error:
            # A WAL database in a read-only directory cannot be opened with mode=ro (the -shm file cannot be made).
            print(f"verify_log: opening read-only failed ({error}); retrying with immutable=1", file=sys.stderr)
            try:
                self._connection = self._open(uri + "?immutable=1")
            except sqlite3.Error as second:
                raise ReadError(f"cannot read {path}: {second}") from second
        try:
            self._bound = self._find_bound()
        except sqlite3.Error as error:
            raise ReadError(f"cannot read {path}: {error}") from error

    @staticmethod
    def _open(uri: str) -> sqlite3.Connection:
        """Connect and start the read transaction that every later query shares."""
        connection = sqlite3.connect(uri, uri=True, isolation_level=None)
        try:
            connection.execute("BEGIN")
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    def _find_bound(self) -> int | None:
        """``max(highest event position, highest link position)`` when the check starts."""
        odd = self._connection.execute(
            "SELECT count(*) FROM stored_events_chain WHERE typeof(position) != 'integer'"
        ).fetchone()[0]
        if odd:
            raise ReadError(f"stored_events_chain has {odd} row(s) whose position is not an integer")
        highest_event = self._connection.execute("SELECT max(rowid) FROM stored_events").fetchone()[0]
        highest_link = self._connection.execute("SELECT max(position) FROM stored_events_chain").fetchone()[0]
        found = [value for value in (highest_event, highest_link) if value is not None]
        return max(found) if found else None

    def events(self) -> Iterator[Event]:
        """Every event at or below the bound, in ascending rowid."""
        if self._bound is None:
            return
        try:
            cursor = self._connection.execute(
                "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events "
                "WHERE rowid <= ? ORDER BY rowid",
                (self._bound,),
            )
            while rows := cursor.fetchmany(PAGE_SIZE):
                for row in rows:
                    yield Event(row[0], row[1], row[2], row[3], row[4])
        except sqlite3.Error as error:
            raise ReadError(f"cannot read stored_events: {error}") from error

    def links(self) -> Iterator[Link]:
        """Every link at or below the bound, in ascending position."""
        if self._bound is None:
            return
        try:
            cursor = self._connection.execute(
                "SELECT position, hash FROM stored_events_chain WHERE position <= ? ORDER BY position", (self._bound,)
            )
            while rows := cursor.fetchmany(PAGE_SIZE):
                for row in rows:
                    yield as_link(row[0], row[1])
        except sqlite3.Error as error:
            raise ReadError(f"cannot read stored_events_chain: {error}") from error

    def link_at(self, position: int) -> bytes | None:
        """The link stored at ``position``."""
        try:
            rows = self._connection.execute(
                "SELECT hash FROM stored_events_chain WHERE position = ?", (position,)
            ).fetchall()
        except (sqlite3.Error, OverflowError) as error:
            raise ReadError(f"cannot read stored_events_chain: {error}") from error
        return single_link(rows)

    def close(self) -> None:
        """End the read transaction and close."""
        self._connection.close()


class PostgresStore:
    """A PostgreSQL schema (tables ``pokertable_events`` and ``pokertable_events_chain``), read in one snapshot."""

    def __init__(self, conninfo: str, schema: str) -> None:
        """Connect, start a read-only REPEATABLE READ transaction and fix the bound."""
        import psycopg  # only needed with --postgres
        from psycopg import sql

        self._psycopg = psycopg
        try:
            self._connection = psycopg.connect(conninfo, autocommit=False)
            self._connection.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            self._connection.read_only = True
        except psycopg.Error as error:
            raise ReadError(f"cannot connect: {error}") from error
        self._events_table = sql.Identifier(schema, "pokertable_events")
        self._chain_table = sql.Identifier(schema, "pokertable_events_chain")
        self._sql = sql
        self._cursors = 0
        try:
            self._bound = self._find_bound()
        except psycopg.Error as error:
            raise ReadError(f"cannot read schema {schema}: {error}") from error

    def _query(self, template: str, *params: object) -> list[tuple[Any, ...]]:
        """Run a small query built from ``template`` ({events}, {chain}) and return all its rows."""
        query = self._sql.SQL(template).format(events=self._events_table, chain=self._chain_table)
        return self._connection.execute(query, params).fetchall()

    def _find_bound(self) -> int | None:
        """``max(highest event position, highest link position)`` when the check starts."""
        odd = self._query("SELECT count(*) FROM {chain} WHERE position IS NULL")[0][0]
        if odd:
            raise ReadError(f"pokertable_events_chain has {odd} row(s) without a position")
        odd = self._query("SELECT count(*) FROM {events} WHERE notification_id IS NULL")[0][0]
        if odd:
            raise ReadError(f"pokertable_events has {odd} row(s) without a notification_id")
        row = self._query("SELECT (SELECT max(notification_id) FROM {events}), (SELECT max(position) FROM {chain})")[0]
        found = [int(value) for value in row if value is not None]
        return max(found) if found else None

    def _stream(self, template: str) -> Iterator[tuple[Any, ...]]:
        """Rows of a query at or below the bound, a page at a time, through a server-side cursor."""
        if self._bound is None:
            return
        self._cursors += 1
        query = self._sql.SQL(template).format(events=self._events_table, chain=self._chain_table)
        try:
            with self._connection.cursor(name=f"verify_log_{self._cursors}") as cursor:
                cursor.itersize = PAGE_SIZE
                cursor.execute(query, (self._bound,))
                yield from cursor
        except self._psycopg.Error as error:
            raise ReadError(f"cannot read: {error}") from error

    def events(self) -> Iterator[Event]:
        """Every event at or below the bound, in ascending notification_id."""
        template = (
            "SELECT notification_id, originator_id, originator_version, topic, state FROM {events} "
            "WHERE notification_id <= %s ORDER BY notification_id"
        )
        for row in self._stream(template):
            yield Event(int(row[0]), row[1], row[2], row[3], row[4])

    def links(self) -> Iterator[Link]:
        """Every link at or below the bound, in ascending position."""
        for row in self._stream("SELECT position, hash FROM {chain} WHERE position <= %s ORDER BY position"):
            yield as_link(int(row[0]), row[1])

    def link_at(self, position: int) -> bytes | None:
        """The link stored at ``position``."""
        try:
            rows = self._query("SELECT hash FROM {chain} WHERE position = %s", position)
        except self._psycopg.Error as error:
            raise ReadError(f"cannot read: {error}") from error
        return single_link(rows)

    def close(self) -> None:
        """Roll back the read-only transaction and close."""
        self._connection.close()


# --------------------------------------------------------------------------------------------------------------------
# Section 3: the signed records
# --------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HeadV1:
    """A version-1 signed head."""

    position: int
    chain_hash: bytes
    signature: bytes
    key: str

    def message(self) -> bytes:
        """``"pokertable chain head v1\\n" || i64(position) || chain_hash``."""
        return PREFIX_HEAD_V1 + i64(self.position) + self.chain_hash


@dataclass(frozen=True)
class HeadV2:
    """A version-2 writer head."""

    position: int
    chain_hash: bytes
    since: int
    signed_at: int
    kind: str
    claims_text: str
    claims: list[tuple[int, int]] | None
    writer: str
    reason: str
    key: str
    signature: bytes

    def message(self) -> bytes:
        """The v2 message of section 3."""
        return (
            PREFIX_HEAD_V2
            + i64(self.position)
            + self.chain_hash
            + i64(self.since)
            + i64(self.signed_at)
            + text(self.kind)
            + text(self.claims_text)
            + text(self.writer)
            + text(self.reason)
        )


@dataclass(frozen=True)
class Announcement:
    """A key announcement."""

    new_key: bytes
    position: int
    retires: bool
    reason: str
    by: str
    signature: bytes

    def message(self) -> bytes:
        """The announcement message of section 3."""
        return (
            PREFIX_ANNOUNCEMENT
            + self.new_key
            + i64(self.position)
            + (b"\x01" if self.retires else b"\x00")
            + text(self.reason)
        )


Record = HeadV1 | HeadV2 | Announcement


def record_type(topic: object) -> str | None:
    """``"v1"``, ``"v2"`` or ``"announcement"`` for the topics of a signed record, else ``None``."""
    if topic in TOPICS_HEAD_V1:
        return "v1"
    if topic == TOPIC_HEAD_V2:
        return "v2"
    if topic == TOPIC_ANNOUNCEMENT:
        return "announcement"
    return None


def parse_claims(value: str) -> list[tuple[int, int]] | None:
    """Parse a claims text into ascending ``(a, b)`` ranges, or ``None`` if it breaks the grammar of section 3."""
    if value == "":
        return []
    ranges: list[tuple[int, int]] = []
    for item in value.split(","):
        match = CLAIM_ITEM.fullmatch(item)
        if match is None:
            return None
        start = int(match.group(1))
        end = int(match.group(2)) if match.group(2) is not None else start
        if start < 1 or start > end:
            return None
        if ranges and start <= ranges[-1][1] + 1:
            return None
        ranges.append((start, end))
    return ranges


class UnreadableError(ValueError):
    """A signed record's state cannot be read as section 3 describes."""


class Fields:
    """Typed access to the fields of a record's JSON state."""

    def __init__(self, state: object) -> None:
        """Decode the state as UTF-8 JSON holding an object."""
        data = state_bytes(state)
        if data is None:
            raise UnreadableError("state is not bytes")
        try:
            decoded = json.loads(data.decode("utf-8"), parse_constant=self._no_constant)
        except (UnicodeDecodeError, ValueError) as error:
            raise UnreadableError(f"state is not UTF-8 JSON: {error}") from error
        if not isinstance(decoded, dict):
            raise UnreadableError("state is not a JSON object")
        self._fields: dict[str, object] = decoded

    @staticmethod
    def _no_constant(name: str) -> object:
        """Refuse NaN and Infinity, which are not JSON."""
        raise ValueError(f"{name} is not JSON")

    def _get(self, name: str) -> object:
        if name not in self._fields:
            raise UnreadableError(f"field {name!r} is missing")
        return self._fields[name]

    def integer(self, name: str) -> int:
        """A JSON integer that fits in an i64."""
        value = self._get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not I64_MIN <= value <= I64_MAX:
            raise UnreadableError(f"field {name!r} is not an i64 integer")
        return value

    def string(self, name: str) -> str:
        """A JSON string that is valid UTF-8 text."""
        value = self._get(name)
        if not isinstance(value, str):
            raise UnreadableError(f"field {name!r} is not a string")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise UnreadableError(f"field {name!r} is not valid text") from error
        return value

    def boolean(self, name: str) -> bool:
        """A JSON boolean."""
        value = self._get(name)
        if not isinstance(value, bool):
            raise UnreadableError(f"field {name!r} is not a boolean")
        return value

    def hex_bytes(self, name: str, length: int) -> bytes:
        """Lower-case hex of exactly ``length`` bytes."""
        value = self.string(name)
        if len(value) != 2 * length or not LOWER_HEX.fullmatch(value):
            raise UnreadableError(f"field {name!r} is not {length} bytes of lower-case hex")
        return bytes.fromhex(value)


def parse_record(kind: str, state: object) -> Record:
    """Read a signed record of type ``kind`` from its stored state; raises :class:`UnreadableError`."""
    fields = Fields(state)
    if kind == "v1":
        fields.string("reason")
        return HeadV1(
            position=fields.integer("position"),
            chain_hash=fields.hex_bytes("chain_hash", 32),
            signature=fields.hex_bytes("signature", 64),
            key=fields.string("key"),
        )
    if kind == "v2":
        claims_text = fields.string("claims")
        return HeadV2(
            position=fields.integer("position"),
            chain_hash=fields.hex_bytes("chain_hash", 32),
            since=fields.integer("since"),
            signed_at=fields.integer("signed_at"),
            kind=fields.string("kind"),
            claims_text=claims_text,
            claims=parse_claims(claims_text),
            writer=fields.string("writer"),
            reason=fields.string("reason"),
            key=fields.string("key"),
            signature=fields.hex_bytes("signature", 64),
        )
    return Announcement(
        new_key=fields.hex_bytes("new_key", 32),
        position=fields.integer("position"),
        retires=fields.boolean("retires"),
        reason=fields.string("reason"),
        by=fields.string("by"),
        signature=fields.hex_bytes("signature", 64),
    )


def head_is_well_formed(head: HeadV1 | HeadV2, at: int) -> bool:
    """The positional conditions of section 4.1 for a head found at position ``at``."""
    if isinstance(head, HeadV1):
        return 1 <= head.position < at
    if not 0 <= head.since <= head.position < at or head.kind not in HEAD_KINDS or head.claims is None:
        return False
    if head.claims:
        return head.claims[0][0] > head.since and head.claims[-1][1] <= head.position
    return True


# --------------------------------------------------------------------------------------------------------------------
# Section 4.1: trust
# --------------------------------------------------------------------------------------------------------------------


class KeyRing:
    """Trusted keys by fingerprint, and the position at which each retired key was retired."""

    def __init__(self, keys: Sequence[Ed25519PublicKey]) -> None:
        """Trust starts with the keys given."""
        self._trusted: dict[str, Ed25519PublicKey] = {fingerprint(key): key for key in keys}
        self._retired: dict[str, int] = {}

    def usable(self, key_fingerprint: str, at: int) -> Ed25519PublicKey | None:
        """The key for a record at ``at``: trusted and not retired at a position below ``at``."""
        key = self._trusted.get(key_fingerprint)
        if key is None:
            return None
        retired_at = self._retired.get(key_fingerprint)
        if retired_at is not None and retired_at < at:
            return None
        return key

    def trust(self, key: Ed25519PublicKey) -> None:
        """Trust ``key`` from now on."""
        self._trusted[fingerprint(key)] = key

    def retire(self, key_fingerprint: str, at: int) -> None:
        """Retire a key at ``at``; the first retirement counts."""
        self._retired.setdefault(key_fingerprint, at)


def signature_valid(key: Ed25519PublicKey, signature: bytes, message: bytes) -> bool:
    """Verify a pure Ed25519 signature."""
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


# --------------------------------------------------------------------------------------------------------------------
# Section 5: claims
# --------------------------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    """A count of positions and the lowest of them."""

    count: int = 0
    first: int | None = None

    def add(self, first: int, count: int) -> None:
        """Count ``count`` positions starting at ``first``."""
        self.count += count
        self.first = first if self.first is None else min(self.first, first)

    def report(self) -> list[int] | None:
        """``[first, count]``, or ``None`` when nothing was counted."""
        if self.first is None:
            return None
        return [self.first, self.count]


@dataclass
class PendingRange:
    """Walked positions ``start..end`` waiting for heads of the writers in ``needs``."""

    start: int
    end: int
    needs: frozenset[str]
    released: bool = False

    def piece(self, start: int, end: int) -> PendingRange:
        """A sub-range with the same needs and flag."""
        return PendingRange(start, end, self.needs, self.released)


def subtract(ranges: list[PendingRange], claims: list[tuple[int, int]]) -> list[PendingRange]:
    """Remove the claimed positions from ascending, disjoint pending ranges."""
    result: list[PendingRange] = []
    skip = 0
    for pending in ranges:
        while skip < len(claims) and claims[skip][1] < pending.start:
            skip += 1
        start = pending.start
        index = skip
        while index < len(claims) and claims[index][0] <= pending.end:
            low, high = claims[index]
            if low > start:
                result.append(pending.piece(start, low - 1))
            start = max(start, high + 1)
            index += 1
        if start <= pending.end:
            result.append(pending.piece(start, pending.end))
    return result


def cut(pending: PendingRange, *after: int) -> list[PendingRange]:
    """Cut a range after each of the given positions that falls strictly inside it."""
    points = sorted({point for point in after if pending.start <= point < pending.end})
    pieces: list[PendingRange] = []
    start = pending.start
    for point in points:
        pieces.append(pending.piece(start, point))
        start = point + 1
    pieces.append(pending.piece(start, pending.end))
    return pieces


@dataclass
class Claims:
    """The writers, the pending ranges and the unvouched / unattended counts of section 5."""

    writers: dict[str, int] = field(default_factory=dict)
    pending: list[PendingRange] = field(default_factory=list)
    started: bool = False
    unvouched: Tally = field(default_factory=Tally)
    unattended: Tally = field(default_factory=Tally)

    def walk(self, position: int) -> None:
        """Walk an event that is not a signed record."""
        if not self.writers:
            if self.started:
                self.unattended.add(position, 1)
            return
        needs = frozenset(self.writers)
        last = self.pending[-1] if self.pending else None
        if last is not None and last.end == position - 1 and last.needs == needs and not last.released:
            last.end = position
        else:
            self.pending.append(PendingRange(position, position, needs))

    def apply(self, head: HeadV2) -> int | None:
        """Apply a valid v2 head; return the lowest forged position, if any."""
        self.pending = subtract(self.pending, head.claims or [])
        if head.kind == "hand":
            return None
        signed_up_to = self.writers.get(head.writer)
        lost = head.since if signed_up_to is not None and signed_up_to < head.since else 0
        forged: int | None = None
        kept: list[PendingRange] = []
        for pending in self.pending:
            if head.writer not in pending.needs or pending.start > head.position:
                kept.append(pending)
                continue
            for piece in cut(pending, lost, head.position):
                if piece.end > head.position:
                    kept.append(piece)
                    continue
                piece.needs = piece.needs - {head.writer}
                piece.released = piece.released or piece.end <= lost
                if piece.needs:
                    kept.append(piece)
                elif piece.released:
                    self.unvouched.add(piece.start, piece.end - piece.start + 1)
                elif forged is None or piece.start < forged:
                    forged = piece.start
        self.pending = kept
        if head.kind == "stop":
            self.writers.pop(head.writer, None)
        else:
            self.writers[head.writer] = head.position
            self.started = True
        return forged


class Runs:
    """Ascending walked positions kept as runs ``[start, end]`` (the unsigned positions)."""

    def __init__(self) -> None:
        """No positions yet."""
        self._runs: deque[list[int]] = deque()

    def add(self, position: int) -> None:
        """Add a position above every position held."""
        if self._runs and self._runs[-1][1] == position - 1:
            self._runs[-1][1] = position
        else:
            self._runs.append([position, position])

    def drop_through(self, position: int) -> None:
        """Forget every position at or below ``position``."""
        while self._runs and self._runs[0][1] <= position:
            self._runs.popleft()
        if self._runs and self._runs[0][0] <= position:
            self._runs[0][0] = position + 1

    def ranges(self) -> list[tuple[int, int]]:
        """The runs as ``(start, end)`` pairs."""
        return [(start, end) for start, end in self._runs]


def union_summary(*groups: list[tuple[int, int]]) -> list[int] | None:
    """``[lowest, count]`` of the union of several lists of inclusive ranges, or ``None`` when empty."""
    ranges = sorted(item for group in groups for item in group)
    if not ranges:
        return None
    count = 0
    current_start, current_end = ranges[0]
    for start, end in ranges[1:]:
        if start <= current_end + 1:
            current_end = max(current_end, end)
        else:
            count += current_end - current_start + 1
            current_start, current_end = start, end
    count += current_end - current_start + 1
    return [ranges[0][0], count]


# --------------------------------------------------------------------------------------------------------------------
# Section 4: the walk
# --------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """The first finding: its kind and position end the walk."""

    kind: str
    position: int


class LinkCursor:
    """The chain's links in ascending position, with the next link not yet matched."""

    def __init__(self, links: Iterator[Link]) -> None:
        """Start before the lowest link."""
        self._links = links
        self._next: Link | None = next(links, None)

    def peek(self) -> Link | None:
        """The next link not yet matched, or ``None``."""
        return self._next

    def advance(self) -> None:
        """Mark the next link matched."""
        self._next = next(self._links, None)


class Walk:
    """The walk of section 4 over a store, with the judging of signed records when keys are given."""

    def __init__(self, store: Store, keys: Sequence[Ed25519PublicKey]) -> None:
        """Prepare a walk; ``keys`` empty means signed records are only counted."""
        self.store = store
        self.with_keys = bool(keys)
        self.keyring = KeyRing(keys)
        self.claims = Claims()
        self.unsigned = Runs()
        self.previous = ZERO_HASH
        self.last = 0
        self.events = 0
        self.signed_heads = 0
        self.signed = 0
        self.finding: Finding | None = None

    def run(self) -> Finding | None:
        """Walk every event; return the first finding, or ``None`` when clean."""
        links = LinkCursor(self.store.links())
        for event in self.store.events():
            self.events += 1
            self.finding = self.step(event, links)
            if self.finding is not None:
                return self.finding
        left = links.peek()
        if left is not None:
            self.finding = Finding("inserted" if left.position < 1 else "removed", left.position)
        return self.finding

    def step(self, event: Event, links: LinkCursor) -> Finding | None:
        """Steps 1-6 of section 4 for one event."""
        n = event.position
        link = links.peek()
        if link is not None and link.position < min(n, 1):
            return Finding("inserted", link.position)
        if n < 1:
            return Finding("inserted", n)
        if link is not None and link.position < n:
            return Finding("removed", link.position)
        if link is None or link.position != n:
            return Finding("inserted", n)
        computed = event_hash(self.previous, n, event)
        if computed is None or link.hash is None or computed != link.hash:
            return self.mismatch(event)
        self.previous = link.hash
        self.last = n
        links.advance()
        return self.judge(event)

    def mismatch(self, event: Event) -> Finding:
        """Name a mismatch at the event's position: reordered, removed or altered."""
        n = event.position
        if self.fits_elsewhere(event):
            return Finding("reordered", n)
        if n > self.last + 1:
            return Finding("removed", self.last + 1)
        return Finding("altered", n)

    def fits_elsewhere(self, event: Event) -> bool:
        """Whether some link at another position ``m`` equals this event's hash computed at ``m``."""
        previous: bytes | None = ZERO_HASH
        for link in self.store.links():
            candidate = None
            if link.position != event.position and previous is not None:
                candidate = event_hash(previous, link.position, event)
            if candidate is not None and candidate == link.hash:
                return True
            previous = link.hash
        return False

    def judge(self, event: Event) -> Finding | None:
        """Judge a matched event: count heads, and with keys check signed records and walk the others."""
        kind = record_type(event.topic)
        if kind in ("v1", "v2"):
            self.signed_heads += 1
        if not self.with_keys:
            return None
        if kind is None:
            self.claims.walk(event.position)
            self.unsigned.add(event.position)
            return None
        try:
            record = parse_record(kind, event.state)
        except UnreadableError:
            return Finding("signature", event.position)
        if isinstance(record, Announcement):
            return self.check_announcement(record, event.position)
        finding = self.check_head(record, event.position)
        if finding is None:
            self.unsigned.drop_through(self.signed)
        return finding

    def check_head(self, head: HeadV1 | HeadV2, at: int) -> Finding | None:
        """Section 4.1 for a head at ``at``, then its link, ``signed`` and (v2) its claims."""
        key = self.keyring.usable(head.key, at)
        if key is None or not head_is_well_formed(head, at):
            return Finding("signature", at)
        try:
            message = head.message()
        except EncodingError:
            return Finding("signature", at)
        if not signature_valid(key, head.signature, message):
            return Finding("signature", at)
        link = ZERO_HASH if head.position == 0 else self.store.link_at(head.position)
        if link != head.chain_hash:
            return Finding("rewritten", head.position)
        self.signed = max(self.signed, head.position)
        if isinstance(head, HeadV2):
            forged = self.claims.apply(head)
            if forged is not None:
                return Finding("forged", forged)
        return None

    def check_announcement(self, announcement: Announcement, at: int) -> Finding | None:
        """Section 4.1 for a key announcement at ``at``."""
        key = self.keyring.usable(announcement.by, at)
        if key is None:
            return Finding("signature", at)
        try:
            message = announcement.message()
            new_key = Ed25519PublicKey.from_public_bytes(announcement.new_key)
        except (EncodingError, ValueError):
            return Finding("signature", at)
        if not signature_valid(key, announcement.signature, message):
            return Finding("signature", at)
        self.keyring.trust(new_key)
        if announcement.retires:
            self.keyring.retire(announcement.by, at)
        return None

    def report(self) -> dict[str, object]:
        """The JSON object of section 7."""
        tail: list[int] | None = None
        if self.with_keys and self.finding is None:
            pending = [(item.start, item.end) for item in self.claims.pending]
            tail = union_summary(self.unsigned.ranges(), pending)
        return {
            "clean": self.finding is None,
            "kind": None if self.finding is None else self.finding.kind,
            "position": None if self.finding is None else self.finding.position,
            "events": self.events,
            "signed_heads": self.signed_heads,
            "signed": self.signed if self.with_keys else 0,
            "tail": tail,
            "unvouched": self.claims.unvouched.report() if self.with_keys else None,
            "unattended": self.claims.unattended.report() if self.with_keys else None,
        }


# --------------------------------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------------------------------


class UsageError(Exception):
    """The command line or a key file is wrong."""


def load_public_keys(path: str) -> list[Ed25519PublicKey]:
    """Every ``PUBLIC KEY`` PEM block of a file, each an Ed25519 public key."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read public key file {path}: {error}") from error
    blocks = PEM_BLOCK.findall(data)
    if not blocks:
        raise UsageError(f"no PUBLIC KEY block in {path}")
    keys: list[Ed25519PublicKey] = []
    for index, block in enumerate(blocks, start=1):
        try:
            key = serialization.load_pem_public_key(block)
        except ValueError as error:
            raise UsageError(f"{path}: key {index} cannot be loaded: {error}") from error
        if not isinstance(key, Ed25519PublicKey):
            raise UsageError(f"{path}: key {index} is not an Ed25519 public key")
        keys.append(key)
    return keys


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line of section 7 (argparse exits with status 2 on a usage error)."""
    parser = argparse.ArgumentParser(
        prog="verify_log.py", description="Verify a pokertable event log against docs/audit-format.md."
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--sqlite", metavar="FILE", help="a SQLite store file")
    source.add_argument("--postgres", metavar="CONNINFO", help="a PostgreSQL connection string")
    parser.add_argument("--schema", metavar="NAME", help="the PostgreSQL schema holding the log (with --postgres)")
    parser.add_argument(
        "--public-key", metavar="PEM-FILE", action="append", default=[], help="trusted Ed25519 public keys (PEM)"
    )
    arguments = parser.parse_args(argv)
    if arguments.postgres is not None and arguments.schema is None:
        parser.error("--postgres needs --schema NAME")
    if arguments.sqlite is not None and arguments.schema is not None:
        parser.error("--schema goes with --postgres only")
    return arguments


def open_store(arguments: argparse.Namespace) -> Store:
    """Open the store named on the command line."""
    if arguments.sqlite is not None:
        return SqliteStore(arguments.sqlite)
    try:
        return PostgresStore(arguments.postgres, arguments.schema)
    except ImportError as error:
        raise ReadError(f"psycopg is not available: {error}") from error


def main(argv: Sequence[str] | None = None) -> int:
    """Run the verifier; return the exit status."""
    arguments = parse_arguments(argv)
    try:
        keys = [key for path in arguments.public_key for key in load_public_keys(path)]
    except UsageError as error:
        print(f"verify_log: {error}", file=sys.stderr)
        return 2
    try:
        store = open_store(arguments)
        try:
            walk = Walk(store, keys)
            walk.run()
        finally:
            store.close()
    except ReadError as error:
        print(f"verify_log: {error}", file=sys.stderr)
        return 2
    print(json.dumps(walk.report()))
    return 0 if walk.finding is None else 1


if __name__ == "__main__":
    sys.exit(main())
