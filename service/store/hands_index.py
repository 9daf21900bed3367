"""The floor's hands index (issue 30, item 1): every hand by id in ``pokertable_floor_hands``, with its table, number,
start, the log position of its table's ``HandStarted``, whether it ended, its outcome, seats (or boxes) and its
summary, indexed by table and start, by table and outcome, and by start. :mod:`service.store.floor_store` writes it
with the rest of the floor's projection; :class:`HandsIndex` is what reads it: a search's hands, a hand's table, and
the hints that narrow the reads of a table's past (:mod:`service.app.past`), each checked against the log by its
caller.

Times are kept as ISO 8601 text in UTC (:func:`stamp`), which sorts as time does; a summary as JSON that reads back
as it was (:func:`encoded`, :func:`decoded`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

SLACK = timedelta(seconds=1)
"""How far a hand's start in the index may be from its own first event's (a hand not ended yet)."""

Cursor = Callable[..., AbstractContextManager[Any]]
"""A read of the store's own tables (:meth:`service.store.floor_store.FloorStore._cursor`), ``{hands}`` naming the
index's table."""


def stamp(moment: datetime) -> str:
    """A time as the tables keep it: ISO 8601 in UTC, to the microsecond (sorts as time does)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _stamped(moment: datetime, by: timedelta) -> str | None:
    """``moment`` moved by ``by``, as the tables keep it; None past the first or the last time there is (a request
    may ask for either).

    >>> _stamped(datetime.min.replace(tzinfo=UTC), -SLACK) is None, _stamped(datetime.max.replace(tzinfo=UTC), SLACK)
    (True, None)
    """
    try:
        return stamp(moment + by)
    except OverflowError:
        return None


@dataclass(frozen=True)
class HandRow:
    """A hand as the index keeps it (``summary``: what a search lists, once the hand ended; None before)."""

    hand_id: str
    table: str
    number: int
    started: datetime
    ended: bool
    summary: dict[str, Any] | None


@dataclass(frozen=True)
class HandMark:
    """Where a hand starts, as the index says: its number at its table, and the log position of its table's
    ``HandStarted``."""

    number: int
    position: int


class HandsIndex:
    """The reads of the hands index, through the floor store's ``cursor`` (one statement's reads) and ``snapshot``
    (several reads that see one moment)."""

    def __init__(self, cursor: Cursor, snapshot: Callable[[], AbstractContextManager[Any]]) -> None:
        self._cursor, self._snapshot = cursor, snapshot

    def table_of(self, hand_id: str) -> str | None:
        """A hand's table, if its start was followed."""
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT table_name FROM {hands} WHERE hand_id = ?", (hand_id,))
            row = cursor.fetchone()
        return str(row["table_name"]) if row else None

    def hands(self, table: str, *, since: datetime | None, until: datetime | None, outcome: str | None,
              seat: int | None) -> list[HandRow]:
        """The hands of ``table`` started in ``[since, until]``, give or take :data:`SLACK` (the caller checks each
        hand's own start: an ended hand's row holds it, a hand not ended yet holds its table's event's), ended ones
        of ``outcome`` with ``seat`` dealt in, in number order."""
        where, values = ["table_name = ?"], [table]
        if since is not None and (low := _stamped(since, -SLACK)) is not None:
            where.append("started >= ?")
            values.append(low)
        if until is not None and (high := _stamped(until, SLACK)) is not None:
            where.append("started <= ?")
            values.append(high)
        if outcome is not None:
            where.append("outcome IN (?, '')")  # a hand not ended yet has no outcome: its own path decides
            values.append(outcome)
        if seat is not None:
            where.append("(ended = 0 OR seats LIKE ?)")
            values.append(f"%,{seat},%")
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT hand_id, table_name, number, started, ended, summary FROM {hands} WHERE "
                           + " AND ".join(where) + " ORDER BY number", tuple(values))
            return [HandRow(str(row["hand_id"]), str(row["table_name"]), int(row["number"]),
                            datetime.fromisoformat(str(row["started"])), bool(row["ended"]),
                            decoded(row["summary"]) if row["ended"] else None) for row in cursor.fetchall()]

    def mark_of(self, hand_id: str) -> HandMark | None:
        """Where a hand starts, if its start was followed (one read by the hand's id)."""
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT number, position FROM {hands} WHERE hand_id = ?", (hand_id,))
            return _mark(cursor.fetchone())

    def ended_since(self, table: str, since: datetime) -> dict[int, IndexedHand]:
        """The hands of ``table`` started since ``since`` (give or take :data:`SLACK`) that the index saw end, by
        number, with what a shift's accounts add up of each (one seek of the index by table and start): the
        caller reads the others, and those the index keeps less of, from the log."""
        where, values = "table_name = ? AND ended = 1", [table]
        if (low := _stamped(since, -SLACK)) is not None:
            where += " AND started >= ?"
            values.append(low)
        with self._cursor(commit=False) as cursor:
            cursor.execute(f"SELECT number, outcome, house, stakes FROM {{hands}} WHERE {where}", tuple(values))
            return {int(row["number"]): IndexedHand(
                int(row["number"]), str(row["outcome"]), None if row["house"] is None else int(row["house"]),
                None if row["stakes"] is None else tuple(json.loads(str(row["stakes"]))))
                for row in cursor.fetchall()}

    def around(self, table: str, moment: datetime) -> tuple[HandMark | None, HandMark | None]:
        """The table's hands nearest ``moment``: the last started at least :data:`SLACK` before it and the first
        started more than :data:`SLACK` after it (None where there is none): two seeks of the index by table and
        start. A hint, never an answer: the caller checks each against the log (:func:`service.app.past.version_at`),
        so a row that is wrong costs a read, not a wrong answer."""
        found: list[HandMark | None] = []
        with self._snapshot() as cursor:
            for where, order, by in (("<=", "DESC", -SLACK), (">", "ASC", SLACK)):
                bound = _stamped(moment, by)
                if bound is None:  # none before the first time there is, none after the last
                    found.append(None)
                    continue
                cursor.execute(f"SELECT number, position FROM {{hands}} WHERE table_name = ? AND started {where} ? "
                               f"ORDER BY started {order} LIMIT 1", (table, bound))
                found.append(_mark(cursor.fetchone()))
        return found[0], found[1]

    def last_before(self, moment: datetime) -> HandMark | None:
        """The last hand any table started at least :data:`SLACK` before ``moment`` (one seek of the index by
        start), or None: a hint the caller checks against the log, as :meth:`around`'s."""
        if (bound := _stamped(moment, -SLACK)) is None:
            return None
        with self._cursor(commit=False) as cursor:
            cursor.execute("SELECT number, position FROM {hands} WHERE started <= ? ORDER BY started DESC LIMIT 1",
                           (bound,))
            return _mark(cursor.fetchone())


