"""Live hole-card views are recorded (issue 29, item 7; R-AUD-1; docs/audit.md, "Who watched the hole cards").

Over a real gRPC server (SQLite and PostgreSQL) and the real dashboard: the pit boss's first live look at a hand's
face-down cards is one event however often he looks (a page drawn again and again, a Watch stream, the pit's
station), the games director's another; a croupier's or an observer's view, which shows no face-down card, records
nothing. With ``hole_cards_live`` false the pit sees no face-down card of a hand in progress (views, Watch,
export, a past moment of it) and sees them once it has ended, and no live view is recorded. ``pokertable report
watched`` lists the views of a period with who, table, hand and time in the casino's zone, reading the day records
alone.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from domain.hole_card_views import HoleCardView
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.access import Role, Viewer
from service.app.application import PokerTables
from service.bootstrap import Store, open_store
from service.cli import report_watched
from service.cli.main import main
from tests.support import web_support
from tests.support.app_play import _play_recording
from tests.support.grpc_support import STATIONS, TOKENS, Client, act, deal, open_circle, seat, serving, start
from tests.support.stores import postgres_store

TABLE = "Mesa 1"
HOLE = "As Kd Qh Ac Kc Qs"
"""Seats 1, 2, 3 get A-A, K-K, Q-Q (dealt one card a round)."""
MADRID = ZoneInfo("Europe/Madrid")
VIEWED = "HoleCardViews.Viewed"


@pytest.fixture(params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[int, PokerTables]]:
    """A real server on each kind of store (as ``grpc_support.port``), and its application."""
    store: Store | None = None
    if request.param == "sqlite":
        store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
        app = store.app
    else:
        app = PokerTables(env=postgres_store())
    try:
        with serving(app, STATIONS) as port:
            yield port, app
    finally:
        if store is not None:
            store.close()
        else:
            app.close()


@pytest.fixture
def delayed(tmp_path: Path) -> Iterator[tuple[int, PokerTables]]:
    """A server of a casino that shows the pit the hole cards only once the hand has ended (SQLite)."""
    with open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True) as store, \
            serving(store.app, STATIONS, hole_cards_live=False) as port:
        yield port, store.app


def _hand_in_progress(pit: Client, dealer: Client, *, number: int = 1) -> None:
    """Mesa 1 (Hold'em, no burns) with three players and hand ``number`` dealt: every hole card face down."""
    if number == 1:
        open_circle(pit, TABLE, no_burns=True)
        for place in (1, 2, 3):
            seat(dealer, TABLE, place)
    start(dealer, TABLE, pb.DECK_COLOUR_RED if number % 2 else pb.DECK_COLOUR_BLUE)
    deal(dealer, TABLE, HOLE)


def _finish(dealer: Client) -> None:
    """Seats 1 and 2 fold: seat 3 wins, the hand ends."""
    for place in (1, 2):
        act(dealer, TABLE, fold=cmd.Fold(seat=place))


def _cards(client: Client, **moment: Any) -> list[str]:
    """Every player's cards in the view the station gets (now, or at a past moment)."""
    view = client.GetTable(svc.GetTableRequest(table=TABLE, **moment)).view
    return [card for player in view.circle.players for card in player.cards]


def _dealt(client: Client, count: int, table: str = TABLE) -> list[str]:
    """The cards of the first ``count`` HandCardDealt events of the table's Watch stream from its start (``""``:
    the floor's stream, every table's)."""
    cards: list[str] = []
    stream = client.Watch(svc.WatchRequest(table=table, after_position=0), timeout=20)
    try:
        for change in stream:
            if change.event.WhichOneof("event") == "hand_card_dealt":
                cards.append(change.event.hand_card_dealt.card)
                if len(cards) == count:
                    break
    finally:
        stream.cancel()
    return cards


def _views_stored(app: PokerTables) -> list[Any]:
    """The view events in the log (the test reads it whole; the report never does)."""
    return [n for n in app.recorder.select_notifications(start=1, limit=100_000) if n.topic.endswith(VIEWED)]


def _views(app: PokerTables) -> list[tuple[str, str, str, int, str]]:
    now = datetime.now(UTC)
    return [(view.viewer, view.role, view.table, view.hand_number, view.via)
            for view in app.hole_cards.views(now - timedelta(hours=1), now + timedelta(minutes=1))]


def test_a_pit_boss_looking_again_and_again_records_one_view_a_hand(served: tuple[int, PokerTables]) -> None:
    port, app = served
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    director, observer = Client(port, TOKENS["director"]), Client(port, TOKENS["tv"])
    _hand_in_progress(pit, dealer)
    before = datetime.now(UTC)
    for _ in range(30):  # a page polled every second
        assert _cards(pit) == ["As", "Ac", "Kd", "Kc", "Qh", "Qs"]
    assert _dealt(pit, 6) == HOLE.split()  # the pit's station: its Watch stream shows them too
    assert _views(app) == [("pit", "pit-boss", TABLE, 1, "GetTable")]
    for _ in range(5):
        assert "As" in _cards(director)
    # a croupier's view and an observer's show no face-down card: nothing is recorded for them
    for client in (dealer, observer):
        for _ in range(5):
            assert set(_cards(client)) == {"??"}
        assert set(_dealt(client, 6)) == {"??"}
    assert _views(app) == [("pit", "pit-boss", TABLE, 1, "GetTable"), ("dj", "games-director", TABLE, 1, "GetTable")]
    # the next hand is another view: this time first seen on the pit's Watch stream
    _finish(dealer)
    assert _cards(pit) == []  # between hands: no face-down card, nothing recorded
    _hand_in_progress(pit, dealer, number=2)
    assert _dealt(pit, 12)[6:] == HOLE.split()
    assert _cards(pit) == ["As", "Ac", "Kd", "Kc", "Qh", "Qs"]
    views = app.hole_cards.views(before - timedelta(seconds=5), datetime.now(UTC))
    assert [(view.viewer, view.hand_number, view.via) for view in views] == [
        ("pit", 1, "GetTable"), ("dj", 1, "GetTable"), ("pit", 2, "Watch")]
    assert all(before - timedelta(seconds=5) <= view.at <= datetime.now(UTC) for view in views)
    assert len(_views_stored(app)) == 3  # exactly one event a viewer and hand in the log
    assert len({view.hand_id for view in views}) == 2


def test_a_view_is_recorded_once_whichever_call_or_instance_records_it(tmp_path: Path) -> None:
    """The command id is the viewer's, table's and hand's: a retry, or the same look through another call, recorded
    by the application itself (without a server's memory of the views it recorded, as another instance would) store
    nothing more (R-AUD-1)."""
    with open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True) as store:
        app = store.app
        _play_recording(app)
        pit = Viewer("pit", Role.PIT_BOSS)
        app.hole_cards.record_view(pit, "Mesa R", 1, "GetTable")
        app.hole_cards.record_view(pit, "Mesa R", 1, "GetTable")  # a retry
        app.hole_cards.record_view(pit, "Mesa R", 1, "Watch")  # the same look through another call
        assert len(_views_stored(app)) == 1
        app.hole_cards.record_view(Viewer("dj", Role.GAMES_DIRECTOR), "Mesa R", 1, "Watch")
        assert [(view.viewer, view.via) for view in app.hole_cards.views(
            datetime.now(UTC) - timedelta(hours=1), datetime.now(UTC))] == [("pit", "GetTable"), ("dj", "Watch")]
        assert len(_views_stored(app)) == 2


