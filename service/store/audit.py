"""Tamper evidence: every stored event is chained to the one before it by a SHA-256 hash, written in the same
transaction as the event, and ``pokertable audit verify`` checks the whole log (R-AUD-1).

The chain is a table beside the events (``stored_events_chain``: position, hash), filled by the recorders of
:mod:`service.store.chain`, named here (SQLite and PostgreSQL; the service selects them through eventsourcing's
``APPLICATION_RECORDER_TOPIC``).  The hash of
the event at position *n* covers the hash at the position before it, *n* itself, and the event's originator, version,
topic and stored state, so changing, removing, moving or inserting an event breaks the chain at that event.  Whoever
could rewrite both tables could rebuild the chain: the head (last position and hash) is therefore printed by
``pokertable audit head`` for safekeeping (a games director's log, a regulator's mailbox), and ``verify --head``
checks the log still leads to it; the service also signs heads with its key (:mod:`service.store.signing`).

Every stored row is accounted for: positions start at 1 (the tables refuse lower ones: a CHECK or trigger made with
them), ``verify`` reads from the lowest position there is, and an aggregate is only loaded from events whose link
checks (:class:`TamperedLogError` otherwise): an event slipped in at position 0 or below, or anywhere without its
link, never reaches a table.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventsourcing.persistence import ApplicationRecorder, Mapper

from service.store.chain import (  # the recorders' topics name this module (service.store.persistence)
    GENESIS,
    LOWEST,
    PAGE,
    ChainedSQLiteRecorder,
    TamperedLogError,
    chain_hash,
    check_link,
    describe,
    links,
)
from service.store.chain_postgres import ChainedPostgresRecorder
from service.store.signing import SIGNED_HEAD_TOPICS, read_head, signature_problem

__all__ = ["GENESIS", "LOWEST", "PAGE", "ChainedPostgresRecorder", "ChainedSQLiteRecorder", "Finding",
           "TamperedLogError", "Verdict", "chain_hash", "check_link", "describe", "links", "verify"]


@dataclass(frozen=True)
class Finding:
    """The first place where the log and its chain (or a signed head) disagree."""

    kind: str  # "altered", "removed", "inserted", "reordered", "head", "signature", "rewritten"
    position: int
    message: str


@dataclass(frozen=True)
class Verdict:
    """The outcome of a check of the whole log."""

    events: int
    head: tuple[int, bytes]
    finding: Finding | None
    signed_heads: int = 0
    """Signed-head events met (checked only with a public key)."""
    checked: bool = False
    """Whether the signed heads were checked against a public key."""
    signed: int = 0
    """The last position a valid signature covers (0: none)."""
    tail: tuple[int, int, str] | None = None
    """The unsigned tail, when checked: its first position, its number of events and the first event."""

    @property
    def clean(self) -> bool:
        return self.finding is None


def _chain(recorder: ChainedSQLiteRecorder | ChainedPostgresRecorder) -> Iterator[tuple[int, bytes]]:
    start = LOWEST
    while page := recorder.chain(start):
        yield from page
        start = page[-1][0] + 1


def _removed(position: int) -> str:
    return f"the event at position {position} was removed (the chain records it)"


def verify(recorder: ApplicationRecorder, expected_head: tuple[int, bytes] | None = None, *,
           public_key: Ed25519PublicKey | Sequence[Ed25519PublicKey] | None = None,
           mapper: Mapper[UUID] | None = None) -> Verdict:
    """Check every stored event and link against the chain, in position order from the lowest, and with a public key
    every signed head (:mod:`service.store.signing`; several keys: a log whose key was rotated); the first
    disagreement is named."""
    if not isinstance(recorder, ChainedSQLiteRecorder | ChainedPostgresRecorder):
        raise TypeError("this store was not opened with a chaining recorder (service.store.persistence.environment)")
    if public_key is not None and mapper is None:
        raise ValueError("checking signed heads needs the application's mapper to read them")
    walk = _Walk(list(_chain(recorder)), public_key, mapper)
    for event in _unchecked(recorder):
        if (finding := walk.step(event)) is not None:
            return walk.verdict(finding)
    finding = walk.finish(expected_head)
    if finding is not None or public_key is None:
        return walk.verdict(finding)
    return walk.verdict(None, _tail(recorder, walk.chain, walk.signed, walk.signatures))


def _unchecked(recorder: ChainedSQLiteRecorder | ChainedPostgresRecorder) -> Iterator[Any]:
    """Every stored event as stored, from the lowest position there is."""
    start = LOWEST
    while page := recorder.unchecked_notifications(start, PAGE):
        yield from page
        start = page[-1].id + 1


class _Walk:
    """The state of a check: the chain, and how far the events have been found to follow it."""

    def __init__(self, chain: list[tuple[int, bytes]], public_key: Ed25519PublicKey | Sequence[Ed25519PublicKey] | None,
                 mapper: Mapper[UUID] | None) -> None:
        self.chain, self.public_key, self.mapper = chain, public_key, mapper
        self.previous, self.count, self.last, self.link = GENESIS, 0, 0, 0
        self.heads, self.signed = 0, 0
        self.signatures: set[int] = set()

    def verdict(self, finding: Finding | None, tail: tuple[int, int, str] | None = None) -> Verdict:
        return Verdict(self.count, (self.last, self.previous), finding, self.heads, self.public_key is not None,
                       self.signed, tail)

    def step(self, event: Any) -> Finding | None:
        """Check the next event in position order."""
        chain, link = self.chain, self.link
        self.count += 1
        if link < len(chain) and chain[link][0] < min(event.id, 1):
            return _low_link(chain[link][0])
        if event.id < 1:
            return Finding("inserted", event.id, f"position {event.id}: {describe(event)} is below position 1, "
                           "where the log starts: inserted around the service")
        if link < len(chain) and chain[link][0] < event.id:
            return Finding("removed", chain[link][0], _removed(chain[link][0]))
        if link == len(chain) or chain[link][0] != event.id:
            return Finding("inserted", event.id, f"position {event.id}: {describe(event)} is not in the chain: "
                           "inserted")
        recorded = chain[link][1]
        if chain_hash(self.previous, event.id, event) != recorded:
            return self._mismatch(event)
        if event.topic in SIGNED_HEAD_TOPICS and (finding := self._signed_head(event)) is not None:
            return finding
        self.previous, self.last, self.link = recorded, event.id, link + 1
        return None

    def _mismatch(self, event: Any) -> Finding:
        if (origin := _recorded_at(self.chain, event)) is not None:
            return Finding("reordered", event.id, f"position {event.id}: {describe(event)} was recorded at "
                           f"position {origin}: the log was reordered")
        last = self.last
        if event.id > last + 1:  # positions with neither event nor link, and this one no longer chains on
            gap = (f"position {last + 1} has" if event.id == last + 2 else
                   f"positions {last + 1} to {event.id - 1} have")
            return Finding("removed", last + 1, f"{gap} neither event nor link and position {event.id} does not "
                           f"chain to position {last}: the event at position {last + 1} was removed, with its link")
        return Finding("altered", event.id, f"position {event.id}: {describe(event)} does not match its chained "
                       "hash: altered")

    def _signed_head(self, event: Any) -> Finding | None:
        """A signed head met in the log: with a public key, its signature and that the log still leads to it."""
        self.heads += 1
        if self.public_key is None or self.mapper is None:
            return None
        try:
            head = read_head(self.mapper, event)
        except ValueError as error:
            return Finding("signature", event.id, str(error))
        if (problem := signature_problem(self.public_key, head)) is not None:
            return Finding("signature", event.id, problem)
        at = bisect.bisect_left(self.chain, head.position, key=lambda entry: entry[0])
        if at == len(self.chain) or self.chain[at] != (head.position, head.chain_hash):
            return Finding("rewritten", head.position, f"the log up to position {head.position} was rewritten: it "
                           f"no longer leads to the head signed at position {event.id} ({head.reason}), though its "
                           "chain was recomputed")
        self.signed = max(self.signed, head.position)
        self.signatures.add(event.id)
        return None

    def finish(self, expected_head: tuple[int, bytes] | None) -> Finding | None:
        """After the last event: links left over, and the safekept head."""
        if self.link < len(self.chain):
            position = self.chain[self.link][0]
            return _low_link(position) if position < 1 else Finding("removed", position, _removed(position))
        if expected_head is not None and dict(self.chain).get(expected_head[0]) != expected_head[1]:
            return Finding("head", expected_head[0], f"the log does not lead to the safekept head at position "
                           f"{expected_head[0]}")
        return None


def _low_link(position: int) -> Finding:
    return Finding("inserted", position, f"a chain link at position {position}, below position 1 where the log "
                   "starts: inserted")


def _tail(recorder: ApplicationRecorder, chain: list[tuple[int, bytes]], signed: int,
          signatures: set[int]) -> tuple[int, int, str] | None:
    """The events after the last signed position, less valid signed heads: the first, how many, and what it is."""
    after = [position for position, _ in chain[bisect.bisect_right(chain, signed, key=lambda entry: entry[0]):]
             if position not in signatures]
    if not after:
        return None
    first = recorder.select_notifications(after[0], 1)[0]
    return after[0], len(after), describe(first)


def _recorded_at(chain: list[tuple[int, bytes]], event: Any) -> int | None:
    """The position the chain says this event was first recorded at, if another one."""
    previous = GENESIS
    for position, recorded in chain:
        if position != event.id and recorded == chain_hash(previous, position, event):
            return position
        previous = recorded
    return None
