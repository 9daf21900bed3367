"""``pokertable report significant``: the service's significant events over a period (issue 29, item 2; R-AUD-1).

Starts and stops (version, release digest, configuration digest, host, signing key), configuration changes since
an instance's last start, key rotations, the audits' runs and verdicts and clock findings, each with its time in the
casino's zone, the instance and who recorded it (:mod:`service.app.significant`). Only the days asked are read, never
the whole log. ``--from`` is required; ``--to`` defaults to now; ``--format table|csv|json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

from service.app.significant import entries
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
    write_rows,
)
from service.store.persistence import DEFAULT_DB, PersistenceUrlError

COLUMNS = ("time", "kind", "instance", "by", "detail")


def add_parser(reports: Any) -> None:
    """Register ``significant`` under ``pokertable report``."""
    parser = reports.add_parser("significant", help="the service's significant events (starts, stops, configuration, "
                                "keys, audits, clock) over a period", description=__doc__, epilog=epilog("report"))
    add_period_options(parser)
    add_report_output_options(parser, DEFAULT_DB)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the events (standard output); their count on standard error."""
    try:
        zone = casino_zone(args)
        since, until = read_time(args.since, zone), read_time(args.until, zone) or datetime.now(UTC)
        if since is None or until <= since:
            raise ValueError("--to is after --from")
        store = open_store(args.db, must_exist=True)
    except (PersistenceUrlError, ValueError) as error:
        return fail("report significant", error, USAGE)
    with store:
        rows = [{"time": show_time(entry.at, zone), "kind": entry.kind, "instance": entry.instance, "by": entry.by,
                 "detail": entry.detail} for entry in entries(store.app, since, until)]
    if args.format == "json":
        print(json.dumps({"from": show_time(since, zone), "to": show_time(until, zone), "events": rows}, indent=2,
                         ensure_ascii=False))
    else:
        write_rows(COLUMNS, [[row[column] for column in COLUMNS] for row in rows], args.format)
    print(f"{len(rows)} significant event(s) from {show_time(since, zone)} to {show_time(until, zone)}",
          file=sys.stderr)
    return OK
