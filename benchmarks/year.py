"""The floor's read paths as the log grows (issue 30, item 5): each path timed on stores of increasing size, with the
growth exponent between the smallest and the largest (0: the cost does not grow with the log; 1: in proportion).

Each store is built quickly and as play writes it: ``--tables`` Hold'em tables, each hand played through the domain
(random legal play, every card read by the shoe with its sequence number), a round of the tables' hands saved with
their tables in one transaction through the application's own store path (chained, timed in log order: the events
a hand writes, a transaction for several), a shuffler's report before each hand (the decks alternate), a dealer
rotation every 40 hands. A simulated clock runs 90 s a hand at each table (40 hands a
table-hour), so a large store covers days of play and "the current shift" holds what an 8-hour shift holds.
Events a hand: about 40 (the hand's and its table's). Measured, each as the median of ``--repeats`` runs after one
warm-up, on a fresh application (nothing cached but what the path itself loads):

- ``dealers``: the dealers' figures of the last 4 hours (the Dealers page shows the shift so far, every 15 s;
  ``ListDealerFigures``);
- ``shufflers``: the shuffler check of the last 4 hours (every 300 s, and the Shufflers page);
- ``history``: one table as it stood at a log position (a dispute; ``GetTable`` at a position), the mean over 16
  positions across the middle half of the log (a table is loaded from its nearest snapshot and the 0 to 199 events
  after it: one position says more of where it falls than of the log's length);
- ``search``: a table's hands of the last hour (the floor's hands per hour; ``SearchHands``);
- ``first load``: a table's first load after a restart (its last signed snapshot and the events after it);
- ``command``: one command at a table (a chip purchase), warm.

Beside the first two, the same answers computed as before issue 30, in the same run: the dealers' figures read
from the log's first event, and the shuffles seen reading every table from its opening.

    python -m benchmarks.year [--sizes 50000 150000 500000] [--tables 8] [--repeats 5] [--postgres URL]
                              [--keep DIR]
    python -m benchmarks.year --kept DIR  # measure again the stores --keep left
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import eventsourcing.domain
import grpc
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from benchmarks.service_load import start
from domain.cards.decks import BackColour, DeckIdentity, composition
from domain.circle.settings import BettingStructure, TableSettings
from domain.dealer_figures import dealer_figures
from domain.device_reports import DeviceReport
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.app.application import PokerTables
from service.app.commands import AcknowledgeAlert, AddChips, OpenTable, Sit
from service.app.dealer_report import log_entries, shift_dealers
from service.app.shufflers import _finished_hands, shuffles_seen
from service.store.persistence import environment
from service.store.snapshots import use_keys
from tests.support.app_play import PIT
from tests.support.circle_support import play_randomly

SETTINGS = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
KEY = Ed25519PrivateKey.generate()
HAND_SECONDS = 90
WINDOW = timedelta(hours=4)
"""The period the dealers' figures and the shuffler check cover: the first half of an 8-hour shift, the same at every
size (a shift's start falls anywhere in a store's last day)."""
START = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
"""The simulated clock starts ahead of the real one and runs far faster (90 s a hand): what the measurements write
by the real clock (a command, ``pokertable serve``'s start) is timed after the log's last event and never moves the
store's later play to the real time (issue 29: the log's times never go backwards)."""


class _Clock:
    """The simulated clock every event is timed by while a store is built."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=10)
        return self.now


class _ShoeRead:
    """A hand's ``deal`` with every card read by the shoe, with the next sequence number."""

    def __init__(self, deal: Callable[..., None]) -> None:
        self.deal, self.sequence = deal, 0

    def __call__(self, card: Any, source: str = "shoe", sequence: int | None = None) -> None:
        self.sequence += 1
        self.deal(card, "shoe", self.sequence)


@contextmanager
def simulated(clock: _Clock) -> Iterator[None]:
    real = eventsourcing.domain.datetime_now_with_tzinfo
    eventsourcing.domain.datetime_now_with_tzinfo = clock
    try:
        yield
    finally:
        eventsourcing.domain.datetime_now_with_tzinfo = real


