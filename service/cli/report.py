"""``pokertable report``: the pit's reports over a period (issue 19, item 5), one subcommand a report.

This minimal module carries ``report dealers`` (:mod:`service.cli.report_dealers`); the other reports register
their subcommands beside it."""

from __future__ import annotations

from typing import Any

from service.cli import report_dealers


def add_parser(commands: Any) -> None:
    """Register ``pokertable report`` and its reports."""
    parser = commands.add_parser("report", help="the pit's reports over a period (dealers)",
                                 description=__doc__)
    reports = parser.add_subparsers(dest="report", required=True)
    report_dealers.add_parser(reports)
