"""The shufflers' integrity from the event log (issue 19, item 1; docs/integrity.md): each shuffler's shuffles, seen
through the shoe, and the monitor's verdict on each of its decks.

The projection reads what the tables stored, nothing else:

- a table's ``HandStarted`` (the hand and its deck's colour) and ``DeviceReported`` events: a ``shuffle`` or a
  ``delivery`` of a colour by an automatic shuffler (not the croupier's ``hand shuffle``) says which shuffler, by
  serial number, shuffled that deck for the next hand dealt from it;
- each hand's ``CardDealt`` events: the cards the shoe read, in order.  Only the reads that leave no doubt about
  the deck's order count: from the first card on, while each is a ``shoe`` read with the next read sequence number;
  a card keyed in by the croupier, a gap in the sequence or discards shuffled back into the stock (R-DRAW-8) ends them.

A **shuffle seen** is then: a hand dealt from a deck of some colour, the previous hand dealt from that colour at the
same table (with a deck of the same size), and a shuffler's report of that colour between them.  Its cards going in
are the previous hand's reads, placed by the gathering setting; its cards coming out are the hand's reads.  A hand
whose deck no automatic shuffler reported (a new deck, a shuffle by hand) starts the count again.

The shuffles seen in a time range (by their hand's start) are grouped by shuffler serial, colour and deck size, in
the order they were made, and each group goes through :class:`domain.integrity.monitor.ShufflerMonitor`, the decks of
the range sharing the false-alarm level (``decks``).  :func:`shuffler_report` is what the service (after a hand, or on
a timer) and ``pokertable report shufflers`` call; :func:`shift_report` is the pit's view of it (``ListShufflers``,
the dashboard's ``/shufflers``): by default the current shift (:func:`shift_start`: shifts of :data:`SHIFT` from
the casino's midnight, 00:00, 08:00 and 16:00 in its time zone, as the service's own watch of the shufflers counts
them), the failed decks first.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol
from uuid import UUID
from zoneinfo import ZoneInfo

from domain.device_reports import HAND_SHUFFLE, is_shuffler_report
from domain.integrity.monitor import FAIL, MonitorResult, MonitorSettings, ShufflerMonitor
from domain.integrity.observations import ShuffleObservation
from domain.shifts import shift_start
from service.app import past
from service.app.access import ServiceError

SHUFFLING_REPORTS = ("shuffle", "delivery")
"""The reports that say a shuffler shuffled a deck (a deck check does not shuffle)."""
class _Log(Protocol):
    """What the projection reads of :class:`service.app.application.PokerTables`."""

    def table_names(self) -> list[str]: ...
    def any_table(self, name: str) -> Any: ...
    @property
    def events(self) -> Any: ...


@dataclass(frozen=True)
class ShuffleSeen:
    """A shuffle seen through the shoe: at which table, by which shuffler, the hand dealt after it, when."""

    table: str
    device: str
    serial: str
    colour: str
    hand: int
    started: datetime
    observation: ShuffleObservation


@dataclass(frozen=True)
class ShufflerVerdict:
    """One shuffler deck's verdict over a time range: the shuffler (serial, model), the deck (colour, size), the
    tables it served and the monitor's result; the cards compared (whose place going in and coming out were both
    known, summed over the shuffles) and the shuffle it first alarmed at (which table, which hand, when)."""

    serial: str
    device: str
    colour: str
    deck_size: int
    tables: tuple[str, ...]
    result: MonitorResult
    cards_compared: int = 0
    alarmed_at: ShuffleSeen | None = None


def shoe_reads(events: Iterable[Any]) -> tuple[str, ...]:
    """The cards a hand's shoe read in order, while nothing puts the deck's order in doubt (module docstring)."""
    cards: list[str] = []
    last: int | None = None
    for stored in events:
        name = type(stored).__name__
        if name == "DiscardsReshuffled":
            break
        if name != "CardDealt":
            continue
        data = vars(stored)
        sequence = data.get("sequence")
        if data.get("source") != "shoe" or sequence is None or (last is not None and sequence != last + 1):
            break
        cards.append(str(data["card"]))
        last = sequence
    return tuple(cards)


@dataclass
class _Deck:
    """What a table knows of one colour's deck between its hands."""

    reads: tuple[str, ...] | None = None
    size: int = 0
    shuffler: tuple[str, str] | None = None


@dataclass
class _Table:
    decks: dict[str, _Deck] = field(default_factory=dict)

    def deck(self, colour: str) -> _Deck:
        return self.decks.setdefault(colour, _Deck())


@dataclass(frozen=True)
class HandReads:
    """What the projection needs of one hand: its deck (size, colour), number, start and the shoe's reads."""

    size: int
    colour: str
    number: int
    started: datetime
    reads: tuple[str, ...]

    @classmethod
    def of(cls, events: list[Any]) -> HandReads:
        """From the hand's stored events."""
        first = vars(events[0])
        return cls(int(first["deck"]["size"]), str(first["deck"]["colour"]), int(first["number"]),
                   events[0].timestamp, shoe_reads(events))


