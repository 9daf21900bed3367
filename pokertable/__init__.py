"""The ``pokertable`` program's launcher, the console script's target.

The program's packages are ``domain``, ``service`` and ``devices`` (fixed: every casino's database stores event
topics such as ``domain.circle.table#Table.Opened``).  Names that short belong to nobody, so the wheel does not put
them in ``site-packages``: it installs them under this package, in ``pokertable/_app/``, and :func:`main` puts that
directory first on ``sys.path`` before it imports the command line.  Another distribution's ``service`` package
installs beside pokertable and each program imports its own.  In a checkout (``pip install -e .``) there is no
``_app`` directory: the project root is on ``sys.path`` and the packages are imported from there, as the tests,
mypy and ``make demo`` always have."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["OWN_PACKAGES", "PRIVATE", "main", "use_own_packages"]

PRIVATE = Path(__file__).resolve().parent / "_app"
OWN_PACKAGES = ("domain", "service", "devices")


def use_own_packages() -> None:
    """Put the wheel's private directory first on ``sys.path`` (nothing to do in a checkout); refuse to go on if a
    package of the same name was imported from elsewhere first (``ImportError`` naming it): the program would run
    another distribution's code under its own names."""
    if not PRIVATE.is_dir():
        return
    private = str(PRIVATE)
    if private in sys.path:
        sys.path.remove(private)
    sys.path.insert(0, private)
    for name in OWN_PACKAGES:
        module = sys.modules.get(name)
        origin = getattr(module, "__file__", None) or ""
        if module is not None and not Path(origin).resolve().is_relative_to(PRIVATE):
            raise ImportError(f"pokertable: a {name!r} package other than pokertable's was imported first "
                              f"({origin or module!r}); run pokertable in a process of its own")


def main() -> int:
    """Run the ``pokertable`` command line with the program's own packages (``pokertable --version`` alone is
    answered here, from the release manifest, without loading the program: :mod:`pokertable.release`)."""
    if sys.argv[1:] == ["--version"]:
        from pokertable.release import version_text

        print(version_text())
        return 0
    use_own_packages()
    try:
        from service.cli.main import main as command_line
    except KeyboardInterrupt:  # Ctrl-C while the program loads: no traceback, as anywhere later (service.cli.main)
        print("pokertable: interrupted", file=sys.stderr)
        return 130
    return command_line()
