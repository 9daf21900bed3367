"""Issue 29, item 4, trusted time (the clock): the service reads its host clock's synchronisation from the kernel
(``adjtimex(2)``, read only; ``timedatectl`` when that call is not there), logs a change of the clock's state once
(an ERROR when it goes wrong, an INFO when it is good again), shows the last check in two gauges and never holds
play; ``clock_check_every`` and ``clock_max_error`` are settings like the others.

- The real reader runs on this machine and gives a coherent reading, whatever the machine's state; a real
  ``pokertable serve`` logs that state and shows it at ``/metrics``.
- With readings fed by the test: one ERROR when the clock becomes unsynchronised, nothing more while it stays so, an
  INFO when it recovers; the threshold; a clock that cannot be read; the gauges.
- The alert rule's unit tests fail against the rule made to page at once or to miss a clock off by too much.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import math
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.app import clock, significant
from service.app.application import PokerTables
from service.app.clock import (
    STA_UNSYNC,
    ClockReading,
    ClockUnreadableError,
    ClockWatch,
    max_error_gauge,
    read_adjtimex,
    read_clock,
    read_timedatectl,
    synchronised_gauge,
    trouble,
    watch_clock,
)
from service.cli.main import main
from service.cli.settings import KEYS, SettingsError, settings
from service.grpc.metrics import ServiceMetrics
from service.store.persistence import environment
from tests.support.observed_service import json_lines, scrape, serve
from tests.support.promtool import RULE_TESTS, RULES, _run, promtool  # noqa: F401 -- promtool: a fixture

NTP_PHASE_LIMIT_US = 16_000_000
"""The kernel's cap on the maximum error (linux/timex.h): reached, the clock is marked unsynchronised."""
GOOD = ClockReading(synchronised=True, max_error_us=12_000, est_error_us=1_000, source="adjtimex")
UNSYNCHRONISED = ClockReading(synchronised=False, max_error_us=NTP_PHASE_LIMIT_US, est_error_us=NTP_PHASE_LIMIT_US,
                              source="adjtimex")
DRIFTING = ClockReading(synchronised=True, max_error_us=900_000, est_error_us=40_000, source="adjtimex")


class Fed:
    """A clock reader that gives the readings it is fed, one a check (an exception is raised instead)."""

    def __init__(self, *readings: ClockReading | ClockUnreadableError) -> None:
        self.readings = list(readings)
        self.calls = 0

    def __call__(self) -> ClockReading:
        """The next reading (the last one again once all are given)."""
        self.calls += 1
        reading = self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]
        if isinstance(reading, ClockUnreadableError):
            raise reading
        return reading


@pytest.fixture
def records(caplog: pytest.LogCaptureFixture) -> Iterator[Callable[[], list[logging.LogRecord]]]:
    """The records of ``pokertable.clock`` logged so far (INFO and up)."""
    with caplog.at_level(logging.INFO, logger="pokertable.clock"):
        yield lambda: [record for record in caplog.records if record.name == "pokertable.clock"]


def _gauges(metrics: ServiceMetrics) -> dict[str, float]:
    body, _ = metrics.render()
    return {one.name: one.value for family in text_string_to_metric_families(body.decode())
            for one in family.samples if one.name.startswith("pokertable_clock_")}


# -- the real clock -------------------------------------------------------------------------------------------------

def test_adjtimex_reads_this_machines_clock_and_says_something_coherent() -> None:
    if ctypes.sizeof(ctypes.c_long) == 8:
        assert ctypes.sizeof(clock._Timex) == 208  # glibc's struct timex on a 64-bit machine
    reading = read_adjtimex()
    assert reading.source == "adjtimex"
    assert isinstance(reading.synchronised, bool)
    assert reading.max_error_us is not None and reading.est_error_us is not None
    assert reading.est_error_us >= 0 and 0 <= reading.max_error_us <= NTP_PHASE_LIMIT_US
    if reading.synchronised:  # the kernel marks the clock unsynchronised once its bound reaches the limit
        assert reading.max_error_us < NTP_PHASE_LIMIT_US
    assert read_clock().source == "adjtimex"  # the fallback is not used where adjtimex answers
    again = read_adjtimex()  # a read changes nothing: the same state, an error bound that only grows or is reset
    assert again.source == "adjtimex" and again.max_error_us is not None


