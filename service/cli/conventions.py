"""The command line's conventions (issue 17, item 8; docs/cli.md), shared by every subcommand.

**Streams.** What a command is asked for (tables, hands, JSON, PHH, reconstructions, tokens, verdicts) goes to
standard output; progress, counts ("12 hands found"), warnings and errors go to standard error, so that
``pokertable hands T > hands.txt`` writes hands alone and a pipe reads data alone.

**Exit status.** 0 done; 1 refused or found bad (a rule refused a command, the log is tampered with, nothing found
where something was required); 2 usage (bad arguments, a file or a database that cannot be used); 130 interrupted
(Ctrl-C); 141 standard output closed early (``pokertable hands T | head``: 128 + SIGPIPE, as a shell reports a
program killed by SIGPIPE).

**Time.** Times typed at the console without an offset are the casino's local time, and times printed are shown in
the casino's time zone with their offset: ``--tz ZONE`` (before or after the subcommand), else ``POKERTABLE_TZ``,
else the ``[service] tz`` of the configuration file (``--config`` or ``POKERTABLE_CONFIG``), else Europe/Madrid
(:mod:`service.cli.settings`). The log itself keeps UTC.

>>> madrid = ZoneInfo("Europe/Madrid")
>>> read_time("2026-11-25 21:00", madrid).isoformat()
'2026-11-25T21:00:00+01:00'
>>> read_time("2026-07-01T12:00:00+00:00", madrid).isoformat()  # an offset given is kept
'2026-07-01T12:00:00+00:00'
>>> show_time("2026-07-01 12:00:00.250000+00:00", madrid)
'2026-07-01 14:00:00+02:00'
>>> read_time("yesterday", madrid)
Traceback (most recent call last):
...
ValueError: 'yesterday' is not a time: e.g. '2026-11-25 21:00' (Europe/Madrid) or '2026-11-25T21:00:00+01:00'
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from service.cli.settings import SettingsError, read_file, settings
from service.spreadsheet import safe_row

OK = 0
REFUSED = 1
"""Refused or found bad: a rule refused a command, audit found tampering, nothing found where something was needed."""
USAGE = 2
"""Bad arguments, or a file or a database that cannot be used (argparse's own status for a bad command line)."""
INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT)."""
BROKEN_PIPE = 141
"""Standard output was closed before everything was written (128 + SIGPIPE)."""

STREAMS = ("Data on standard output; counts, progress, warnings and errors on standard error.")
EXIT_STATUS: dict[str, str] = {
    "hand": "0 evaluated; 1 a card or a count refused by the rules (--batch: any line bad, named on standard error); "
            "2 usage",
    "demo": "0 played; 2 usage",
    "phh": "0 every file replayed; 1 a file could not be read or replayed (named on standard error); 2 usage",
    "odds": "0 computed; 2 usage (a strategy of another game, --hands not positive)",
    "serve": "0 stopped by SIGTERM or Ctrl-C; 1 failed while serving; 2 a setting, the store, a key or a port that "
             "cannot be used (systemd does not restart it then)",
    "pit": "0 stopped by SIGTERM or Ctrl-C; 2 a setting, the configuration file, the floor's token or the port "
           "that cannot be used",
    "station": "0 every command done; 1 a command refused (each named on standard error, the station goes on) or "
               "the service unreachable; 2 usage (no terminal for the full screen, an unreadable file)",
    "devices": "0 ended by 'quit' or the end of input; 2 usage. A simulator answers each command with one line on "
               "standard output, errors included: a script driving it reads one answer a command",
    "audit": "verify: 0 clean, 1 tampered with (the verdict on standard output either way); head: 0, 1 when the log "
             "is not clean; key, sign: 0; 2 a database, a key or a --head that cannot be used",
    "backup": "0 written (its chain head on standard output); 1 refused or failed; 2 usage, a setting or a database "
              "that cannot be used",
    "restore": "0 restored and its log clean (the verdict on standard output); 1 refused, failed or not clean; 2 "
               "usage, a setting or a database that cannot be used",
    "reconstruct": "0 shown; 1 no such hand or table, or (--record) the request refused by the service (its rule, "
                   "e.g. R-THB-13: a pit boss's station and a reason) or the service unreachable; 2 usage, a "
                   "database that cannot be read or is not a pokertable store, --reason or --by without --record",
    "history": "0 shown; 1 no such table, or not yet open then; 2 usage (a bad time or zone), a database that cannot "
               "be used",
    "export": "0 exported; 1 no such hand or table, or a hand the format cannot describe; 2 usage (a bad id, time or "
              "zone), a database that cannot be used",
    "hands": "0 searched (none found is an answer too: the count on standard error says 0); 1 no such table; 2 usage "
             "(a bad time or zone), a database that cannot be used",
    "staff": "0 done; 1 refused by the service (a wrong PIN, a role that may not, a rule); 2 usage, no token or PIN "
             "given, or the service does not answer",
    "tokens": "0 done (add: the token on standard output, once); 1 refused (a name taken, no such station); 2 usage, "
              "a configuration file that cannot be read",
    "health": "0 SERVING; 1 anything else: NOT_SERVING, no answer, an unreadable --tls-ca (never 2: Docker's "
              "HEALTHCHECK reserves it)",
    "completion": "0 printed; 2 usage (a shell it does not know)",
    "report": "0 reported (a report with nothing in the period too: its count on standard error says 0); 1 found "
              "bad (shufflers: a shuffler deck failed its tests; shift: no such table); 2 usage (a bad time, zone, "
              "period or setting), a database that cannot be used",
    "group": "sync: 0 every casino reached and its log checked (--follow: stopped by SIGTERM), 1 a casino not reached "
             "(a network cut: caught up with later) or its log refused (R-AUD-1), or the group's store lost; "
             "report: 0; verify: 0 clean (and reconciled), 1 tampered with, different or a casino not reached; 2 "
             "usage, a configuration, a key or a group store that cannot be used",
    "verify-install": "0 every installed file matches the release manifest (the release digest on standard output); "
                      "1 found bad: a file changed, missing or added, or the manifest missing from an installation of "
                      "the wheel (each named on standard output); 2 usage, or a development install (pip install -e), "
                      "which has no release manifest to verify against",
    "floor": "check: 0 the floor's projection is what the log says, 1 it differs (each difference on standard "
             "output) or the store has none yet; rebuild: 0 made again; 2 usage, a store that cannot be opened or "
             "an SQLite file a service is writing (rebuild)",
}
"""Each subcommand's exit statuses, for its ``--help`` and docs/cli.md; 130 (interrupted) and 141 (output closed)
hold for every one."""
COMMON = "130 interrupted (Ctrl-C); 141 standard output closed early (e.g. piped into head)"


def epilog(command: str) -> str:
    """The ``--help`` epilog of a subcommand: its streams and exit statuses."""
    return f"{STREAMS} Exit status: {EXIT_STATUS[command]}; {COMMON}. See docs/cli.md."


def fail(command: str, message: object, status: int) -> int:
    """Say ``pokertable COMMAND: MESSAGE`` on standard error and return ``status``."""
    sys.stdout.flush()  # what was printed before stays before the error on a terminal
    print(f"pokertable {command}: {message}", file=sys.stderr, flush=True)
    return status


PERIOD_START = "the period's start (e.g. '2026-11-25 20:00', the casino's time, or with its offset)"
REPORT_FORMATS = ("table", "csv", "json")


def add_period_options(parser: argparse.ArgumentParser, *, since_help: str = PERIOD_START,
                       until_help: str = "the period's end (default: now)", since_required: bool = True) -> None:
    """A report's period: ``--from`` (``since``) and ``--to`` (``until``), in the casino's time or with an offset."""
    parser.add_argument("--from", dest="since", metavar="TIME", required=since_required, help=since_help)
    parser.add_argument("--to", dest="until", metavar="TIME", help=until_help)


def add_report_output_options(parser: argparse.ArgumentParser, default_db: str, format_help: str | None = None) -> None:
    """What every report reads and writes: ``--format`` (table, csv, json), ``--db``, and the casino's time zone
    (:func:`add_time_options`)."""
    parser.add_argument("--format", choices=REPORT_FORMATS, default="table", help=format_help)
    parser.add_argument("--db", default=default_db, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    add_time_options(parser)


def add_time_options(parser: argparse.ArgumentParser) -> None:
    """``--tz`` and ``--config`` on a subcommand that reads or prints times (their defaults left to the main parser's
    ``--tz`` and to :func:`casino_zone`)."""
    parser.add_argument("--tz", default=argparse.SUPPRESS, metavar="ZONE",
                        help="the casino's time zone for times read and printed (IANA, e.g. Europe/Madrid; default "
                             "POKERTABLE_TZ, else the configuration's [service] tz, else Europe/Madrid)")
    parser.add_argument("--config", type=Path, default=argparse.SUPPRESS, metavar="FILE",
                        help="the service's configuration file, for its [service] tz (default POKERTABLE_CONFIG)")


def casino_zone(args: argparse.Namespace) -> ZoneInfo:
    """The casino's time zone: ``--tz``, ``POKERTABLE_TZ``, the configuration file's ``[service] tz``, Europe/Madrid
    (:class:`SettingsError` naming where a bad one came from). Only the ``tz`` setting is read: a console command
    needs neither the service's database password nor its other settings."""
    path: Path | None = getattr(args, "config", None)
    if path is None and os.environ.get("POKERTABLE_CONFIG"):
        path = Path(os.environ["POKERTABLE_CONFIG"])
    section = read_file(path).get("service", {}) if path is not None else {}
    file = {"service": {"tz": section["tz"]}} if isinstance(section, dict) and "tz" in section else {}
    environ = {name: value for name, value in os.environ.items() if name == "POKERTABLE_TZ"}
    chosen = settings(flags={"tz": getattr(args, "tz", None)}, environ=environ, file=file, path=path)
    return ZoneInfo(chosen.tz)


