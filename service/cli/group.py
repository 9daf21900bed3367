"""``pokertable group sync|report|verify``: a casino group's read store, fed from every casino's own log (issue 18,
item 3; docs/group.md).

``sync`` copies into the group's store (``--group-db``, a PostgreSQL database or schema) every event each casino
stored since the position the group tracks for it, checking each against the casino's hash chain and, with the
casino's public key, its signed heads (R-AUD-1); the figures of every hand are derived in the same transaction as the
new position, so that a sync killed at any moment and run again loses nothing and counts nothing twice. A casino
that cannot be reached (a network cut: the casino deals on, on its own store) is skipped and caught up with later; a
casino whose log does not check is refused, and the refusal recorded. ``--follow`` syncs every ``--interval``
seconds until stopped (SIGTERM or Ctrl-C).

``report`` prints, per casino and game (``--by table``: per table), the hands and how they ended, the chips bet, the
chips paid to players, the rake of circle games and the house's result, with the group's total per game; ``--from``
and ``--to`` keep the hands started in a period (a shift, a day; the casino's time, ``--tz``); ``--format table``
(default), ``csv`` or ``json``. ``verify`` checks again what the group holds of each casino, without the
casinos; ``--reconcile`` also compares the group's totals of each reachable casino with the casino's own, computed
from its log up to the position received.

The casinos and the group's store come from the ``[group]`` table of the configuration file (``--config`` or
``POKERTABLE_CONFIG``; :mod:`service.cli.group_settings`) and from the flags.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from eventsourcing.persistence import InterfaceError, OperationalError

from service.bootstrap import Store, open_store
from service.cli.conventions import OK, REFUSED, USAGE, add_time_options, casino_zone, fail, read_time, show_time
from service.cli.group_settings import GroupConfig, group_config
from service.cli.settings import SettingsError, read_file
from service.group.figures import Totals
from service.group.follower import PAGE, CasinoLog, Follower, Synced
from service.group.store import GroupStore, GroupStoreError
from service.group.verify import reconcile, verify_received
from service.spreadsheet import safe_row
from service.store.signing import SigningKeyError, load_public_key

ROUND = 10
"""Pages read from one casino before the next one's turn (--follow): a casino far behind does not hold the others."""
CONNECT_TIMEOUT = 5
"""Seconds a casino's PostgreSQL is waited for before it is taken as cut off (and the next casino synced)."""
COLUMNS = ("hands", "played", "voided", "in_progress", "bet", "paid", "rake", "house")


def add_parser(commands: Any) -> None:
    """Register ``pokertable group``."""
    parser = commands.add_parser("group", help="a casino group's read store: sync, report, verify",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("sync", "report", "verify"))
    parser.add_argument("--group-db", metavar="URL", help="the group's store: postgresql://USER@HOST/DB[?schema=S] "
                        "(default: the configuration's [group] db)")
    parser.add_argument("--casino", action="append", default=[], metavar="NAME=URL",
                        help="a casino and its store (once per casino; adds to the configuration's [group.casinos])")
    parser.add_argument("--public-key", action="append", default=[], metavar="NAME=FILE",
                        help="a casino's public key ('pokertable audit key'): its signed heads are checked")
    parser.add_argument("--follow", action="store_true", help="sync: go on syncing until stopped")
    parser.add_argument("--interval", type=float, metavar="SECONDS",
                        help="sync --follow: seconds between two reads (default 1, or [group] interval)")
    parser.add_argument("--page", type=int, default=PAGE, metavar="EVENTS",
                        help=f"sync: events stored in one transaction of the group's store (default {PAGE})")
    parser.add_argument("--connect-timeout", type=int, default=CONNECT_TIMEOUT, metavar="SECONDS",
                        help=f"seconds a casino's PostgreSQL is waited for before it is taken as cut off (default "
                             f"{CONNECT_TIMEOUT})")
    parser.add_argument("--by", choices=("game", "table"), default="game", help="report: per game or per table")
    parser.add_argument("--from", dest="since", metavar="TIME",
                        help="report: hands started from this time (e.g. '2026-11-25 21:00', the casino's time, --tz)")
    parser.add_argument("--to", dest="until", metavar="TIME", help="report: hands started before this time")
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table", help="report's format")
    parser.add_argument("--reconcile", action="store_true",
                        help="verify: compare with each reachable casino's own totals, from its log")
    add_time_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Read the configuration, open the group's store, do the action."""
    try:
        path: Path | None = getattr(args, "config", None)
        if path is None and os.environ.get("POKERTABLE_CONFIG"):
            path = Path(os.environ["POKERTABLE_CONFIG"])
        config = group_config(read_file(path) if path else {}, db=args.group_db, casinos=args.casino,
                              keys=args.public_key, interval=args.interval, path=path)
        if config.db is None:
            raise SettingsError("no group store: give --group-db URL or [group] db in the configuration")
        keys = {name: tuple(load_public_key(key) for key in casino.keys) for name, casino in config.casinos.items()}
        zone = casino_zone(args)
        since, until = read_time(args.since, zone), read_time(args.until, zone)
        store = GroupStore(config.db)
    except (SettingsError, SigningKeyError, GroupStoreError, ValueError) as error:
        return fail("group", error, USAGE)
    with store:
        if args.action == "sync":
            return _sync(store, _Casinos(config, keys, args.connect_timeout), follow=args.follow, page=args.page)
        if args.action == "report":
            return _report(store, args.by, args.format, zone, (since, until))
        return _verify(store, _Casinos(config, keys, args.connect_timeout), reconcile_too=args.reconcile)


