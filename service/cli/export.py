"""``pokertable export``: hands as documented JSON (``pokertable-hand/1``, docs/audit.md), from the store.

``pokertable export HAND_ID`` prints one hand; ``pokertable export --table T`` prints every hand of a table, one
document a line (JSON Lines), oldest first; ``--from``/``--to`` keep a shift's hands (a time range).

``--format phh`` prints a finished Hold'em, Omaha or seven-card stud hand as a PHH history readable by pokerkit (PHH
has no five-card draw, five-card stud or sintético), with PHH's optional fields: the casino (``--casino``, PHH
``venue``), the table, its seats, pseudonymous players (one id a sitting, never a name), the hand number, the start in
the casino's time zone (``--time-zone``, IANA; default the casino's, ``--tz``) and the finishing stacks.  With
``--table`` the hands make one PHHS file (``[1]``, ``[2]``, …); a hand PHH cannot describe (voided, unfinished,
with an exposed card) is named in a comment of the file and on the standard error.

``--from``/``--to`` without an offset are the casino's local time (``--tz``, docs/cli.md); the JSON documents keep
each event's time as stored, in UTC with its offset (docs/audit.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from domain.export import PhhContext, hand_document, hand_phh, player_ids, shift_phhs
from domain.games import GAMES, OUTCOMES
from service.app.visibility import event_payload
from service.cli.conventions import OK, REFUSED, USAGE, add_time_options, casino_zone, fail, read_time, show_time
from service.cli.reconstruct import open_read_only
from service.store.persistence import DEFAULT_DB, PersistenceUrlError


def public_event(event: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's data as an observer may see it (the one visibility policy)."""
    return event_payload(event, data, sees_down_cards=False)


def add_parser(commands: Any) -> None:
    """Register ``pokertable export``."""
    parser = commands.add_parser("export", help="export hands as JSON", description=__doc__)
    parser.add_argument("hand_id", nargs="?", help="the hand's id")
    parser.add_argument("--table", help="every hand of this table, one JSON document a line")
    parser.add_argument("--from", dest="since", metavar="TIME",
                        help="with --table: hands started from this time (e.g. '2026-11-25 21:00', the casino's "
                             "time, or with its offset)")
    parser.add_argument("--to", dest="until", metavar="TIME", help="with --table: hands started up to this time")
    parser.add_argument("--format", choices=("json", "phh"), default="json")
    parser.add_argument("--public", action="store_true",
                        help="json: as a station without the right to face-down cards sees the hand (an observer, a "
                             "player's copy): every card face down when it was recorded is ??")
    parser.add_argument("--casino", help="phh: the casino's name (PHH venue)")
    parser.add_argument("--time-zone", help="phh: the time zone of the hands' start (IANA; default the casino's, --tz)")
    parser.add_argument("--db", default=DEFAULT_DB,
                        help="sqlite:///FILE (default pokertable.db) or postgresql://…, opened read-only")
    add_time_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the documents (standard output); errors on standard error."""
    if (args.hand_id is None) == (args.table is None):
        return fail("export", "name a HAND_ID or --table T", USAGE)
    try:
        zone = casino_zone(args)
        since, until = read_time(args.since, zone), read_time(args.until, zone)
        hand_id = uuid.UUID(args.hand_id) if args.hand_id else None
        store = open_read_only(args.db)  # R-AUD-1: an export never writes the store
    except (PersistenceUrlError, ValueError) as error:  # a bad id, time, zone or database (SettingsError too)
        return fail("export", error, USAGE)
    with store:
        return _export(store.app, hand_id, args, zone, since=since, until=until)


def _export(app: Any, hand_id: uuid.UUID | None, args: argparse.Namespace, zone: ZoneInfo, *,
            since: datetime | None, until: datetime | None) -> int:
    """The hands' documents on standard output (a hand, a table's or a shift's)."""
    try:
        if hand_id is not None:
            hand_ids = [hand_id]
        elif since or until:  # a shift: the hands started in the range
            hand_ids = [uuid.UUID(h.hand_id) for h in app.views.search_hands(args.table, since=since, until=until)]
        else:
            hand_ids = app.hands_of(args.table)
        if args.format == "phh":
            return _print_phh(app, hand_ids, args, zone, shift=args.table is not None)
        shown = public_event if args.public else None
        documents = [hand_document(app.events.get(hand_id), shown, app.staff.name_of) for hand_id in hand_ids]
    except Exception as error:  # a hand the format cannot describe (ExportError), an unknown hand or table
        return fail("export", error, REFUSED)
    if args.hand_id:
        print(json.dumps(documents[0], indent=2, ensure_ascii=False))
    else:
        for document in documents:
            print(json.dumps(document, ensure_ascii=False))
        print(f"{len(documents)} hand(s) exported", file=sys.stderr)
    return OK