class Store:
    """One store grown size by size (each size measured before it grows on): ``tables`` Hold'em tables played on the
    simulated clock, the floor's projection followed every 20 hands a table, as the service follows it every
    second; a shoe fault every 97 hands (an alert for the pit, which holds the table until acknowledged), and one
    left open at each size measured. On PostgreSQL the planner's statistics are gathered (ANALYZE) as the log doubles
    and before each size is measured, as autovacuum would (the server here runs without it)."""

    def __init__(self, env: dict[str, str], tables: int, rng: random.Random,
                 analyze: Callable[[], None] = lambda: None) -> None:
        self.env, self.rng, self.clock = env, rng, _Clock()
        self.analyze, self.analyzed = analyze, 0
        self.names = [f"Mesa {n + 1}" for n in range(tables)]
        self.hands = 0
        with simulated(self.clock):
            app = self._open()
            for name in self.names:
                app.handle(OpenTable(uuid.uuid4().hex, name, SETTINGS))
                for seat in range(1, 7):
                    app.handle(Sit(uuid.uuid4().hex, name, seat, 500))
            app.close()

    def _open(self) -> PokerTables:
        app = PokerTables(env=self.env)
        use_keys(app.snapshots, KEY)
        return app

    @property
    def end(self) -> datetime:
        return self.clock.now

    def grow_to(self, events: int) -> int:
        """Play until the log holds about ``events`` events; the events it holds."""
        with simulated(self.clock):
            app = self._open()
            app.floor_log.catch_up()
            for alert in app.floor_log.store.open_alerts():  # the one left open at the last size
                app.handle(AcknowledgeAlert(uuid.uuid4().hex, alert.table, alert.position, "read again"), PIT)
            written = app.recorder.max_notification_id() or 0
            while written < events:
                written += self._round(app)
                if self.hands // len(self.names) % 20 == 0:
                    app.floor_log.catch_up()
                if written >= 2 * self.analyzed + 10_000:  # statistics as the log doubles (PostgreSQL)
                    self.analyze()
                    self.analyzed = written
            table = app.table(self.names[0])  # a fault left open: what the floor shows at its start
            table.record_device_report(DeviceReport("PT-SHOE", "SHOE-0", "fault", "red", "jammed"))
            written += len(app.save(table))
            app.floor_log.catch_up()
            app.close()
        self.analyze()  # before it is measured: as after any bulk load
        self.analyzed = written
        return written

    def _round(self, app: PokerTables) -> int:
        """A hand at every table, stored in one transaction (the store's bulk path: each hand's events and its
        table's as play writes them, a round's hands together); the events stored."""
        played: list[Any] = []
        faults: list[str] = []
        for index, name in enumerate(self.names):
            table, hand, fault = self._hand(app, index, name)
            played += [table, hand]
            if fault:
                faults.append(name)
            self.hands += 1
        before = app.recorder.max_notification_id() or 0
        written = len(app.save(*played))
        if faults:  # acknowledged by the pit (a fault holds the table until then, R-HOLD-1)
            app.floor_log.catch_up()
            for alert in app.floor_log.store.open_alerts():
                if alert.table in faults and alert.position > before:
                    app.handle(AcknowledgeAlert(uuid.uuid4().hex, alert.table, alert.position, "read again"), PIT)
                    written += 1
        return written

    def _hand(self, app: PokerTables, index: int, name: str) -> tuple[Any, Any, bool]:
        """One hand played at a table, every card read by the shoe (not stored yet): the table, the hand, and
        whether a shoe fault followed it."""
        tables = len(self.names)
        round_ = self.hands // tables
        self.clock.now = START + timedelta(seconds=HAND_SECONDS * round_) + timedelta(seconds=index)
        table = app.table(name)
        if round_ % 40 == 0:
            table.sign_in(f"D-{(round_ // 40 + index) % 30:02d}", f"station-{index}")
        for seat, stack in table.stacks.items():
            if stack < 50:
                table.add_chips(seat, 500)
        colour = BackColour.RED if (table.hands_started + 1) % 2 else BackColour.BLUE
        table.record_device_report(DeviceReport("PT-SHUF", f"SN-{index}", "shuffle", colour.value, "ok"))
        hand = table.start_hand(DeckIdentity(52, colour))
        deck = list(composition(52))
        self.rng.shuffle(deck)
        shoe: Any = hand
        shoe.deal = _ShoeRead(hand.deal)  # every card read by the shoe, in sequence
        play_randomly(hand, self.rng, iter(deck))
        del shoe.deal
        table.finish_hand(hand)
        fault = self.hands % 97 == 0
        if fault:  # a shoe fault after the hand: an alert for the pit
            table.record_device_report(DeviceReport("PT-SHOE", f"SHOE-{index}", "fault", colour.value,
                                                    "misread; read again"))
        return table, hand, fault


