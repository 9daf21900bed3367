"""``pokertable report watched``: who watched which hand's face-down cards live, and when (issue 29, item 7).

The service records each person's first live look at a hand's face-down cards (the pit's dashboard, the pit's
station; R-AUD-1): who (the station it authenticated, and its role), which table and hand, through which call, when
(docs/audit.md, "Who watched the hole cards").  This report reads those records alone, a day at a time (UTC), only
the days of the range: never the rest of the log.  ``--from``/``--to`` without an offset are the casino's local time
(``--tz``, docs/cli.md); ``--to`` defaults to now; ``--table T``: that table's only.  ``--format table`` (aligned
columns, default), ``csv`` (a header line, then one line a view) or ``json`` (times in the casino's zone).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from domain.hole_card_views import HoleCardView
from service.bootstrap import open_store
from service.cli.conventions import (
    OK,
    USAGE,
    add_period_options,
    add_report_output_options,
    casino_zone,
    epilog,
    fail,
    read_time,
    show_time,
)
from service.spreadsheet import safe_mapping
from service.store.persistence import DEFAULT_DB, PersistenceUrlError

COLUMNS = ("time", "viewer", "role", "table", "hand", "via", "hand_id")


def add_parser(reports: Any) -> None:
    """Register ``watched`` under ``pokertable report``."""
    parser = reports.add_parser("watched", help="who watched which hand's face-down cards live, and when",
                                description=__doc__, epilog=epilog("report"),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_period_options(parser)
    parser.add_argument("--table", metavar="T", help="this table's views only (default: every table's)")
    add_report_output_options(parser, DEFAULT_DB)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the views of the period (standard output); their count and errors on standard error."""
    try:
        zone = casino_zone(args)
        since, until = read_time(args.since, zone), read_time(args.until, zone) or datetime.now(UTC)
        if since is None or until <= since:
            raise ValueError("--to is after --from")
        store = open_store(args.db, must_exist=True)
    except (PersistenceUrlError, ValueError) as error:  # a bad time, zone or database (SettingsError too)
        return fail("report watched", error, USAGE)
    with store:
        views = store.app.hole_cards.views(since, until, args.table or None)
    rows = rows_of(views, zone)
    if args.format == "json":
        print(json.dumps({"report": "watched", "from": show_time(since, zone), "to": show_time(until, zone),
                          "table": args.table or None, "views": rows}, indent=2, ensure_ascii=False))
    elif args.format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(safe_mapping(row) for row in rows)  # a name a person chose is never a formula
    else:
        print(table_text(rows))
    sys.stdout.flush()
    print(f"{len(rows)} view(s) from {show_time(since, zone)} to {show_time(until, zone)}", file=sys.stderr)
    return OK


def rows_of(views: Sequence[HoleCardView], zone: ZoneInfo) -> list[dict[str, Any]]:
    """One row a view, its time in the casino's ``zone``, oldest first."""
    return [{"time": show_time(view.at, zone), "viewer": view.viewer, "role": view.role, "table": view.table,
             "hand": view.hand_number, "via": view.via, "hand_id": view.hand_id}
            for view in sorted(views, key=lambda view: view.at)]


def table_text(rows: list[dict[str, Any]]) -> str:
    """The rows as aligned columns under a header.

    >>> print(table_text([{"time": "2026-11-27 22:15:03+01:00", "viewer": "pit", "role": "pit-boss",
    ...                    "table": "Mesa 1", "hand": 12, "via": "GetTable", "hand_id": "4f0c"}]))
    time                       viewer  role      table   hand  via       hand_id
    2026-11-27 22:15:03+01:00  pit     pit-boss  Mesa 1    12  GetTable  4f0c
    """
    cells = [[str(row[column]) for column in COLUMNS] for row in rows]
    widths = [max([len(column), *(len(line[i]) for line in cells)]) for i, column in enumerate(COLUMNS)]
    hand = COLUMNS.index("hand")
    lines = ["  ".join(column.ljust(width) for column, width in zip(COLUMNS, widths, strict=True)).rstrip()]
    for line in cells:
        lines.append("  ".join(text.rjust(width) if i == hand else text.ljust(width)
                               for i, (text, width) in enumerate(zip(line, widths, strict=True))).rstrip())
    return "\n".join(lines)
