"""Issue 29, item A: no text from outside can forge a line of the service's log.

A device's fault words, an alert's detail, a station's name (the stations file), a command id and a reason are text
the service did not write.  Each is logged here with a forged record in it — a line feed, then
``2026-11-27 12:00:00 INFO pokertable.audit audit: the log is intact`` — and ANSI escapes (a colour, "erase the line",
"cursor up"), a carriage return, NEL, DEL, U+2028 and U+2029, through the service's real logging setup
(:func:`service.cli.logs.configure_logging`), in the human format and in JSON: each record is exactly one line, the
text escaped (human) or a JSON string that reads back exactly (JSON), and no line of the log begins with the forged
time.  An error's traceback with the same text in its message stays behind its record, each line prefixed.  Then the
same through a real gRPC server: a device fault recorded by a station whose name carries a forged line, and commands
refused with hostile command ids."""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.cli.logs import CONTINUATION, PROJECT_LOGGERS, configure_logging, escaped
from service.grpc.server import Stations
from service.store.persistence import environment
from tests.support.grpc_support import Client, act, open_circle, serving

FORGED = "2026-11-27 12:00:00 INFO pokertable.audit audit: the log is intact"
"""A record the attacker would like the log to hold."""
ANSI = "\x1b[2K\x1b[1A\x1b[32mOK\x1b[0m"
"""Erase the line, cursor up, green "OK": a terminal showing the raw log would hide the line before."""
HOSTILE = f"jam at the gate\n{FORGED}\r{FORGED}\x85{FORGED}\u2028{FORGED}\u2029{FORGED}\x7f {ANSI} C:\\dir\\n"
"""Every way to start a line (LF, CR, NEL, U+2028, U+2029), ANSI escapes, DEL, and a backslash before an "n"."""
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z [A-Z]+ \S")
"""How every record's line begins in the human format."""
SPLITS = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
"""Everything a tool may take for the end of a line (``str.splitlines``' set)."""


@pytest.fixture
def logs(capsys: pytest.CaptureFixture[str]) -> Iterator[Callable[[str], Callable[[], str]]]:
    """``logs(fmt)`` sets the service's logging up as ``pokertable serve --log-format fmt`` does, and returns what
    reads the standard error written since; the logging as it was is put back after the test."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {name: logging.getLogger(name).level for name in PROJECT_LOGGERS}

    def setup(fmt: str) -> Callable[[], str]:
        configure_logging(argparse.Namespace(log_format=fmt, log_level="info", db="sqlite:///tables.db"))
        capsys.readouterr()  # the configuration's own line
        return lambda: capsys.readouterr().err

    try:
        yield setup
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        for name, was in levels.items():
            logging.getLogger(name).setLevel(was)
        logging.captureWarnings(False)


def _no_forged_line(err: str) -> list[str]:
    """The log's lines, as any tool splits them: none begins with the forged record, none holds a control."""
    lines = SPLITS.split(err.rstrip("\n"))
    assert not [line for line in lines if line.startswith(FORGED[:19])], err
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", err), repr(err)
    return lines


# -- the formatter, through the real setup --------------------------------------------------------------------------

def _log_every_hostile_record() -> int:
    """Log HOSTILE as the service's modules and callers do: in the message's arguments, in the format string itself,
    as a field, under another library's logger and under a logger whose very name is hostile. Returns how many."""
    logging.getLogger("pokertable.devices").warning(
        "device fault at table %r: %s (serial %s), %s deck: %s [command %r]", "Mesa 1", "ACME Shoe", "SH-7", "red",
        HOSTILE, "c-1", extra={"fields": {"event": "device-fault", "result": HOSTILE}})
    logging.getLogger("service.app.shuffler_watch").warning(
        "shuffler %s: the alert could not be raised at %s: %s", "SN-1", "Mesa 1", HOSTILE)  # an alert's detail
    logging.getLogger("pokertable.requests").warning(
        "%s %s %s %s table=%r command_id=%r by %s in %.1f ms", "Act", "refused", "FAILED_PRECONDITION", "R-CIRC-2",
        "Mesa 1", "c-2", f"mesa-1{HOSTILE} (dealer)", 1.0)  # a station's name, as the stations file has it
    logging.getLogger("pokertable.audit").error("audit: the finding could not be recorded as an alert: %s",
                                                f"reason: {HOSTILE}")  # a reason, an error's words
    logging.getLogger("uvicorn.error").error(HOSTILE)  # another library, the text as its format string
    logging.getLogger(f"pokertable.{HOSTILE}").warning("a logger named from outside")
    return 6