def timed(run: Callable[[], object], repeats: int) -> float:
    run()  # warm-up
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(env: dict[str, str], end: datetime, repeats: int, names: list[str], *, old: bool,
            key: Ed25519PrivateKey = KEY) -> dict[str, float]:
    """Each read path's cost on the store (seconds): read at its first table, a first load of its second, a command
    at its last (``names``: the tables); ``old``: the paths as before issue 30 too; ``key``: the one the store's
    snapshots were signed with."""
    first, second, last = names[0], names[1 % len(names)], names[-1]
    figures: dict[str, float] = {}
    app = PokerTables(env=env)
    use_keys(app.snapshots, key)
    since = end - WINDOW  # the same stretch of play at every size (a shift's first half)
    figures["dealers"] = timed(lambda: shift_dealers(app, since=since, until=end, now=end), repeats)
    if old:
        figures["dealers, from position 1"] = timed(  # what the page did before (the peer: the same answer)
            lambda: dealer_figures(log_entries(app, until=end), start=since, end=end, now=end), repeats)
    figures["shufflers"] = timed(lambda: shuffles_seen(app, since=since, until=end), repeats)

    def every_hand() -> None:  # every table from its opening, as before (its cache of finished hands emptied)
        _finished_hands(app).clear()
        shuffles_seen(app, until=end)

    if old:
        figures["shufflers, every hand"] = timed(every_hand, repeats)
    def floor_start() -> None:  # what the pit dashboard's floor reads at its start (GetFloor)
        app.floor_log.catch_up()
        app.floor_log.store.floor()

    figures["floor start"] = timed(floor_start, repeats)
    figures["search, no range"] = timed(lambda: app.views.search_hands(first, outcome="voided"), repeats)
    head = app.recorder.max_notification_id() or 0
    disputed = [head // 4 + head * k // 32 for k in range(16)]  # 16 moments across the log's middle half

    def history() -> None:  # each a table loaded from its nearest snapshot: 0 to 199 events after it, as it falls
        for position in disputed:
            app.views.table_at(first, position=position)

    figures["history"] = timed(history, repeats) / len(disputed)
    figures["search"] = timed(lambda: app.views.search_hands(first, since=end - timedelta(hours=1)), repeats)

    def first_load() -> None:
        fresh = PokerTables(env=env)
        use_keys(fresh.snapshots, key)
        fresh.table(second)
        fresh.close()

    figures["first load"] = timed(first_load, repeats)
    figures["command"] = timed(lambda: app.handle(AddChips(uuid.uuid4().hex, last, 1, 1)), repeats)
    app.close()
    return figures


PIT_TOKEN = "year-benchmark-pit-boss-token-0001"


def restart(url: str, tables: list[str], directory: Path) -> dict[str, float]:
    """``pokertable serve`` started on the store: seconds to ``serving on``, to every table answering (GetTable of
    each, then the floor's GetFloor), and the process's resident memory then (bytes)."""
    config = directory / "stations.toml"
    config.write_text(f'[stations.pit]\ntoken = "{PIT_TOKEN}"\nrole = "pit-boss"\n', encoding="utf-8")
    config.chmod(0o600)  # station tokens in clear: its owner's only (issue 32)
    key = directory / "signing.key"
    if not key.exists():  # the service signs with the key the store's snapshots were signed with, as its own would be
        key.write_bytes(KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
        key.chmod(0o600)
    started = time.perf_counter()
    process, port = start([sys.executable, "-m", "service.cli", "serve", "--db", url, "--port", "0", "--config",
                           str(config), "--signing-key", str(directory / "signing.key")])
    serving = time.perf_counter() - started
    try:
        stub = svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))  # type: ignore[no-untyped-call]
        pit = (("authorization", f"Bearer {PIT_TOKEN}"),)
        for name in tables:
            stub.GetTable(svc.GetTableRequest(table=name), metadata=pit, timeout=120)
        answering = time.perf_counter() - started
        stub.GetFloor(svc.GetFloorRequest(), metadata=pit, timeout=120)
        floor = time.perf_counter() - started
        status = Path(f"/proc/{process.pid}/status").read_text(encoding="utf-8")
        rss = next(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:"))
    finally:
        process.terminate()
        process.wait(timeout=60)
    return {"start: serving": serving, "start: every table": answering, "start: floor": floor, "memory": rss}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50_000, 150_000, 500_000])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--old-up-to", type=int, default=1_000_000,
                        help="measure the paths as they were before issue 30 up to this size (they take minutes past)")
    parser.add_argument("--postgres", default="", help="a PostgreSQL URL: measure there too (a schema of its own)")
    parser.add_argument("--only", choices=("SQLite", "PostgreSQL"), default=None)
    parser.add_argument("--events-a-hand", type=int, default=EVENTS_A_HAND,
                        help="events a hand of real play, for the year's table (default: the issue's measure)")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="build the SQLite store in DIR and leave there a copy of it at each size, as built "
                             "(year-<events>.db and .json); on PostgreSQL leave the schema of the largest size "
                             "(year-pg-<events>.json names it): to measure again later with --kept")
    parser.add_argument("--kept", type=Path, default=None, metavar="DIR",
                        help="build nothing: measure the stores --keep left in DIR (on a quiet machine)")
    args = parser.parse_args()
    if args.kept:
        key = cast(Ed25519PrivateKey, serialization.load_pem_private_key(  # the one the build signed with
            (args.kept / "signing.key").read_bytes(), password=None))
        kept: dict[str, dict[int, dict[str, float]]] = {}
        for kind, events, url, end, names in _kept(args.kept):
            print(f"{kind}, kept: {events:,} events", flush=True)
            env = environment(url) if kind == "SQLite" else {**environment(url.split("?")[0]),
                                                              "POSTGRES_SCHEMA": url.split("schema=")[1]}
            row = kept.setdefault(kind, {})[events] = {
                **measure(env, end, args.repeats, names, old=events <= args.old_up_to, key=key),
                **restart(url, names, args.kept)}
            print("  " + ", ".join(f"{path} {_shown(path, value)}" for path, value in row.items()), flush=True)
        for kind, rows_kept in kept.items():
            _table(kind, rows_kept, args.repeats)
            _year(kind, rows_kept, args.events_a_hand)
        return
    kinds = ["SQLite", *(["PostgreSQL"] if args.postgres else [])]
    for kind in [args.only] if args.only else kinds:
        rows: dict[int, dict[str, float]] = {}
        with tempfile.TemporaryDirectory() as name:
            directory = args.keep or Path(name)
            if kind == "SQLite":
                url = f"sqlite:///{directory / 'year.db'}"
                env, cleanup, analyze = environment(url), _nothing, _nothing
            else:
                url, env, cleanup, analyze = _postgres_schema(args.postgres)
            try:
                grown = Store(env, args.tables, random.Random(2026), analyze)
                started = time.perf_counter()
                for size in args.sizes:
                    written = grown.grow_to(size)
                    built = time.perf_counter() - started
                    print(f"{kind}: {written:,} events ({(grown.end - START).total_seconds() / 86400:.1f} days of "
                          f"{args.tables} tables) after {built:.0f} s", flush=True)
                    if args.keep and kind == "SQLite":
                        _keep(directory / "year.db", directory, written, grown)
                    elif args.keep and size == args.sizes[-1]:  # the schema stays: its name, to measure it again
                        _describe(args.keep / f"year-pg-{written}.json", "PostgreSQL", written, url, grown)
                        cleanup = _nothing
                    rows[written] = {**measure(env, grown.end, args.repeats, grown.names,
                                                              old=written <= args.old_up_to),
                                     **restart(url, grown.names, directory)}
                    print("  " + ", ".join(f"{path} {_shown(path, value)}" for path, value in rows[written].items()),
                          flush=True)
                    started = time.perf_counter()
            finally:
                cleanup()
        _table(kind, rows, args.repeats)
        _year(kind, rows, args.events_a_hand)


