"""``pokertable report shift``: the tables' accounts per shift (issue 19, items 3 and 5; docs/accounts.md): opener,
closer, fills and credits signed off, drop, win and hold, against the theoretical win of the bets made and its 99 %
band (R-ACC-5, R-ACC-6), as a table, CSV or JSON, on standard output; how many shifts on standard error.

Shifts are chosen by the time they opened (``--from``, ``--to``: the casino's time, ``--tz``), at one table
(``--table``) or at every table of the floor.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from dataclasses import asdict
from typing import Any
from zoneinfo import ZoneInfo

from service.app.accounts import ShiftReport
from service.bootstrap import open_store
from service.cli.conventions import (
    OK,
    REFUSED,
    USAGE,
    add_period_options,
    add_report_output_options,
    casino_zone,
    epilog,
    fail,
    read_time,
    show_time,
)
from service.spreadsheet import safe_row
from service.store.persistence import DEFAULT_DB, PersistenceUrlError

COLUMNS = ("table", "shift", "game", "opened_at", "state", "hands", "opener", "closer", "fills", "credits", "drop",
           "win", "hold_pct", "expected", "low", "high", "theoretical_hold_pct", "flagged")
"""The columns of the table and CSV formats (JSON has every field of the shift's accounts)."""


def add_parser(subcommands: Any) -> None:
    """Register ``pokertable report shift``."""
    parser = subcommands.add_parser("shift", help="the tables' accounts per shift: win, hold, theoretical hold",
                                    description=__doc__, epilog=epilog("report"))
    parser.add_argument("--table", help="one table (default: every table)")
    add_period_options(parser, since_required=False, until_help="shifts opened before this time", since_help=(
        "shifts opened from this time: '2026-11-25 21:00' (the casino's time, --tz) or ISO 8601 with its offset"))
    add_report_output_options(parser, DEFAULT_DB)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the shifts' accounts (standard output) and how many (standard error)."""
    try:
        zone = casino_zone(args)
        since, until = read_time(args.since, zone), read_time(args.until, zone)
        store = open_store(args.db, must_exist=True)
    except (PersistenceUrlError, ValueError) as error:  # a bad time, zone or database: usage
        return fail("report", error, USAGE)
    with store:
        app = store.app
        try:
            tables = [args.table] if args.table else app.table_names()
            shifts = [shift for table in tables for shift in app.accounts.shifts_between(table, since, until)]
        except Exception as error:  # an unknown table: said plainly
            return fail("report", error, REFUSED)
    if args.format == "json":
        print(json.dumps([asdict(shift) for shift in shifts], indent=2, sort_keys=True))
    elif args.format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(safe_row(row(shift, zone)[column] for column in COLUMNS) for shift in shifts)
    else:
        print_table([row(shift, zone) for shift in shifts])
    sys.stdout.flush()
    print(f"{len(shifts)} shift(s) found", file=sys.stderr)
    return OK


def row(shift: ShiftReport, zone: ZoneInfo) -> dict[str, Any]:
    """A shift's line: its counts, win and hold, and the theoretical win with its band."""
    theory = shift.theoretical
    return {
        "table": shift.table, "shift": shift.shift, "game": shift.game,
        "opened_at": show_time(shift.opened_at, zone), "state": "open" if shift.open else "closed",
        "hands": _hands(shift.first_hand, shift.last_hand), "opener": shift.opener_value,
        "closer": _blank(shift.closer_value), "fills": shift.fills, "credits": shift.credits,
        "drop": shift.drop, "win": _blank(shift.win), "hold_pct": _percent(shift.hold),
        "expected": round(theory.expected), "low": theory.low, "high": theory.high,
        "theoretical_hold_pct": _percent(theory.hold),
        "flagged": "OUTSIDE BAND" if shift.flag is not None or shift.outside_band else "",
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    """Aligned columns, a header first."""
    cells = [list(COLUMNS), *([str(r[c]) for c in COLUMNS] for r in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    for line in cells:
        print("  ".join(cell.rjust(width) if cell[:1].isdigit() or cell[:1] == "-" else cell.ljust(width)
                        for cell, width in zip(line, widths, strict=True)).rstrip())


def _hands(first: int, last: int) -> str:
    """The shift's hands, ``first-last``; none: ``-``."""
    return f"{first}-{last}" if last >= first else "-"


def _blank(value: object) -> object:
    return "" if value is None else value


def _percent(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f}"
