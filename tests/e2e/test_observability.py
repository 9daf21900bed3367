"""Issue 17, items 1 and 2: the service's logs and metrics, from a real ``pokertable serve`` (a subprocess, as a
casino runs it) and a real server in this process.

A hand is dealt through the service (its hole cards face down), a command is refused, a call comes without a token,
a shoe reports a fault, a Watch stream opens and closes; then ``/metrics`` is scraped over HTTP and parsed as
Prometheus parses it, and the JSON lines of the service's standard error are read: every refusal names its table,
command id, rule and station, the fault is logged, and no face-down card appears anywhere in what the service wrote.
A store error is logged with its cause; a PostgreSQL password is never shown."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.grpc.metrics import ServiceMetrics
from service.grpc.server import Stations, metrics_of
from service.store.persistence import environment
from tests.support.grpc_support import Client, act, deal, open_circle, rule_of, seat, served, start
from tests.support.observed_service import (
    ROOT,
    STATIONS,
    STATIONS_TOML,
    TOKENS,
    Samples,
    json_lines,
    sample,
    scrape,
    serve,
)
from tests.support.stores import POSTGRES_URL, _postgres_available

HOLE_CARDS = ("As", "Kd", "Qh", "Jc", "Tc", "9h")
"""Mesa 1's hole cards, dealt face down to seats 1 to 3 (Hold'em)."""
REFUSED_ID, FAULT_ID = "obs-refused-deal", "obs-shoe-fault"
FAULT_WORDS = "read 12 As refused by the service: As is already in this hand; jam at the gate"


def card_in(card: str, text: str) -> bool:
    """Does ``card`` (``As``) appear in ``text`` as a card, not inside a word or a hex id?"""
    return re.search(rf"(?<![0-9A-Za-z]){card}(?![0-9A-Za-z])", text) is not None


@dataclass
class Played:
    """What the served hand left: the scrapes, the refusal, the service's output."""

    at_start: Samples
    after: Samples
    with_stream: Samples
    streams_closed: Samples
    later: Samples
    text: str
    refused_code: grpc.StatusCode
    rule: str
    stdout: str
    stderr: str
    logs: list[dict[str, Any]]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A Hold'em hand dealt through ``pokertable serve --http … --log-format json --log-level debug``, with a
    refused deal, a call without a token, a shoe's fault and a Watch stream; heads signed every 5 events."""
    tmp_path = tmp_path_factory.mktemp("observability")
    served = serve(tmp_path, f"sqlite:///{tmp_path / 'tables.db'}", "--http", "127.0.0.1:0", "--sign-every", "5",
                   "--log-format", "json", "--log-level", "debug")
    try:
        at_start, _ = scrape(served.http_url)
        pit, dealer, shoe = (Client(served.grpc_port, TOKENS[who]) for who in ("pit", "dealer", "shoe"))
        stranger = Client(served.grpc_port, "not-a-station-token-0123456")
        open_circle(pit, "Mesa 1")
        for number in (1, 2, 3):
            seat(dealer, "Mesa 1", number, 100)
        start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
        deal(dealer, "Mesa 1", " ".join(HOLE_CARDS[:5]))
        with pytest.raises(grpc.RpcError) as refused:  # the ace of spades again: the rules refuse it
            act(dealer, "Mesa 1", command_id=REFUSED_ID, deal=cmd.Deal(card="As", source=pb.CARD_SOURCE_CROUPIER))
        deal(dealer, "Mesa 1", HOLE_CARDS[5])
        with pytest.raises(grpc.RpcError) as unknown:
            stranger.GetTable(svc.GetTableRequest(table="Mesa 1"))
        assert unknown.value.code() == grpc.StatusCode.UNAUTHENTICATED
        shoe.RecordDeviceReport(svc.RecordDeviceReportRequest(
            command_id=FAULT_ID, table="Mesa 1", device="ACME Shoe", serial="SH-7", kind=pb.DEVICE_REPORT_KIND_FAULT,
            colour=pb.DECK_COLOUR_RED, result=FAULT_WORDS))
        after, text = scrape(served.http_url)
        watch = pit.Watch(svc.WatchRequest(table="Mesa 1"), timeout=30)
        next(iter(watch))
        with_stream, _ = scrape(served.http_url)
        watch.cancel()
        deadline = time.monotonic() + 10
        while True:
            streams_closed, _ = scrape(served.http_url)
            if sample(streams_closed, "pokertable_rpcs_total", rpc="Watch", code="CANCELLED") or \
                    time.monotonic() > deadline:
                break
            time.sleep(0.05)
        time.sleep(1.1)
        later, _ = scrape(served.http_url)
    finally:
        stdout, stderr = served.stop()
    return Played(at_start, after, with_stream, streams_closed, later, text, refused.value.code(),
                  rule_of(refused.value), stdout, stderr, json_lines(stderr))


