"""``pokertable report``: the floor's reports (issue 19, item 5), one subcommand each, in its own module:
``shift`` (the tables' accounts per shift, :mod:`service.cli.report_shift`)."""

from __future__ import annotations

from typing import Any

from service.cli import report_shift


def add_parser(commands: Any) -> None:
    """Register ``pokertable report`` and its subcommands."""
    parser = commands.add_parser("report", help="the floor's reports (shift)",
                                 description="The floor's reports, from the store (--db): as a table, CSV or JSON "
                                             "on standard output.")
    subcommands = parser.add_subparsers(dest="report", required=True)
    report_shift.add_parser(subcommands)
