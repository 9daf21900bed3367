"""The group's follower (issue 18, item 3): each casino's log, read from the position the group tracks for it, checked
link by link against the casino's hash chain and signed heads (R-AUD-1), and stored with the figures of every hand it
touches in the group's store, page by page, each page and its new position in one transaction
(:meth:`service.group.store.GroupStore.commit`).

Why a follower of our own rather than eventsourcing's process or projection runners: those track a position per
*application* in the tracking table of the same database as the projection, and read the upstream log through the
library's own readers; here each casino is another database (one that may be cut off from the group for hours),
every event must be checked against the casino's chain before it is accepted (the library's readers do not know the
chain), and the signed heads must travel with the events. The idea is the same -- the tracked position is written in
the same transaction as what it derives -- and so is its guarantee: exactly once.

A page is refused as a whole when one of its events

- has no chain link, or a link is there without its event (``inserted``, ``removed``);
- does not chain to the event before it, the last one received included (``altered``: changed, or the casino's log
  was rewritten before it and its chain recomputed -- the group still holds the hash it received);
- is a signed head that the casino's public key does not vouch for (``signature``), or that signs a chain hash other
  than the one the group received at that position (``rewritten``).

Nothing of a refused page is stored; the refusal is recorded once (``group_alerts``) and the casino stays at the
last position received until the casino's log is put right: a forged event is never taken silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventsourcing.persistence import Mapper, Notification, StoredEvent

from service.app.floor import OPENED_TOPICS
from service.group.figures import hand_figures, is_hand_topic
from service.group.store import GroupStore, HandRow, Page, PositionMovedError, Received
from service.store.chain import GENESIS, chain_hash, describe
from service.store.heads import WRITER_HEAD_TOPIC
from service.store.signing import SIGNED_HEAD_TOPICS, read_head, signature_problem

PAGE = 1000
"""Events read and stored at a time (one transaction in the group's store)."""


class ChainBrokenError(RuntimeError):
    """An event of a casino that its chain or its signed heads do not vouch for: the page is refused (R-AUD-1)."""

    rule = "R-AUD-1"

    def __init__(self, casino: str, position: int, kind: str, message: str) -> None:
        super().__init__(f"{casino}: position {position}: {message} (R-AUD-1)")
        self.casino, self.position, self.kind = casino, position, kind


@dataclass(frozen=True)
class CasinoLog:
    """A casino's log as the follower reads it: the chaining recorder of its store
    (:class:`service.store.chain_postgres.ChainedPostgresRecorder`, or the SQLite one), its mapper, and the casino's
    public keys (none: its signed heads are carried along unchecked, for ``pokertable group verify --public-key``)."""

    name: str
    recorder: Any
    mapper: Mapper[UUID]
    keys: tuple[Ed25519PublicKey, ...] = ()


@dataclass(frozen=True)
class Synced:
    """What one sync of a casino did."""

    casino: str
    events: int
    position: int
    refused: ChainBrokenError | None = None
    more: bool = False
    """Stopped at its number of pages with more to read."""


@dataclass
class _Hand:
    """A hand rebuilt from the events received: the aggregate, its first and its last event."""

    aggregate: Any
    started: Any
    last: Any

    @property
    def version(self) -> int:
        return int(self.aggregate.version)


@dataclass
class Follower:
    """Follows casinos into the group's ``store``; keeps the hands in progress rebuilt between pages (any of them
    missing, after a restart, is rebuilt from the events the group holds)."""

    store: GroupStore
    page: int = PAGE
    _hands: dict[tuple[str, UUID], _Hand] = field(default_factory=dict)

    def sync(self, casino: CasinoLog, *, pages: int | None = None) -> Synced:
        """Store every event of ``casino`` after the tracked position (at most ``pages`` pages); a refusal is
        recorded and returned, never raised."""
        stored, done = 0, 0
        while pages is None or done < pages:
            try:
                count = self.step(casino)
            except ChainBrokenError as error:
                self.store.alert(casino.name, error.position, error.kind, str(error))
                return Synced(casino.name, stored, self.store.tracked(casino.name).position, error)
            if count == 0:
                return Synced(casino.name, stored, self.store.tracked(casino.name).position)
            stored, done = stored + count, done + 1
        return Synced(casino.name, stored, self.store.tracked(casino.name).position, more=True)

    def step(self, casino: CasinoLog) -> int:
        """Read, check and store one page of ``casino``'s log; the number of events stored (0: none new)."""
        tracked = self.store.tracked(casino.name)
        found: Sequence[Notification] = casino.recorder.unchecked_notifications(tracked.position + 1, self.page)
        if not found:
            return 0
        try:
            page = self._page(casino, tracked.position, tracked.chain_hash, found)
            self.store.commit(casino.name, tracked.position, page)
        except PositionMovedError:  # another follower stored it: read again from where it left the casino
            self._forget(casino.name)
            return self.step(casino)
        except BaseException:  # nothing of the page was stored: the hands rebuilt from it are forgotten too
            self._forget(casino.name)
            raise
        for hand_id, row in page.hands.items():
            if row.figures.outcome != "in-progress":  # over: rebuilt from the store should another event come
                self._hands.pop((casino.name, hand_id), None)
        return len(page.events)

    def _forget(self, casino: str) -> None:
        for key in [key for key in self._hands if key[0] == casino]:
            del self._hands[key]

    def _page(self, casino: CasinoLog, since: int, previous: bytes, found: Sequence[Notification]) -> Page:
        """The page checked against the chain, its signed heads checked, and what it changes derived."""
        links = _links(casino.recorder, since + 1, found[-1].id)
        received: list[Received] = []
        hashes: dict[int, bytes] = {}
        for at, notification in enumerate(found):
            position = notification.id
            if position < 1:
                raise ChainBrokenError(casino.name, position, "inserted",
                                       f"{describe(notification)} is below position 1, where the log starts")
            if at < len(links) and links[at][0] < position:
                raise ChainBrokenError(casino.name, links[at][0], "removed",
                                       "the event the chain records there was removed")
            if at == len(links) or links[at][0] != position:
                raise ChainBrokenError(casino.name, position, "inserted",
                                       f"{describe(notification)} has no chain link: written around the service")
            if chain_hash(previous, position, notification) != links[at][1]:
                raise ChainBrokenError(
                    casino.name, position, "altered",
                    f"{describe(notification)} does not match its chain link, or does not chain to the event the "
                    f"group received before it: altered, or the casino's log was rewritten and its chain recomputed")
            previous = hashes[position] = links[at][1]
            received.append(Received(position, _uuid(notification.originator_id), notification.originator_version,
                                     notification.topic, bytes(notification.state), previous))
        page = Page(received, previous, [], [], {}, 0)
        touched: dict[UUID, _Hand] = {}
        for notification in found:
            self._derive(casino, notification, page, hashes, touched)
        for hand_id, hand in touched.items():  # each hand's figures once a page, as its last event there left it
            page.hands[hand_id] = HandRow(hand_id, _uuid(hand.started.table_id), int(hand.started.number),
                                          hand.started.timestamp, hand.last.timestamp,
                                          hand_figures(hand.aggregate, hand.started))
        return page

    def _derive(self, casino: CasinoLog, notification: Notification, page: Page, hashes: dict[int, bytes],
                touched: dict[UUID, _Hand]) -> None:
        """What one checked event changes: a signed head, a table opened, a hand."""
        topic = notification.topic
        if topic in SIGNED_HEAD_TOPICS or topic == WRITER_HEAD_TOPIC:
            self._signed_head(casino, notification, page, hashes)
        elif topic in OPENED_TOPICS:
            opened: Any = casino.mapper.to_domain_event(notification)
            game = getattr(opened, "game", None) or opened.settings["variant"]
            page.tables.append((_uuid(opened.originator_id), str(opened.name), str(game)))
        elif is_hand_topic(topic):
            event: Any = casino.mapper.to_domain_event(notification)
            hand = self._hand(casino, event, notification.id)
            hand.aggregate = event.mutate(hand.aggregate)
            hand.last = event
            touched[hand.aggregate.id] = hand

    def _hand(self, casino: CasinoLog, event: Any, position: int) -> _Hand:
        """The hand an event belongs to, as it stood before it (rebuilt from the group's store if not kept)."""
        key = (casino.name, _uuid(event.originator_id))
        version = int(event.originator_version)
        if version == 1:
            hand = self._hands[key] = _Hand(None, event, event)
            return hand
        hand_or_none = self._hands.get(key)
        if hand_or_none is None:
            aggregate, first = None, None
            for stored in self.store.hand_events(casino.name, key[1], version):
                earlier: Any = casino.mapper.to_domain_event(StoredEvent(
                    originator_id=stored.originator_id, originator_version=stored.originator_version,
                    topic=stored.topic, state=stored.state))
                aggregate, first = earlier.mutate(aggregate), first or earlier
            if aggregate is None:
                raise ChainBrokenError(casino.name, position, "removed",
                                       f"an event of hand {key[1]} whose earlier events were never received")
            hand_or_none = self._hands[key] = _Hand(aggregate, first, first)
        if hand_or_none.version != version - 1:
            raise ChainBrokenError(casino.name, position, "removed",
                                   f"hand {key[1]} jumps from version {hand_or_none.version} to {version}")
        return hand_or_none

    def _signed_head(self, casino: CasinoLog, notification: Notification, page: Page,
                     hashes: dict[int, bytes]) -> None:
        """A signed head carried along: with the casino's keys, its signature and that it signs what was
        received."""
        try:
            head = read_head(casino.mapper, notification)
        except ValueError as error:
            raise ChainBrokenError(casino.name, notification.id, "signature", str(error)) from None
        if casino.keys:
            if (problem := signature_problem(casino.keys, head)) is not None:
                raise ChainBrokenError(casino.name, notification.id, "signature", problem)
            received = GENESIS if head.position == 0 else (hashes.get(head.position)
                                                           or self.store.chain_hash_at(casino.name, head.position))
            if received != head.chain_hash:
                raise ChainBrokenError(casino.name, notification.id, "rewritten",
                                       f"the head signed at position {notification.id} signs position "
                                       f"{head.position} with a hash other than the one the group received")
            page.signed = max(page.signed, head.position)
        page.heads.append((head.at, head.position, head.chain_hash, head.signature, head.key, head.reason,
                           bool(casino.keys), head.message))


def _links(recorder: Any, start: int, stop: int) -> list[tuple[int, bytes]]:
    """The casino's chain links from ``start`` to ``stop``."""
    links: list[tuple[int, bytes]] = []
    while True:
        page: list[tuple[int, bytes]] = recorder.chain(start)
        links.extend(link for link in page if link[0] <= stop)
        if not page or page[-1][0] >= stop:
            return links
        start = page[-1][0] + 1


def _uuid(value: object) -> UUID:
    return value if isinstance(value, UUID) else UUID(str(value))