# -- (a) the metrics ------------------------------------------------------------------------------------------------

def test_the_rpcs_are_counted_by_method_and_status_code(played: Played) -> None:
    after = played.after
    assert played.refused_code == grpc.StatusCode.FAILED_PRECONDITION and played.rule.startswith("R-")
    expected = {("OpenTable", "OK"): 1, ("SeatPlayer", "OK"): 3, ("StartHand", "OK"): 1, ("Act", "OK"): 6,
                ("Act", played.refused_code.name): 1, ("GetTable", "UNAUTHENTICATED"): 1,
                ("RecordDeviceReport", "OK"): 1}
    for (rpc, code), count in expected.items():
        assert sample(after, "pokertable_rpcs_total", rpc=rpc, code=code) == count, (rpc, code)
    assert sample(after, "pokertable_rpc_refusals_total", rpc="Act", code=played.refused_code.name,
                  rule=played.rule) == 1
    assert sample(after, "pokertable_rpc_refusals_total", rpc="GetTable", code="UNAUTHENTICATED", rule="R-AUD-1") == 1
    assert sum(value for (name, _), value in after.items() if name == "pokertable_rpc_refusals_total") == 2
    assert sample(played.at_start, "pokertable_rpcs_total", rpc="Act", code="OK") == 0


def test_the_latency_histogram_counts_each_unary_call_of_a_station(played: Played) -> None:
    after = played.after
    for rpc, calls in (("Act", 7), ("SeatPlayer", 3), ("OpenTable", 1), ("RecordDeviceReport", 1)):
        assert sample(after, "pokertable_rpc_duration_seconds_count", rpc=rpc) == calls, rpc
        assert sample(after, "pokertable_rpc_duration_seconds_bucket", rpc=rpc, le="+Inf") == calls, rpc
        assert 0 < sample(after, "pokertable_rpc_duration_seconds_sum", rpc=rpc) < 60, rpc
    assert sample(after, "pokertable_rpc_duration_seconds_bucket", rpc="Act", le="1.0") == 7  # no command took 1 s
    # the call without a token waited its second on purpose: not in any latency
    assert sample(after, "pokertable_rpc_duration_seconds_count", rpc="GetTable") == 0
    assert ("pokertable_rpc_duration_seconds_count", frozenset({("rpc", "Watch")})) not in after  # a stream


def test_the_events_stored_the_group_commits_the_hands_and_the_device_reports_are_counted(played: Played) -> None:
    at_start, after = played.at_start, played.after
    # what the service records of itself at its start (its clock's state where the clock is not synchronised, as on
    # this machine, with the head that vouches for it), stored before or after the first scrape: a few events
    before_play = sample(at_start, "pokertable_events_stored_total")
    assert 0 <= before_play <= 10
    # 12 commands (open, 3 seats, start, 6 deals, the fault), each its changes and its record; and signed heads
    assert sample(after, "pokertable_events_stored_total") - before_play >= 24
    commits, commands = (sample(after, f"pokertable_group_commit_size_{part}") for part in ("count", "sum"))
    assert commits >= 12 and commands == commits  # the sole writer of an SQLite file commits a command at a time
    assert sample(after, "pokertable_group_commit_size_bucket", le="1.0") == commits
    assert sample(after, "pokertable_hands_started_total", game="holdem") == 1
    assert sample(after, "pokertable_hands_started_total", game="omaha") == 0
    assert sample(after, "pokertable_device_reports_total", kind="fault") == 1
    assert sample(after, "pokertable_device_reports_total", kind="shuffle") == 0
    assert sample(after, "pokertable_shoe_reads_total") == 0  # the croupier dealt by hand
    assert sample(after, "pokertable_log_position") >= sample(after, "pokertable_events_stored_total")


