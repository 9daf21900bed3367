"""``pokertable verify-install``: check every installed file against the release manifest (issue 29, item 3;
:mod:`pokertable.release`, docs/ops/install.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pokertable.release import verify_installation
from service.cli.conventions import OK, REFUSED, USAGE, fail

COMMAND = "verify-install"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``verify-install`` on the CLI."""
    parser = commands.add_parser(
        COMMAND, help="check the installed files against the release manifest",
        description="Hash every file of the installed pokertable package and compare it with the manifest the "
                    "release shipped (pokertable/MANIFEST.sha256): the files changed, missing or added, and the "
                    "release digest (the manifest's SHA-256, to compare with the one published with the release). "
                    "A development install (pip install -e) has no manifest: nothing to check (status 2).")
    parser.add_argument("--package", type=Path, default=None, metavar="DIR",
                        help="the installed pokertable package directory to check (default: this program's own)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check the installation: its findings and the release digest on stdout, the verdict on stderr."""
    package: Path | None = args.package
    if package is not None and not (package / "__init__.py").is_file():
        return fail(COMMAND, f"{package} is not an installed pokertable package (no __init__.py)", USAGE)
    found = verify_installation(package)
    if found.development:
        return fail(COMMAND, f"a development install (pip install -e, a checkout: {found.root}) has no release "
                             "manifest; nothing to verify (verify an installation of the wheel)", USAGE)
    for line in found.findings():
        print(line)
    if found.release:
        print(f"release {found.release}")
    if found.intact:
        print(f"{found.files} file(s) intact under {found.root}", file=sys.stderr)
        return OK
    return fail(COMMAND, f"{found.summary()} (under {found.root})", REFUSED)
