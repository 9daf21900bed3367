"""``pokertable reconstruct``: a hand, event by event, for a dispute (R-THB-13).

Reading the store (``--db``) records nothing and writes nothing (R-AUD-1): the store is opened read-only
(:func:`open_read_only`), so that an evidence copy (``chmod 400``, on a read-only directory) is inspected without a
byte of it or of its directory changing.  The hand is named by its id, or by ``--table T --hand N``.  Without
``--at`` every event is listed and the table is drawn as the hand ended; with ``--at N`` the table is drawn as it
stood right after event N.  Each event's time is in the casino's time zone (``--tz``).

The *recorded* reconstruction of R-THB-13 (the pit boss, before the games director: who, when, why) is a command of
the running service: ``--record --server HOST:PORT --table T --hand N --reason …`` sends it over gRPC
(``ReconstructHand``) with the station token of ``--token-file FILE`` (or ``POKERTABLE_TOKEN``), which must be a pit
boss's; the service records the request at the table, under that station's name, before it answers.
The reconstruction goes to standard output; errors to standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sqlite3
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from service.bootstrap import Store, read_only_application
from service.cli.conventions import (
    COMMON,
    OK,
    REFUSED,
    STREAMS,
    USAGE,
    add_time_options,
    casino_zone,
    fail,
    read_time,
    show_time,
)
from service.cli.conventions import (
    EXIT_STATUS as EXIT_STATUSES,
)
from service.formats.render import describe, render
from service.store.persistence import DEFAULT_DB, PersistenceUrlError, environment, masked_url

if TYPE_CHECKING:
    from service.app.past import PastTable
from service.app.application import PokerTables

EXIT_STATUS = EXIT_STATUSES["reconstruct"]
"""``reconstruct``'s statuses for its ``--help`` (docs/cli.md; the one text in service.cli.conventions)."""


class StoreUnusableError(ValueError):
    """A store an inspection cannot read: missing, unreadable, or not a pokertable store (R-AUD-1)."""


def open_read_only(url: str) -> Store:
    """The application on the store at ``url``, opened read-only (R-AUD-1): nothing is written, not even the tables
    eventsourcing makes at start; an SQLite file by a read-only URI (immutable when nothing writes it:
    :func:`service.store.persistence.sqlite_read_only_uri`), PostgreSQL in read-only sessions.  For ``reconstruct``,
    ``history``, ``export`` and ``hands``.

    :class:`StoreUnusableError` (one line) when the store is missing, cannot be read or is not a pokertable store
    (its events and their chain); :class:`PersistenceUrlError` for a URL that names no store."""
    from eventsourcing.persistence import PersistenceError

    plain = environment(url)
    env = environment(url, read_only=True)
    database = plain.get("SQLITE_DBNAME")
    try:
        if database is not None and not Path(database).is_file():
            raise StoreUnusableError(f"no database {database!r} (R-AUD-1: an inspection never creates a store)")
    except OSError as error:  # a directory on the way that may not be searched
        raise StoreUnusableError(f"cannot read {database}: {error.strerror or error}") from None
    try:
        if database is not None:
            _check_sqlite(env["SQLITE_DBNAME"], database)
        app = read_only_application(env)
    except PersistenceError as error:
        raise StoreUnusableError(f"cannot read {masked_url(url)}: {_one_line(error)}") from None
    try:
        if database is None and "POSTGRES_HOST" in env:
            _check_postgres(app, url)
    except BaseException:
        app.close()
        raise
    return Store(app)


def _check_sqlite(uri: str, database: str) -> None:
    """That the SQLite file holds pokertable's events and their chain, read by the same read-only URI."""
    from service.store.backup import SQLITE_TABLES

    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as connection:
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.OperationalError as error:  # a file SQLite cannot open here
        hint = (": the write-ahead log beside it (-wal) is read through an index (-shm) that SQLite cannot make "
                "there (a read-only directory?); inspect a copy made by 'pokertable backup'"
                if "immutable=1" not in uri and Path(f"{database}-wal").exists() else "")
        raise StoreUnusableError(f"cannot read {database}: {error}{hint}") from None
    except sqlite3.DatabaseError as error:  # not a database at all
        raise StoreUnusableError(f"{database} is not a pokertable store ({error}; R-AUD-1)") from None
    missing = [table for table in SQLITE_TABLES if table not in tables]
    if missing:
        raise StoreUnusableError(f"{database} is not a pokertable store (no {missing[0]} table; R-AUD-1)")


def _check_postgres(app: PokerTables, url: str) -> None:
    """That the PostgreSQL schema holds pokertable's events and their chain (read in a read-only session)."""
    from eventsourcing.persistence import PersistenceError

    recorder: Any = app.recorder
    schema, events = recorder.datastore.schema, recorder.events_table_name
    try:
        with recorder.datastore.transaction(commit=False) as cursor:
            for table in (events, f"{events}_chain"):
                cursor.execute("SELECT to_regclass(%s) AS found", (f'"{schema}"."{table}"',))
                row = cursor.fetchone()
                if row is None or row["found"] is None:
                    raise StoreUnusableError(f"{masked_url(url)} is not a pokertable store (no {table} table in the "
                                             f"schema {schema!r}; R-AUD-1)")
    except PersistenceError as error:
        raise StoreUnusableError(f"cannot read {masked_url(url)}: {_one_line(error)}") from None