def _print_phh(app: Any, hand_ids: list[uuid.UUID], args: argparse.Namespace, casino: ZoneInfo, *,
               shift: bool) -> int:
    """One hand as PHH, or a shift's hands as one PHHS file."""
    try:
        zone = ZoneInfo(args.time_zone) if args.time_zone else casino
    except (ValueError, ZoneInfoNotFoundError):
        return fail("export", f"{args.time_zone!r} is not an IANA time zone (e.g. Europe/Madrid)", USAGE)
    hands = [list(app.events.get(hand_id)) for hand_id in hand_ids]
    contexts: dict[uuid.UUID, PhhContext] = {}
    for table_id in {vars(events[0])["table_id"] for events in hands}:
        table_events = list(app.events.get(table_id))
        table = table_events[0]  # the table's Created event: its name and seats
        players = player_ids(table_id, table_events)
        for events in hands:
            started = vars(events[0])
            if started["table_id"] == table_id:
                contexts[events[0].originator_id] = PhhContext(
                    venue=args.casino, table=vars(table)["name"], seat_count=vars(table).get("seat_count"),
                    players=players.get(started["number"], {}), zone=zone)
    if not shift:
        print(hand_phh(hands[0], contexts[hands[0][0].originator_id]), end="")
        return OK
    text, left_out = shift_phhs((events, contexts[events[0].originator_id]) for events in hands)
    print(text, end="")
    for note in left_out:
        print(f"pokertable export: left out of the PHHS file: {note}", file=sys.stderr)
    print(f"{len(hands) - len(left_out)} hand(s) exported", file=sys.stderr)
    return OK


def add_search_parser(commands: Any) -> None:
    """Register ``pokertable hands``: search a table's hands (any game)."""
    parser = commands.add_parser("hands", help="search the hands of a table",
                                 description="The hands of a table of any game by time range, seat (or box) dealt in "
                                             "and outcome, one line each on standard output: number, id, start (in "
                                             "the casino's time zone, with its offset), seats, outcome, pot (banked: "
                                             "chips staked), winners; how many were found on standard error.")
    parser.add_argument("table")
    parser.add_argument("--from", dest="since", metavar="TIME",
                        help="hands started from this time: '2026-11-25 21:00' (the casino's time, --tz) or ISO 8601 "
                             "with its offset")
    parser.add_argument("--to", dest="until", metavar="TIME", help="hands started up to this time")
    parser.add_argument("--seat", type=int)
    parser.add_argument("--game", choices=tuple(GAMES))
    parser.add_argument("--outcome", choices=OUTCOMES,
                        help="circle: showdown, uncontested, voided, blank, in-progress; banked: settled, voided, "
                             "in-progress")
    parser.add_argument("--db", default=DEFAULT_DB,
                        help="sqlite:///FILE (default pokertable.db) or postgresql://…, opened read-only")
    add_time_options(parser)
    parser.set_defaults(run=run_search)


def run_search(args: argparse.Namespace) -> int:
    """Print the hands found (standard output) and how many (standard error)."""
    try:
        zone = casino_zone(args)
        since, until = read_time(args.since, zone), read_time(args.until, zone)
        store = open_read_only(args.db)  # R-AUD-1: a search never writes the store
    except (PersistenceUrlError, ValueError) as error:  # a bad time, zone or database: usage
        return fail("hands", error, USAGE)
    try:
        with store:
            found = store.app.views.search_hands(args.table, since=since, until=until, seat=args.seat,
                                                 outcome=args.outcome, game=args.game)
    except Exception as error:  # an unknown table: said plainly
        return fail("hands", error, REFUSED)
    for hand in found:
        winners = " ".join(f"seat {seat} +{hand.net[seat]}" for seat in hand.winners) or "-"
        print(f"{hand.number:>5}  {hand.hand_id}  {show_time(hand.started, zone)}  "
              f"seats {','.join(map(str, hand.seats))}  {hand.outcome:<11}  pot {hand.pot:>7}  {winners}")
    sys.stdout.flush()
    print(f"{len(found)} hand(s) found", file=sys.stderr)
    return OK
