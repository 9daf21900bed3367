"""Issue 29, item 2 — the service's significant events are in its own log (R-AUD-1): starts and stops with the
version, the release's digest, the configuration's digest and the host; what changed in the configuration since the
last start; key rotations; the audits' runs and verdicts; ``pokertable report significant --from --to`` lists them in
the casino's time, reading only the days asked."""

from __future__ import annotations

import json
import signal
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from service.app import significant
from service.app.application import PokerTables
from service.store.persistence import environment
from tests.support.app_tables import counting_reads
from tests.support.audit_tampering import play
from tests.support.evidence_service import STATIONS, Service, _until
from tests.support.serve_process import SCRIPT


def test_r_aud_1_starts_stops_configuration_changes_rotations_and_audits_are_reported(tmp_path: Path) -> None:
    db, config = tmp_path / "tables.db", tmp_path / "stations.toml"
    url = f"sqlite:///{db}"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    Service(url, config, "--sign-every", "40", "--instance", "mesa-1").stop()
    second = Service(url, config, "--sign-every", "50", "--instance", "mesa-1", "--audit-every", "1")
    _until(lambda: second.said("audit: the log is intact") >= 2, "two audits")
    second.process.send_signal(signal.SIGHUP)
    _until(lambda: second.said("rotated its signing key") >= 1, "the key's rotation")
    said = second.stop()
    assert "rotated its signing key" in said
    since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    done = subprocess.run([SCRIPT, "report", "significant", "--db", url, "--from", since, "--format", "json",
                           "--tz", "Europe/Madrid"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    events = json.loads(done.stdout)["events"]
    kinds = [event["kind"] for event in events]
    assert kinds.count("service-start") == 2 and kinds.count("service-stop") == 2
    assert kinds.index("service-start") < kinds.index("service-stop")
    assert {event["instance"] for event in events} == {"mesa-1"}
    (changed,) = [event for event in events if event["kind"] == "configuration-changed"]
    assert "sign_every: 40 -> 50" in changed["detail"] and "audit_every: 3600.0 -> 1.0" in changed["detail"]
    start = json.loads(next(event for event in events if event["kind"] == "service-start")["detail"])
    assert set(start) == {"version", "release", "configuration", "host", "key"} and len(start["configuration"]) == 16
    (rotated,) = [event for event in events if event["kind"] == "key-rotated"]
    assert rotated["detail"].count(" -> ") == 1
    audits = [event for event in events if event["kind"] == "audit"]
    assert audits and audits[0]["detail"].startswith("full: intact, ")
    offset = datetime.now(ZoneInfo("Europe/Madrid")).strftime("%z")
    assert all(event["time"].endswith(f"{offset[:3]}:{offset[3:]}") for event in events)  # the casino's time
    assert f"{len(events)} significant event(s)" in done.stderr


def test_r_aud_1_the_report_reads_the_days_asked_and_nothing_else(tmp_path: Path) -> None:
    app = PokerTables(env=environment(f"sqlite:///{tmp_path / 'tables.db'}"))
    play(app)  # a log of other events, which the report does not read
    significant.record(app, "clock", "unsynchronised: max error 2.1 s", instance="mesa-1")
    now = datetime.now(UTC)
    with counting_reads(app) as reads:
        found = list(significant.entries(app, now - timedelta(days=2), now + timedelta(minutes=1)))
    assert [(entry.kind, entry.detail) for entry in found] == [("clock", "unsynchronised: max error 2.1 s")]
    assert len(reads) <= 3  # one read a day asked (three days), none of the rest of the log
