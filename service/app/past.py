"""A table's past, read at a cost bounded by the table's own history, not the log's (issue 8's history, issue 30,
item 1; docs/architecture.md, "Reads bounded by the work at hand").

An aggregate's versions are stored in order and timed in order (its commands are applied one at a time, under its
table's lock), and a table's hands start one after another: so the version of a table at a log position or a time,
and the hands a table started in a time range, are found by bisection (:func:`version_at`,
:func:`hands_started_within`), a few point reads whatever the log's length. A store that cannot locate an event by
its aggregate (the in-memory one) replays the log instead (:func:`table_at_replayed`, also what the tests hold the
bounded answer to).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, cast
from uuid import UUID

from domain.games import game_of
from service.app.access import NotFoundError
from service.store.persistence import notifications

if TYPE_CHECKING:
    from service.app.reads import Reads


class Store(Protocol):
    """What the past is read from: the application's store and its reads (:class:`service.app.application.
    PokerTables` is one)."""

    @property
    def reads(self) -> Reads: ...
    @property
    def recorder(self) -> Any: ...
    @property
    def mapper(self) -> Any: ...
    @property
    def events(self) -> Any: ...
    @property
    def floor_log(self) -> Any: ...


__all__ = ["hands_started_within", "locates", "table_at", "table_at_replayed", "version_at"]


def locates(app: Store) -> bool:
    """Whether ``app``'s store finds an aggregate's event by its version (the chained stores: SQLite, PostgreSQL)."""
    return hasattr(app.recorder, "position_of")


def version_at(app: Store, aggregate_id: UUID, latest: int, position: int | None,
               moment: datetime | None, *, table: str | None = None) -> tuple[int, int, datetime] | None:
    """The last version of an aggregate (its versions 1 to ``latest``) stored at or before log ``position`` and timed
    at or before ``moment`` (each if given), with its position and time; ``None`` if its first is later. A version
    probed is read once, and only for what the bounds ask: its position for ``position``, its event (its time) for
    ``moment`` (a table at a log position is a point read a probe; the version found is read whole).

    For a ``table`` (its name: the aggregate is that table), the bisection starts from the versions of its hand
    starts around the bound, as the floor's hands index places them (:func:`_around`): a few probes between two hands
    rather than over the table's whole life. The index only narrows the search: each end is checked against the log
    first, and the whole range is searched if either is not what the index said."""
    recorder: Any = app.recorder
    positions: dict[int, int] = {}
    times: dict[int, datetime] = {}

    def position_of(version: int) -> int:
        if version not in positions:
            positions[version] = int(recorder.position_of(aggregate_id, version))
        return positions[version]

    def time_of(version: int) -> datetime:
        if version not in times:
            [stored] = app.events.get(aggregate_id, gt=version - 1, lte=version)
            times[version] = cast(Any, stored).timestamp
        return times[version]

    def event_at(version: int) -> tuple[int, datetime]:
        return position_of(version), time_of(version)

    def within(version: int) -> bool:
        return (position is None or position_of(version) <= position) and (moment is None
                                                                           or time_of(version) <= moment)

    low, high = 0, latest  # within(low) holds (0: before the first), within(high + 1) does not
    around = _around(app, table, aggregate_id, latest, position=position, moment=moment) if table else None
    if around is not None:
        before, after = around  # checked against the log: a wrong hint costs a probe, never a wrong version
        if before is not None and within(before):
            low = before
        if after is not None and after > low and not within(after):
            high = after - 1
    if high > low:  # the last first: a table at its present is one probe
        if within(high):
            low = high
        else:
            high -= 1
    while low < high:
        middle = (low + high + 1) // 2
        if within(middle):
            low = middle
        else:
            high = middle - 1
    if low == 0:
        return None
    return (low, *event_at(low))


def _around(app: Store, table: str, aggregate_id: UUID, latest: int, *, position: int | None,
            moment: datetime | None) -> tuple[int | None, int | None] | None:
    """The table's versions at its hand starts nearest the bound (``position``, ``moment``), by the floor's hands
    index (:meth:`service.store.hands_index.HandsIndex.around`), each then placed in the log by one
    point read of its position; ``None`` with no index to ask (a store opened read-only before it existed). A log
    position is first told as a time: the time of the event at it (the log is timed in log order, issue 29)."""
    floor = getattr(app, "floor_log", None)
    recorder: Any = app.recorder
    if floor is None or not floor.store.ready or not hasattr(recorder, "event_at"):
        return None
    at = moment
    if position is not None:
        [stored] = recorder.select_notifications(start=position, limit=1) or [None]
        if stored is not None:  # an event at or after the position: no hand started later than it came before it
            found: Any = app.mapper.to_domain_event(stored)
            time: datetime = found.timestamp
            at = time if at is None else min(at, time)
    if at is None:
        return None
    versions: list[int | None] = []
    for found in floor.store.hands_index.around(table, at):
        event = recorder.event_at(found.position) if found is not None else None
        versions.append(event[1] if event is not None and event[0] == aggregate_id and event[1] <= latest else None)
    return versions[0], versions[1]


@dataclass(frozen=True)
class PastTable:
    """A table as it stood at a past moment: where in the log and when, its game's own state then
    (:attr:`domain.games.Game.table_state`) and its hand in progress then (:attr:`domain.games.Game.state`: the
    pit's copy, every card; a station is shown it through the visibility policy, :mod:`service.app.table_views`)."""

    table: str
    game: str
    position: int
    time: datetime | None
    hands_started: int
    dealer: str
    language: str
    state: Mapping[str, Any]
    hand: Mapping[str, Any] | None


def table_at(app: Store, table: str, position: int | None, moment: datetime | None) -> PastTable:
    """A table of any game as it stood after log ``position`` or at the time ``moment``: its last version then
    (:func:`version_at`), loaded from its nearest snapshot, and its hand in progress then at that hand's version
    then; on a store that cannot locate events, the log replayed (:func:`table_at_replayed`)."""
    if not locates(app):
        return table_at_replayed(app, table, position, moment)
    current = app.reads.any_table(table)
    found = version_at(app, current.id, current.version, position, moment, table=table)
    if found is None:
        raise NotFoundError(f"the table {table!r} did not exist yet then")
    version, last_position, last_time = found
    record: Any = app.reads.fetch(current.id, version)
    hand = None
    if record.hand_in_progress is not None:
        latest = app.reads.any_hand(record.hand_in_progress)
        at = version_at(app, latest.id, latest.version, position, moment)
        if at is not None:
            hand = app.reads.any_hand(latest.id, at[0])
            if at[1] > last_position:
                last_position, last_time = at[1], at[2]
    return _view(record, hand, last_position, last_time)


def table_at_replayed(app: Store, table: str, position: int | None, moment: datetime | None) -> PastTable:
    """:func:`table_at` by replaying the whole log up to the cutoff (the table's and its hands' events)."""
    current = app.reads.any_table(table)
    ours = {current.id, *app.reads.hands_of(table)}
    rebuilt: dict[UUID, Any] = {}
    last_position, last_time = 0, None
    for notification in notifications(app.recorder, stop=position):
        if notification.originator_id not in ours:
            continue
        event: Any = app.mapper.to_domain_event(notification)
        if moment is not None and event.timestamp > moment:
            break
        rebuilt[event.originator_id] = event.mutate(rebuilt.get(event.originator_id))
        last_position, last_time = notification.id, event.timestamp
    record = rebuilt.get(current.id)
    if record is None:
        raise NotFoundError(f"the table {table!r} did not exist yet then")
    hand = rebuilt.get(record.hand_in_progress) if record.hand_in_progress else None
    return _view(record, hand, last_position, last_time)


def _view(record: Any, hand: Any, position: int, time: datetime | None) -> PastTable:
    """The table as it stood: where in the log and when, its game's state, and the hand in progress (the pit's copy:
    every card)."""
    game = game_of(record)
    return PastTable(record.name, game.code, position, time, record.hands_started, str(record.dealer_id),
                     record.language, game.table_state(record), game.state(hand) if hand is not None else None)


def hands_started_within(app: Store, table: str, since: datetime | None,
                         until: datetime | None) -> list[UUID]:
    """The ids of the table's hands that may have started in ``[since, until]``, oldest first: found by bisection
    over the hands' numbers (their start times rise with them): the hands outside the range are neither read nor
    named."""
    with app.reads.locks(table):
        record = app.reads.any_table(table)

    def started(number: int) -> datetime:
        [first] = app.events.get(record.hand_id(number), lte=1)
        moment: datetime = cast(Any, first).timestamp
        return moment

    def first_number(later: Callable[[datetime], bool]) -> int:  # the first hand whose start is ``later``
        low, high = 1, record.hands_started + 1
        while low < high:
            middle = (low + high) // 2
            if later(started(middle)):
                high = middle
            else:
                low = middle + 1
        return low

    first = first_number(lambda at: at >= since) if since is not None else 1
    end = first_number(lambda at: at > until) if until is not None else record.hands_started + 1
    return [record.hand_id(number) for number in range(first, end)]
