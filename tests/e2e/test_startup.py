"""Issue 13, item 12: after a restart the first commands were acknowledged seconds after the server said it was
serving, because every worker thread built the hand-ranking tables again.  They are built once per process, by one
thread, before the server says it is serving."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc

from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.app.application import PokerTables
from service.app.commands import OpenTable, Sit, StartHand
from service.store.persistence import environment

ROOT = Path(__file__).resolve().parents[2]
RACE = """
import threading
from domain.cards import ranking

built = []
build = ranking.HandRanking.__init__
def counted(self, rules):
    built.append(rules)
    build(self, rules)
ranking.HandRanking.__init__ = counted
start = threading.Barrier(6)
got = []
def worker():
    start.wait()
    got.append(ranking.hand_ranking(32))
threads = [threading.Thread(target=worker) for _ in range(6)]
for t in threads: t.start()
for t in threads: t.join()
print(len(built), len({id(r) for r in got}))
"""


def test_concurrent_first_uses_of_a_ranking_build_it_once() -> None:
    """Six threads ask for the same ranking at once in a fresh process: one builds it, the others wait for it."""
    out = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, timeout=60, check=True, cwd=ROOT)
    assert out.stdout.split() == ["1", "1"], out.stdout + out.stderr


STATIONS = "".join(f'[stations.d{n}]\ntoken = "startup-dealer-token-{n:06d}"\nrole = "dealer"\ntable = "T{n}"\n\n'
                   for n in range(4))


def test_a_restarted_server_says_it_is_serving_only_when_it_can_answer_at_once(tmp_path: Path) -> None:
    """Four tables with a hand in progress; the server (re)starts and the four dealers send a command the moment it
    says it is serving: every answer comes at once, not after a build of the ranking tables (seconds)."""
    db = tmp_path / "tables.db"
    app = PokerTables(env=environment(f"sqlite:///{db}"))
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
    for n in range(4):
        app.handle(OpenTable(f"open-{n}", f"T{n}", settings))
        for seat in (1, 2):
            app.handle(Sit(f"sit-{n}-{seat}", f"T{n}", seat, 100))
        app.handle(StartHand(f"start-{n}", f"T{n}", DeckIdentity(52, BackColour.RED)))
    del app
    config = tmp_path / "stations.toml"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    process = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--db", f"sqlite:///{db}", "--port", "0",
                                "--config", str(config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        serving = time.perf_counter()
        assert "serving on" in line, process.stderr.read() if process.stderr else line
        port = int(line.split(":")[1].split()[0])
        answered: list[float] = []

        def dealer(n: int) -> None:
            stub = svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))  # type: ignore[no-untyped-call]
            deal = cmd.Command(deal=cmd.Deal(card="As"))
            stub.Act(svc.ActRequest(command_id=f"deal-{n}", table=f"T{n}", command=deal),
                     metadata=(("authorization", f"Bearer startup-dealer-token-{n:06d}"),), timeout=30)
            answered.append(time.perf_counter() - serving)

        threads = [threading.Thread(target=dealer, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(answered) == 4
        # building the 52-card table alone takes about two seconds of a core; loading a hand needs it
        assert max(answered) < 1.0, answered
        assert "warm" in process.stdout.readline()  # and it says how long the build took
    finally:
        process.kill()
        process.wait(timeout=10)