def test_the_kernels_unsync_bit_and_time_error_mean_unsynchronised(monkeypatch: pytest.MonkeyPatch) -> None:
    def kernel(status: int, state: int, maxerror: int) -> Callable[[Any], int]:
        def adjtimex(pointer: Any) -> int:
            timex = pointer.contents
            assert timex.modes == 0  # a read: nothing is set
            timex.status, timex.maxerror, timex.esterror = status, maxerror, 250
            return state
        return adjtimex

    for status, state, synchronised in ((0x2001, 0, True), (0x2001 | STA_UNSYNC, 5, False), (0x2001, 5, False)):
        adjtimex = kernel(status, state, 8_000)
        monkeypatch.setattr(clock, "_adjtimex", lambda adjtimex=adjtimex: adjtimex)
        assert read_adjtimex() == ClockReading(synchronised, 8_000, 250, "adjtimex")
    monkeypatch.setattr(clock, "_adjtimex", lambda: kernel(0, -1, 0))
    with pytest.raises(ClockUnreadableError, match="adjtimex refused"):
        read_adjtimex()


def test_timedatectl_is_read_only_when_adjtimex_cannot_be_called(monkeypatch: pytest.MonkeyPatch) -> None:
    def answering(code: int, out: str, err: str = "") -> Callable[..., subprocess.CompletedProcess[str]]:
        def run(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
            assert command == ["timedatectl", "show", "-p", "NTPSynchronized", "--value"]
            assert options["timeout"] > 0
            return subprocess.CompletedProcess(command, code, out, err)
        return run

    assert read_timedatectl(answering(0, "yes\n")) == ClockReading(True, None, None, "timedatectl")
    assert read_timedatectl(answering(0, "no\n")) == ClockReading(False, None, None, "timedatectl")
    with pytest.raises(ClockUnreadableError, match="Failed to connect to bus"):
        read_timedatectl(answering(1, "", "System has not been booted with systemd\nFailed to connect to bus"))

    def missing(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
        raise FileNotFoundError(2, "No such file or directory", command[0])

    with pytest.raises(ClockUnreadableError, match="timedatectl could not be run"):
        read_timedatectl(missing)

    def unavailable() -> Any:
        raise ClockUnreadableError("adjtimex is not available here")

    monkeypatch.setattr(clock, "_adjtimex", unavailable)
    monkeypatch.setattr(clock, "read_timedatectl", lambda: ClockReading(True, None, None, "timedatectl"))
    assert read_clock().source == "timedatectl"

    def silent() -> ClockReading:
        raise ClockUnreadableError("timedatectl did not say")

    monkeypatch.setattr(clock, "read_timedatectl", silent)
    with pytest.raises(ClockUnreadableError, match="adjtimex is not available here; timedatectl did not say"):
        read_clock()


# -- the watch, with readings fed ------------------------------------------------------------------------------------

def test_unsynchronised_is_one_error_then_quiet_then_an_info_on_recovery(
        records: Callable[[], list[logging.LogRecord]]) -> None:
    later = ClockReading(synchronised=False, max_error_us=NTP_PHASE_LIMIT_US, est_error_us=9, source="adjtimex")
    watch = ClockWatch(0.5, Fed(GOOD, UNSYNCHRONISED, UNSYNCHRONISED, later, GOOD, GOOD))
    watch.check()
    [started] = records()
    assert (started.levelno, started.getMessage()) == (
        logging.INFO, "clock: synchronised, maximum error 0.012 s (adjtimex)")
    assert started.fields["event"] == "clock-good"  # type: ignore[attr-defined]
    watch.check()
    [error] = records()[1:]
    assert error.levelno == logging.ERROR and "the clock is not synchronised (adjtimex)" in error.getMessage()
    assert error.fields == {"event": "clock-unsynchronised", "synchronised": False,  # type: ignore[attr-defined]
                            "max_error_us": NTP_PHASE_LIMIT_US, "est_error_us": NTP_PHASE_LIMIT_US,
                            "source": "adjtimex"}
    watch.check(), watch.check()
    assert len(records()) == 2  # still unsynchronised: nothing more at each interval
    assert watch.state == "unsynchronised" and watch.last == later
    watch.check()
    [recovered] = records()[2:]
    assert recovered.levelno == logging.INFO and recovered.fields["event"] == "clock-good"  # type: ignore[attr-defined]
    watch.check()
    assert len(records()) == 3


def test_a_maximum_error_above_the_threshold_is_an_error_of_its_own(
        records: Callable[[], list[logging.LogRecord]]) -> None:
    watch = ClockWatch(0.5, Fed(DRIFTING, DRIFTING, UNSYNCHRONISED, GOOD))
    for _ in range(4):
        watch.check()
    levels = [(record.levelno, record.fields["event"]) for record in records()]  # type: ignore[attr-defined]
    assert levels == [(logging.ERROR, "clock-max-error"), (logging.ERROR, "clock-unsynchronised"),
                      (logging.INFO, "clock-good")]
    assert "may be off by up to 0.900 s (more than clock_max_error 0.5 s; adjtimex)" in records()[0].getMessage()
    tolerant = ClockWatch(1.0, Fed(DRIFTING))
    assert tolerant.check() == DRIFTING and tolerant.state == "good"


def test_the_threshold_is_strictly_above_and_an_unknown_error_is_judged_by_synchronisation_alone() -> None:
    at = ClockReading(synchronised=True, max_error_us=500_000, est_error_us=0, source="adjtimex")
    above = ClockReading(synchronised=True, max_error_us=500_001, est_error_us=0, source="adjtimex")
    assert trouble(at, 0.5) is None
    assert trouble(above, 0.5) == ("the clock may be off by up to 0.500 s (more than clock_max_error 0.5 s; "
                                   "adjtimex)")
    assert trouble(ClockReading(True, None, None, "timedatectl"), 0.001) is None
    assert trouble(ClockReading(False, None, None, "timedatectl"), 0.5) == \
        "the clock is not synchronised (timedatectl)"
    assert trouble(UNSYNCHRONISED, 100.0) == "the clock is not synchronised (adjtimex)"  # whatever the threshold
    with pytest.raises(ValueError, match="seconds above 0"):
        ClockWatch(0.0)


def test_a_clock_that_cannot_be_read_is_a_warning_once_and_shows_no_figure(
        records: Callable[[], list[logging.LogRecord]]) -> None:
    gone = ClockUnreadableError("adjtimex refused: errno 1; timedatectl could not be run")
    watch = ClockWatch(0.5, Fed(GOOD, gone, gone, GOOD))
    metrics = ServiceMetrics(clock=watch)
    watch.check()
    assert _gauges(metrics) == {"pokertable_clock_synchronised": 1.0, "pokertable_clock_max_error_seconds": 0.012}
    assert watch.check() is None and watch.check() is None
    assert watch.last is None
    assert all(math.isnan(value) for value in _gauges(metrics).values())
    watch.check()
    events = [(record.levelno, record.fields["event"]) for record in records()]  # type: ignore[attr-defined]
    assert events == [(logging.INFO, "clock-good"), (logging.WARNING, "clock-unreadable"), (logging.INFO, "clock-good")]
    assert "adjtimex refused: errno 1" in records()[1].getMessage()


def test_the_gauges_show_the_last_check_and_nan_before_any() -> None:
    assert all(math.isnan(value) for value in _gauges(ServiceMetrics()).values())  # no watch: not checked
    fed = Fed(UNSYNCHRONISED, GOOD, ClockReading(True, None, None, "timedatectl"))
    watch = ClockWatch(0.5, fed)
    metrics = ServiceMetrics(clock=watch)
    before = _gauges(metrics)
    assert set(before) == {"pokertable_clock_synchronised", "pokertable_clock_max_error_seconds"}
    assert all(math.isnan(value) for value in before.values())
    watch.check()
    assert _gauges(metrics) == {"pokertable_clock_synchronised": 0.0, "pokertable_clock_max_error_seconds": 16.0}
    watch.check()
    assert _gauges(metrics) == {"pokertable_clock_synchronised": 1.0, "pokertable_clock_max_error_seconds": 0.012}
    assert fed.calls == 2  # the scrapes read the last check, never the clock
    watch.check()
    shown = _gauges(metrics)
    assert shown["pokertable_clock_synchronised"] == 1.0 and math.isnan(shown["pokertable_clock_max_error_seconds"])
    assert synchronised_gauge(None) != synchronised_gauge(None) and math.isnan(max_error_gauge(None))


def test_the_periodic_check_runs_at_once_then_at_each_interval_and_survives_a_failing_reader(
        records: Callable[[], list[logging.LogRecord]]) -> None:
    calls: list[int] = []

    def reader() -> ClockReading:
        calls.append(len(calls))
        if len(calls) == 2:
            raise OSError("a reader that breaks in an unexpected way")
        return GOOD

    watch = ClockWatch(0.5, reader)

    async def run(every: float, checks: int) -> None:
        task = asyncio.ensure_future(watch_clock(watch, every))
        deadline = asyncio.get_running_loop().time() + 10
        while len(calls) < checks and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run(3600, 1))
    assert calls == [0]  # at once, not an interval later
    asyncio.run(run(0.01, 4))
    assert len(calls) >= 4
    levels = [(record.levelno, record.getMessage()) for record in records()]
    assert (logging.ERROR, "clock: the check could not be made: a reader that breaks in an unexpected way") in levels
    assert watch.state == "good" and watch.last == GOOD


# -- the settings ----------------------------------------------------------------------------------------------------

def test_the_clock_settings_their_defaults_and_0_disables_the_check() -> None:
    chosen = settings({}, {}, {})
    assert (chosen.clock_check_every, chosen.clock_max_error) == (300.0, 0.5)
    assert (KEYS["clock_check_every"].flag("clock_check_every"), KEYS["clock_max_error"].flag("clock_max_error")) == \
        ("--clock-check-every", "--clock-max-error")
    chosen = settings({"clock_max_error": "0.25"}, {"POKERTABLE_CLOCK_CHECK_EVERY": "0"},
                      {"service": {"clock_max_error": 2}})
    assert (chosen.clock_check_every, chosen.origin["clock_check_every"]) == (0.0, "environment "
                                                                               "POKERTABLE_CLOCK_CHECK_EVERY")
    assert (chosen.clock_max_error, chosen.origin["clock_max_error"]) == (0.25, "--clock-max-error")
    assert settings({}, {}, {"service": {"clock_check_every": 60, "clock_max_error": 1}}).clock_max_error == 1.0


@pytest.mark.parametrize(("flags", "environ", "file", "named"), [
    ({}, {"POKERTABLE_CLOCK_CHECK_EVERY": "-5"}, {},
     "environment POKERTABLE_CLOCK_CHECK_EVERY: seconds (0 or more), not '-5'"),
    ({"clock_check_every": "often"}, {}, {}, "--clock-check-every: seconds (0 or more), not 'often'"),
    ({}, {}, {"service": {"clock_max_error": 0}}, "config cfg.toml [service] clock_max_error: seconds above 0, not 0"),
    ({}, {"POKERTABLE_CLOCK_MAX_ERROR": "-0.5"}, {},
     "environment POKERTABLE_CLOCK_MAX_ERROR: seconds above 0, not '-0.5'"),
    ({}, {}, {"service": {"clock_max_error": True}}, "[service] clock_max_error: seconds above 0, not True"),
])
def test_a_bad_clock_setting_is_refused_naming_its_key(flags: dict[str, object], environ: dict[str, str],
                                                       file: dict[str, object], named: str) -> None:
    with pytest.raises(SettingsError) as refused:
        settings(flags, environ, file, Path("cfg.toml"))
    assert named in str(refused.value)


def test_serve_refuses_a_negative_interval_before_it_claims_anything(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "pokertable.toml"
    config.write_text("", encoding="utf-8")
    db = tmp_path / "tables.db"
    assert main(["serve", "--config", str(config), "--db", f"sqlite:///{db}", "--clock-check-every", "-1"]) == 2
    assert "--clock-check-every: seconds (0 or more), not -1.0" in capsys.readouterr().err
    assert not db.exists()


# -- a real service --------------------------------------------------------------------------------------------------

def test_a_served_service_logs_the_clocks_state_and_shows_it_at_metrics(tmp_path: Path) -> None:
    served = serve(tmp_path, f"sqlite:///{tmp_path / 'tables.db'}", "--http", "127.0.0.1:0", "--log-format", "json",
                   "--clock-check-every", "0.2")
    try:
        now, _ = scrape(served.http_url)
        for _ in range(100):  # the first check runs beside the service, at its start: 10 s at most
            if not math.isnan(now.get(("pokertable_clock_synchronised", frozenset()), math.nan)):
                break
            time.sleep(0.1)
            now, _ = scrape(served.http_url)
    finally:
        _, stderr = served.stop()
    machine = read_adjtimex()
    assert now[("pokertable_clock_synchronised", frozenset())] == float(machine.synchronised)
    assert now[("pokertable_clock_max_error_seconds", frozenset())] >= 0
    events = [line for line in json_lines(stderr) if line["logger"] == "pokertable.clock"]
    assert events, stderr
    first = events[0]
    expected = {None: "clock-good", False: "clock-unsynchronised"}.get(
        None if trouble(machine, 0.5) is None else machine.synchronised, "clock-max-error")
    assert first["event"] == expected and first["source"] == "adjtimex"
    assert first["level"] == ("INFO" if expected == "clock-good" else "ERROR")
    assert len({line["event"] for line in events}) == len(events)  # once per state, not once per check


# -- the alert rule ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("change", "into"), [
    ("pokertable_clock_max_error_seconds > 0.5\n        for: 10m\n",
     "pokertable_clock_max_error_seconds > 0.5\n"),  # paged at the first check, a restart of chrony too
    ("pokertable_clock_synchronised == 0 or pokertable_clock_max_error_seconds",
     "pokertable_clock_synchronised == 0 and pokertable_clock_max_error_seconds"),  # a drifting clock missed
])
def test_the_clock_rules_unit_tests_fail_a_rule_that_pages_too_soon_or_misses_a_drift(
        promtool: str, tmp_path: Path, change: str, into: str) -> None:  # noqa: F811 -- the fixture
    text = RULES.read_text(encoding="utf-8")
    assert text.count(change) == 1
    (tmp_path / RULES.name).write_text(text.replace(change, into), encoding="utf-8")
    shutil.copy(RULE_TESTS, tmp_path / RULE_TESTS.name)
    done = _run(promtool, "test", "rules", RULE_TESTS.name, cwd=tmp_path)
    assert done.returncode != 0 and "FAILED" in done.stdout + done.stderr