class _Casinos:
    """Each casino's store, opened when first needed and opened again after it failed (a network cut)."""

    def __init__(self, config: GroupConfig, keys: dict[str, tuple[Any, ...]], timeout: int) -> None:
        self.config, self.keys, self.timeout = config, keys, timeout
        self.open: dict[str, Store] = {}

    def log(self, name: str) -> CasinoLog:
        if name not in self.open:
            self.open[name] = open_store(self.config.casinos[name].url, must_exist=True, read_only=True,
                                         connect_timeout=self.timeout)
        app = self.open[name].app
        return CasinoLog(name, app.recorder, app.mapper, self.keys.get(name, ()))

    def drop(self, name: str) -> None:
        store = self.open.pop(name, None)
        if store is not None:
            with contextlib.suppress(Exception):  # a connection already cut: nothing more to close
                store.close()

    def close(self) -> None:
        for name in list(self.open):
            self.drop(name)


def _each(casinos: _Casinos, store: GroupStore, act: Callable[[CasinoLog], bool]) -> bool:
    """``act`` on every casino reachable; whether every one was reached and ``act`` said yes."""
    fine = True
    for name in casinos.config.casinos:
        try:
            fine = act(casinos.log(name)) and fine
        except (GroupStoreError, KeyboardInterrupt):
            raise
        except Exception as error:  # a casino unreachable: the others are synced all the same
            casinos.drop(name)
            if store.connection.broken or store.connection.closed:
                raise GroupStoreError(f"the group's store was lost: {error}") from None
            why = "not reached, caught up with later" if _unreachable(error) else \
                f"not synced ({type(error).__name__}), tried again later"
            print(f"pokertable group: {name}: {why}: {str(error).strip()}", file=sys.stderr, flush=True)
            fine = False
    return fine


def _unreachable(error: BaseException) -> bool:
    """Whether an error says a store could not be reached (a network cut, a server down), rather than read."""
    return isinstance(error, psycopg.OperationalError | psycopg.InterfaceError | OperationalError | InterfaceError |
                      OSError)


def _sync(store: GroupStore, casinos: _Casinos, *, follow: bool, page: int) -> int:
    """One pass over every casino, or (``follow``) passes every interval until SIGTERM or Ctrl-C."""
    config = casinos.config
    if not config.casinos:
        return fail("group", "no casino: give --casino NAME=URL or [group.casinos.NAME] in the configuration", USAGE)
    if page < 1:
        return fail("group", f"--page: 1 or more events, not {page}", USAGE)
    follower = Follower(store, page)
    stop = threading.Event()
    if follow:
        signal.signal(signal.SIGTERM, lambda *_: stop.set())

    behind: set[str] = set()

    def one(casino: CasinoLog) -> bool:
        synced = follower.sync(casino, pages=ROUND if follow else None)
        _say(synced, store)
        (behind.add if synced.more else behind.discard)(casino.name)
        return synced.refused is None

    try:
        while True:
            fine = _each(casinos, store, one)
            if not follow:
                return OK if fine else REFUSED
            if stop.wait(0 if behind else config.interval):
                return OK
    except GroupStoreError as error:
        return fail("group", error, REFUSED)
    finally:
        casinos.close()


