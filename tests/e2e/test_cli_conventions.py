"""The command line's conventions (issue 17, item 8; docs/cli.md): data on standard output, counts and errors on
standard error; exit status 0 done, 1 refused or found bad, 2 usage, 130 interrupted, 141 output closed early; the
casino's time zone for times read and printed; shell completion."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from service.app.application import PokerTables
from service.cli.conventions import EXIT_STATUS
from service.cli.main import build_parser, main
from service.store.persistence import environment
from tests.support.app_play import _play_recording

SCRIPT = shutil.which("pokertable", path=str(Path(sys.executable).parent)) or "pokertable"
ROOT = Path(__file__).resolve().parents[2]
MADRID, NEW_YORK = ZoneInfo("Europe/Madrid"), ZoneInfo("America/New_York")
TABLE = "Mesa R"


@pytest.fixture(autouse=True)
def _no_configured_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test chooses its zone: none comes from the environment of whoever runs the tests."""
    monkeypatch.delenv("POKERTABLE_TZ", raising=False)
    monkeypatch.delenv("POKERTABLE_CONFIG", raising=False)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, datetime]:
    """A store with one hand played at Mesa R: its URL, the hand's id and its start (UTC)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('conventions') / 'tables.db'}"
    app = PokerTables(env=environment(url))
    hand_id, _ = _play_recording(app)
    (found,) = app.views.search_hands(TABLE)
    return url, str(hand_id), found.started


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``pokertable ARGV`` in this process: its status, standard output and standard error."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_hands_prints_the_hands_on_stdout_and_the_count_on_stderr(
        played: tuple[str, str, datetime], capsys: pytest.CaptureFixture[str]) -> None:
    url, hand_id, _ = played
    status, out, err = run(capsys, "hands", TABLE, "--db", url)
    assert status == 0 and err == "1 hand(s) found\n"
    (line,) = out.splitlines()
    assert hand_id in line and "hand(s)" not in out
    status, out, err = run(capsys, "hands", TABLE, "--outcome", "voided", "--db", url)
    assert (status, out, err) == (0, "", "0 hand(s) found\n")  # none found is an answer, not an error
    status, out, err = run(capsys, "hands", "Mesa Nowhere", "--db", url)
    assert status == 1 and out == "" and err.startswith("pokertable hands: ") and "Mesa Nowhere" in err
    status, out, err = run(capsys, "hands", TABLE, "--from", "after dinner", "--db", url)
    assert status == 2 and out == "" and "'after dinner' is not a time" in err
    missing = url.replace("tables.db", "no-such.db")
    status, out, err = run(capsys, "hands", TABLE, "--db", missing)
    assert status == 2 and out == "" and "no database" in err
    assert not Path(missing.removeprefix("sqlite:///")).exists()  # a reader never creates a store


def test_a_naive_time_is_the_casinos_and_times_are_printed_in_its_zone(
        played: tuple[str, str, datetime], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    url, hand_id, started = played
    # Half an hour before the hand, as a Madrid croupier's clock showed it, typed without an offset.
    typed = (started - timedelta(minutes=30)).astimezone(MADRID).strftime("%Y-%m-%d %H:%M")
    status, out, err = run(capsys, "hands", TABLE, "--from", typed, "--tz", "Europe/Madrid", "--db", url)
    assert status == 0 and err == "1 hand(s) found\n" and hand_id in out
    shown = started.astimezone(MADRID).isoformat(sep=" ", timespec="seconds")
    assert shown in out and re.search(r"\+0[12]:00", shown)
    # The same words read in UTC are an hour or two later than the hand (Madrid is ahead of UTC): nothing found.
    status, out, err = run(capsys, "--tz", "UTC", "hands", TABLE, "--from", typed, "--db", url)
    assert (status, out, err) == (0, "", "0 hand(s) found\n")
    # Without --tz: POKERTABLE_TZ, else the configuration's [service] tz, else Europe/Madrid.
    status, out, _ = run(capsys, "hands", TABLE, "--from", typed, "--db", url)
    assert status == 0 and shown in out
    monkeypatch.setenv("POKERTABLE_TZ", "UTC")
    status, out, err = run(capsys, "hands", TABLE, "--db", url)
    assert status == 0 and started.astimezone(UTC).isoformat(sep=" ", timespec="seconds") in out
    monkeypatch.delenv("POKERTABLE_TZ")
    config = tmp_path / "pokertable.toml"
    config.write_text('[service]\ntz = "America/New_York"\ndb = "sqlite:///elsewhere.db"\n', encoding="utf-8")
    status, out, _ = run(capsys, "hands", TABLE, "--config", str(config), "--db", url)
    assert status == 0 and started.astimezone(NEW_YORK).isoformat(sep=" ", timespec="seconds") in out
    status, out, err = run(capsys, "hands", TABLE, "--tz", "Mars/Olympus", "--db", url)
    assert status == 2 and out == "" and "--tz: a time zone such as Europe/Madrid, not 'Mars/Olympus'" in err
    # An offset typed is kept, whatever the zone.
    exact = (started - timedelta(minutes=30)).astimezone(UTC).isoformat()
    for zone in ("UTC", "Pacific/Auckland"):
        assert run(capsys, "hands", TABLE, "--from", exact, "--tz", zone, "--db", url)[2] == "1 hand(s) found\n"


def test_history_export_and_reconstruct_keep_data_on_stdout_and_errors_on_stderr(
        played: tuple[str, str, datetime], capsys: pytest.CaptureFixture[str]) -> None:
    url, hand_id, started = played
    status, out, err = run(capsys, "history", TABLE, "--position", "5", "--tz", "America/New_York", "--db", url)
    state = json.loads(out)
    assert status == 0 and err == "" and datetime.fromisoformat(state["time"]).utcoffset() in (
        timedelta(hours=-5), timedelta(hours=-4))
    typed = (started + timedelta(minutes=1)).astimezone(MADRID).strftime("%Y-%m-%d %H:%M")
    status, out, err = run(capsys, "history", TABLE, "--at", typed, "--db", url)
    assert status == 0 and json.loads(out)["table"] == TABLE and err == ""
    status, out, err = run(capsys, "history", "Mesa Nowhere", "--position", "5", "--db", url)
    assert status == 1 and out == "" and err.startswith("pokertable history: ")

    status, out, err = run(capsys, "export", "--table", TABLE, "--db", url)
    assert status == 0 and [json.loads(line)["hand_id"] for line in out.splitlines()] == [hand_id]
    assert err == "1 hand(s) exported\n"
    status, out, err = run(capsys, "export", "--db", url)
    assert status == 2 and out == "" and "name a HAND_ID or --table T" in err
    status, out, err = run(capsys, "export", "00000000-0000-0000-0000-000000000001", "--db", url)
    assert status == 1 and out == "" and err.startswith("pokertable export: ")

    status, out, err = run(capsys, "reconstruct", hand_id, "--tz", "UTC", "--db", url)
    assert status == 0 and err == "" and "not recorded" in out and "+00:00)" in out
    status, out, err = run(capsys, "reconstruct", hand_id, "--at", "999", "--db", url)
    assert status == 2 and "the hand has events 1–" in err and "999" not in out
    status, out, err = run(capsys, "reconstruct", "not-a-uuid", "--db", url)
    assert status == 2 and out == "" and err.startswith("pokertable reconstruct: ")


def test_audit_prints_its_verdict_on_stdout_and_its_errors_on_stderr(
        played: tuple[str, str, datetime], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    url, _, _ = played
    status, out, err = run(capsys, "audit", "verify", "--db", url)
    assert status == 0 and out.startswith("clean: ") and err == ""
    status, out, err = run(capsys, "audit", "head", "--db", url)
    assert status == 0 and re.fullmatch(r"\d+:[0-9a-f]{64}\n", out) and err == ""
    status, out, err = run(capsys, "audit", "verify", "--db", url, "--head", "3:" + "00" * 32)
    assert status == 1 and out.startswith("TAMPERED ") and err == ""  # found bad: the verdict is the data
    status, out, err = run(capsys, "audit", "verify", "--db", url, "--head", "three")
    assert status == 2 and out == "" and err.startswith("pokertable audit: --head is POSITION:HASH")
    status, out, err = run(capsys, "audit", "verify", "--db", f"sqlite:///{tmp_path / 'none.db'}")
    assert status == 2 and out == "" and "no database" in err


def test_the_other_commands_follow_the_same_streams(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = run(capsys, "hand", "As", "Ks", "--board", "Qs", "Js", "Ts")
    assert status == 0 and "royal flush" in out and err == ""
    status, out, err = run(capsys, "hand", "As", "As", "--board", "Qs", "Js", "Ts")
    assert status == 1 and out == "" and "R-DECK-4" in err
    status, out, err = run(capsys, "phh", "replay", str(tmp_path / "missing.phh"))
    assert status == 1 and out == "" and "missing.phh: error: cannot read the history" in err
    config = tmp_path / "pokertable.toml"
    status, out, err = run(capsys, "tokens", "add", "--role", "observer", "--name", "tv", "--config", str(config))
    token = out.strip()
    assert status == 0 and len(token) >= 32 and token not in err and "added to" in err
    status, out, err = run(capsys, "tokens", "list", "--config", str(config))
    assert status == 0 and out == "tv\tobserver\n" and err == f"1 station(s) in {config}\n"
    status, out, err = run(capsys, "tokens", "add", "--role", "observer", "--name", "tv", "--config", str(config))
    assert status == 1 and out == "" and "has a station 'tv' already" in err
    status, out, err = run(capsys, "health", "--address", "127.0.0.1:9", "--timeout", "2")
    assert status == 1 and out == "" and err.startswith("pokertable health: 127.0.0.1:9: ")
    with pytest.raises(SystemExit) as usage:  # argparse: a bad command line is status 2
        main(["hands"])
    assert usage.value.code == 2 and "the following arguments are required: table" in capsys.readouterr().err


def test_every_subcommand_documents_its_streams_and_exit_statuses() -> None:
    commands: Any = next(action for action in build_parser()._actions if action.dest == "command")
    names = set(commands.choices)
    assert names == set(EXIT_STATUS)
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for name, parser in commands.choices.items():
        help_text = " ".join(parser.format_help().split())  # as one line, however argparse wraps it
        assert "Exit status: " in help_text and "130 interrupted" in help_text, name
        assert "standard output" in help_text and "standard error" in help_text, name
        assert f"## pokertable {name}" in page, name
    for status in ("0", "1", "2", "130", "141"):
        assert f"| {status} |" in page


def test_ctrl_c_at_a_station_waiting_for_a_command_exits_130_without_a_traceback() -> None:
    """The plain station reads its commands from standard input; Ctrl-C while it waits (the service unreachable,
    so its one command was refused, on standard error) ends it with 130 and one line."""
    process = subprocess.Popen([SCRIPT, "station", "--plain", "--server", "127.0.0.1:9", "--table", TABLE],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "POKERTABLE_TOKEN": "t" * 24})
    assert process.stdin is not None and process.stderr is not None and process.stdout is not None
    try:
        process.stdin.write("table\n")
        process.stdin.flush()
        refused = process.stderr.readline()  # the station has run a command: it now waits for the next
        assert refused.startswith("refused: UNAVAILABLE"), refused
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=30)
        rest, out = process.stderr.read(), process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert status == 130
    assert rest == "pokertable: interrupted\n" and "Traceback" not in rest
    assert out == ""  # no table was drawn: the refusal went to standard error


def test_output_closed_early_ends_quietly_with_141() -> None:
    """``pokertable … | head``: the reader goes away; no traceback, no "Exception ignored" at exit."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([SCRIPT, "completion", "bash"], stdout=write, stderr=subprocess.PIPE, text=True,
                              timeout=60, check=False)
    finally:
        os.close(write)
    assert done.returncode == 141 and done.stderr == ""


