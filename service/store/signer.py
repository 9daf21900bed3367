"""The service's signer of heads (issue 29; R-AUD-1): it signs what this service instance wrote, and nothing else.

The recorder tells it the position and link of every commit this process makes (:class:`OwnWrites`); a head it
signs (:class:`service.store.heads.WriterHead`) names the last link the service computed itself, not whatever the
database holds at that moment, and claims exactly the positions it wrote since its last head. An event slipped into
the database while the service runs is claimed by no head, and ``audit verify`` names it ``forged``.

A ``start`` head marks the instance's beginning: it claims what the journal beside the key recovered of an
unclean stop; a ``stop`` head its end (SIGINT, SIGTERM). In between, a ``run`` head once ``every`` events have been
stored since the last one, and when a table closes. :meth:`HeadSigner.rotate` hands the signing over to a new key:
a last head with the old key, then an announcement of the new key signed by the old one (which retires it).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from eventsourcing.persistence import IntegrityError, Mapper, Notification, Recording

from domain.circle.table import Table
from service.store.chain import Committed, TamperedLogError
from service.store.claims import OwnWrites, Positions
from service.store.heads import WRITER_HEAD_TOPIC, KeyAnnouncement, WriterHead
from service.store.signing import (
    DEFAULT_EVERY,
    SIGNED_HEAD_TOPICS,
    HeadRecord,
    SignedHead,
    fingerprint,
    read_head,
    signature_problem,
)

log = logging.getLogger("service.store.signing")


class _Chained(Protocol):
    committed: Committed | None

    def head(self) -> tuple[int, bytes]: ...

    def select_notifications(self, start: int | None, limit: int, stop: int | None = None,
                             topics: Sequence[str] = ()) -> Sequence[Notification]: ...


class _Application(Protocol):
    """What the signer needs of the application (:class:`service.app.application.PokerTables`)."""

    recorder: Any
    mapper: Mapper[UUID]
    after_save: Callable[[list[Recording[UUID]]], None] | None

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording[UUID]]: ...


_SIGNED_EVENTS = (SignedHead.Signed, WriterHead.Signed, KeyAnnouncement.Announced)  # type: ignore[attr-defined]
_SIGNED_TOPICS = [*SIGNED_HEAD_TOPICS, WRITER_HEAD_TOPIC]


def default_writer(key_fingerprint: str) -> str:
    """A writer's name when none is given: this host and the key (a service names itself by host and port)."""
    return f"{socket.gethostname()}/{key_fingerprint}"