def _say(synced: Synced, store: GroupStore) -> None:
    """A casino synced: a line on standard output when something was received; a refusal on standard error."""
    if synced.refused is not None:
        print(f"pokertable group: REFUSED ({synced.refused.kind}): {synced.refused}; the group stays at position "
              f"{synced.position}", file=sys.stderr, flush=True)
    if synced.events:
        tracked = store.tracked(synced.casino)
        print(f"{synced.casino}\t+{synced.events} events\tposition {synced.position}\tsigned up to {tracked.signed}",
              flush=True)


def _report(store: GroupStore, by: str, form: str, zone: Any, period: tuple[datetime | None, datetime | None]) -> int:
    """The figures per casino and game (or table) of the hands started in ``period``, and the group's total per
    game."""
    rows = store.totals(by_table=by == "table", since=period[0], until=period[1])
    group: dict[str, Totals] = {}
    if by == "game":
        for (_, game), totals in rows.items():
            group[game] = group.get(game, Totals()) + totals
    everything = sum(rows.values(), Totals())
    tracked = store.every_tracked()
    alerts = store.alerts()
    for alert in alerts:
        print(f"pokertable group: {alert['casino']}: refused at position {alert['position']} ({alert['kind']}): "
              f"{alert['message']}", file=sys.stderr)
    if form == "json":
        print(json.dumps({
            "casinos": [{"casino": one.casino, "position": one.position, "events": one.events, "signed": one.signed,
                         "received_at": show_time(one.received_at, zone) if one.received_at else None}
                        for one in tracked],
            "rows": [{"casino": casino, by: key, **totals.as_dict()} for (casino, key), totals in rows.items()],
            "group": [{"game": game, **totals.as_dict()} for game, totals in sorted(group.items())],
            "total": everything.as_dict(),
            "alerts": [{key: str(value) for key, value in alert.items()} for alert in alerts]}, indent=2,
            ensure_ascii=False))
        return OK
    lines = [(casino, key, totals) for (casino, key), totals in rows.items()]
    lines += [("(group)", game, totals) for game, totals in sorted(group.items())]
    lines.append(("(group)", "(all)", everything))
    if form == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(("casino", by, *COLUMNS))
        for casino, key, totals in lines:
            writer.writerow(safe_row((casino, key, *(getattr(totals, column) for column in COLUMNS))))
        return OK
    width = max([len(by), 7, *(len(key) for _, key, _ in lines)])
    name_width = max([6, 7, *(len(casino) for casino, _, _ in lines)])
    print(f"{'casino':<{name_width}}  {by:<{width}}" + "".join(f"  {column.replace('_', '-'):>11}"
                                                             for column in COLUMNS))
    for casino, key, totals in lines:
        print(f"{casino:<{name_width}}  {key:<{width}}" + "".join(f"  {getattr(totals, column):>11}"
                                                                for column in COLUMNS))
    print()
    for one in tracked:
        received = show_time(one.received_at, zone) if one.received_at else "never"
        print(f"{one.casino}: received up to position {one.position} ({one.events} events), signed up to "
              f"{one.signed}; last received {received}")
    return OK


def _verify(store: GroupStore, casinos: _Casinos, *, reconcile_too: bool) -> int:
    """Check what the group holds of each casino; with ``reconcile_too``, its totals against each casino's own."""
    clean, config, keys = True, casinos.config, casinos.keys
    names = sorted({one.casino for one in store.every_tracked()} | set(config.casinos))
    for name in names:
        verdict = verify_received(store, name, keys.get(name, ()))
        position, digest = verdict.head
        if verdict.finding is None:
            signed = (f"signed up to {verdict.signed} ({verdict.heads} signed heads checked)" if keys.get(name)
                      else f"{verdict.heads} signed heads, not checked: give --public-key {name}=FILE")
            print(f"{name}: clean: {verdict.events} events received, chain head {position}:{digest.hex()}, {signed}")
        else:
            clean = False
            print(f"{name}: TAMPERED ({verdict.finding.kind}): {verdict.finding.message}")
    if reconcile_too:
        def compare(casino: CasinoLog) -> bool:
            result = reconcile(store, casino)
            if result.equal:
                print(f"{casino.name}: reconciled: the group's totals equal the casino's own up to position "
                      f"{result.position}")
                return True
            for game in sorted(set(result.group) | set(result.own)):
                if result.group.get(game) != result.own.get(game):
                    print(f"{casino.name}: DIFFERENT at {game} up to position {result.position}: group "
                          f"{result.group.get(game)}, casino {result.own.get(game)}")
            return False

        try:
            clean = _each(casinos, store, compare) and clean
        finally:
            casinos.close()
    return OK if clean else REFUSED