EVENTS_A_HAND = 61
"""Events a hand of real play through the service (issue 30's measure: a hand's events, its table's, the shuffler's
report and the shoe's reads); the year's table counts a year of play at this rate."""
HANDS_A_TABLE_HOUR, HOURS_A_DAY = 40, 16


def events_a_year(tables: int, events_a_hand: int = EVENTS_A_HAND) -> int:
    """Events a casino of ``tables`` tables writes in a year: 40 hands a table-hour, 16 hours a day, every day.

    >>> f"{events_a_year(200):,}", f"{events_a_year(50):,}"
    ('2,849,920,000', '712,480,000')
    """
    return tables * HANDS_A_TABLE_HOUR * HOURS_A_DAY * 365 * events_a_hand


def extrapolated(measured: list[tuple[int, float]], events: int) -> tuple[float, float]:
    """A path's growth exponent between its first and last measure, and its cost at ``events`` in the log, carried
    on from the last measure at that exponent (a path that did not grow is carried on flat, never shrinking).

    >>> extrapolated([(100_000, 0.002), (10_000_000, 0.002)], 1_000_000_000)
    (0.0, 0.002)
    >>> slope, cost = extrapolated([(1_000, 1.0), (100_000, 100.0)], 1_000_000)
    >>> round(slope, 6), round(cost, 6)
    (1.0, 1000.0)
    """
    (first, low), (last, high) = measured[0], measured[-1]
    slope = math.log(high / low) / math.log(last / first) if last > first and low > 0 and high > 0 else 0.0
    return slope, high * (events / last) ** max(slope, 0.0)


