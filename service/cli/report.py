"""``pokertable report KIND --from --to``: the floor's reports from the event log, as a table, CSV or JSON.

``report watched`` (issue 29, item 7; docs/audit.md, :mod:`service.cli.report_watched`): who watched which hand's
face-down cards live, and when, from the recorded views of the days asked alone.

``report access`` (issue 32; docs/staff.md, :mod:`service.cli.report_access`): the authentication log, sign-ins,
refusals, wrong PINs, lockouts and the staff's changes, with names.

``report dealers`` (issue 19, item 4; docs/alerts.md, :mod:`service.cli.report_dealers`): each dealer's hands per
hour, voids, corrections and exposed cards over a period, and the rotations.

``report shift`` (issue 19, item 3; docs/accounts.md, :mod:`service.cli.report_shift`): a table's accounts by shift
(opener, closer, fills, credits, drop, win, hold and the theoretical hold with its band).

``report shufflers`` (issue 19, item 1; docs/integrity.md) judges every automatic shuffler by what the shoe read
before and after its shuffles: one row per shuffler deck (serial number, colour, deck size) with the shuffles seen,
the three tests' figures and the verdict (``pass``, ``fail``, ``not enough data``).  The monitor's settings come from
``--gathering``, ``--level`` and ``--looks``, else ``POKERTABLE_SHUFFLER_*``, else the configuration file's
``[service] shuffler_*`` keys, else their defaults (docs/ops/configuration.md).

Every report takes ``--from``/``--to`` (the casino's time without an offset, ``--tz``), ``--format table|csv|json``
and ``--db``.  A report is one function that adds its subparser: :data:`REPORTS` lists them, one line each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from domain.integrity.monitor import FAIL, POSITIONS, TESTS, MonitorSettings
from domain.integrity.observations import Gathering
from service.app.shufflers import ShufflerVerdict, shuffler_report
from service.bootstrap import open_store
from service.cli import report_access, report_dealers, report_shift, report_significant, report_watched
from service.cli.conventions import (
    OK,
    REFUSED,
    USAGE,
    add_period_options,
    add_report_output_options,
    casino_zone,
    fail,
    read_time,
    show_time,
    write_rows,
)
from service.cli.settings import SettingsError, read_file, settings
from service.store.persistence import DEFAULT_DB, PersistenceUrlError

SHUFFLER_KEYS = ("shuffler_gathering", "shuffler_level", "shuffler_looks")


def add_report_options(parser: argparse.ArgumentParser) -> None:
    """The options every report has: the time range, the output format, the database, the casino's time zone."""
    add_period_options(parser, since_required=False, until_help="up to this time", since_help=(
        "from this time: '2026-11-25 21:00' (the casino's time, --tz) or ISO 8601 with its offset"))
    add_report_output_options(parser, DEFAULT_DB, "table (aligned columns, the default), csv (a header line, then a "
                                                   "row a line) or json")


def time_range(args: argparse.Namespace) -> tuple[datetime | None, datetime | None]:
    """``--from`` and ``--to`` as times (``ValueError`` for a text that is no time, or a range that ends first)."""
    zone = casino_zone(args)
    since, until = read_time(args.since, zone), read_time(args.until, zone)
    if since is not None and until is not None and until < since:
        raise ValueError("--to is before --from")
    return since, until


# -- report shufflers ---------------------------------------------------------------------------------------------


def add_shufflers(reports: Any) -> None:
    """Register ``pokertable report shufflers``."""
    parser = reports.add_parser("shufflers", help="every shuffler's integrity from the shoe's reads",
                                description="Each automatic shuffler deck (serial, colour, deck size): the shuffles "
                                            "seen, the tests (adjacent pairs kept, per-position chi-square, rising "
                                            "sequences) and the verdict; docs/integrity.md.")
    add_report_options(parser)
    parser.add_argument("--gathering", choices=tuple(Gathering), default=None,
                        help="how the cards go back into the shuffler (default POKERTABLE_SHUFFLER_GATHERING, the "
                             "configuration's [service] shuffler_gathering, else read-then-stub)")
    parser.add_argument("--level", default=None, metavar="P",
                        help="the false-alarm probability for the floor in a shift (default 0.01)")
    parser.add_argument("--looks", default=None, metavar="N", help="the shuffles of one deck a shift holds "
                                                                   "(default 160)")
    parser.set_defaults(run=run_shufflers)