@dataclass(frozen=True)
class IndexedHand:
    """An ended hand as a shift's accounts add it up: its outcome, the house's take (:func:`house_of`) and, for a
    settled banked hand, each settled box's stakes by spot in box order (None where the index kept none: a hand
    kept by an earlier version)."""

    number: int
    outcome: str
    house: int | None
    stakes: tuple[dict[str, int], ...] | None


@dataclass(frozen=True)
class HandsFigures:
    """A table's hands started in a time range, summed up by the index (the shift report): how many, how many
    voided, the circle hands' rake, and each banked hand's bank result by hand number, in order."""

    table: str
    hands: int = 0
    voids: int = 0
    rake: int = 0
    results: tuple[tuple[int, int], ...] = ()


def figures(cursor: Any, since: datetime, until: datetime) -> dict[str, HandsFigures]:
    """Every table's :class:`HandsFigures` for the hands started in ``[since, until]``: one aggregate over the index
    by start and one read of the banked hands' results — the range's hands, whatever the log's length. A row kept
    before the house's take had its column (NULL) is summed up from its summary (:func:`house_of`)."""
    low, high = _stamped(since, timedelta(0)) or "", _stamped(until, timedelta(0)) or "9999"
    cursor.execute("SELECT table_name, COUNT(*) AS hands, SUM(CASE WHEN outcome = 'voided' THEN 1 ELSE 0 END) AS "
                   "voids, SUM(CASE WHEN outcome IN ('showdown', 'uncontested') THEN house ELSE 0 END) AS rake, "
                   "SUM(CASE WHEN ended = 1 AND house IS NULL AND outcome IN ('showdown', 'uncontested', 'settled') "
                   "THEN 1 ELSE 0 END) AS unsummed FROM {hands} WHERE started >= ? AND started <= ? "
                   "GROUP BY table_name", (low, high))
    totals = {str(row["table_name"]): [int(row["hands"]), int(row["voids"] or 0), int(row["rake"] or 0),
                                       int(row["unsummed"] or 0)] for row in cursor.fetchall()}
    cursor.execute("SELECT table_name, number, outcome, house, CASE WHEN house IS NULL THEN summary ELSE '' END AS "
                   "summary FROM {hands} WHERE started >= ? AND started <= ? AND (outcome = 'settled' OR (ended = 1 "
                   "AND house IS NULL AND outcome IN ('showdown', 'uncontested'))) ORDER BY table_name, number",
                   (low, high))
    results: dict[str, list[tuple[int, int]]] = {}
    for row in cursor.fetchall():
        table, house = str(row["table_name"]), row["house"]
        taken = int(house) if house is not None else house_of(decoded(str(row["summary"])))
        if taken is None:
            continue
        if row["outcome"] == "settled":
            results.setdefault(table, []).append((int(row["number"]), taken))
        else:  # a circle hand kept before its column: its rake added here
            totals[table][2] += taken
    return {table: HandsFigures(table, hands, voids, rake, tuple(results.get(table, ())))
            for table, (hands, voids, rake, _) in totals.items()}