def _year(kind: str, rows: dict[int, dict[str, float]], events_a_hand: int) -> None:
    """What a year costs at 50 and 200 tables: each path's cost at the events a year of each writes, carried on
    from the largest store measured at the path's exponent (an extrapolation: a year was not built)."""
    sizes = sorted(rows)
    years = {tables: events_a_year(tables, events_a_hand) for tables in (50, 200)}
    print(f"\n{kind}: what a year costs, carried on from {sizes[-1]:,} events at each path's exponent "
          f"({HANDS_A_TABLE_HOUR} hands a table-hour, {HOURS_A_DAY} h a day, {events_a_hand} events a hand)")
    print(f"{'path':<26}{'measured':>12}{'exponent':>10}" + "".join(
        f"{f'{tables} tables: {events / 1e9:.2f} G':>24}" for tables, events in years.items()))
    for path in dict.fromkeys(path for size in sizes for path in rows[size]):
        measured = [(size, rows[size][path]) for size in sizes if path in rows[size]]
        scale, unit = (1 / 2**20, "MiB") if path == "memory" else (1000, "ms")
        cells = ""
        for events in years.values():
            slope, cost = extrapolated(measured, events)
            cells += f"{cost * scale:>20,.2f} {unit:<3}"
        print(f"{path:<26}{measured[-1][1] * scale:>9,.2f} {unit:<3}{slope:>9.2f}{cells}")


