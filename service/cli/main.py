"""The ``pokertable`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import metadata

from devices import cli as devices_cli
from service.cli import audit as audit_command
from service.cli import backup as backup_command
from service.cli import completion as completion_command
from service.cli import demo, odds, station
from service.cli import export as export_command
from service.cli import group as group_command
from service.cli import hand as hand_command
from service.cli import health as health_command
from service.cli import pit as pit_command
from service.cli import reconstruct as reconstruct_command
from service.cli import report as report_command
from service.cli import serve as serve_command
from service.cli import tokens as tokens_command
from service.cli import verify_install as verify_install_command
from service.cli.conventions import BROKEN_PIPE, EXIT_STATUS, INTERRUPTED, epilog
from service.formats import phh


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="pokertable", description="Casino poker table service and tools.",
        epilog="Data on standard output; counts, progress, warnings and errors on standard error. Exit status: 0 "
               "done; 1 refused or found bad; 2 usage (bad arguments, a file or database that cannot be used); 130 "
               "interrupted; 141 output closed early. Each command's --help says more; docs/cli.md lists them all.")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the version and the release digest (the manifest's SHA-256) and exit")
    parser.add_argument("--tz", metavar="ZONE",
                        help="the casino's time zone for times read and printed (default POKERTABLE_TZ, else the "
                             "configuration's [service] tz, else Europe/Madrid)")
    commands = parser.add_subparsers(dest="command", required=True)
    hand_command.add_parser(commands)
    demo.add_parser(commands)
    phh.add_parser(commands)
    odds.add_parser(commands)
    serve_command.add_parser(commands)
    pit_command.add_parser(commands)
    station.add_parser(commands)
    devices_cli.add_parser(commands)
    audit_command.add_parser(commands)
    backup_command.add_parser(commands)
    reconstruct_command.add_parser(commands)
    reconstruct_command.add_history_parser(commands)
    export_command.add_parser(commands)
    export_command.add_search_parser(commands)
    report_command.add_parser(commands)
    tokens_command.add_parser(commands)
    health_command.add_parser(commands)
    group_command.add_parser(commands)
    verify_install_command.add_parser(commands)
    completion_command.add_parser(commands, parser)
    for name, command in commands.choices.items():  # every subcommand's --help ends with its streams and statuses
        if name in EXIT_STATUS and not command.epilog:
            command.epilog = epilog(name)
    return parser


class _Version(argparse.Action):
    """``--version``: the version and, on a second line, the release digest (:func:`pokertable.release.version_text`:
    the manifest's own digest, not a check of the files; the launcher answers it without loading the program)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from pokertable.release import version_text

        print(version_text())
        parser.exit()


def version() -> str:
    """The installed distribution's version (``importlib.metadata``)."""
    try:
        return metadata.version("pokertable")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pokertable`` console script: Ctrl-C ends any command with status 130 and no traceback;
    standard output closed early (``| head``) ends it quietly with status 141."""
    try:
        args = build_parser().parse_args(argv)
        status: int = args.run(args)
        sys.stdout.flush()  # a closed pipe is found here, not at exit
    except KeyboardInterrupt:
        print("pokertable: interrupted", file=sys.stderr, flush=True)
        return INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE
    return status


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit finds no broken pipe again (the recipe of
    Python's documentation, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (captured output): nothing will be flushed there
        pass


if __name__ == "__main__":
    sys.exit(main())
