"""The shift report's figures (issue 34, item 6; docs/pit.md, "Shift report"): every table's hands, voids, rake or
bank results and irregularities over a time range, read from the floor's projection in one snapshot (the hands index
summed by table, the alerts counted by table: :meth:`service.store.floor_store.FloorStore.shift_figures`), and each
table's open or last shift's accounts (:mod:`service.app.accounts`, whose theoretical win is counted once a hand).

Nothing here reads the log: a report at the end of a week costs what it costs at its start, the range's rows (the
dashboard had asked the service three questions a table, the hands of each one read and summed in the browser's
server, 1.0–1.1 s at 200 tables after five minutes of play).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.accounts import ShiftBook
from domain.banked.table import BankedTable
from domain.circle.table import Table
from domain.games import Game, game_of
from service.app.access import NotFoundError, PreconditionError
from service.app.accounts import ShiftReport
from service.store.hands_index import HandsFigures


@dataclass(frozen=True)
class TableFigures:
    """One table's line of the report."""

    table: str
    game: Game
    hands: HandsFigures
    irregularities: int
    accounts: ShiftReport | None
    """Its open or last shift's accounts; None without a shift, or where the reader may not read them (R-ACC-5)."""


def shift_report(app: Any, since: datetime, until: datetime,
                 reads_accounts: Callable[[str], bool]) -> tuple[int, list[TableFigures]]:
    """The log position the projection answers as of, and a line for each table open now or with hands or alerts
    in ``[since, until]``, in opening order. ``reads_accounts``: whether the reader may read a table's accounts."""
    floor = app.floor_log
    position = floor.catch_up()
    hands, alerts = floor.store.shift_figures(since, until)
    names = [row.name for row in floor.store.tables()]
    lines = []
    # on PostgreSQL one question to the store for all the tables and their shift books (which changed since they
    # were cached); each table read under its lock from the cached objects themselves, not copies (the sole writer's)
    with app.reads.current_as_of_now([key for name in names for key in (
            Table.create_id(name), BankedTable.create_id(name), ShiftBook.create_id(name))]):
        for name in names:
            with app.reads.peeking(name):
                line = _line(app, name, hands, alerts, reads_accounts)
            if line is not None:
                lines.append(line)
    return position, lines


def _line(app: Any, name: str, hands: dict[str, HandsFigures], alerts: dict[str, int],
          reads_accounts: Callable[[str], bool]) -> TableFigures | None:
    """A table's line; None for a table closed before the range with nothing in it."""
    try:
        record = app.any_table(name)
    except NotFoundError:  # its opening is in the projection and not in the log: the floor check says so
        return None
    if record.closed and name not in hands and name not in alerts:
        return None
    accounts = None
    if reads_accounts(name):
        try:
            accounts = app.accounts.shift_accounts(name)
        except (NotFoundError, PreconditionError):  # no shift opened at the table yet
            accounts = None
    return TableFigures(name, game_of(record), hands.get(name, HandsFigures(name)), alerts.get(name, 0), accounts)