def test_the_human_log_writes_each_record_on_one_line_with_its_text_escaped(
        logs: Callable[[str], Callable[[], str]]) -> None:
    read = logs("human")
    count = _log_every_hostile_record()
    err = read()
    lines = _no_forged_line(err)
    assert len(lines) == count and all(TIME.match(line) for line in lines), err
    shown = escaped(HOSTILE)
    assert "\\n2026-11-27 12:00:00 INFO pokertable.audit" in shown and "\\x1b[2K" in shown and "\\u2028" in shown
    assert "C:\\\\dir\\\\n" in shown  # the backslash escaped: "\\n" in the log was the two characters, not a line
    assert sum(shown in line for line in lines) == count
    assert "WARNING pokertable.devices: device fault at table 'Mesa 1': ACME Shoe (serial SH-7), red deck: jam at " \
           "the gate\\n2026-11-27 12:00:00 INFO pokertable.audit audit: the log is intact\\r2026" in lines[0]


def test_escaping_is_unambiguous_and_leaves_printable_text_alone() -> None:
    for text in (HOSTILE, "\\n", "\\\n", "a\\x1b", "\x00\t\u061c\u200e\u202e\u2066\ud800", "Mesa 1 ♠ póquer"):
        once = escaped(text)
        assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", once)
        assert _unescaped(once) == text  # read back exactly: no two texts are logged alike
    assert escaped("Mesa 1 ♠ póquer — R-AUD-1") == "Mesa 1 ♠ póquer — R-AUD-1"


def _unescaped(text: str) -> str:
    """The reverse of :func:`escaped` (what an operator's tool would do to read the text back)."""
    named = {"\\": "\\", "n": "\n", "r": "\r", "t": "\t"}

    def one(found: re.Match[str]) -> str:
        body = found.group(1)
        return named[body] if body in named else chr(int(body[1:], 16))

    return re.sub(r"\\(\\|n|r|t|x[0-9a-f]{2}|u[0-9a-f]{4})", one, text)


def test_a_traceback_stays_behind_its_record_each_line_prefixed(logs: Callable[[str], Callable[[], str]]) -> None:
    read = logs("human")
    try:
        raise RuntimeError(f"the store said: {HOSTILE}")
    except RuntimeError:
        logging.getLogger("service.grpc.server").exception("the store does not answer (%s)", "hostile")
    logging.getLogger("service.grpc.server").warning("next", stack_info=True)
    lines = _no_forged_line(read())
    records = [line for line in lines if TIME.match(line)]
    assert [line.split(": ", 1)[1] for line in records] == ["the store does not answer (hostile)", "next"]
    assert all(TIME.match(line) or line.startswith(CONTINUATION) for line in lines)
    traceback = lines[1:lines.index(records[1])]
    assert traceback[0] == f"{CONTINUATION}Traceback (most recent call last):"
    first, rest = HOSTILE.split("\n", 1)  # the message's own line feed ends a line of the traceback, prefixed too
    assert traceback[-2:] == [f"{CONTINUATION}RuntimeError: the store said: {first}", CONTINUATION + escaped(rest)]
    assert lines[-1].startswith(CONTINUATION) and "Stack (most recent call last)" in "".join(lines)


def test_the_json_log_writes_each_record_on_one_line_that_reads_back_exactly(
        logs: Callable[[str], Callable[[], str]]) -> None:
    read = logs("json")
    count = _log_every_hostile_record()
    try:
        raise RuntimeError(HOSTILE)
    except RuntimeError:
        logging.getLogger("service.grpc.server").exception("failed: %s", HOSTILE)
    err = read()
    lines = _no_forged_line(err)
    assert len(lines) == count + 1 and all(line.isascii() for line in lines), err
    records = [json.loads(line) for line in lines]
    assert records[0]["result"] == HOSTILE and records[0]["message"].endswith(f"deck: {HOSTILE} [command 'c-1']")
    assert records[4]["logger"] == "uvicorn.error" and records[4]["message"] == HOSTILE
    assert records[5]["logger"] == f"pokertable.{HOSTILE}"
    assert records[-1]["message"] == f"failed: {HOSTILE}" and records[-1]["exception"].endswith(
        f"RuntimeError: {HOSTILE}")
    assert "\\u007f" in lines[0] and "\\u2028" in lines[0] and "\\u001b[2K" in lines[0]


