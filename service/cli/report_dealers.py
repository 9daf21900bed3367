"""``pokertable report dealers``: each dealer's hands per hour and irregularities over a period (issue 19, item 4).

From the store's log alone (:mod:`domain.dealer_figures`): a dealer deals at a table from his sign-in until he signs
out, the next dealer signs in (a rotation) or the table closes; the hands started meanwhile, the voids, the
corrections and the exposed cards are his.  ``--from``/``--to`` without an offset are the casino's local time
(``--tz``, docs/cli.md); ``--to`` defaults to now.  ``--format table`` (aligned columns, default), ``csv`` (a header
line, then one line a dealer) or ``json`` (the dealers and the rotations of the period, times in the casino's zone).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from domain.dealer_figures import DealerReport
from service.app.dealer_report import dealer_report
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

COLUMNS = ("dealer", "name", "tables", "hours", "hands", "hands_per_hour", "voids", "corrections", "exposed",
           "irregularities")
NOBODY = "(none)"
"""How the report names hands dealt with no dealer signed in."""


def add_parser(reports: Any) -> None:
    """Register ``dealers`` under ``pokertable report``."""
    parser = reports.add_parser("dealers", help="hands per hour and irregularities per dealer over a period",
                                description=__doc__, epilog=epilog("report"))
    add_period_options(parser)
    add_report_output_options(parser, DEFAULT_DB)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the report (standard output); the count of dealers and errors on standard error."""
    now = datetime.now(UTC)
    try:
        zone = casino_zone(args)
        since, until = read_time(args.since, zone), read_time(args.until, zone) or now
        if since is None or until <= since:
            raise ValueError("--to is after --from")
        app = open_store(args.db, must_exist=True).app
    except (PersistenceUrlError, ValueError) as error:  # a bad time, zone or database (SettingsError too)
        return fail("report dealers", error, USAGE)
    report = dealer_report(app, since, until, now)
    rows = rows_of(report, app.staff.name_of)
    if args.format == "json":
        print(json.dumps({"from": show_time(since, zone), "to": show_time(until, zone), "dealers": rows,
                          "rotations": [{"time": show_time(r.time, zone), "table": r.table, "dealer": r.dealer,
                                         "previous": r.previous, "kind": r.kind} for r in report.rotations]},
                         indent=2, ensure_ascii=False))
    elif args.format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(safe_mapping({**row, "tables": ";".join(row["tables"])}) for row in rows)
    else:
        print(table_text(rows))
    print(f"{len(rows)} dealer(s) from {show_time(since, zone)} to {show_time(until, zone)}", file=sys.stderr)
    return OK


def rows_of(report: DealerReport, names: Callable[[str], str] = lambda _: "") -> list[dict[str, Any]]:
    """One row a dealer: the report's columns (``names``: a person's name on the staff by his employee number, issue
    32; "" for a dealer signed in before the staff were in force)."""
    return [{"dealer": figures.dealer or NOBODY, "name": names(figures.dealer) if figures.dealer else "",
             "tables": list(figures.tables), "hours": round(figures.hours, 2),
             "hands": figures.hands, "hands_per_hour": figures.hands_per_hour, "voids": figures.voids,
             "corrections": figures.corrections, "exposed": figures.exposed,
             "irregularities": figures.irregularities} for figures in report.figures]


def table_text(rows: list[dict[str, Any]]) -> str:
    """The rows as aligned columns under a header (text left, numbers right).

    >>> print(table_text([{"dealer": "D-7", "name": "Ana Gómez", "tables": ["Mesa 1"], "hours": 1.5, "hands": 45,
    ...                    "hands_per_hour": 30.0, "voids": 1, "corrections": 0, "exposed": 2, "irregularities": 3}]))
    dealer  name       tables  hours  hands  hands_per_hour  voids  corrections  exposed  irregularities
    D-7     Ana Gómez  Mesa 1    1.5     45            30.0      1            0        2               3
    """
    cells = [[", ".join(row[c]) if c == "tables" else str(row[c]) for c in COLUMNS] for row in rows]
    widths = [max([len(c), *(len(line[i]) for line in cells)]) for i, c in enumerate(COLUMNS)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths, strict=True)).rstrip()]
    for line in cells:
        lines.append("  ".join(text.ljust(w) if i < 3 else text.rjust(w)
                               for i, (text, w) in enumerate(zip(line, widths, strict=True))).rstrip())
    return "\n".join(lines)
