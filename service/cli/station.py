"""``pokertable station``: the dealer station of one table.

By default the full-screen station (:mod:`service.station.tui`, Textual): the table live from the Watch stream, one
key per action, typed cards only without a shoe. ``--plain`` (or ``--script FILE``) runs the line-by-line reference
station (:mod:`service.station.reference`) instead, for scripts and for terminals that cannot draw a screen.
"""

from __future__ import annotations

import argparse
import sys

from service.station import reference, tui


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``station`` on the CLI."""
    parser = commands.add_parser(
        "station", help="the dealer station: full screen (keys, live table), or --plain line by line for scripts",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    tui.add_arguments(parser)
    reference.add_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The full-screen station, or the plain one with ``--plain`` / ``--script`` or without a terminal."""
    if args.plain or args.script is not None:
        return reference.run(args)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("pokertable station: the full-screen station needs a terminal; use --plain (or --script FILE) for the "
              "line-by-line station", file=sys.stderr)
        return 2
    return tui.run(args)