def monitor_settings(args: argparse.Namespace) -> MonitorSettings:
    """The monitor's settings: flags, ``POKERTABLE_SHUFFLER_*``, the configuration file, the defaults
    (:class:`SettingsError` naming where a bad one came from)."""
    path: Path | None = getattr(args, "config", None)
    if path is None and os.environ.get("POKERTABLE_CONFIG"):
        path = Path(os.environ["POKERTABLE_CONFIG"])
    section = read_file(path).get("service", {}) if path is not None else {}
    file = {"service": {k: v for k, v in section.items() if k in SHUFFLER_KEYS}} if isinstance(section, dict) else {}
    wanted = {"POKERTABLE_" + key.upper() for key in SHUFFLER_KEYS}
    environ = {name: value for name, value in os.environ.items() if name in wanted}
    flags = {"shuffler_gathering": args.gathering, "shuffler_level": args.level, "shuffler_looks": args.looks}
    return settings(flags=flags, environ=environ, file=file, path=path).shuffler_monitor()


def run_shufflers(args: argparse.Namespace) -> int:
    """Print every shuffler deck's verdict; exit 1 when one failed."""
    try:
        since, until = time_range(args)
        chosen = monitor_settings(args)
        store = open_store(args.db, must_exist=True)
    except (PersistenceUrlError, SettingsError, ValueError) as error:
        return fail("report", error, USAGE)
    with store:
        verdicts = shuffler_report(store.app, since=since, until=until, settings=chosen)
    if args.format == "json":
        zone = casino_zone(args)
        document = {"report": "shufflers", "from": show_time(since, zone) if since else None,
                    "to": show_time(until, zone) if until else None,
                    "settings": {"gathering": str(chosen.gathering), "level": chosen.level, "looks": chosen.looks,
                                 "position_bins": chosen.position_bins},
                    "shufflers": [verdict_document(verdict) for verdict in verdicts]}
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        write_rows(SHUFFLER_COLUMNS, [shuffler_row(verdict) for verdict in verdicts], args.format)
    sys.stdout.flush()
    failed = sum(verdict.result.verdict == FAIL for verdict in verdicts)
    print(f"{len(verdicts)} shuffler deck(s), {failed} failed", file=sys.stderr)
    return REFUSED if failed else OK


SHUFFLER_COLUMNS = ("serial", "device", "colour", "deck", "tables", "shuffles", "verdict", "alarm",
                    *(f"{test} {part}" for test in TESTS for part in ("statistic", "expected", "p")))


def shuffler_row(verdict: ShufflerVerdict) -> list[object]:
    """One shuffler deck's row: who, which deck, how many shuffles, the verdict, each test's figures."""
    result = verdict.result
    alarm = f"shuffle {result.alarm_at}: {result.alarm_test}" if result.alarm_at is not None else "-"
    figures: list[object] = []
    found = {test.test: test for test in result.tests}
    for name in TESTS:
        test = found.get(name)
        if test is None or test.p_value is None:
            figures += ["-", "-", "-"]
        else:
            shown = f"{test.statistic:.1f}" if name == POSITIONS else f"{test.statistic:.0f}"
            figures += [shown, f"{test.expected:.1f}", f"{test.p_value:.2g}"]
    return [verdict.serial, verdict.device, verdict.colour, verdict.deck_size, " ".join(verdict.tables),
            result.shuffles, result.verdict, alarm, *figures]


REPORTS: tuple[Callable[[Any], None], ...] = (
    add_shufflers,
    report_access.add_parser,
    report_dealers.add_parser,
    report_shift.add_parser,
    report_significant.add_parser,
    report_watched.add_parser,
)
"""Each report's registration, one line each."""


def add_parser(commands: Any) -> None:
    """Register ``pokertable report`` and its reports."""
    parser = commands.add_parser("report", help="the floor's reports (shufflers, …) as a table, CSV or JSON",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    reports = parser.add_subparsers(dest="report", required=True, metavar="KIND")
    for register in REPORTS:
        register(reports)


def verdict_document(verdict: ShufflerVerdict) -> dict[str, Any]:
    """A shuffler deck's verdict in ``pokertable report shufflers --format json``'s document."""
    result, alarm = verdict.result, verdict.alarmed_at
    return {"serial": verdict.serial, "device": verdict.device, "colour": verdict.colour,
            "deck_size": verdict.deck_size, "tables": list(verdict.tables), "shuffles": result.shuffles,
            "cards_compared": verdict.cards_compared, "verdict": result.verdict, "alarm_at": result.alarm_at,
            "alarm_test": result.alarm_test, "alarm_table": alarm.table if alarm else None,
            "alarm_hand": alarm.hand if alarm else None,
            "alarm_time": alarm.started.isoformat() if alarm else None, "test_level": result.test_level,
            "tests": {test.test: {"statistic": test.statistic, "expected": test.expected, "p_value": test.p_value}
                      for test in result.tests}}