def test_r_aud_1_each_change_of_the_clock_is_a_significant_event_once(tmp_path: Path) -> None:
    """Issue 29, item 2: the clock's findings are in the log (``pokertable report significant``), one a change."""
    app = PokerTables(env=environment(f"sqlite:///{tmp_path / 'tables.db'}"))
    since = datetime.now(UTC)
    settled = ClockReading(synchronised=True, max_error_us=3_000, est_error_us=500, source="adjtimex")
    watch = ClockWatch(0.5, Fed(GOOD, UNSYNCHRONISED, UNSYNCHRONISED, DRIFTING, settled))
    watch.on_change = lambda state, said: significant.record(app, "clock", f"{state}: {said}", instance="mesa-1")
    for _ in range(5):
        watch.check()
    found = [(entry.kind, entry.detail.split(":")[0], entry.instance)
             for entry in significant.entries(app, since, datetime.now(UTC))]
    assert found == [("clock", state, "mesa-1") for state in ("good", "unsynchronised", "max-error", "good")]


def test_a_clock_finding_the_log_could_not_take_is_told_again_at_the_next_check(
        records: Callable[[], list[logging.LogRecord]]) -> None:
    told: list[str] = []

    def refusing(state: str, said: str) -> None:
        told.append(state)
        if len(told) == 1:
            raise OSError("the store does not answer")

    watch = ClockWatch(0.5, Fed(UNSYNCHRONISED, UNSYNCHRONISED, UNSYNCHRONISED))
    watch.on_change = refusing
    for _ in range(3):
        watch.check()
    assert told == ["unsynchronised", "unsynchronised"]  # refused once, recorded at the next check, then quiet
    assert any("could not be recorded in the log: the store does not answer" in r.getMessage() for r in records())
