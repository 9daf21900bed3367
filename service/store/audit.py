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

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventsourcing.persistence import ApplicationRecorder, Mapper

from service.store.chain import (  # the recorders' topics name this module (service.store.persistence)
    GENESIS,
    LOWEST,
    PAGE,
    ChainedSQLiteRecorder,
    CheckedNotifications,
    TamperedLogError,
    chain_hash,
    check_link,
    describe,
    links,
)
from service.store.claims import Positions
from service.store.heads import KEY_ANNOUNCEMENT_TOPIC
from service.store.trust import SIGNED_TOPICS, SignedRecords

if TYPE_CHECKING:
    from service.store.chain_postgres import ChainedPostgresRecorder

__all__ = ["GENESIS", "LOWEST", "PAGE", "ChainedSQLiteRecorder", "Finding",
           "TamperedLogError", "Verdict", "chain_hash", "check_link", "describe", "links", "verify"]

Chained: TypeAlias = "ChainedSQLiteRecorder | ChainedPostgresRecorder"
"""A chaining recorder (SQLite's or PostgreSQL's, :mod:`service.store.chain_postgres`, imported only by a store on
PostgreSQL: a command on an SQLite file does not load psycopg)."""
T = TypeVar("T")
SWEEP = 10 * PAGE
"""Events a resumed check walks again, at least, of those earlier checks walked (:meth:`Walk.sweep`)."""


@dataclass(frozen=True)
class Finding:
    """The first place where the log and its chain (or a signed record) disagree."""

    kind: str  # "altered", "removed", "inserted", "reordered", "head", "signature", "rewritten", "forged"
    position: int
    message: str


@dataclass(frozen=True)
class Verdict:
    """The outcome of a check of the log."""

    events: int
    head: tuple[int, bytes]
    """The last position checked and its hash: nothing is said of the log after a finding."""
    finding: Finding | None
    signed_heads: int = 0
    """Signed heads met (checked only with a public key)."""
    checked: bool = False
    """Whether the signed records were checked against public keys."""
    signed: int = 0
    """The last position a valid signed head names (0: none)."""
    tail: tuple[int, int, str] | None = None
    """What no signed head vouches for yet, when checked: its first position, its number of events and the first
    event (events after the last head of a running service, or of one stopped uncleanly)."""
    unvouched: tuple[int, int] | None = None
    """Events a service gave up vouching for (restarted without its journal): the first position and how many."""
    unattended: tuple[int, int] | None = None
    """Events stored while no service was signing (after one had started): the first position and how many."""
    trusted: Mapping[str, Ed25519PublicKey] = field(default_factory=dict)
    """The keys trusted at the end, by fingerprint: those given and those the log's announcements handed on."""

    @property
    def clean(self) -> bool:
        return self.finding is None

    @property
    def keys(self) -> int:
        """How many keys are trusted at the end."""
        return len(self.trusted)


def verify(recorder: ApplicationRecorder, expected_head: tuple[int, bytes] | None = None, *,
           public_key: Ed25519PublicKey | Sequence[Ed25519PublicKey] | None = None,
           mapper: Mapper[UUID] | None = None, resume: Walk | None = None, pause: float = 0.0,
           stopping: threading.Event | None = None) -> Verdict:
    """Check the stored events and links against the chain, in position order, from the lowest there is up to the
    last event or link stored when the check starts (a commit made meanwhile lies above both, and is left to the next
    check: events and their links are committed together, at positions above every one before), and with
    public keys every signed record and what the heads claim (:mod:`service.store.trust`); the first disagreement
    is named. Memory is bounded by what is not yet vouched for, not by the log.

    ``resume``: a walk that ended clean (:meth:`Walk.resumable`), continued from where it stopped after checking
    that the chain still holds its last link there (the service's periodic audit). ``pause``: seconds to sleep after
    each page read, so that a long check yields to the commands. ``stopping``: set, the check stops at the next
    page (:class:`AuditStoppedError`): a service that stops does not wait for a check of a year's log to end."""
    if not isinstance(recorder, CheckedNotifications):
        raise TypeError("this store was not opened with a chaining recorder (service.store.persistence.environment)")
    chained = cast("Chained", recorder)  # SQLite's or PostgreSQL's: the two chaining recorders
    if public_key is not None and mapper is None:
        raise ValueError("checking signed heads needs the application's mapper to read them")
    walk = resume or Walk(chained, public_key, mapper)
    walk.recorder, walk.stopping = chained, stopping
    stop = max(chained.max_notification_id() or 0, chained.head()[0])  # rows stored later lie above both
    resumed, count = walk.after > LOWEST, walk.count
    if resumed and (finding := walk.still_leads()) is not None:
        return walk.verdict(finding)
    finding = walk.run(stop, pause)
    if finding is None:
        finding = walk.finish(stop, expected_head)
    if finding is None and resumed:  # and again a stretch of what earlier checks walked
        finding = walk.sweep(max(SWEEP, 2 * (walk.count - count)), pause)
    return walk.verdict(finding)