def test_the_signed_heads_position_and_age_are_read_at_scrape_time(played: Played) -> None:
    # a new log: the service's start head (issue 29: the start of what it vouches for), and the heads of what it
    # recorded itself since (its start and its audit, significant events), every 5 events
    assert sample(played.at_start, "pokertable_signed_head_position") >= 0
    assert 0 <= sample(played.at_start, "pokertable_signed_head_age_seconds") < 60
    signed = sample(played.streams_closed, "pokertable_signed_head_position")
    assert 5 <= signed <= sample(played.streams_closed, "pokertable_log_position")  # signed every 5 events
    before, later = (sample(s, "pokertable_signed_head_age_seconds") for s in (played.streams_closed, played.later))
    assert sample(played.later, "pokertable_signed_head_position") == signed  # nothing stored meanwhile
    assert 0 <= before < 60 and later >= before + 1.0  # the age grew between two scrapes, nothing else did


def test_open_watch_streams_are_a_gauge(played: Played) -> None:
    # the dashboard's floor keeps its own Watch stream of every table open the whole time
    floor = sample(played.after, "pokertable_streams_open", rpc="Watch")
    assert sample(played.with_stream, "pokertable_streams_open", rpc="Watch") == floor + 1
    assert sample(played.streams_closed, "pokertable_streams_open", rpc="Watch") == floor
    assert sample(played.streams_closed, "pokertable_rpcs_total", rpc="Watch", code="CANCELLED") == 1


def test_the_scrape_shows_no_table_station_token_or_card(played: Played) -> None:
    text = played.text
    assert "Mesa 1" not in text and "mesa-1" not in text and "shoe-1" not in text and "ACME" not in text
    assert not any(token in text for token in TOKENS.values())
    assert not any(card_in(card, text) for card in HOLE_CARDS)
    assert "process_resident_memory_bytes" in text and "_created" not in text


# -- (b), (c), (f) the logs -----------------------------------------------------------------------------------------

def test_a_refused_command_is_logged_with_its_table_command_id_rule_and_station(played: Played) -> None:
    refused = [line for line in played.logs if line.get("command_id") == REFUSED_ID]
    assert len(refused) == 1, refused
    line = refused[0]
    assert line["level"] == "WARNING" and line["logger"] == "pokertable.requests"
    assert (line["rpc"], line["table"], line["code"], line["rule"]) == (
        "Act", "Mesa 1", played.refused_code.name, played.rule)
    assert (line["caller"], line["role"]) == ("mesa-1", "dealer")
    assert line["duration_ms"] >= 0
    assert played.rule in line["message"] and "mesa-1 (dealer)" in line["message"]


def test_a_call_without_a_known_token_is_logged_naming_no_station(played: Played) -> None:
    [line] = [line for line in played.logs if line.get("code") == "UNAUTHENTICATED"]
    assert (line["rpc"], line["rule"], line["caller"], line["level"]) == ("GetTable", "R-AUD-1", "", "WARNING")
    assert "not-a-station-token" not in played.stderr


def test_a_device_fault_is_logged_with_its_table_and_its_cards_covered(played: Played) -> None:
    [fault] = [line for line in played.logs if line.get("event") == "device-fault"]
    assert fault["level"] == "WARNING" and fault["logger"] == "pokertable.devices"
    assert (fault["table"], fault["command_id"], fault["device"], fault["serial"], fault["colour"]) == (
        "Mesa 1", FAULT_ID, "ACME Shoe", "SH-7", "red")
    assert fault["result"] == "read 12 ?? refused by the service: ?? is already in this hand; jam at the gate"


def test_no_face_down_card_appears_in_anything_the_service_wrote(played: Played) -> None:
    # the request log was on (debug): a line for every deal of those cards
    deals = [line for line in played.logs if line.get("rpc") == "Act" and line.get("code") == "OK"]
    assert len(deals) == 6 and all(line["level"] == "DEBUG" and line["caller"] == "mesa-1" for line in deals)
    for card in HOLE_CARDS:
        assert not card_in(card, played.stdout), card
        assert not card_in(card, played.stderr), card


