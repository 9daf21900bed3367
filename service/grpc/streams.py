"""The streaming RPCs of the servicer: Watch (a table's changes as typed TableEvents, resumable by log position) and
ReconstructHand (a hand event by event, for a dispute).  Every event passes the one visibility policy before it is
mapped to its message by :func:`service.grpc.event_messages.to_message`."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import grpc
from eventsourcing.persistence import Notification
from google.protobuf.struct_pb2 import Struct

from domain.audit_findings import FINDINGS_ID
from domain.hole_card_views import TOPICS as VIEW_TOPICS
from domain.reconstruction import Step, event_data
from service.api import table_service_pb2 as svc
from service.app.application import Viewer
from service.app.commands import ReconstructHand
from service.app.hole_card_views import live_hands_of
from service.app.tampering import LOG
from service.app.visibility import carries_down_cards, shows_down_cards
from service.formats.render import describe, render
from service.grpc.base import EVERY_TABLE, ServicerBase
from service.grpc.errors import _guarded_stream, _StatusError, invalid
from service.grpc.event_messages import timestamp, to_message
from service.grpc.observe import STOPPING
from service.grpc.replies import _payload, actor, actor_of
from service.grpc.requests import MAX_POSITION, _command_id, _table, _text
from service.waiting import woken

WATCH_PAGE = 200
FLOOR_GATHER_SECONDS = 0.1
"""A floor's stream (every table) woken by a command waits this long before it reads the log, so that the commands
of a busy floor arriving meanwhile are read in one scan (200 tables at 2 commands a second had it scan the log 400
times a second, some 40 % of a core); a table's own stream reads at once."""
_log = logging.getLogger("pokertable.watch")


def _struct(state: dict[str, Any]) -> Struct:
    """A hand's state as a Struct (JSON's shapes: keys as text, tuples as lists)."""
    out = Struct()
    out.update(json.loads(json.dumps(state, default=str)))
    return out