class HeadSigner:
    """Signs heads of what this instance wrote: at start, every ``every`` events, when a table closes, at stop."""

    def __init__(self, app: _Application, key: Ed25519PrivateKey, every: int = DEFAULT_EVERY, *,
                 writer: str = "", journal: Path | None = None) -> None:
        if every < 1:
            raise ValueError("heads are signed every 1 or more events")
        recorder: Any = app.recorder
        if not hasattr(recorder, "head"):
            raise TypeError("this store has no hash chain to sign (service.store.persistence.environment)")
        self.app, self.every = app, every
        self.recorder: _Chained = recorder
        self._use(key)
        self.writer = writer or default_writer(self.fingerprint)
        self.writes = OwnWrites(journal)
        self.settled: tuple[int, bytes] | None = None
        """The position and link the last head of this instance named (``None``: none signed since its start)."""
        self.signed = 0
        """The chain position of the last head signed with this key (found at :meth:`start`, then kept)."""
        self._signature_at = 0  # the position of that signed-head event
        self.signed_at: float | None = None
        """When that head was signed (seconds since the epoch), ``None`` until one is found or signed: the service's
        metrics show its age (``pokertable_signed_head_age_seconds``)."""
        self._lock = threading.Lock()

    def _use(self, key: Ed25519PrivateKey) -> None:
        self.key, self.public_key = key, key.public_key()
        self.fingerprint = fingerprint(self.public_key)

    def start(self) -> int:
        """Begin: find the last head this key signed among the last ``every`` events, attach to the recorder and
        the application, and sign a ``start`` head claiming what the journal recovered of an unclean stop. The
        number of events after the last head this key signed (the unsigned tail) is returned."""
        head, chain_hash = self.recorder.head()
        self._find_last(head)
        found = self.writes.recovered()
        self.recorder.committed = self.writes.committed
        unsigned = head - self.signed if self._signature_at else head
        since = found.since if found is not None and found.since <= head else head
        claims = Positions([(max(start, since + 1), min(end, head)) for start, end in
                            (found.positions.ranges() if found is not None else ())
                            if end > since and start <= head])
        self.settled = (since, b"")
        self._sign_head(head, chain_hash, "start", claims, f"start ({unsigned} events after the last head)")
        self.app.after_save = self.stored
        return unsigned

    def _find_last(self, head: int) -> None:
        try:
            recent = self.recorder.select_notifications(max(1, head - self.every), self.every + 1,
                                                        topics=_SIGNED_TOPICS)
        except TamperedLogError as error:  # serve what still checks; 'audit verify' names the rest
            log.warning("the log's last %d events do not check (%s): run 'pokertable audit verify'", self.every,
                        error)
            recent = []
        self.signed = max(0, head - self.every)
        for notification in recent:
            with contextlib.suppress(ValueError):  # a record that cannot be read is 'audit verify''s to name
                record = read_head(self.app.mapper, notification)
                if signature_problem(self.public_key, record) is None:
                    self.signed, self._signature_at, self.signed_at = record.position, record.at, record.signed_at

    def stored(self, recordings: Sequence[Recording[UUID]]) -> None:
        """Told of each batch of events stored: sign when a table closed or ``every`` events went by."""
        if not recordings or isinstance(recordings[0].domain_event, _SIGNED_EVENTS):
            return
        try:
            closed = [r.domain_event for r in recordings if isinstance(r.domain_event, Table.Closed)]  # type: ignore[attr-defined]
            if closed:
                self.sign(f"table {getattr(closed[0], 'originator_id', '')} closed", wait=True)
            elif max(r.notification.id for r in recordings) - self.signed >= self.every:
                self.sign(f"{self.every} events", wait=False)
        except Exception:  # the commands are stored: a failed signature is retried with the next ones
            log.exception("signing the chain head failed")

    def sign(self, reason: str, *, wait: bool = True, kind: str = "run") -> HeadRecord | None:
        """Sign a head of what this instance wrote (``kind`` ``run`` or ``stop``) and store it; ``None`` if
        nothing was written since the last head (or, with ``wait=False``, if another thread is signing now).
        Before :meth:`start` (``pokertable audit sign``, a store no service writes), a ``hand`` head: the head of
        the log as found, claiming nothing."""
        if not self._lock.acquire(blocking=wait):
            return None
        try:
            if self.settled is None:
                position, chain_hash = self.recorder.head()
                if position in (0, self._signature_at):
                    return None
                return self._sign_head(position, chain_hash, "hand", Positions(), reason)
            written = self.writes.written()
            if written.head is None or written.head[0] <= self.settled[0]:
                if kind != "stop":
                    return None
                position, chain_hash = self.settled
            else:
                position, chain_hash = written.head
            return self._sign_head(position, chain_hash, kind, written.positions, reason)
        finally:
            self._lock.release()

    def attest(self, reason: str) -> HeadRecord | None:
        """``pokertable audit sign``, on a store no service writes: a ``hand`` head of the log as found, claiming
        nothing; ``None`` when the log ends with the last head this key signed."""
        position, chain_hash = self.recorder.head()
        self._find_last(position)
        with self._lock:
            if position in (0, self._signature_at):
                return None
            return self._sign_head(position, chain_hash, "hand", Positions(), reason)

    def _sign_head(self, position: int, chain_hash: bytes, kind: str, claims: Positions,
                   reason: str) -> HeadRecord | None:
        since = position if self.settled is None else self.settled[0]
        now = time.time_ns() // 1000
        head = WriterHead.sign(self.key, self.fingerprint, position=position, chain_hash=chain_hash, since=since,
                               signed_at=now, kind=kind, claims=str(claims), writer=self.writer, reason=reason)
        try:
            recordings = self.app.save(head)
        except IntegrityError:  # the same head already stored (signed twice)
            return None
        if kind != "hand":
            self.settled = (position, chain_hash)
            self.writes.claimed(position, since=position)
        self.signed, self._signature_at = position, recordings[0].notification.id
        self.signed_at = now / 1e6
        log.info("signed the chain head at position %d (%s)", position, reason,
                 extra={"fields": {"event": "head-signed", "position": position, "reason": reason, "kind": kind,
                                   "key": self.fingerprint, "claims": len(claims)}})
        return HeadRecord(self._signature_at, position, chain_hash, bytes.fromhex(head.signature), self.fingerprint,
                          reason, self.signed_at)

    def stop(self, reason: str = "service stop") -> HeadRecord | None:
        """Sign the ``stop`` head (what was written since the last head), then close the journal."""
        try:
            return self.sign(reason, kind="stop") if self.settled is not None else None
        finally:
            self.writes.close()
            if self.recorder.committed == self.writes.committed:
                self.recorder.committed = None

    def rotate(self, new_key: Ed25519PrivateKey, reason: str = "key rotation") -> None:
        """Hand the signing over to ``new_key``: a last head with the current key, then the new key announced by
        the current one, which retires it; later heads are signed with the new key."""
        if self.settled is None:
            raise ValueError("the signer has not started: nothing to rotate")
        self.sign(f"{reason}: last head of key {self.fingerprint}")
        with self._lock:
            assert self.settled is not None
            announcement = KeyAnnouncement.sign(self.key, self.fingerprint, new_key.public_key(),
                                                position=self.settled[0], retires=True, reason=reason)
            self.app.save(announcement)
            old = self.fingerprint
            self._use(new_key)
            log.warning("rotated the signing key: %s retired, %s announced", old, self.fingerprint,
                        extra={"fields": {"event": "key-rotated", "old": old, "new": self.fingerprint}})