LOOK_BACK = 64
"""The most hands before a range a table's decks are looked for (R-DECK-2: its red and blue decks alternate, so both
are found in the last two hands; a deck out of play longer than this starts its count again in the range)."""
FINISHED_HANDS_KEPT = 100_000
"""Finished hands whose reads each application keeps (a few hundred bytes each): a full floor's week."""
_FINISHED: weakref.WeakKeyDictionary[object, dict[UUID, HandReads]] = weakref.WeakKeyDictionary()


def _finished_hands(app: _Log) -> dict[UUID, HandReads]:
    """The reads of an application's finished hands, kept: a hand followed by another at its table has ended, and
    nothing is dealt in a hand that has ended, so its reads never change.  The pit's page asks for the whole shift
    again as hands go on: only the tables' own events and each table's last hand are read again."""
    try:
        return _FINISHED.setdefault(app, {})
    except TypeError:  # an object no weak reference can name: nothing kept
        return {}


def shuffles_seen(app: _Log, *, since: datetime | None = None, until: datetime | None = None,
                  tables: Iterable[str] | None = None) -> list[ShuffleSeen]:
    """Every shuffle seen at the tables (all of them by default) whose next hand started in the range, in order."""
    seen: list[ShuffleSeen] = []
    finished = _finished_hands(app)
    for name in tables if tables is not None else app.table_names():
        record = app.any_table(name)
        state = _Table()
        events = _table_events(app, record, since)
        started = [vars(stored)["hand_id"] for stored in events if type(stored).__name__ == "HandStarted"]
        last = started[-1] if started else None
        for stored in events:
            kind = type(stored).__name__
            data = vars(stored)
            if kind == "DeviceReported" and data["kind"] in SHUFFLING_REPORTS:
                shuffled = is_shuffler_report(data["device"], data["kind"])
                if shuffled or data["device"] == HAND_SHUFFLE:
                    state.deck(data["colour"]).shuffler = (data["device"], data["serial"]) if shuffled else None
            elif kind == "HandStarted" and data.get("deck_colour"):
                hand_id = data["hand_id"]
                hand = finished.pop(hand_id, None)  # kept, it goes back as the most recently used
                if hand is not None:
                    finished[hand_id] = hand
                else:
                    hand = HandReads.of(list(app.events.get(hand_id)))
                    if hand_id != last:  # a later hand started at this table: this one has ended
                        if len(finished) >= FINISHED_HANDS_KEPT:  # the least recently used goes
                            del finished[next(iter(finished))]
                        finished[hand_id] = hand
                found = _hand_started(name, state.deck(data["deck_colour"]), hand, since=since, until=until)
                if found is not None:
                    seen.append(found)
    return sorted(seen, key=lambda shuffle: shuffle.started)


def _table_events(app: _Log, record: Any, since: datetime | None) -> list[Any]:
    """The table's events a range from ``since`` needs (issue 30, item 1): from the start of the last hand of each
    colour before the range's first hand (what those hands read is what the range's first shuffles took in; what
    came before them counts for nothing in the range), found by bisection over the hands' numbers and the table's
    versions, each narrowed first by the floor's hands index to the hands around ``since``; every event with no
    ``since``, or on a store that cannot locate an event (in memory)."""
    queries: Any = app  # the application's (service.app.queries): a log of another kind reads every event
    if since is None or not hasattr(queries, "recorder") or not past.locates(queries) or record.hands_started == 0:
        return list(app.events.get(record.id))

    def first_event(number: int) -> Any:
        return next(iter(app.events.get(record.hand_id(number), lte=1)))

    low, high = 1, record.hands_started + 1  # the first hand started at or after since
    floor = getattr(queries, "floor_log", None)
    if floor is not None and floor.store.ready:  # narrowed by the hands index, each end checked against the log
        before, after = floor.store.hands_index.around(record.name, since)
        if before is not None and 1 <= before.number < high and first_event(before.number).timestamp < since:
            low = before.number + 1
        if after is not None and low <= after.number < high and first_event(after.number).timestamp >= since:
            high = after.number
    while low < high:
        middle = (low + high) // 2
        if first_event(middle).timestamp < since:
            low = middle + 1
        else:
            high = middle
    earliest, missing, number = low, {"red", "blue"}, low - 1
    while number >= max(1, low - LOOK_BACK) and missing:  # back to the last hand of each colour before it
        missing.discard(str(vars(first_event(number))["deck"]["colour"]))
        earliest, number = number, number - 1
    if earliest > record.hands_started:
        return []  # no hand in the range
    hand_id = record.hand_id(earliest)
    found = past.version_at(queries, record.id, record.version, queries.recorder.position_of(hand_id, 1) - 1, None,
                            table=record.name)
    events = list(app.events.get(record.id, gt=found[0] - 1 if found is not None else None))
    for index, stored in enumerate(events):  # from that hand's start: nothing before it counts in the range
        if type(stored).__name__ == "HandStarted" and vars(stored)["hand_id"] == hand_id:
            return events[index:]
    return events


