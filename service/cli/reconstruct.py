"""``pokertable reconstruct HAND_ID --reason … [--at N]``: a hand, event by event, for a dispute (R-THB-13).

Read from the store (``--db``) by the pit boss at the console (``--by``); the request is recorded at the table before
anything is shown.  Without ``--at`` every event is listed and the table is drawn as the hand ended; with ``--at N`` the
table is drawn as it stood right after event N.  The reconstruction goes to standard output, each event's time in the
casino's time zone (``--tz``); errors to standard error.
"""

from __future__ import annotations

import argparse
import dataclasses
import uuid
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from service.bootstrap import open_store
from service.cli.conventions import OK, REFUSED, USAGE, add_time_options, casino_zone, fail, read_time, show_time
from service.formats.render import describe, render
from service.store.persistence import DEFAULT_DB, PersistenceUrlError, StoreInUseError

if TYPE_CHECKING:
    from service.app.application import PokerTables


def add_parser(commands: Any) -> None:
    """Register ``pokertable reconstruct``."""
    parser = commands.add_parser("reconstruct", help="reconstruct a hand event by event (pit boss)",
                                 description=__doc__)
    parser.add_argument("hand_id", help="the hand's id (as on the watch stream and in exports)")
    parser.add_argument("--reason", required=True, help="why: the dispute, recorded with the request")
    parser.add_argument("--by", default="pit-boss-console", help="the pit boss asking (recorded)")
    parser.add_argument("--at", type=int, help="draw the table right after this event number")
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    add_time_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the reconstruction."""
    try:
        hand_id = uuid.UUID(args.hand_id)
        zone = casino_zone(args)
        # the request is recorded: a writer, so not beside a running service
        store = open_store(args.db, writer=True, must_exist=True)
    except (PersistenceUrlError, StoreInUseError, ValueError) as error:
        return fail("reconstruct", error, USAGE)
    with store:
        return _reconstruct(store.app, hand_id, args, zone)


def _reconstruct(app: PokerTables, hand_id: uuid.UUID, args: argparse.Namespace, zone: ZoneInfo) -> int:
    from domain.games import HAND_CLASSES
    from service.app.application import Role, Viewer

    try:
        hand: Any = app.repository.get(hand_id)
        if type(hand) not in HAND_CLASSES:  # a hand of any game (domain.games), and nothing else
            return fail("reconstruct", "that id is not a hand", REFUSED)
        table: Any = app.repository.get(hand.table_id)
        steps = app.reconstruct_hand(f"reconstruct-{uuid.uuid4()}", table.name, hand.number,
                                     Viewer(args.by, Role.PIT_BOSS), args.reason)
    except Exception as error:  # an unknown id, a refused request (with its rule): said plainly
        return fail("reconstruct", error, REFUSED)
    steps = [dataclasses.replace(step, timestamp=show_time(step.timestamp, zone, timespec="milliseconds"))
             for step in steps]
    print(f"hand {hand.number} of {table.name} ({hand_id}); request recorded: {args.by}, \"{args.reason}\"")
    if args.at is not None:
        if not 1 <= args.at <= len(steps):
            return fail("reconstruct", f"the hand has events 1–{len(steps)}", USAGE)
        print(render(steps[args.at - 1]))
        return OK
    for step in steps:
        print(f"{step.version:>4}  {step.event:<28} {describe(step)}")
    print()
    print(render(steps[-1]))
    return OK


def add_history_parser(commands: Any) -> None:
    """Register ``pokertable history``: a circle table as it stood at a past position or time."""
    parser = commands.add_parser("history", help="a table as it stood at a past moment, from the events",
                                 description="A table as it stood right after a log position (as on the watch "
                                             "stream) or at a time (the casino's, --tz, or with its offset), from "
                                             "the events alone, as JSON on standard output: seats and stacks, the "
                                             "button, the hand in progress; its time in the casino's time zone.")
    parser.add_argument("table")
    at = parser.add_mutually_exclusive_group(required=True)
    at.add_argument("--position", type=int)
    at.add_argument("--time", "--at", dest="time", metavar="TIME",
                    help="e.g. '2026-11-21 22:15' (the casino's time) or 2026-11-21T22:15:00+01:00")
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    add_time_options(parser)
    parser.set_defaults(run=run_history)


def run_history(args: argparse.Namespace) -> int:
    """Print the table as it stood then."""
    import json

    try:
        zone = casino_zone(args)
        moment = read_time(args.time, zone)
        store = open_store(args.db, must_exist=True)
    except (PersistenceUrlError, ValueError) as error:  # a bad time, zone or database
        return fail("history", error, USAGE)
    try:
        with store:
            state = store.app.table_at(args.table, position=args.position, moment=moment)
    except Exception as error:  # an unknown table, a table not yet open: said plainly
        return fail("history", error, REFUSED)
    if state.get("time") not in (None, "None"):
        state["time"] = show_time(state["time"], zone, timespec="microseconds")
    print(json.dumps(state, indent=2, default=str))
    return OK