def read_time(text: str | None, zone: ZoneInfo) -> datetime | None:
    """A time typed at the console (ISO 8601, ``T`` or a space between date and time): with its offset as given,
    without one in the casino's ``zone``; ``None`` for no text (``ValueError`` for a text that is no time)."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a time: e.g. '2026-11-25 21:00' ({zone.key}) or "
                         "'2026-11-25T21:00:00+01:00'") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)


def show_time(moment: datetime | str, zone: ZoneInfo, *, timespec: str = "seconds") -> str:
    """A stored time (a ``datetime`` or its text) in the casino's ``zone``, with its offset: ``2026-07-01
    14:00:00+02:00``."""
    value = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    return value.astimezone(zone).isoformat(sep=" ", timespec=timespec)


__all__ = ["BROKEN_PIPE", "COMMON", "EXIT_STATUS", "INTERRUPTED", "OK", "REFUSED", "STREAMS", "USAGE",
           "SettingsError", "add_time_options", "casino_zone", "epilog", "fail", "read_time", "show_time"]


def write_rows(columns: Sequence[str], rows: Sequence[Sequence[object]], out_format: str) -> None:
    """Rows as aligned columns (``table``) or CSV (``csv``) on standard output."""
    if out_format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(safe_row(row) for row in rows)  # a name a person chose is never a formula
        return
    cells = [[str(cell) for cell in row] for row in [columns, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    for row in cells:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