def test_the_start_the_configuration_the_signed_heads_and_the_stop_are_logged(played: Played) -> None:
    events = [line.get("event") for line in played.logs]
    assert events.index("configuration") < events.index("start") < events.index("ready") < events.index("stopping")
    [configuration] = [line for line in played.logs if line.get("event") == "configuration"]
    options = configuration["options"]
    assert options["log_format"] == "json" and options["sign_every"] == 5 and options["db"].startswith("sqlite:///")
    [started] = [line for line in played.logs if line.get("event") == "start"]
    # the file's three, and the two the service makes for --http: the floor's reader and the dashboard's own station
    assert started["port"] > 0 and started["stations"] == {"pit-boss": 1, "dealer": 1, "device": 1, "observer": 2}
    heads = [line for line in played.logs if line.get("event") == "head-signed"]
    assert heads and heads[-1]["reason"] == "service stop" and heads[-1]["kind"] == "stop"
    assert heads[0]["kind"] == "start" and heads[0]["position"] == 0  # a new log: its start head signs it empty
    assert all(line["position"] > 0 for line in heads[1:])
    assert any(line["logger"] == "pokertable.audit" for line in played.logs)  # the service's audit at its start
    for line in played.logs:
        assert set(line) >= {"time", "level", "logger", "message"} and line["time"].endswith("Z")
    assert not any(token in played.stderr + played.stdout for token in TOKENS.values())


# -- in this process: the request log's switch, and a store error ---------------------------------------------------

@contextlib.contextmanager
def server_of(app: PokerTables) -> Iterator[tuple[grpc.aio.Server, int]]:
    """A real server of ``app`` for :data:`STATIONS` on a free port, in its own event loop thread (the suite's one
    harness, :func:`tests.support.grpc_support.served`)."""
    with served(app, Stations.from_mapping(STATIONS)) as running:
        yield running.server, running.port


