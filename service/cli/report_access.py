"""``pokertable report access --from --to``: the authentication log (issue 32; docs/staff.md): every sign-in,
sign-out, refused sign-in, wrong PIN and lockout, and every change of the staff (enrolled, changed, suspended,
reinstated, PIN reset, removed), with the person's name, the station and the administrator of a change; read by time
from the store (the floor's projection and the log's events past it), never the whole log.  No PIN or hash is ever
printed: a PIN reset says only that it happened."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from service.app.access_log import access_between
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

COLUMNS = ("time", "kind", "person", "name", "station", "by", "detail")


def add_parser(reports: Any) -> None:
    """Register ``access`` under ``pokertable report``."""
    parser = reports.add_parser("access", help="the authentication log: sign-ins, refusals, lockouts, staff changes",
                                description=__doc__, epilog=epilog("report"))
    add_period_options(parser, since_required=False,
                       since_help="the period's start (the casino's time, or with its offset; default: 24 hours ago)")
    add_report_output_options(parser, DEFAULT_DB)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the entries (standard output); their count on standard error."""
    try:
        zone = casino_zone(args)
        until = read_time(args.until, zone) or datetime.now(UTC)
        since = read_time(args.since, zone) or until - timedelta(hours=24)
        if until < since:
            raise ValueError("--to is before --from")
        store = open_store(args.db, must_exist=True)
    except (PersistenceUrlError, ValueError) as error:  # a bad time, zone or database (SettingsError too)
        return fail("report access", error, USAGE)
    with store:
        app = store.app
        rows = [{"time": show_time(e.at, zone), "kind": e.kind, "person": e.person,
                 "name": app.staff.name_of(e.person) if e.kind != "refused" else "", "station": e.station,
                 "by": e.by, "detail": e.detail} for e in access_between(app.floor_log, since, until)]
    if args.format == "json":
        print(json.dumps({"from": show_time(since, zone), "to": show_time(until, zone), "entries": rows},
                         indent=2, ensure_ascii=False))
    elif args.format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(safe_mapping(row) for row in rows)  # a name a person chose is never a formula
    else:
        widths = {column: max([len(column), *(len(str(row[column])) for row in rows)]) for column in COLUMNS}
        print("  ".join(column.ljust(widths[column]) for column in COLUMNS).rstrip())
        for row in rows:
            print("  ".join(str(row[column]).ljust(widths[column]) for column in COLUMNS).rstrip())
    print(f"{len(rows)} entr{'y' if len(rows) == 1 else 'ies'} from {show_time(since, zone)} to "
          f"{show_time(until, zone)}", file=sys.stderr)
    return OK