class StreamRpcs(ServicerBase):
    """Watch and ReconstructHand."""

    @_guarded_stream
    async def Watch(self, request: svc.WatchRequest, context: Any) -> AsyncIterator[svc.WatchResponse]:  # noqa: N802
        """Every change of the table (of every table when none is named: the pit's floor, one scan of the log for
        all of them) after ``after_position``, then new ones as they are stored."""
        table = _table(request.table) if request.table else EVERY_TABLE
        position = max(request.after_position, 0)
        if position > MAX_POSITION:  # the store's positions are int64: the scan would overflow (issue 13)
            raise invalid(f"after_position is past any log: at most {MAX_POSITION}", "after_position", "R-AUD-1")
        scan: Callable[..., tuple[list[svc.WatchResponse], int]]
        if table:
            viewer = await self._run(context, lambda viewer: (self.app.any_table(table), viewer)[1])
            scan = functools.partial(self._changes_after, table)
        else:
            viewer = await self._run(context, lambda viewer: viewer)
            scan = self._changes_everywhere
        while True:
            if self.draining:  # the service stops: resumable, here or at another instance (issue 17)
                raise _StatusError(grpc.StatusCode.UNAVAILABLE, f"{STOPPING}: resume the stream with after_position "
                                   f"{position}", "")
            stored = self._stored_event(table)  # taken before the scan, so a command stored during it is not missed
            follower = self.follower
            kept = follower.after(position) if follower is not None else None
            shown: set[tuple[str, int]] = set()  # live hands whose face-down cards this page shows (R-AUD-1)
            if kept is not None and not viewer.sees_down_cards(table):  # what the follower read already: no query
                changes, scanned = self._changes_in(kept[0], table, viewer, max(position, kept[1]))
            elif kept is not None:  # the pit: which hands are live is read from the store, not on the loop
                changes, scanned = await self._run(context, functools.partial(
                    self._changes_kept, kept[0], table, viewer, max(position, kept[1]), shown), offload=True)
            else:
                changes, scanned = await self._run(context, functools.partial(scan, viewer, position, shown=shown),
                                                   offload=True)
            if self._unrecorded(viewer, shown):  # recorded before they are sent (issue 29, item 7)
                await self._run(context, functools.partial(self._record_views, shown, "Watch"))
            for change in changes:
                yield change
            # The scan moves on past other tables' events too: a busy casino's store must not stall this table's
            # stream behind a page of notifications none of which are its own.
            moved, position = scanned > position, max(position, scanned)
            if not moved:
                # Commands through this instance wake the stream at once; other instances' (several services
                # on one PostgreSQL) through the follower, which reads the log at least once a second and wakes
                # the tables concerned: with a follower the stream itself never polls (500 idle streams, each
                # scanning the whole floor's events every 30 s, had slowed the casino's commands by a third).
                await woken(stored, None if follower is not None else self.poll)
                if not table:  # a floor's stream: the commands of a busy floor gathered into one scan, not one each
                    await asyncio.sleep(FLOOR_GATHER_SECONDS)

    @_guarded_stream
    async def ReconstructHand(  # noqa: N802
        self, request: svc.ReconstructHandRequest, context: Any
    ) -> AsyncIterator[svc.ReconstructHandResponse]:
        """A hand event by event for a dispute: the pit boss only; the request is recorded first (R-THB-13)."""
        command_id, table = _command_id(request.command_id), _table(request.table)
        reason = _text(request.reason, "reason")
        if request.hand_number <= 0:
            raise invalid("hand_number is required: 1 = the table's first hand", "hand_number", "R-THB-13")
        command = ReconstructHand(command_id, table, request.hand_number, reason)

        def work(viewer: Viewer) -> list[Step]:
            self.app.handle(command, viewer)  # the request recorded first (R-THB-13, R-AUD-1)
            return self.app.reconstruction(table, request.hand_number, viewer)

        steps = await self._run(context, work, offload=True)
        for step in steps:
            yield svc.ReconstructHandResponse(
                version=step.version, timestamp=timestamp(datetime.fromisoformat(step.timestamp)),
                description=describe(step), event=to_message(step.event, step.data), state=_struct(step.state),
                rendered=render(step), by=actor_of(step.by, self.app.staff.name_of))

    def _changes_after(self, table: str, viewer: Viewer, after: int, _: Viewer, *,
                       shown: set[tuple[str, int]] | None = None) -> tuple[list[svc.WatchResponse], int]:
        """This table's changes in the next page of notifications, and the position the page reached (a table of any
        game: its hands' ids follow from the table's by the game's rule, ``domain.games``); the live hands whose
        face-down cards they show are added to ``shown``."""
        record = self.app.any_table(table)
        next_hand = record.hand_id(record.hands_started + 1)
        ours = {record.id, *self.app.hands_of(table)}
        live = live_hands_of(record)  # read before the page: a hand that ends meanwhile is still taken as live
        notifications = self.app.log_reads.page(after, WATCH_PAGE)
        sees = viewer.sees_down_cards(table)
        changes = []
        for notification in notifications:
            originator = notification.originator_id
            if not isinstance(originator, UUID):
                continue
            if originator not in ours:
                if originator == next_hand:  # a hand started after the table was read
                    ours.add(originator)
                else:
                    continue
            event: Any = self.app.log_reads.event(notification)
            shows = self._shows(sees, table, originator, event, live=live, shown=shown)
            changes.append(svc.WatchResponse(
                position=notification.id, aggregate_id=str(originator), version=notification.originator_version,
                timestamp=timestamp(event.timestamp), event=to_message(type(event), _payload(event, shows)),
                table=table, by=actor(event, self.app.staff.name_of)))
        return changes, notifications[-1].id if notifications else after

    def _shows(self, sees: bool, table: str, originator: UUID, event: Any, *, live: Mapping[UUID, int],
               shown: set[tuple[str, int]] | None) -> bool:
        """Whether an event of ``table`` is sent with its face-down cards to a viewer who may see them (``sees``):
        those of a live hand (``live``: its id and number) only if the casino shows them live; each live hand whose
        face-down cards are sent is added to ``shown``, to be recorded (issue 29, item 7; R-AUD-1)."""
        number = live.get(originator)
        if not sees or number is None:
            return sees
        shows = shows_down_cards(sees, hand_live=True, hole_cards_live=self.app.hole_cards_live)
        if shows and shown is not None and carries_down_cards(type(event).__qualname__, event_data(event)):
            shown.add((table, number))
        return shows

    def _changes_everywhere(self, viewer: Viewer, after: int, _: Viewer, *,
                            shown: set[tuple[str, int]] | None = None) -> tuple[list[svc.WatchResponse], int]:
        """Every table's changes in the next page of notifications (each as its table's viewer may see it), and the
        position the page reached: one read of the log for the whole floor.  Tampering the service's audit found is
        the floor's too (table "": the casino's log, :mod:`service.app.tampering`)."""
        notifications, scanned = self.app.log_reads.vouched_page(after, WATCH_PAGE)
        return self._changes_in(notifications, EVERY_TABLE, viewer, scanned, shown)

    def _changes_kept(self, notifications: Sequence[Notification], table: str, viewer: Viewer, reached: int,
                      shown: set[tuple[str, int]], _: Viewer) -> tuple[list[svc.WatchResponse], int]:
        """:meth:`_changes_in` of what the follower kept, for a viewer who may see face-down cards (run off the event
        loop: which hands are live is read from the store)."""
        return self._changes_in(notifications, table, viewer, reached, shown)

    def _changes_in(self, notifications: Sequence[Notification], table: str, viewer: Viewer, reached: int,
                    shown: set[tuple[str, int]] | None = None) -> tuple[list[svc.WatchResponse], int]:
        """The changes of ``table`` (every table's, the casino log's own included: ``EVERY_TABLE``) among
        notifications read (a page of the store, or what the follower kept), each as the viewer may see it, and the
        position they reach.  For a viewer who may see face-down cards, each table's live hands are read (once a
        table a call: the delay policy, and the live hands shown added to ``shown``): call it off the event loop."""
        changes = []
        live: dict[str, Mapping[UUID, int]] = {}
        with self._owners_lock:
            for notification in notifications:
                originator = notification.originator_id
                if not isinstance(originator, UUID) or not notification.topic.startswith("domain.") \
                        or notification.topic.startswith(VIEW_TOPICS):
                    continue  # not a table's or a hand's event (a command record, a signed head, a view recorded)
                owner = LOG if originator == FINDINGS_ID else self._owner(originator, notification.id)
                if owner is None or (table and owner != table):
                    continue
                event: Any = self.app.log_reads.event(notification)
                sees = viewer.sees_down_cards(owner)
                if sees and owner != LOG and owner not in live:
                    live[owner] = self.app.hole_cards.live_hands(owner)
                shows = self._shows(sees, owner, originator, event, live=live.get(owner, {}), shown=shown)
                changes.append(svc.WatchResponse(
                    position=notification.id, aggregate_id=str(originator),
                    version=notification.originator_version, timestamp=timestamp(event.timestamp),
                    event=to_message(type(event), _payload(event, shows)), table=owner,
                    by=actor(event, self.app.staff.name_of)))
        return changes, reached

    def _owner_of(self, originator: UUID, position: int) -> str | None:
        """The table an event's originator belongs to, for the instance's follower of the log (on its thread)."""
        with self._owners_lock:
            return self._owner(originator, position)

    def _owner(self, originator: UUID, position: int) -> str | None:
        """The table a table's or a hand's id belongs to (None: none). A table's next hand is known before it
        starts; its start makes the one after known; a table opened since is learnt from the tables' list."""
        table = self._owners.get(originator)
        if table is None and self._owners_position < position:
            self._learn_owners()
            table = self._owners.get(originator)
        if table is not None and self._owners_next.get(table, (None, 0))[0] == originator:
            number = self._owners_next[table][1] + 1  # the table's next hand started: the one after it is next
            # the hand's id follows from the table's hands' namespace (domain.games): no read of the table
            following = self._game(table).hand_id(self._namespaces[table], number)
            self._owners[following], self._owners_next[table] = table, (following, number)
        return table

    def _learn_owners(self) -> None:
        """Learn which table each table's and hand's id belongs to: the tables opened, their hands and the next."""
        self._owners_position = self.app.log_reads.head()
        names = self.app.table_names()
        # one question to the store for every table (PostgreSQL), not a read of each
        with self.app.reads.current_as_of_now([self._game(name).table_class.create_id(name) for name in names]):
            for name in names:
                record = self.app.any_table(name)
                self._owners[record.id] = name
                self._namespaces[name] = record.hands_namespace
                for number in range(self._owners_next.get(name, (None, 0))[1] + 1, record.hands_started + 2):
                    self._owners[record.hand_id(number)] = name
                self._owners_next[name] = (record.hand_id(record.hands_started + 1), record.hands_started + 1)
