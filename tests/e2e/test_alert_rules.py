"""Issue 29, item B: Prometheus shows the audit's findings, the held tables and the alerts nobody acknowledged, and
the alert rules shipped in docs/ops/ fire on them (R-AUD-1, R-HOLD-1).

- ``promtool check rules`` finds docs/ops/pokertable-alerts.rules.yml valid, and ``promtool test rules`` runs its
  unit tests (docs/ops/pokertable-alerts.test.yml): each rule fires when it should and only then; the same tests
  fail against rules changed to cry wolf (a sum over instances) or to fire at once (no ``for``).
- The series those tests feed are named and labelled as a real scrape writes them, and every metric a rule reads is
  one the service exports.
- A real ``pokertable serve --http`` whose log is altered under it (its own audit finds it) and one of whose tables a
  shoe's fault holds: ``/metrics`` shows the finding, the held table and the alerts, then zero once the pit boss has
  acknowledged both. In this process, on SQLite and on PostgreSQL: each figure (a closed table's alert, a banked
  table, tampering of no table, which holds every open table) as the pit would count it.

``promtool`` comes from Debian's prometheus package (``make promtool``: unpacked into the virtual environment); a
visible skip without it, a failure in CI.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from domain.audit_findings import FINDING_KINDS
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.circle.settings import BettingStructure, TableSettings
from domain.device_reports import DeviceReport
from domain.holds import HOLD_KINDS
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables, Role, Viewer
from service.app.commands import AcknowledgeAlert, CloseTable, OpenTable, RecordDeviceReport, Sit
from service.bootstrap import open_store
from service.grpc.metrics import ServiceMetrics
from service.store.audit import Finding
from tests.support.grpc_support import Client, open_circle, seat
from tests.support.observed_service import TOKENS, Samples, sample, scrape, serve
from tests.support.promtool import OPS, RULE_TESTS, RULES, _run
from tests.support.promtool import promtool as promtool  # noqa: PLC0414  (a fixture)
from tests.support.stores import postgres_store

NEW_GAUGES = ("pokertable_tables_held", "pokertable_table_holds", "pokertable_alerts_unacknowledged",
              "pokertable_audit_findings", "pokertable_audit_findings_unacknowledged", "pokertable_tables_unreadable")
PIT = Viewer("pit", Role.PIT_BOSS)


# -- promtool -------------------------------------------------------------------------------------------------------


def test_promtool_finds_the_rules_valid(promtool: str) -> None:
    done = _run(promtool, "check", "rules", RULES.name)
    rules = len(re.findall(r"^\s+- alert: ", RULES.read_text(encoding="utf-8"), re.M))
    assert done.returncode == 0 and f"SUCCESS: {rules} rules found" in done.stdout, done.stdout + done.stderr
    assert rules >= 13


def test_promtool_unit_tests_fire_each_rule_when_it_should_and_only_then(promtool: str) -> None:
    done = _run(promtool, "test", "rules", RULE_TESTS.name)
    assert done.returncode == 0 and "SUCCESS" in done.stdout, done.stdout + done.stderr
    tested = set(re.findall(r"alertname: (\w+)", RULE_TESTS.read_text(encoding="utf-8")))
    assert {"PokertableTamperingFound", "PokertableTableHeld", "PokertableAlertUnacknowledged",
            "PokertableHeadNotSigned", "PokertableTableUnreadable", "PokertableLogTampering"} <= tested


@pytest.mark.parametrize(("change", "into"), [
    ("max by (job) (pokertable_tables_held) > 0", "sum by (job) (pokertable_tables_held) > 0"),  # 2 instances: 2
    ("max by (job, kind) (pokertable_audit_findings_unacknowledged) > 0",
     "pokertable_audit_findings_unacknowledged > 0"),  # one alert per instance
    ("for: 30m\n", "for: 1m\n"),  # an unacknowledged alert paged at once
    ('pokertable_alerts_unacknowledged{kind!="audit"}', "pokertable_alerts_unacknowledged"),  # tampering twice
    ("> 7200 and on (job, instance) rate", "> 7200 or on (job, instance) rate"),  # a closed floor's old head
])
def test_the_unit_tests_fail_rules_that_would_cry_wolf_or_page_too_soon(promtool: str, tmp_path: Path, change: str,
                                                                          into: str) -> None:
    text = RULES.read_text(encoding="utf-8")
    assert change in text
    (tmp_path / RULES.name).write_text(text.replace(change, into, 1), encoding="utf-8")
    shutil.copy(RULE_TESTS, tmp_path / RULE_TESTS.name)
    done = _run(promtool, "test", "rules", RULE_TESTS.name, cwd=tmp_path)
    assert done.returncode != 0 and "FAILED" in done.stdout + done.stderr


# -- the series, as the service writes them -------------------------------------------------------------------------

def _held_floor(app: PokerTables) -> None:
    """Two circle tables and a banked one; a shoe's fault holds Mesa 1, a deck that counted wrong holds the banked
    table; Mesa 2 is closed with a fault nobody acknowledged; the audit found an event of Mesa 1 altered."""
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2))
    app.handle(OpenTable("f-1", "Mesa 1", settings)), app.handle(OpenTable("f-2", "Mesa 2", settings))
    app.handle(OpenTable("f-3", "THB 1", ThbSettings(STANDARD_LIMITS[5])))
    app.handle(Sit("f-4", "Mesa 1", 1, 100))
    app.handle(RecordDeviceReport("f-5", "Mesa 1", DeviceReport("ACME Shoe", "SH-7", "fault", "red", "card jam")), PIT)
    app.handle(RecordDeviceReport("f-6", "THB 1", DeviceReport("ACME Shuffle", "SF-2", "deck-check", "blue",
                                                          "51 counted, INCOMPLETE: missing 1")), PIT)
    app.handle(RecordDeviceReport("f-7", "Mesa 2", DeviceReport("ACME Shoe", "SH-8", "fault", "red", "card jam")), PIT)
    app.handle(CloseTable("f-8", "Mesa 2"), PIT)
    sat = app.holds.position_of(app.table("Mesa 1").id, 2)
    assert sat is not None and app.audit.record_finding(Finding("altered", sat, "the event was altered"))


def _samples(metrics: ServiceMetrics) -> Samples:
    body, _ = metrics.render()
    return {(one.name, frozenset(one.labels.items())): one.value
            for family in text_string_to_metric_families(body.decode()) for one in family.samples}


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Samples:
    """A scrape of a held floor's metrics (:func:`_held_floor`) on an SQLite file served as ``pokertable serve``
    serves it (its sole writer)."""
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('rules') / 'tables.db'}", writer=True)
    metrics = ServiceMetrics()
    try:
        metrics.attach(store.app)
        _held_floor(store.app)
        return _samples(metrics)
    finally:
        metrics.detach()
        store.close()


def _series(text: str) -> list[tuple[str, dict[str, str]]]:
    found = []
    for selector in re.findall(r"series: '([^']+)'", text):
        name, _, labels = selector.partition("{")
        found.append((name, dict(re.findall(r'(\w+)="([^"]*)"', labels))))
    return found


def test_every_series_the_unit_tests_feed_is_named_and_labelled_as_a_scrape_writes_it(real: Samples) -> None:
    written: dict[str, set[frozenset[str]]] = {}
    values: dict[tuple[str, str], set[str]] = {}
    for name, pairs in real:
        written.setdefault(name, set()).add(frozenset(key for key, _ in pairs))
        for key, value in pairs:
            values.setdefault((name, key), set()).add(value)
    fed = _series(RULE_TESTS.read_text(encoding="utf-8"))
    assert {name for name, _ in fed} >= {*NEW_GAUGES, "pokertable_signed_head_age_seconds"}
    for name, labels in fed:
        assert labels.pop("job") == "pokertable" and labels.pop("instance")  # what Prometheus adds to a scrape
        if name == "up":
            continue
        assert frozenset(labels) in written.get(name, set()) or (
            name == "pokertable_rpc_refusals_total" and set(labels) == {"rpc", "code", "rule"}), (name, labels)
        if "kind" in labels:
            assert labels["kind"] in values[(name, "kind")], (name, labels)
    refusals = [labels for name, labels in fed if name == "pokertable_rpc_refusals_total"]
    assert all(re.fullmatch(r"R-[A-Z]+-\d+", labels["rule"]) for labels in refusals)


def test_every_metric_a_rule_reads_is_one_the_service_exports() -> None:
    exported = {"up"}
    for family in ServiceMetrics().registry.collect():
        suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum")}.get(family.type, ("",))
        exported |= {family.name + suffix for suffix in suffixes}
    expressions = re.findall(r"^\s+expr: (.+)$", RULES.read_text(encoding="utf-8"), re.M)
    used = {name for expr in expressions for name in re.findall(r"\bpokertable_[a-z_]+|\bup\b", expr)}
    assert used <= exported, used - exported
    assert set(NEW_GAUGES) - {"pokertable_table_holds", "pokertable_audit_findings"} <= used


def test_a_held_floor_is_counted_as_the_pit_would_count_it(real: Samples) -> None:
    assert sample(real, "pokertable_tables_held") == 2  # Mesa 1 (its fault, the finding) and THB 1; Mesa 2 closed
    assert {kind: sample(real, "pokertable_table_holds", kind=kind) for kind in HOLD_KINDS} == {
        **dict.fromkeys(HOLD_KINDS, 0.0), "device-fault": 1, "deck-count": 1, "audit": 1}
    assert {kind: sample(real, "pokertable_alerts_unacknowledged", kind=kind) for kind in HOLD_KINDS} == {
        **dict.fromkeys(HOLD_KINDS, 0.0), "device-fault": 2, "deck-count": 1, "audit": 1}  # Mesa 2's fault waits
    assert {kind: sample(real, "pokertable_audit_findings", kind=kind) for kind in FINDING_KINDS} == {
        **dict.fromkeys(FINDING_KINDS, 0.0), "altered": 1}
    assert sample(real, "pokertable_audit_findings_unacknowledged", kind="altered") == 1
    assert sample(real, "pokertable_tables_unreadable") == 0
    assert ("pokertable_audit_findings_unacknowledged", frozenset({("kind", "head")})) in real  # 0, not absent


@pytest.fixture(params=["sqlite", "postgres"])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[PokerTables]:
    """An application on SQLite as ``pokertable serve`` runs it (sole writer) and on PostgreSQL (not one)."""
    if request.param == "sqlite":
        store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
        try:
            yield store.app
        finally:
            store.close()
        return
    app = PokerTables(env=postgres_store())
    try:
        yield app
    finally:
        app.close()


def test_tampering_of_no_table_holds_every_open_table_and_acknowledgements_bring_every_gauge_to_zero(
        app: PokerTables) -> None:
    metrics = ServiceMetrics()
    metrics.attach(app)
    try:
        _held_floor(app)
        assert app.audit.record_finding(Finding("head", 10**6, "the signed head is ahead of the log"))  # no table
        now = _samples(metrics)
        assert sample(now, "pokertable_tables_held") == 2
        assert sample(now, "pokertable_table_holds", kind="audit") == 3  # both findings at Mesa 1, the head at THB 1
        assert sample(now, "pokertable_alerts_unacknowledged", kind="audit") == 2  # each finding once
        assert sample(now, "pokertable_audit_findings_unacknowledged", kind="head") == 1
        for table in ("Mesa 1", "THB 1", "Mesa 2"):
            record = app.any_table(table)
            for hold in record.current_holds():
                position = app.holds.position_of(record.id, hold.version)
                assert position is not None
                app.handle(AcknowledgeAlert(f"ack-{table}-{position}", table, position, "cleared by the technician"),
                           PIT)
        for finding in app.holds.holds_of(app.table("Mesa 1")):  # the casino's findings, named by their positions
            app.handle(AcknowledgeAlert(f"ack-log-{finding.position}", "", finding.position, "judged"), PIT)
        after = _samples(metrics)
        assert sample(after, "pokertable_tables_held") == 0
        for name in ("pokertable_table_holds", "pokertable_alerts_unacknowledged"):
            assert all(sample(after, name, kind=kind) == 0 for kind in HOLD_KINDS), name
        assert all(sample(after, "pokertable_audit_findings_unacknowledged", kind=kind) == 0 for kind in FINDING_KINDS)
        assert sample(after, "pokertable_audit_findings", kind="altered") == 1  # recorded, for ever
        assert sample(after, "pokertable_audit_findings", kind="head") == 1
    finally:
        metrics.detach()


def test_without_an_application_the_alert_gauges_show_no_figure() -> None:
    scraped = _samples(ServiceMetrics())
    assert not [key for key in scraped if key[0] in NEW_GAUGES]  # absent, never a reassuring 0


# -- a real service -------------------------------------------------------------------------------------------------

def _until(url: str, condition: str, check: Callable[[Samples], bool]) -> Samples:
    """Scrapes until ``check(samples)`` holds (20 s at most)."""
    deadline = time.monotonic() + 20
    while True:
        now, _ = scrape(url)
        if check(now) or time.monotonic() > deadline:
            assert check(now), condition
            return now
        time.sleep(0.2)


def test_a_served_floor_shows_the_finding_the_held_table_and_the_alerts_then_zero_once_acknowledged(
        tmp_path: Path) -> None:
    db = tmp_path / "tables.db"
    served = serve(tmp_path, f"sqlite:///{db}", "--http", "127.0.0.1:0", "--audit-every", "0.5")
    try:
        pit, dealer, shoe = (Client(served.grpc_port, TOKENS[who]) for who in ("pit", "dealer", "shoe"))
        open_circle(pit, "Mesa 1")
        seat(dealer, "Mesa 1", 1, 100), seat(dealer, "Mesa 1", 2, 100)
        quiet, _ = scrape(served.http_url)
        assert sample(quiet, "pokertable_tables_held") == 0
        assert sum(sample(quiet, "pokertable_alerts_unacknowledged", kind=kind) for kind in HOLD_KINDS) == 0
        assert sum(sample(quiet, "pokertable_audit_findings", kind=kind) for kind in FINDING_KINDS) == 0
        shoe.RecordDeviceReport(svc.RecordDeviceReportRequest(
            command_id="rules-fault", table="Mesa 1", device="ACME Shoe", serial="SH-7",
            kind=pb.DEVICE_REPORT_KIND_FAULT, colour=pb.DECK_COLOUR_RED, result="card jam at the reader"))
        held = _until(served.http_url, "the fault holds Mesa 1",
                      lambda now: sample(now, "pokertable_tables_held") == 1)
        assert sample(held, "pokertable_table_holds", kind="device-fault") == 1
        assert sample(held, "pokertable_alerts_unacknowledged", kind="device-fault") == 1
        with sqlite3.connect(db) as conn:  # the attacker's edit, under the running service: a seat's 100 chips
            rowid, state = conn.execute("SELECT rowid, state FROM stored_events WHERE topic LIKE '%Table.%' AND "
                                        "instr(state, '100') > 0 ORDER BY rowid DESC LIMIT 1").fetchone()
            forged = bytes(state).replace(b"100", b"900")
            assert forged != bytes(state)
            conn.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (forged, rowid))
        found = _until(served.http_url, "the service's audit finds it (R-AUD-1)",
                       lambda now: sample(now, "pokertable_audit_findings_unacknowledged", kind="altered") == 1)
        assert sample(found, "pokertable_audit_findings", kind="altered") == 1
        assert sample(found, "pokertable_alerts_unacknowledged", kind="audit") == 1
        assert sample(found, "pokertable_table_holds", kind="audit") == 1 and \
            sample(found, "pokertable_tables_held") == 1  # Mesa 1, by two alerts
        view = pit.GetTable(svc.GetTableRequest(table="Mesa 1")).view
        assert sorted(hold.kind for hold in view.holds) == ["audit", "device-fault"]
        for hold in view.holds:
            pit.AcknowledgeAlert(svc.AcknowledgeAlertRequest(
                command_id=f"rules-ack-{hold.position}", table="" if hold.kind == "audit" else "Mesa 1",
                position=hold.position, reason="judged by the games director"))
        cleared = _until(served.http_url, "zero once acknowledged",
                         lambda now: sample(now, "pokertable_tables_held") == 0)
        for kind in HOLD_KINDS:
            assert sample(cleared, "pokertable_alerts_unacknowledged", kind=kind) == 0, kind
            assert sample(cleared, "pokertable_table_holds", kind=kind) == 0, kind
        assert sample(cleared, "pokertable_audit_findings_unacknowledged", kind="altered") == 0
        assert sample(cleared, "pokertable_audit_findings", kind="altered") == 1  # the record stays
    finally:
        served.stop()


def test_the_grafana_dashboard_shows_the_findings_the_held_tables_and_the_alerts_waiting() -> None:
    dashboard = json.loads((OPS / "grafana-pokertable.json").read_text(encoding="utf-8"))
    panels = dashboard["panels"]
    exprs = {panel["title"]: " ".join(target["expr"] for target in panel["targets"]) for panel in panels}
    for gauge in ("pokertable_audit_findings_unacknowledged", "pokertable_tables_held", "pokertable_table_holds",
                  "pokertable_alerts_unacknowledged"):
        assert any(re.search(rf"\b{gauge}\{{", expr) for expr in exprs.values()), gauge
    for panel in panels:  # a layout Grafana takes: whole numbers on its 24-column grid
        place = panel["gridPos"]
        assert all(isinstance(place[key], int) for key in ("x", "y", "w", "h")), panel["title"]
        assert place["x"] + place["w"] <= 24, panel["title"]
