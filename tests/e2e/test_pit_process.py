"""``pokertable pit``: the pit's dashboard in a process of its own, a client of a running ``pokertable serve``
(issue 18: in the service's process the dashboard's work shares one interpreter with the tables' commands).

A real service and a real dashboard process, each on free ports: a pit boss signs in at the dashboard with the
service's stations, and the floor shows what the croupier does through the service. The floor reads with an
observer's token the service knows; a token of no station, or a croupier's, is refused before anything listens.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.api import types_pb2 as pb
from tests.support.grpc_support import Client, open_circle, seat, start
from tests.support.observed_service import ROOT, Serving

TOKENS = {"pit": "obs-pit-boss-token-0123456", "dealer": "obs-dealer-token-01234567"}
FLOOR_TOKEN = "pit-floor-observer-token-0123"


CONFIG = (f'[stations.pit]\ntoken = "{TOKENS["pit"]}"\nrole = "pit-boss"\n\n'
          f'[stations.mesa-1]\ntoken = "{TOKENS["dealer"]}"\nrole = "dealer"\ntable = "Mesa 1"\n\n'
          f'[stations.pit-floor]\ntoken = "{FLOOR_TOKEN}"\nrole = "observer"\n')


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """``pokertable serve`` on an SQLite file, its stations the pit boss, a croupier and the floor's observer: one for
    the module (a dashboard process is started against it by each test; only the first test plays, at its own table,
    and a refused dashboard never reaches it)."""
    folder = tmp_path_factory.mktemp("pit-service")
    (folder / "stations.toml").write_text(CONFIG, encoding="utf-8")
    (folder / "stations.toml").chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    errors = folder / "serve.err"
    with errors.open("w", encoding="utf-8") as written:
        process = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--db",
                                    f"sqlite:///{folder / 'tables.db'}", "--port", "0", "--config",
                                    str(folder / "stations.toml")], stdout=subprocess.PIPE, stderr=written,
                                   text=True, cwd=ROOT)
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"serving on [^ ]+:(\d+)", line)
        try:
            assert found, line + errors.read_text(encoding="utf-8")
            yield Serving(process, int(found.group(1)), "")
        finally:
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=60)


def _pit(tmp_path: Path, service: Serving, token: str) -> subprocess.Popen[str]:
    (tmp_path / "stations.toml").write_text(CONFIG, encoding="utf-8")  # the service's stations
    (tmp_path / "stations.toml").chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    (tmp_path / "floor.token").write_text(token + "\n", encoding="utf-8")
    (tmp_path / "floor.token").chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    return subprocess.Popen([sys.executable, "-m", "service.cli", "pit", "--config", str(tmp_path / "stations.toml"),
                             "--service", f"127.0.0.1:{service.grpc_port}", "--http", "127.0.0.1:0",
                             "--floor-token-file", str(tmp_path / "floor.token")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def test_the_dashboard_runs_apart_and_shows_the_floor_of_the_service(tmp_path: Path, service: Serving) -> None:
    pit = _pit(tmp_path, service, FLOOR_TOKEN)
    try:
        assert pit.stdout is not None
        line = pit.stdout.readline()
        found = re.search(r"pit dashboard on (http://\S+/)", line)
        assert found, line + (pit.stderr.read() if pit.stderr else "")
        pit_boss, dealer = Client(service.grpc_port, TOKENS["pit"]), Client(service.grpc_port, TOKENS["dealer"])
        open_circle(pit_boss, "Mesa 1", pb.GAME_HOLDEM, blinds=[1, 2])
        for number in (1, 2, 3):
            seat(dealer, "Mesa 1", number, 100)
        start(dealer, "Mesa 1", pb.DECK_COLOUR_RED)
        with httpx.Client(base_url=found.group(1)) as http:
            signed = http.post("/signin", data={"station": "pit", "token": TOKENS["pit"]}, follow_redirects=True)
            assert signed.status_code == 200
            deadline = time.monotonic() + 20
            while "hand-in-progress" not in http.get("/").text:
                assert time.monotonic() < deadline, "the floor never showed the hand"
                time.sleep(0.1)
            assert http.get("/readyz").status_code == 200
            refused = http.post("/signin", data={"station": "pit", "token": "not-a-token-of-anyone-000"})
            assert "Unknown station or token" in refused.text
    finally:
        pit.send_signal(signal.SIGTERM)
        assert pit.wait(timeout=30) == 0


@pytest.mark.parametrize(("token", "words"), [
    ("no-station-has-this-token-000", "no station's"),
    (TOKENS["dealer"], "a dealer"),
    ("", "the floor's token"),
])
def test_a_floor_token_of_no_station_or_of_a_croupier_is_refused_before_anything_listens(
        tmp_path: Path, service: Serving, token: str, words: str) -> None:
    pit = _pit(tmp_path, service, token)
    out, err = pit.communicate(timeout=30)
    assert pit.returncode == 2 and words in err and "dashboard on" not in out
