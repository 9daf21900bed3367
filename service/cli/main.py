"""The ``pokertable`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import metadata

from devices import cli as devices_cli
from service.cli import audit as audit_command
from service.cli import backup as backup_command
from service.cli import demo, odds, station
from service.cli import export as export_command
from service.cli import hand as hand_command
from service.cli import health as health_command
from service.cli import reconstruct as reconstruct_command
from service.cli import serve as serve_command
from service.cli import tokens as tokens_command
from service.formats import phh


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="pokertable", description="Casino poker table service and tools.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    hand_command.add_parser(commands)
    demo.add_parser(commands)
    phh.add_parser(commands)
    odds.add_parser(commands)
    serve_command.add_parser(commands)
    station.add_parser(commands)
    devices_cli.add_parser(commands)
    audit_command.add_parser(commands)
    backup_command.add_parser(commands)
    reconstruct_command.add_parser(commands)
    reconstruct_command.add_history_parser(commands)
    export_command.add_parser(commands)
    export_command.add_search_parser(commands)
    tokens_command.add_parser(commands)
    health_command.add_parser(commands)
    return parser


def version() -> str:
    """The installed distribution's version (``importlib.metadata``)."""
    try:
        return metadata.version("pokertable")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pokertable`` console script."""
    args = build_parser().parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
