"""The signed records of a log, checked in log order (issue 29; R-AUD-1): which keys are trusted (those an
administrator gave, and those the log's own announcements hand on from them, and nothing else), whether each signed
head and key announcement is valid, whether the log still leads to each head, and what each head's claims vouch
for (:class:`service.store.coverage.Coverage`).

A problem is returned as ``(kind, position, message)``, the finding :mod:`service.store.audit` reports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventsourcing.persistence import Mapper, Notification

from service.store.chain import GENESIS
from service.store.claims import Positions
from service.store.coverage import Coverage
from service.store.heads import (
    KEY_ANNOUNCEMENT_TOPIC,
    KINDS,
    WRITER_HEAD_TOPIC,
    announcement_message,
    stored_head_message,
)
from service.store.signing import SIGNED_HEAD_TOPICS, fingerprint, read_head, signature_problem

Problem = tuple[str, int, str]
"""A finding's kind, position and words."""
SIGNED_TOPICS = frozenset((*SIGNED_HEAD_TOPICS, WRITER_HEAD_TOPIC, KEY_ANNOUNCEMENT_TOPIC))
"""The topics of the log's signed records: version-1 heads, version-2 heads, key announcements."""


def anchors(public_key: Ed25519PublicKey | Sequence[Ed25519PublicKey]) -> list[Ed25519PublicKey]:
    """The keys an administrator gave, as a list."""
    return [public_key] if isinstance(public_key, Ed25519PublicKey) else list(public_key)


@dataclass
class SignedRecords:
    """The trusted keys and the heads' claims, as the walk has met them so far."""

    mapper: Mapper[UUID]
    link_at: Callable[[int], bytes | None]
    """The chain's hash at a position already walked (a head's position is before the head)."""
    keys: dict[str, Ed25519PublicKey]
    retired: dict[str, int] = field(default_factory=dict)
    """Keys rotated out, and the position of the announcement that retired each."""
    coverage: Coverage = field(default_factory=Coverage)
    heads: int = 0
    signed: int = 0
    """The last position a valid signed head names."""

    @classmethod
    def trusting(cls, public_key: Ed25519PublicKey | Sequence[Ed25519PublicKey], mapper: Mapper[UUID],
                 link_at: Callable[[int], bytes | None]) -> SignedRecords:
        """Records checked against the keys an administrator gave (the trust anchors)."""
        return cls(mapper, link_at, {fingerprint(key): key for key in anchors(public_key)})

    def check(self, notification: Notification) -> Problem | None:
        """A signed record met in the log (its topic is one of :data:`SIGNED_TOPICS`)."""
        if notification.topic == KEY_ANNOUNCEMENT_TOPIC:
            return self._announcement(notification)
        self.heads += 1
        if notification.topic == WRITER_HEAD_TOPIC:
            return self._writer_head(notification)
        return self._head_v1(notification)

    def _read(self, notification: Notification) -> Any:
        try:
            return self.mapper.to_domain_event(notification)
        except Exception as error:
            raise ValueError(f"position {notification.id}: a signed record that cannot be read ({error})") from None

    def _key(self, name: str, at: int, what: str) -> tuple[Ed25519PublicKey | None, str]:
        key = self.keys.get(name)
        if key is None:
            return None, (f"position {at}: {what} says it was signed with key {name}, which is neither a key given "
                          f"({', '.join(self.keys)}) nor one the log's announcements hand on from them: forged")
        if name in self.retired and at > self.retired[name]:
            return None, (f"position {at}: {what} is signed with key {name}, retired at position "
                          f"{self.retired[name]}: forged")
        return key, ""

    def _head_v1(self, notification: Notification) -> Problem | None:
        try:
            head = read_head(self.mapper, notification)
        except ValueError as error:
            return "signature", notification.id, str(error)
        key, problem = self._key(head.key, head.at, f"the head of position {head.position}")
        if key is None:
            return "signature", notification.id, problem
        if (invalid := signature_problem(key, head)) is not None:
            return "signature", notification.id, invalid
        if self.link_at(head.position) != head.chain_hash:
            return "rewritten", head.position, _rewritten(head.position, head.at, head.reason)
        self.signed = max(self.signed, head.position)
        return None

    def _writer_head(self, notification: Notification) -> Problem | None:
        at = notification.id
        try:
            head = self._read(notification)
            position, since, chain_hash = int(head.position), int(head.since), bytes.fromhex(head.chain_hash)
            kind, claims_text, writer = str(head.kind), str(head.claims), str(head.writer)
            message = stored_head_message(head)
            signature, name = bytes.fromhex(head.signature), str(head.key)
        except (ValueError, AttributeError, TypeError) as error:
            return "signature", at, f"position {at}: a signed head that cannot be read ({error})"
        key, problem = self._key(name, at, f"the head of position {position}")
        if key is None:
            return "signature", at, problem
        try:
            key.verify(signature, message)
        except InvalidSignature:
            return "signature", at, (f"position {at}: the signature of the head of position {position} is not valid "
                                     "under its key: forged or altered")
        try:
            claims = Positions.parse(claims_text)
        except ValueError as error:
            return "signature", at, f"position {at}: a signed head whose claims cannot be read ({error})"
        if not 0 <= since <= position < at or kind not in KINDS or (claims and not (
                since < (claims.first() or 0) and (claims.last() or 0) <= position)):
            return "signature", at, (f"position {at}: a signed head ({kind}) whose window {since}-{position} or "
                                     "claims are not before it: not one a service signs")
        if (GENESIS if position == 0 else self.link_at(position)) != chain_hash:
            return "rewritten", position, _rewritten(position, at, str(head.reason))
        self.signed = max(self.signed, position)
        forged = self.coverage.head(writer, kind, since=since, position=position, claims=claims)
        if forged is not None:
            return "forged", forged, (f"position {forged}: written by no service: no signed head claims it, though "
                                      f"every service writing then has signed past it (the head at position {at} "
                                      f"of {writer}): forged into the database")
        return None

    def _announcement(self, notification: Notification) -> Problem | None:
        at = notification.id
        try:
            record = self._read(notification)
            new_key, by = bytes.fromhex(record.new_key), str(record.by)
            message = announcement_message(new_key, int(record.position), bool(record.retires), str(record.reason))
            signature, announced = bytes.fromhex(record.signature), Ed25519PublicKey.from_public_bytes(new_key)
        except (ValueError, AttributeError, TypeError) as error:
            return "signature", at, f"position {at}: a key announcement that cannot be read ({error})"
        key, problem = self._key(by, at, "a key announcement")
        if key is None:
            return "signature", at, problem
        try:
            key.verify(signature, message)
        except InvalidSignature:
            return "signature", at, f"position {at}: a key announcement whose signature is not valid: forged"
        self.keys[fingerprint(announced)] = announced
        if record.retires:
            self.retired.setdefault(by, at)
        return None


def _rewritten(position: int, at: int, reason: str) -> str:
    return (f"the log up to position {position} was rewritten: it no longer leads to the head signed at position "
            f"{at} ({reason}), though its chain was recomputed")