def test_the_dashboards_table_page_records_one_view_however_often_it_is_drawn(tmp_path: Path) -> None:
    with web_support.pit_service(tmp_path) as pit:
        _hand_in_progress(pit.client("pit"), pit.client("dealer"))
        with httpx.Client(base_url=pit.url, timeout=10) as http:
            web_support.sign_in(http, "pit")
            for _ in range(20):  # refreshed again and again
                page = http.get(f"/tables/{TABLE}")
                assert page.status_code == 200 and 'aria-label="ace of spades"' in page.text
            assert http.get("/").status_code == 200  # the floor shows no card: nothing more
        assert _views(pit.app) == [("pit", "pit-boss", TABLE, 1, "GetTable")]
        with httpx.Client(base_url=pit.url, timeout=10) as http:
            web_support.sign_in(http, "tv")
            for _ in range(5):
                page = http.get(f"/tables/{TABLE}")
                assert 'aria-label="card face down"' in page.text and "ace of spades" not in page.text
        with httpx.Client(base_url=pit.url, timeout=10) as http:
            web_support.sign_in(http, "director")
            for _ in range(3):
                assert 'aria-label="ace of spades"' in http.get(f"/tables/{TABLE}").text
        assert _views(pit.app) == [("pit", "pit-boss", TABLE, 1, "GetTable"),
                                   ("dj", "games-director", TABLE, 1, "GetTable")]
        assert len(_views_stored(pit.app)) == 2