def _one_line(error: BaseException) -> str:
    """An error's first line (PostgreSQL's carry a context on the next ones)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def add_parser(commands: Any) -> None:
    """Register ``pokertable reconstruct``."""
    parser = commands.add_parser("reconstruct", help="reconstruct a hand event by event (read-only; --record: "
                                                     "recorded by the service, pit boss)",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=f"{STREAMS} Exit status: {EXIT_STATUS}; {COMMON}. See docs/cli.md.")
    parser.add_argument("hand_id", nargs="?", help="the hand's id (as on the watch stream and in exports)")
    parser.add_argument("--table", help="the hand's table (with --hand; instead of HAND_ID)")
    parser.add_argument("--hand", type=int, metavar="N", help="the hand's number at --table (1 = its first hand)")
    parser.add_argument("--at", type=int, help="draw the table right after this event number")
    parser.add_argument("--db", default=DEFAULT_DB,
                        help="sqlite:///FILE (default pokertable.db) or postgresql://…, opened read-only")
    record = parser.add_argument_group("recording the reconstruction (R-THB-13), through the running service")
    record.add_argument("--record", action="store_true",
                        help="ask the service (--server) to record the reconstruction and show it: --table, --hand "
                             "and --reason; the station of the token must be a pit boss's")
    record.add_argument("--server", metavar="HOST:PORT", help="the table service's gRPC address")
    record.add_argument("--token-file", type=Path, metavar="FILE",
                        help="the pit boss station's token (its first line; default POKERTABLE_TOKEN)")
    record.add_argument("--tls-ca", type=Path, metavar="FILE",
                        help="the CA certificate of a TLS server (PEM); plain text without it")
    record.add_argument("--reason", help="why: the dispute, recorded with the request")
    record.add_argument("--by", help=argparse.SUPPRESS)  # before --record: now the token's station is who asks
    add_time_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the reconstruction: read from the store, or (``--record``) recorded and answered by the service."""
    if args.record:
        return _record(args)
    if args.reason is not None or args.by is not None or args.server is not None:
        return fail("reconstruct", "reading the store records nothing: --reason, --by and --server go with --record, "
                    "which asks the running service to record the reconstruction (R-THB-13)", USAGE)
    by_number = args.table is not None or args.hand is not None
    if (args.hand_id is not None) == by_number or (by_number and (args.table is None or args.hand is None)):
        return fail("reconstruct", "name the hand: HAND_ID, or --table T --hand N", USAGE)
    try:
        hand_id = uuid.UUID(args.hand_id) if args.hand_id is not None else None
        zone = casino_zone(args)
        store = open_read_only(args.db)
    except (PersistenceUrlError, ValueError) as error:  # a bad id, zone or database: usage
        return fail("reconstruct", error, USAGE)
    with store:
        return _reconstruct(store.app, hand_id, args, zone)


def _reconstruct(app: PokerTables, hand_id: uuid.UUID | None, args: argparse.Namespace, zone: ZoneInfo) -> int:
    """The hand's steps from its events alone, read-only: nothing is recorded (the pit's copy, every card)."""
    from domain.games import HAND_CLASSES
    from domain.reconstruction import reconstruct

    try:
        if hand_id is None:
            record: Any = app.any_table(args.table)
            if not 1 <= args.hand <= record.hands_started:
                return fail("reconstruct", f"{args.table} has hands 1–{record.hands_started}, not {args.hand}",
                            REFUSED)
            hand_id = record.hand_id(args.hand)
        hand: Any = app.repository.get(hand_id)
        if type(hand) not in HAND_CLASSES:  # a hand of any game (domain.games), and nothing else
            return fail("reconstruct", "that id is not a hand", REFUSED)
        table: Any = app.repository.get(hand.table_id)
        steps = reconstruct(app.events.get(hand_id))
    except Exception as error:  # an unknown id or table: said plainly
        return fail("reconstruct", error, REFUSED)
    steps = [dataclasses.replace(step, timestamp=show_time(step.timestamp, zone, timespec="milliseconds"))
             for step in steps]
    if args.at is not None and not 1 <= args.at <= len(steps):
        return fail("reconstruct", f"the hand has events 1–{len(steps)}", USAGE)
    print(f"hand {hand.number} of {table.name} ({hand_id}); read from the store, not recorded")
    if args.at is not None:
        print(render(steps[args.at - 1]))
        return OK
    for step in steps:
        by = None if step.by is None else (step.by.person, app.staff.name_of(step.by.person), step.by.station)
        print(f"{step.version:>4}  {step.event:<28} {describe(step)}{by_text(by)}")
    print()
    print(render(steps[-1]))
    return OK