def test_answered_calls_are_logged_only_at_debug(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    app = PokerTables(env=environment(f"sqlite:///{tmp_path / 'tables.db'}"))
    try:
        with server_of(app) as (server, port):
            pit = Client(port, TOKENS["pit"])
            with caplog.at_level(logging.INFO, logger="pokertable.requests"):
                open_circle(pit, "Mesa 1")
            assert not [r for r in caplog.records if r.name == "pokertable.requests"]
            with caplog.at_level(logging.DEBUG, logger="pokertable.requests"):
                open_circle(pit, "Mesa 2")
            [record] = [r for r in caplog.records if r.name == "pokertable.requests"]
            assert record.levelno == logging.DEBUG and "OpenTable answered OK" in record.getMessage()
            assert record.fields["table"] == "Mesa 2" and record.fields["caller"] == "pit"  # type: ignore[attr-defined]
            metrics = metrics_of(server)
            assert isinstance(metrics, ServiceMetrics)
            assert metrics.rpcs.labels("OpenTable", "OK")._value.get() == 2
            other = ServiceMetrics()  # another server's registry counts apart
            assert other.rpcs.labels("OpenTable", "OK")._value.get() == 0
    finally:
        app.close()


def test_a_store_error_is_logged_with_its_cause(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Another process holds the SQLite file's write lock: the command waits the lock timeout, then fails
    UNAVAILABLE, and the log says why (the store's own words); once the lock is gone the retry is applied."""
    db = tmp_path / "tables.db"
    app = PokerTables(env={**environment(f"sqlite:///{db}"), "SQLITE_LOCK_TIMEOUT": "1"})
    try:
        with server_of(app) as (server, port):
            pit = Client(port, TOKENS["pit"])
            open_circle(pit, "Mesa 1")
            other = sqlite3.connect(db, isolation_level=None)
            other.execute("BEGIN EXCLUSIVE")
            request = svc.SeatPlayerRequest(command_id="obs-seat-locked", table="Mesa 1", seat=1, chips=100)
            try:
                with caplog.at_level(logging.INFO, logger="pokertable.requests"), \
                        pytest.raises(grpc.RpcError) as failed:
                    pit.SeatPlayer(request)
            finally:
                other.execute("ROLLBACK")
                other.close()
            assert failed.value.code() == grpc.StatusCode.UNAVAILABLE
            deadline = time.monotonic() + 5  # the server logs the call once its status is sent: the client may be first
            while not [r for r in caplog.records if r.name == "pokertable.requests"] and time.monotonic() < deadline:
                time.sleep(0.02)
            [record] = [r for r in caplog.records if r.name == "pokertable.requests"]
            fields: dict[str, Any] = record.fields  # type: ignore[attr-defined]
            assert record.levelno == logging.ERROR
            assert (fields["rpc"], fields["code"], fields["rule"], fields["table"], fields["command_id"]) == (
                "SeatPlayer", "UNAVAILABLE", "R-AUD-1", "Mesa 1", "obs-seat-locked")
            assert "database is locked" in fields["cause"] and "database is locked" in record.getMessage()
            pit.SeatPlayer(request)  # the retry, once the store answers
            metrics = metrics_of(server)
            assert metrics is not None
            assert metrics.refusals.labels("SeatPlayer", "UNAVAILABLE", "R-AUD-1")._value.get() == 1
    finally:
        app.close()


# -- (e) a PostgreSQL password --------------------------------------------------------------------------------------

def test_a_postgresql_password_appears_nowhere_in_what_the_service_writes(tmp_path: Path) -> None:
    """On PostgreSQL with a password in --db (the test server trusts any): the status line, the configuration
    logged and the request log show ``***``, never the password."""
    if not _postgres_available():
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI ({POSTGRES_URL})")
        pytest.skip(f"no PostgreSQL at {POSTGRES_URL}")
    import psycopg

    env = environment(POSTGRES_URL)
    password = env["POSTGRES_PASSWORD"] or f"Casino-{uuid.uuid4().hex}"
    schema = f"t_{uuid.uuid4().hex[:12]}"
    connect = {"host": env["POSTGRES_HOST"], "port": env["POSTGRES_PORT"], "user": env["POSTGRES_USER"],
               "password": password, "dbname": env["POSTGRES_DBNAME"], "autocommit": True}
    with psycopg.connect(**connect) as conn:  # type: ignore[arg-type]
        conn.execute(f"create schema {schema}")
    try:
        url = (f"postgresql://{env['POSTGRES_USER']}:{password}@{env['POSTGRES_HOST']}:{env['POSTGRES_PORT']}/"
               f"{env['POSTGRES_DBNAME']}?schema={schema}")
        served = serve(tmp_path, url, "--log-level", "debug")
        try:
            pit = Client(served.grpc_port, TOKENS["pit"])
            open_circle(pit, "Mesa 1")
            with pytest.raises(grpc.RpcError):
                open_circle(pit, "Mesa 1")  # a name taken: refused, logged
        finally:
            stdout, stderr = served.stop()
        masked = f"{env['POSTGRES_USER']}:***@{env['POSTGRES_HOST']}"
        assert masked in stdout and masked in stderr  # the status line and the configuration logged
        assert password not in stdout and password not in stderr
        # human lines by default: time, level, logger, message
        assert re.search(r"^\S+Z WARNING pokertable\.requests: OpenTable refused INVALID_ARGUMENT", stderr, re.M)
    finally:
        with psycopg.connect(**connect) as conn:  # type: ignore[arg-type]
            conn.execute(f"drop schema if exists {schema} cascade")


def test_a_postgresql_url_the_service_refuses_does_not_show_its_password(tmp_path: Path) -> None:
    config = tmp_path / "stations.toml"
    config.write_text(STATIONS_TOML, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    done = subprocess.run([sys.executable, "-m", "service.cli", "serve", "--db",
                           "postgresql://casino:Hunter2-secret@db.casino.local", "--config", str(config)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert done.returncode == 2
    assert "Hunter2-secret" not in done.stdout + done.stderr
    assert "postgresql://casino:***@db.casino.local" in done.stderr  # the configuration, and why it is refused
    assert "names a host and a database" in done.stderr


# -- the Grafana dashboard ------------------------------------------------------------------------------------------

def test_the_grafana_dashboard_reads_only_metrics_the_service_exports() -> None:
    dashboard = json.loads((ROOT / "docs" / "ops" / "grafana-pokertable.json").read_text(encoding="utf-8"))
    exported = {"up"}  # Prometheus's own, per scrape
    for family in ServiceMetrics().registry.collect():
        suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum")}.get(family.type, ("",))
        exported |= {family.name + suffix for suffix in suffixes}
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    used = {name for expr in expressions for name in re.findall(r"\b(?:pokertable|process)_[a-z_]+|\bup\b", expr)}
    assert used <= exported, used - exported
    assert {"pokertable_rpcs_total", "pokertable_rpc_duration_seconds_bucket", "pokertable_rpc_refusals_total",
            "pokertable_events_stored_total", "pokertable_streams_open", "pokertable_group_commit_size_bucket",
            "pokertable_device_reports_total", "pokertable_hands_started_total",
            "pokertable_signed_head_age_seconds"} <= used
    titles = " / ".join(panel["title"] for panel in dashboard["panels"])
    for wanted in ("by outcome", "p50 / p99", "by rule", "Events stored", "Open streams", "Group-commit sizes",
                   "faults", "by game", "head age"):
        assert wanted in titles, wanted
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(dashboard["panels"])
