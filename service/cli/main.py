"""The ``pokertable`` command line."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any

from service.cli.conventions import BROKEN_PIPE, EXIT_STATUS, INTERRUPTED, epilog

COMMANDS: dict[str, tuple[str, str]] = {
    "hand": ("service.cli.hand", "add_parser"),
    "demo": ("service.cli.demo", "add_parser"),
    "phh": ("service.formats.phh", "add_parser"),
    "odds": ("service.cli.odds", "add_parser"),
    "serve": ("service.cli.serve", "add_parser"),
    "pit": ("service.cli.pit", "add_parser"),
    "station": ("service.cli.station", "add_parser"),
    "devices": ("devices.cli", "add_parser"),
    "audit": ("service.cli.audit", "add_parser"),
    "backup": ("service.cli.backup", "add_parser"),
    "restore": ("service.cli.backup", "add_parser"),
    "reconstruct": ("service.cli.reconstruct", "add_parser"),
    "history": ("service.cli.reconstruct", "add_history_parser"),
    "export": ("service.cli.export", "add_parser"),
    "hands": ("service.cli.export", "add_search_parser"),
    "report": ("service.cli.report", "add_parser"),
    "tokens": ("service.cli.tokens", "add_parser"),
    "staff": ("service.cli.staff", "add_parser"),
    "health": ("service.cli.health", "add_parser"),
    "group": ("service.cli.group", "add_parser"),
    "verify-install": ("service.cli.verify_install", "add_parser"),
    "floor": ("service.cli.floor", "add_parser"),
}
"""Each subcommand (but ``completion``, which describes them all) and where its parser is made, in the order
``--help`` lists them: a command imports its own module only (the whole program is 1.2 s of imports)."""


def _adder(name: str) -> Callable[[Any], None]:
    module, function = COMMANDS[name]
    adder: Callable[[Any], None] = getattr(importlib.import_module(module), function)
    return adder


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand (``only``: with that one alone, of :data:`COMMANDS`)."""
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
    if only is not None:
        _adder(only)(commands)
    else:
        added: set[tuple[str, str]] = set()
        for name, where in COMMANDS.items():
            if where not in added:
                added.add(where)
                _adder(name)(commands)
        from service.cli import completion as completion_command

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
    if argv is None:  # the console script: Ctrl-C is its to answer, even if whatever started it ignored or blocked it
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        args = build_parser(_command_named(sys.argv[1:] if argv is None else list(argv))).parse_args(argv)
        status: int = args.run(args)
        sys.stdout.flush()  # a closed pipe is found here, not at exit
    except KeyboardInterrupt:
        print("pokertable: interrupted", file=sys.stderr, flush=True)
        return INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE
    return status


def _command_named(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, if it is one of :data:`COMMANDS` (None: build every one, for ``--help``, a
    mistyped command or ``completion``)."""
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token == "--tz":
            skip = True
        elif token.startswith("-"):
            if token in ("-h", "--help", "--version"):
                return None
        else:
            return token if token in COMMANDS else None
    return None


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