class Walk:
    """The state of a check: how far the events have been found to follow the chain, and the signed records met."""

    def __init__(self, recorder: Chained, public_key: Ed25519PublicKey | Sequence[Ed25519PublicKey] | None,
                 mapper: Mapper[UUID] | None) -> None:
        self.recorder = recorder
        self.records = None if public_key is None or mapper is None else SignedRecords.trusting(
            public_key, mapper, recorder.link_at)
        self.previous, self.count, self.last, self.heads = GENESIS, 0, 0, 0
        self.unsigned = Positions()
        """The events after the last position a valid signed head names (signed records aside)."""
        self.after = LOWEST  # where the next run reads from
        self._sweep: Walk | None = None
        self.stopping: threading.Event | None = None
        """Set, the walk stops at its next page (:class:`AuditStoppedError`)."""

    def resumable(self) -> bool:
        """Whether a later check may continue this one (it ended clean)."""
        return self.after > LOWEST

    def sweep(self, events: int, pause: float) -> Finding | None:
        """Walk again about ``events`` of the events earlier checks walked, from where the last sweep stopped (the
        chain only: an event altered in place since it was checked is found within a few checks, at a cost
        bounded by the events stored since the last check); back to the start once the sweep reaches the end."""
        sweep = self._sweep
        if sweep is None:
            sweep = self._sweep = Walk(self.recorder, None, None)
        sweep.stopping = self.stopping
        stop = min(self.last, max(sweep.after, 0) + events)
        finding = sweep.run(stop, pause)
        if finding is None:
            sweep.after = stop + 1
            if stop >= self.last:  # the whole log checked so far swept: from its start again, next time
                self._sweep = None
        return finding

    def verdict(self, finding: Finding | None) -> Verdict:
        records = self.records
        if records is None:
            return Verdict(self.count, (self.last, self.previous), finding, self.heads)
        tail = None
        self.unsigned.remove_upto(records.signed)
        unsigned = Positions(list(self.unsigned.ranges()) + records.coverage.pending())
        if finding is None and (start := unsigned.first()) is not None:
            first = self.recorder.unchecked_notifications(start, 1, start)
            tail = (start, len(unsigned), describe(first[0]) if first else "")
        return Verdict(self.count, (self.last, self.previous), finding, records.heads, True, records.signed, tail,
                       records.coverage.unvouched, records.coverage.unattended, dict(records.keys))

    def still_leads(self) -> Finding | None:
        """A resumed check: the chain still has, at the position last checked, the link checked there."""
        if self.last and self.recorder.link_at(self.last) != self.previous:
            return Finding("rewritten", self.last, f"the chain's link at position {self.last} changed since the "
                           "last audit checked it: the log up to there was rewritten")
        return None

    def run(self, stop: int, pause: float) -> Finding | None:
        """Walk the events and the links from where the walk is up to position ``stop``."""
        links_ = _pages(lambda start: self.recorder.chain(start, stop), lambda link: link[0], self.after, pause,
                        self.stopping)
        link = next(links_, None)
        for event in _pages(lambda start: self.recorder.unchecked_notifications(start, PAGE, stop),
                            lambda notification: notification.id, self.after, pause, self.stopping):
            self.count += 1
            if link is not None and link[0] < min(event.id, 1):
                return _low_link(link[0])
            if event.id < 1:
                return Finding("inserted", event.id, f"position {event.id}: {describe(event)} is below position 1, "
                               "where the log starts: inserted around the service")
            if link is not None and link[0] < event.id:
                return Finding("removed", link[0], _removed(link[0]))
            if link is None or link[0] != event.id:
                return Finding("inserted", event.id, f"position {event.id}: {describe(event)} is not in the chain: "
                               "inserted")
            if chain_hash(self.previous, event.id, event) != link[1]:
                return self._mismatch(event)
            self.previous, self.last = link[1], event.id
            if (finding := self._signed(event)) is not None:
                return finding
            link = next(links_, None)
        if link is not None:
            return _low_link(link[0]) if link[0] < 1 else Finding("removed", link[0], _removed(link[0]))
        return None

    def _signed(self, event: Any) -> Finding | None:
        records = self.records
        if event.topic not in SIGNED_TOPICS:
            if records is not None:
                records.coverage.walked(event.id)
                self.unsigned.add(event.id, event.id)
            return None
        if event.topic != KEY_ANNOUNCEMENT_TOPIC:
            self.heads += 1
        if records is None:
            return None
        problem = records.check(event)
        self.unsigned.remove_upto(records.signed)
        return None if problem is None else Finding(*problem)

    def finish(self, stop: int, expected_head: tuple[int, bytes] | None) -> Finding | None:
        """After the last event: the safekept head; the walk may be resumed from here."""
        if expected_head is not None and self.recorder.link_at(expected_head[0]) != expected_head[1]:
            return Finding("head", expected_head[0], f"the log does not lead to the safekept head at position "
                           f"{expected_head[0]}")
        self.after = max(self.last, stop) + 1
        return None

    def _mismatch(self, event: Any) -> Finding:
        if (origin := _recorded_at(self.recorder, event)) is not None:
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


class AuditStoppedError(Exception):
    """A check stopped before its end because the service stops (``stopping`` was set): no verdict."""


def _pages(read: Callable[[int], Sequence[T]], position: Callable[[T], int], after: int,
           pause: float, stopping: threading.Event | None = None) -> Iterator[T]:
    """Rows read a page at a time from position ``after``, sleeping ``pause`` seconds between pages; stopped
    (:class:`AuditStoppedError`) before the next page once ``stopping`` is set."""
    start = after
    while page := read(start):
        yield from page
        start = position(page[-1]) + 1
        if stopping is not None and stopping.wait(pause):
            raise AuditStoppedError(f"the check stopped at log position {start - 1}: the service stops")
        if pause and stopping is None:
            time.sleep(pause)


def _removed(position: int) -> str:
    return f"the event at position {position} was removed (the chain records it)"


def _low_link(position: int) -> Finding:
    return Finding("inserted", position, f"a chain link at position {position}, below position 1 where the log "
                   "starts: inserted")


def _recorded_at(recorder: Chained, event: Any) -> int | None:
    """The position the chain says this event was first recorded at, if another one (read a page at a time: only
    when a finding is being named)."""
    previous = GENESIS
    for position, recorded in _pages(recorder.chain, lambda link: link[0], LOWEST, 0.0):
        if position != event.id and recorded == chain_hash(previous, position, event):
            return position
        previous = recorded
    return None