def by_text(by: tuple[str, str, str] | None) -> str:
    """Who gave an event's command, where (issue 32; ``by``: his employee number, his name, the station), as the
    listing ends its line: ``  — Ana Gómez (1042) at mesa-1``; ``station X, no person recorded``; ``no person
    recorded`` for an event stored before attribution.  Both listings (read from the store, or recorded by the
    service) say it so."""
    if by is None:
        return "  — no person recorded"
    person, name, station = by
    if not person:
        return f"  — station {station}, no person recorded"
    return f"  — {name} ({person}) at {station}" if name else f"  — {person} at {station}"


def _record(args: argparse.Namespace) -> int:
    """``--record``: the service records the reconstruction (R-THB-13) and streams it back."""
    import grpc

    from service.api import table_service_pb2 as svc
    from service.api import table_service_pb2_grpc as svc_grpc

    if args.hand_id is not None or args.table is None or args.hand is None or not args.server:
        return fail("reconstruct", "--record names the hand as the service does, --table T --hand N, and the "
                    "service, --server HOST:PORT", USAGE)
    if args.reason is None or args.by is not None:
        return fail("reconstruct", "--record needs --reason (recorded with the request, R-THB-13); who asks is the "
                    "station of the token, not --by", USAGE)
    try:
        token = _token(args.token_file)
        ca = args.tls_ca.read_bytes() if args.tls_ca is not None else None
    except (OSError, ValueError) as error:
        return fail("reconstruct", error, USAGE)
    request = svc.ReconstructHandRequest(command_id=f"reconstruct-{uuid.uuid4()}", table=args.table,
                                         hand_number=args.hand, reason=args.reason)
    channel = grpc.secure_channel(args.server, grpc.ssl_channel_credentials(root_certificates=ca)) \
        if ca is not None else grpc.insecure_channel(args.server)
    try:
        with channel:
            stub: Any = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            steps: list[Any] = list(stub.ReconstructHand(request, metadata=(("authorization", f"Bearer {token}"),),
                                                         timeout=30))
    except grpc.RpcError as error:  # refused (with its rule), or no answer
        code = error.code() if isinstance(error, grpc.Call) else None
        details = error.details() if isinstance(error, grpc.Call) else str(error)
        return fail("reconstruct", f"{code.name if code else 'no answer'}: {details}", REFUSED)
    if args.at is not None and not 1 <= args.at <= len(steps):
        return fail("reconstruct", f"the hand has events 1–{len(steps)} (the request is recorded)", USAGE)
    print(f"hand {args.hand} of {args.table}; request recorded by the service: \"{args.reason}\"")
    if args.at is not None:
        print(steps[args.at - 1].rendered)
        return OK
    for step in steps:
        kind = step.event.WhichOneof("event") or ""
        name = getattr(step.event, kind).DESCRIPTOR.name if kind else "?"
        by = (step.by.person_id, step.by.name, step.by.station) if step.HasField("by") else None
        print(f"{step.version:>4}  {name:<28} {step.description}{by_text(by)}")
    print()
    print(steps[-1].rendered if steps else "")
    return OK


def _token(path: Path | None) -> str:
    """The station's token: the first line of ``path``, else ``POKERTABLE_TOKEN`` (never on the command line, which
    ``ps`` shows)."""
    token = path.read_text(encoding="utf-8").partition("\n")[0].strip() if path is not None else \
        os.environ.get("POKERTABLE_TOKEN", "").strip()
    if not token:
        raise ValueError("--record needs the pit boss station's token: --token-file FILE or POKERTABLE_TOKEN")
    return token


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
    parser.add_argument("--db", default=DEFAULT_DB,
                        help="sqlite:///FILE (default pokertable.db) or postgresql://…, opened read-only")
    add_time_options(parser)
    parser.set_defaults(run=run_history)


def run_history(args: argparse.Namespace) -> int:
    """Print the table as it stood then."""
    import json

    try:
        zone = casino_zone(args)
        moment = read_time(args.time, zone)
        store = open_read_only(args.db)
    except (PersistenceUrlError, ValueError) as error:  # a bad time, zone or database
        return fail("history", error, USAGE)
    try:
        with store:
            state = store.app.views.table_at(args.table, position=args.position, moment=moment)
    except Exception as error:  # an unknown table, a table not yet open: said plainly
        return fail("history", error, REFUSED)
    document = history_document(state)
    if state.time is not None:
        document["time"] = show_time(state.time, zone, timespec="microseconds")
    print(json.dumps(document, indent=2, default=str))
    return OK


def history_document(then: PastTable) -> dict[str, Any]:
    """``pokertable history``'s document of a table at a past moment: where in the log and when, the game's own
    state beside them, the hand in progress then (the pit's copy), the dealer and the stations' language."""
    return {"table": then.table, "game": then.game, "position": then.position, "time": str(then.time),
            **then.state, "hands_started": then.hands_started, "hand": then.hand, "dealer": then.dealer,
            "language": then.language}
