"""Shared helpers of the pit dashboard's tests (issue 16): a real table service with its dashboard beside it, in one
event loop on its own thread, on an SQLite file (gRPC on a free port, HTTP on another), the stations that sign in,
and a Texas Hold'em Bonus hand that waits for the games director's 1000:1 approval."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

import grpc
import httpx

from service.api import accounts_pb2 as acc
from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from service.app.access import Role
from service.app.application import PokerTables
from service.bootstrap import open_store
from service.grpc.server import Stations, metrics_of
from service.web.floor import IDLE_AFTER
from service.web.floor_rows import DEFAULT_THRESHOLDS, Thresholds
from service.web.server import bind, serve_dashboard
from tests.support.grpc_support import Client, act, deal, open_banked, open_circle, seat, served, start

TOKENS = {"pit": "web-pit-boss-token-0123456", "director": "web-director-token-0123456",
          "tv": "web-observer-token-0123456", "dealer": "web-dealer-token-01234567",
          "thb": "web-thb-dealer-token-012345", "it": "web-it-admin-token-0123456"}
STATIONS = {
    "pit": {"token": TOKENS["pit"], "role": "pit-boss"},
    "dj": {"token": TOKENS["director"], "role": "games-director"},
    "tv": {"token": TOKENS["tv"], "role": "observer"},
    "mesa-1": {"token": TOKENS["dealer"], "role": "dealer", "table": "Mesa 1"},
    "thb-1": {"token": TOKENS["thb"], "role": "dealer", "table": "THB 1"},
    "it": {"token": TOKENS["it"], "role": "administrator"},
}
NAMES = {"pit": "pit", "director": "dj", "tv": "tv", "dealer": "mesa-1", "thb": "thb-1", "it": "it"}


CASINO = ZoneInfo("Europe/Madrid")
"""The casino's time zone, as ``pokertable serve`` takes it by default (``tz``): the service and its dashboard's."""


@dataclass(frozen=True)
class Pit:
    """A running service: its gRPC port and its dashboard's address."""

    grpc_port: int
    url: str
    app: PokerTables
    """The service's application (a test runs the service's own audit of its log with it)."""
    database: Path
    """Its SQLite file (an attacker's edits)."""
    server: grpc.aio.Server

    def answered(self, rpc: str) -> int:
        """How many calls of ``rpc`` the service has answered (OK) so far."""
        metrics = metrics_of(self.server)
        assert metrics is not None
        return int(metrics.registry.get_sample_value("pokertable_rpcs_total", {"rpc": rpc, "code": "OK"}) or 0)

    def client(self, who: str) -> Client:
        """A gRPC client of one of the stations."""
        return Client(self.grpc_port, TOKENS[who])


@contextmanager
def pit_service(tmp_path: Path, *, floor_idle_after: float | None = IDLE_AFTER,
                thresholds: Thresholds = DEFAULT_THRESHOLDS,
                floor_clock: Callable[[], float] = time.time) -> Iterator[Pit]:
    """``pokertable serve --http`` as the CLI composes it, in this process (``thresholds``: the floor's settings;
    ``floor_clock``: the floor's clock, which a test moves on)."""
    store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
    stations, floor_token = Stations.from_mapping(STATIONS).with_station("pit-dashboard-floor", Role.OBSERVER)
    stations, dashboard_token = stations.with_station("pit-dashboard", Role.OBSERVER, "pit")
    listener = bind("127.0.0.1:0")
    try:
        with served(store.app, stations, zone=CASINO) as running:  # the suite's one harness; the dashboard on its loop
            loop, port = running.loop, running.port
            http_port: asyncio.Future[int] = loop.create_future()
            bound = loop.create_future()
            loop.call_soon_threadsafe(bound.set_result, port)
            dashboard = running.call(serve_dashboard(
                listener, bound, "127.0.0.1", stations.authenticate, floor_token,
                ready=http_port.set_result, floor_idle_after=floor_idle_after,
                station=("pit-dashboard", dashboard_token), zone=CASINO, thresholds=thresholds,
                floor_clock=floor_clock))
            running.call(asyncio.wait_for(asyncio.shield(http_port), 30)).result(timeout=30)
            try:
                yield Pit(port, f"http://127.0.0.1:{http_port.result()}", store.app, tmp_path / "tables.db",
                          running.server)
            finally:
                dashboard.cancel()
                time.sleep(0.2)
    finally:
        listener.close()
        store.close()


CSRF = re.compile(r'<meta name="csrf" content="([^"]+)">')


def sign_in(http: httpx.Client, who: str) -> str:
    """Sign in as a station (its name and token); the session's CSRF token, read from the floor page."""
    reply = http.post("/signin", data={"station": NAMES[who], "token": TOKENS[who]}, follow_redirects=True)
    assert reply.status_code == 200, reply.text
    found = CSRF.search(reply.text)
    assert found is not None, reply.text
    return found.group(1)


def until(ready: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait until ``ready()``."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def thb_waiting_for_the_director(pit: Pit, opener: int | None = None) -> None:
    """THB 1: box 1 (ante 10, bonus 2) A-A against the croupier's A-A: the 1000:1 bonus waits for the games
    director (R-THB-10). ``opener``: the pit opens the table's shift first with a tray of that many ones."""
    dealer = pit.client("thb")
    open_banked(pit.client("pit"), "THB 1", pb.GAME_HOLDEM_BONUS, ante_min=5)
    if opener is not None:
        boss = pit.client("pit")
        boss.OpenShift(acc.OpenShiftRequest(command_id=boss.next_id(), table="THB 1",
                                            opener=[acc.ChipCount(denomination=1, chips=opener)]))
    start(dealer, "THB 1", pb.DECK_COLOUR_RED)
    act(dealer, "THB 1", ante=cmd.Ante(seat=1, amount=10))
    act(dealer, "THB 1", bonus=cmd.Bonus(seat=1, amount=2))
    act(dealer, "THB 1", ante=cmd.Ante(seat=3, amount=20))
    act(dealer, "THB 1", close_bets=cmd.CloseBets())
    deal(dealer, "THB 1", "As 9c Ac Ad 2d Ah")
    act(dealer, "THB 1", flop_bet=cmd.FlopBet(seat=1, amount=20))
    act(dealer, "THB 1", fold=cmd.Fold(seat=3))
    deal(dealer, "THB 1", "3s Kh 7h 8s")
    act(dealer, "THB 1", check=cmd.Check(seat=1))
    deal(dealer, "THB 1", "4s 5c")
    act(dealer, "THB 1", check=cmd.Check(seat=1))
    deal(dealer, "THB 1", "6d Jc")


def uncontested_hand(pit: Pit) -> Client:
    """Mesa 1 (:func:`holdem_table`) and its first hand, over at once: seats 1 and 2 fold (R-CIRC-7); the
    croupier's client."""
    dealer = holdem_table(pit)
    start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    for number in (1, 2):
        act(dealer, "Mesa 1", fold=cmd.Fold(seat=number))
    return dealer


def holdem_table(pit: Pit, seats: int = 3) -> Client:
    """Mesa 1: no-limit Hold'em 1/2, players seated; the croupier's client."""
    open_circle(pit.client("pit"), "Mesa 1", pb.GAME_HOLDEM, blinds=[1, 2])
    dealer = pit.client("dealer")
    for number in range(1, seats + 1):
        seat(dealer, "Mesa 1", number, 100)
    return dealer