def _keep(store: Path, directory: Path, events: int, grown: Store) -> None:
    """A copy of the store as built at this size (SQLite's online backup: a consistent copy), with what measuring it
    needs: the simulated clock's end and the tables' names."""
    import sqlite3

    copied = directory / f"year-{events}.db"
    with sqlite3.connect(store) as source, sqlite3.connect(copied) as copy:
        source.backup(copy)
    _describe(copied.with_suffix(".json"), "SQLite", events, f"sqlite:///{copied}", grown)


def _describe(path: Path, kind: str, events: int, url: str, grown: Store) -> None:
    """What measuring a kept store needs: its kind, size and URL, the simulated clock's end and the tables' names."""
    path.write_text(json.dumps({"kind": kind, "events": events, "url": url, "end": grown.end.isoformat(),
                                "names": grown.names}), encoding="utf-8")


def _kept(directory: Path) -> list[tuple[str, int, str, datetime, list[str]]]:
    """The stores ``--keep`` left in ``directory``, by kind and size: kind, events, URL, the simulated clock's end,
    names."""
    found = []
    for described in directory.glob("year-*.json"):
        facts = json.loads(described.read_text(encoding="utf-8"))
        url = facts.get("url") or f"sqlite:///{described.with_suffix('.db')}"
        found.append((str(facts.get("kind", "SQLite")), int(facts["events"]), str(url),
                      datetime.fromisoformat(facts["end"]), list(facts["names"])))
    return sorted(found)


def _nothing() -> None:
    """An SQLite store's cleanup: its directory goes with it."""


def _shown(path: str, value: float) -> str:
    return f"{value / 2**20:.0f} MiB" if path == "memory" else f"{value * 1000:.2f} ms"


def _table(kind: str, rows: dict[int, dict[str, float]], repeats: int) -> None:
    """Each path's cost at each size and its growth exponent between the first and the last size measured."""
    sizes = sorted(rows)
    paths = list(dict.fromkeys(path for size in sizes for path in rows[size]))
    print(f"\n{kind}: cost of each read path (ms, median of {repeats}; start-up: one start; memory: MiB) by events in "
          "the log")
    print(f"{'path':<26}" + "".join(f"{size:>12,}" for size in sizes) + f"{'exponent':>10}")
    for path in paths:
        measured = [(size, rows[size][path]) for size in sizes if path in rows[size]]
        scale = 1 / 2**20 if path == "memory" else 1000
        cells = "".join(f"{rows[size][path] * scale:>12.2f}" if path in rows[size] else f"{'-':>12}"
                        for size in sizes)
        (first, low), (last, high) = measured[0], measured[-1]
        slope = math.log(high / low) / math.log(last / first) if last > first and low > 0 else float("nan")
        print(f"{path:<26}{cells}{slope:>10.2f}")


def _postgres_schema(url: str) -> tuple[str, dict[str, str], Callable[[], None], Callable[[], None]]:
    """A schema of its own on the server at ``url``: its URL, its environment, its drop, and its ANALYZE (the
    planner's statistics, as autovacuum keeps them; docs/ops/install.md asks for autovacuum or an ANALYZE after a
    bulk load)."""
    import psycopg

    env = environment(url)
    schema = f"year_{uuid.uuid4().hex[:10]}"
    admin = dict(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                 dbname=env["POSTGRES_DBNAME"], autocommit=True)
    with psycopg.connect(**admin) as connection:  # type: ignore[arg-type]
        connection.execute(f"CREATE SCHEMA {schema}")

    def drop() -> None:
        with psycopg.connect(**admin) as connection:  # type: ignore[arg-type]
            connection.execute(f"DROP SCHEMA {schema} CASCADE")

    def analyze() -> None:  # what autovacuum does as tables grow; a server may run without it (this one does)
        with psycopg.connect(**admin) as connection:  # type: ignore[arg-type]
            for (table,) in connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s",
                                               (schema,)).fetchall():
                connection.execute(f'ANALYZE {schema}."{table}"')

    return f"{url.split('?', maxsplit=1)[0]}?schema={schema}", {**env, "POSTGRES_SCHEMA": schema}, drop, analyze


if __name__ == "__main__":
    main()