# -- the real service -----------------------------------------------------------------------------------------------

TOKENS = {"pit": "inj-pit-boss-token-0123456", "dealer": "inj-dealer-token-012345678"}
DEALER = f"mesa-1\n{FORGED}"
"""A station's name as a stations file may have it (a quoted TOML key): the log names the station."""


def _wait_for(read: Callable[[], str], wanted: Callable[[str], bool], seen: list[str]) -> str:
    """What the server logged, once ``wanted`` holds of it (it logs a call after sending its status)."""
    deadline = time.monotonic() + 10
    while True:
        seen.append(read())
        err = "".join(seen)
        if wanted(err) or time.monotonic() > deadline:
            return err
        time.sleep(0.05)


@pytest.mark.parametrize("fmt", ["human", "json"])
def test_a_real_server_logs_hostile_faults_station_names_and_command_ids_one_line_each(
        fmt: str, tmp_path: Path, logs: Callable[[str], Callable[[], str]]) -> None:
    stations = Stations.from_mapping({
        "pit": {"token": TOKENS["pit"], "role": "pit-boss"},
        DEALER: {"token": TOKENS["dealer"], "role": "dealer", "table": "Mesa 1"},
    })
    app = PokerTables(env=environment(f"sqlite:///{tmp_path / 'tables.db'}"))
    read = logs(fmt)
    seen: list[str] = []
    try:
        with serving(app, stations) as port:
            pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
            open_circle(pit, "Mesa 1")
            words = f"jam\t{FORGED}\n{FORGED}\u2028{FORGED[:40]}"  # what the request checks let through
            dealer.RecordDeviceReport(svc.RecordDeviceReportRequest(
                command_id="inj-fault", table="Mesa 1", device="ACME Shoe", serial="SH-7",
                kind=pb.DEVICE_REPORT_KIND_FAULT, colour=pb.DECK_COLOUR_RED, result=words))
            refused = []
            for command_id in (f"inj-deal\n{FORGED}", f"inj-ansi{ANSI}\n{FORGED}"):
                with pytest.raises(grpc.RpcError) as error:  # no hand in progress; a control in the command id
                    act(dealer, "Mesa 1", command_id=command_id, deal=cmd.Deal(
                        card="As", source=pb.CARD_SOURCE_CROUPIER))
                refused.append(error.value.code())
            assert refused == [grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT]
            err = _wait_for(read, lambda text: sum("inj-" in line for line in text.splitlines()) >= 3, seen)
    finally:
        app.close()
    lines = _no_forged_line(err)
    if fmt == "json":
        records = [json.loads(line) for line in lines if line.startswith("{")]
        fault = next(r for r in records if r.get("event") == "device-fault")
        assert fault["result"] == words and fault["command_id"] == "inj-fault"
        calls = [r for r in records if r.get("event") == "rpc" and r["rpc"] == "Act"]
        assert [(r["code"], r["caller"], r["command_id"]) for r in calls] == [
            ("FAILED_PRECONDITION", DEALER, f"inj-deal\n{FORGED}"), ("INVALID_ARGUMENT", DEALER,
                                                                   f"inj-ansi{ANSI}\n{FORGED}")]
        return
    ours = [line for line in lines if "inj-" in line]
    assert len(ours) == 3 and all(TIME.match(line) for line in ours), err
    fault, deal, ansi = ours
    assert " WARNING pokertable.devices: device fault at table 'Mesa 1': " in fault and escaped(words) in fault
    for line in (deal, ansi):
        assert " WARNING pokertable.requests: Act refused " in line and f"by {escaped(DEALER)} (dealer)" in line
    assert "inj-ansi\\\\x1b[2K" in ansi  # the command id's repr escaped it, and its backslash was escaped again
    assert all(TIME.match(line) or line.startswith(CONTINUATION) for line in lines if line), err