def test_with_hole_cards_not_live_the_pit_sees_them_only_once_the_hand_has_ended(
        delayed: tuple[int, PokerTables]) -> None:
    port, app = delayed
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    director = Client(port, TOKENS["director"])
    _hand_in_progress(pit, dealer)
    during = pit.GetTable(svc.GetTableRequest(table=TABLE)).view.position
    for client in (pit, director):
        assert set(_cards(client)) == {"??"}
        assert set(_dealt(client, 6)) == {"??"}
        assert set(_cards(client, position=during)) == {"??"}  # a past moment of the hand still in progress
        export = client.ExportHand(svc.ExportHandRequest(table=TABLE, hand_number=1)).content
        assert "??" in export and "Kd" not in export
        assert set(_dealt(client, 6, table="")) == {"??"}  # the floor's stream (every table's) too
    assert _views(app) == []  # nothing face down was shown: no view
    _finish(dealer)
    for client in (pit, director):
        assert _dealt(client, 6) == HOLE.split()
        assert _cards(client, position=during) == ["As", "Ac", "Kd", "Kc", "Qh", "Qs"]
        assert "Kd" in client.ExportHand(svc.ExportHandRequest(table=TABLE, hand_number=1)).content
    assert _views(app) == []  # a finished hand is no live view


def test_the_report_lists_who_watched_what_in_the_casinos_time_zone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    with open_store(url, writer=True) as store:
        _play_recording(store.app)
        store.app.hole_cards.record_view(Viewer("pit", Role.PIT_BOSS), "Mesa R", 1, "GetTable")
        store.app.hole_cards.record_view(Viewer("dj", Role.GAMES_DIRECTOR), "Mesa R", 1, "Watch")
        now = datetime.now(UTC)
        recorded: list[HoleCardView] = store.app.hole_cards.views(now - timedelta(hours=1), now)
    assert [view.viewer for view in recorded] == ["pit", "dj"]

    def reading_the_views_alone(db: str, **options: Any) -> Store:
        """The report's store, whose log may not be scanned: only the day records are read."""
        opened = open_store(db, **options)

        def scan(*_: Any, **__: Any) -> Any:
            raise AssertionError("the report scanned the log")

        monkeypatch.setattr(opened.app.recorder, "select_notifications", scan)
        return opened

    monkeypatch.setattr(report_watched, "open_store", reading_the_views_alone)
    local = (now - timedelta(hours=1)).astimezone(MADRID).strftime("%Y-%m-%d %H:%M")
    later = (now + timedelta(minutes=5)).astimezone(MADRID).strftime("%Y-%m-%d %H:%M")
    status = main(["report", "watched", "--from", local, "--to", later, "--tz", "Europe/Madrid",
                   "--format", "json", "--db", url])
    out, err = capsys.readouterr()
    assert status == 0 and err.startswith("2 view(s) from ")
    document = json.loads(out)
    assert document["from"].startswith(local) and document["table"] is None
    offset = recorded[0].at.astimezone(MADRID).strftime("%z")
    offset = f"{offset[:3]}:{offset[3:]}"
    assert [(row["viewer"], row["role"], row["table"], row["hand"], row["via"]) for row in document["views"]] == [
        ("pit", "pit-boss", "Mesa R", 1, "GetTable"), ("dj", "games-director", "Mesa R", 1, "Watch")]
    for row, view in zip(document["views"], recorded, strict=True):
        assert row["time"].endswith(offset) and datetime.fromisoformat(row["time"]) == view.at.replace(microsecond=0)
        assert row["hand_id"] == view.hand_id
    status = main(["report", "watched", "--from", local, "--to", later, "--tz", "Europe/Madrid", "--table", "Mesa R",
                   "--format", "csv", "--db", url])
    out, err = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and [row["viewer"] for row in rows] == ["pit", "dj"] and rows[0]["table"] == "Mesa R"
    status = main(["report", "watched", "--from", local, "--table", "Mesa Z", "--tz", "Europe/Madrid", "--db", url])
    out, err = capsys.readouterr()
    assert status == 0 and out.split() == ["time", "viewer", "role", "table", "hand", "via", "hand_id"]
    assert err.startswith("0 view(s)")
    earlier = (now - timedelta(days=3)).astimezone(MADRID).strftime("%Y-%m-%d %H:%M")
    status = main(["report", "watched", "--from", earlier, "--to", local, "--tz", "Europe/Madrid", "--db", url])
    out, err = capsys.readouterr()
    assert status == 0 and err.startswith("0 view(s)")
    status = main(["report", "watched", "--from", "after dinner", "--db", url])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and "'after dinner' is not a time" in err