def test_completion_prints_a_script_bash_accepts(tmp_path: Path) -> None:
    done = subprocess.run([SCRIPT, "completion", "bash"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stderr == ""
    script = tmp_path / "pokertable.bash"
    script.write_text(done.stdout, encoding="utf-8")
    checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert checked.returncode == 0, checked.stderr
    for word in ("hands", "reconstruct", "completion", "--tz", "--db"):
        assert word in done.stdout
    # Sourced, it completes a subcommand and an option as bash asks it to.
    probe = (f"source {script}; COMP_WORDS=(pokertable hand); COMP_CWORD=1; COMP_LINE='pokertable hand'; "
             "COMP_POINT=${#COMP_LINE}; _shtab_pokertable; echo ${COMPREPLY[@]}")
    completed = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    assert set(completed.stdout.split()) == {"hand", "hands"}, completed.stdout + completed.stderr
    fish = subprocess.run([SCRIPT, "completion", "fish"], capture_output=True, text=True, timeout=60, check=False)
    assert fish.returncode == 0 and "complete -c pokertable" in fish.stdout
    wrong = subprocess.run([SCRIPT, "completion", "powershell"], capture_output=True, text=True, timeout=60,
                           check=False)
    assert wrong.returncode == 2 and wrong.stdout == "" and "invalid choice" in wrong.stderr


IGNORED_AND_BLOCKED = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                       "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}); "
                       "os.execvp(sys.argv[1], sys.argv[1:])")
"""A launcher that hands the command SIGINT ignored and blocked (both survive exec). Not a ``preexec_fn``: that runs
in a fork of the test's worker, whose gRPC threads and fork handlers made the child print gRPC's poller errors, or
die, before it ran the command (twice in CI under load)."""


def test_ctrl_c_ends_a_command_started_with_sigint_ignored_and_blocked() -> None:
    """Whatever starts a command may hand it SIGINT ignored or blocked (a background job, a test runner's worker
    after some library did so: CI's Ctrl-C tests hung 60 s that way); the command answers Ctrl-C all the same."""
    process = subprocess.Popen([sys.executable, "-c", IGNORED_AND_BLOCKED, SCRIPT, "station", "--plain", "--server",
                                "127.0.0.1:9", "--table", TABLE], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "POKERTABLE_TOKEN": "t" * 24})
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write("table\n")
    process.stdin.flush()
    said = process.stderr.readline()
    assert said.startswith("refused: UNAVAILABLE"), said
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130 and err.strip().endswith("pokertable: interrupted")
