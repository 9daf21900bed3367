"""``pokertable floor check|rebuild``: the floor's projection of the log (issue 30, item 1; :mod:`service.app.
floor_log`) compared with a recomputation from the log, or made again from it.

``check`` reads the projection as the service left it (nothing is written: it runs beside a running service, on a
store opened read-only) and recomputes it in memory from the log up to the same position; status 0 when they agree,
1 with each difference when they do not (a projection changed in the database, or a bug). ``rebuild`` forgets the
projection and follows the whole log again (an SQLite file: with the service stopped, as every writer)."""

from __future__ import annotations

import argparse
import sys

from service.bootstrap import open_store, read_only_application
from service.cli.conventions import OK, REFUSED, USAGE, fail
from service.store.persistence import DEFAULT_DB, PersistenceUrlError, StoreInUseError, environment

COMMAND = "floor"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``floor`` on the CLI."""
    parser = commands.add_parser(
        COMMAND, help="check the floor's projection against the log, or rebuild it",
        description="The floor's projection (the pit's alerts, each table's notes, the hands index) is kept beside "
                    "the log by the service. 'check' recomputes it from the log up to the position it was left at "
                    "and compares (status 1 and each difference when they differ); 'rebuild' makes it again from "
                    "the whole log.")
    parser.add_argument("action", choices=("check", "rebuild"))
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check or rebuild the projection."""
    try:
        if args.action == "check":
            app = read_only_application(environment(args.db, read_only=True))
            floor = app.floor_log
            if not floor.store.ready:
                return fail(COMMAND, "this store has no floor projection yet (a service of this version makes it "
                                     "at its start)", REFUSED)
            differences = floor.check()
            position = floor.store.position()[0]
            app.close()
            for line in differences:
                print(line)
            if differences:
                return fail(COMMAND, f"the floor's projection is not what the log says up to position {position} "
                                     f"({len(differences)} difference(s) shown)", REFUSED)
            print(f"the floor's projection is what the log says up to position {position}", file=sys.stderr)
            return OK
        store = open_store(args.db, writer=True, must_exist=True)
    except (PersistenceUrlError, StoreInUseError, ValueError) as error:
        return fail(COMMAND, error, USAGE)
    with store:
        position = store.app.floor_log.rebuild()
    print(f"the floor's projection was made again from the log, up to position {position}", file=sys.stderr)
    return OK