def _hand_started(table: str, deck: _Deck, hand: HandReads, *, since: datetime | None,
                  until: datetime | None) -> ShuffleSeen | None:
    """The shuffle before this hand, if it was seen; the deck's record moved on to this hand."""
    found = None
    in_range = (since is None or hand.started >= since) and (until is None or hand.started <= until)
    if deck.reads is not None and deck.shuffler is not None and deck.size == hand.size and hand.reads and in_range:
        found = ShuffleSeen(table, deck.shuffler[0], deck.shuffler[1], hand.colour, hand.number, hand.started,
                            ShuffleObservation(hand.size, deck.reads, hand.reads))
    deck.reads, deck.size, deck.shuffler = hand.reads, hand.size, None  # the next hand of this colour: its own shuffle
    return found


def shuffler_report(app: _Log, *, since: datetime | None = None, until: datetime | None = None,
                    settings: MonitorSettings | None = None, decks: int | None = None) -> list[ShufflerVerdict]:
    """Each shuffler deck's verdict over the shuffles seen in the range (every table): by serial, colour and deck
    size.  The false-alarm level is shared by the ``decks`` shuffler decks of the floor (default: those seen)."""
    chosen = settings or MonitorSettings()
    groups: dict[tuple[str, str, int], list[ShuffleSeen]] = {}
    for shuffle in shuffles_seen(app, since=since, until=until):
        groups.setdefault((shuffle.serial, shuffle.colour, shuffle.observation.deck_size), []).append(shuffle)
    floor = decks if decks is not None else len(groups)
    verdicts = []
    for (serial, colour, size), shuffles in sorted(groups.items()):
        monitor = ShufflerMonitor(size, chosen, floor)
        compared = 0
        for shuffle in shuffles:
            sample = shuffle.observation.sample(chosen.gathering)
            compared += len(sample.pairs)
            monitor.add(sample)
        result = monitor.result()
        verdicts.append(ShufflerVerdict(serial, shuffles[-1].device, colour, size,
                                        tuple(dict.fromkeys(shuffle.table for shuffle in shuffles)), result,
                                        compared, shuffles[result.alarm_at - 1] if result.alarm_at else None))
    return verdicts


class ShiftRangeError(ServiceError):
    """A range of the shufflers' report that cannot be: it ends before it starts, or no deck shares the level."""


@dataclass(frozen=True)
class ShiftReport:
    """The pit's view of the shufflers (``ListShufflers``): the range judged, the monitor's settings, how many
    shuffler decks of the floor share its level, and each deck's verdict, the failed ones first."""

    since: datetime
    until: datetime
    settings: MonitorSettings
    decks: int
    verdicts: tuple[ShufflerVerdict, ...]


def shift_report(app: _Log, *, since: datetime | None = None, until: datetime | None = None,
                 settings: MonitorSettings | None = None, decks: int | None = None, now: datetime | None = None,
                 zone: ZoneInfo | None = None) -> ShiftReport:
    """Every shuffler deck's verdict over a range, by default the current shift: from the start of the shift
    ``until`` (default ``now``) falls in, in the casino's time ``zone`` (UTC if none), to ``until``; failed decks
    first, then by serial, colour and deck size.  :class:`ShiftRangeError` (R-DECK-2) for a range that ends before
    it starts or fewer than one deck sharing the level.

    >>> from eventsourcing.application import Application
    >>> class Empty(Application):
    ...     def table_names(self): return []
    >>> report = shift_report(Empty(), now=datetime(2026, 11, 25, 22, 0, tzinfo=UTC), zone=ZoneInfo("Europe/Madrid"))
    >>> report.since.isoformat(), report.decks, report.verdicts
    ('2026-11-25T16:00:00+01:00', 0, ())
    >>> shift_report(Empty(), decks=0)
    Traceback (most recent call last):
    ...
    service.app.shufflers.ShiftRangeError: the level is shared by at least one shuffler deck (R-DECK-2)
    """
    if decks is not None and decks < 1:
        raise ShiftRangeError("the level is shared by at least one shuffler deck", rule="R-DECK-2")
    until = until or now or datetime.now(UTC)
    since = since or shift_start(until, zone or ZoneInfo("UTC"))
    if until < since:
        raise ShiftRangeError("the range ends before it starts", rule="R-DECK-2")
    chosen = settings or MonitorSettings()
    verdicts = shuffler_report(app, since=since, until=until, settings=chosen, decks=decks)
    failed = [verdict for verdict in verdicts if verdict.result.verdict == FAIL]
    return ShiftReport(since, until, chosen, decks if decks is not None else len(verdicts),
                       (*failed, *(verdict for verdict in verdicts if verdict.result.verdict != FAIL)))