def house_of(summary: Mapping[str, Any]) -> int | None:
    """What the house took of an ended hand, as its summary says: a circle hand's rake (R-CIRC-12; for a hand summed
    up before the rake was kept, what the seats' nets leave), a banked hand's bank result (the opposite of the boxes'
    nets); None for a hand voided, passed blank (its pot is carried, not raked: R-DRAW-3) or not ended.

    >>> house_of({"outcome": "showdown", "net": {1: 9, 2: -10}, "rake": 1}), house_of({"outcome": "settled",
    ...     "net": {1: 20, 2: -10}}), house_of({"outcome": "blank", "net": {}})
    (1, -10, None)
    """
    outcome = summary.get("outcome")
    left = -sum(int(net) for net in dict(summary.get("net", {})).values())
    if outcome == "settled":
        return left
    if outcome in ("showdown", "uncontested"):
        rake = summary.get("rake")
        return int(rake) if rake is not None else left
    return None


def _mark(row: Any) -> HandMark | None:
    return HandMark(int(row["number"]), int(row["position"])) if row else None


_INT_KEYS = "\u0000int-keys"
"""How a summary's mapping keyed by numbers (a seat's net result) is kept in JSON, whose keys are text."""


def encoded(value: Any) -> str:
    """A hand's summary as JSON that :func:`decoded` reads back as it was (numbers as keys kept numbers).

    >>> decoded(encoded({"net": {1: -2, 3: 2}, "seats": [1, 3]}))
    {'net': {1: -2, 3: 2}, 'seats': [1, 3]}
    """
    def plain(item: Any) -> Any:
        if isinstance(item, dict):
            if item and all(isinstance(key, int) for key in item):
                return {_INT_KEYS: [[key, plain(inner)] for key, inner in item.items()]}
            return {str(key): plain(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [plain(inner) for inner in item]
        return item if item is None or isinstance(item, bool | int | str) else str(item)

    return json.dumps(plain(value), sort_keys=True)


def decoded(text: str) -> dict[str, Any]:
    """A summary as :func:`encoded` kept it."""
    def hook(item: dict[str, Any]) -> Any:
        return {key: inner for key, inner in item[_INT_KEYS]} if set(item) == {_INT_KEYS} else item

    found: dict[str, Any] = json.loads(text, object_hook=hook)
    return found
