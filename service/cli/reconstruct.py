"""``pokertable reconstruct HAND_ID --reason … [--at N]``: a hand, event by event, for a dispute (R-THB-13).

Read from the store (``--db``) by the pit boss at the console (``--by``); the request is recorded at the table before
anything is shown.  Without ``--at`` every event is listed and the table is drawn as the hand ended; with ``--at N`` the
table is drawn as it stood right after event N.
"""

from __future__ import annotations

import argparse
import uuid
from typing import TYPE_CHECKING, Any

from service.bootstrap import open_store
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
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the reconstruction."""
    try:
        hand_id = uuid.UUID(args.hand_id)
        store = open_store(args.db, writer=True)  # the request is recorded: a writer, so not beside a running service
    except (PersistenceUrlError, StoreInUseError, ValueError) as error:
        print(f"pokertable reconstruct: {error}")
        return 2
    with store:
        return _reconstruct(store.app, hand_id, args)


def _reconstruct(app: PokerTables, hand_id: uuid.UUID, args: argparse.Namespace) -> int:
    from domain.games import HAND_CLASSES
    from service.app.application import Role, Viewer

    try:
        hand: Any = app.repository.get(hand_id)
        if type(hand) not in HAND_CLASSES:  # a hand of any game (domain.games), and nothing else
            print("pokertable reconstruct: that id is not a hand")
            return 2
        table: Any = app.repository.get(hand.table_id)
        steps = app.reconstruct_hand(f"reconstruct-{uuid.uuid4()}", table.name, hand.number,
                                     Viewer(args.by, Role.PIT_BOSS), args.reason)
    except Exception as error:  # an unknown id, a refused request (with its rule): said plainly
        print(f"pokertable reconstruct: {error}")
        return 1
    print(f"hand {hand.number} of {table.name} ({hand_id}); request recorded: {args.by}, \"{args.reason}\"")
    if args.at is not None:
        if not 1 <= args.at <= len(steps):
            print(f"pokertable reconstruct: the hand has events 1–{len(steps)}")
            return 2
        print(render(steps[args.at - 1]))
        return 0
    for step in steps:
        print(f"{step.version:>4}  {step.event:<28} {describe(step)}")
    print()
    print(render(steps[-1]))
    return 0


def add_history_parser(commands: Any) -> None:
    """Register ``pokertable history``: a circle table as it stood at a past position or time."""
    parser = commands.add_parser("history", help="a table as it stood at a past moment, from the events",
                                 description="A circle table as it stood right after a log position (as on the "
                                             "watch stream) or at a time (ISO 8601, with its offset), from the "
                                             "events alone: seats and stacks, the button, the hand in progress.")
    parser.add_argument("table")
    at = parser.add_mutually_exclusive_group(required=True)
    at.add_argument("--position", type=int)
    at.add_argument("--time", help="e.g. 2026-11-21T22:15:00+01:00")
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    parser.set_defaults(run=run_history)


def run_history(args: argparse.Namespace) -> int:
    """Print the table as it stood then."""
    import json

    from service.app.application import parse_moment

    try:
        moment = parse_moment(args.time)
        with open_store(args.db) as store:
            state = store.app.table_at(args.table, position=args.position, moment=moment)
    except Exception as error:  # a bad time, an unknown table, a table not yet open: said plainly
        print(f"pokertable history: {error}")
        return 1
    print(json.dumps(state, indent=2, default=str))
    return 0
