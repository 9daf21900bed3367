"""A croupier's whole shift at the full-screen station (issue 33, acceptance; benchmarks/station_shift.py), and what
the store says of it afterwards: the server (``pokertable serve`` in its own process, on an SQLite file, the staff
in force), the script run for one game, and ``pokertable report dealers`` and ``report shift`` read as JSON."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from benchmarks.service_load import serve
from benchmarks.station import Game, config
from benchmarks.station_shift import HANDS as FULL_SHIFT
from benchmarks.station_shift import STAFF, ShiftKeys, run_shift
from service.api import table_service_pb2 as svc
from tests.support.grpc_support import Client
from tests.support.sizes import sample

ADMIN = "shift-admin-station-token-0123456789"
PIT = tomllib.loads(config())["stations"]["pit"]["token"]


@dataclass(frozen=True)
class Served:
    """The server's address and its store's file."""

    address: str
    db: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``pokertable serve`` with the benchmark's stations and an administrator's; the staff of the shift enrolled
    (which puts them in force: from then on every station acts for a person signed in there)."""
    folder = tmp_path_factory.mktemp("shift")
    stations = folder / "stations.toml"
    stations.write_text(config() + f'\n[stations.it]\ntoken = "{ADMIN}"\nrole = "administrator"\n',
                        encoding="utf-8")
    stations.chmod(0o600)
    db = folder / "tables.db"
    # the suite's own switch (make test-slow) is no setting of the service's, which refuses a variable it does not know
    full_size = os.environ.pop("POKERTABLE_FULL_SIZE", None)
    try:
        process, port = serve(f"sqlite:///{db}", stations)
    finally:
        if full_size is not None:
            os.environ["POKERTABLE_FULL_SIZE"] = full_size
    try:
        admin = Client(port, ADMIN)
        for person, (name, roles, pin) in STAFF.items():
            admin.EnrolPerson(svc.EnrolPersonRequest(command_id=admin.next_id(), person_id=person, name=name,
                                                     roles=list(roles), pin=pin))
            if person == "A1":
                admin.sign_in("A1", pin)
        admin.channel.close()
        yield Served(f"127.0.0.1:{port}", db)
    finally:
        process.terminate()
        process.wait(timeout=30)


def report(db: Path, since: datetime, *args: str) -> Any:
    """A report of the store from ``since``, as its JSON (the command as the pit runs it)."""
    result = subprocess.run([sys.executable, "-m", "service.cli", "report", *args, "--db", f"sqlite:///{db}",
                             "--from", since.isoformat(), "--format", "json",
                             "--tz", "Europe/Madrid"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


HANDS = sample(7, FULL_SHIFT)
"""The hands of a shift: seven in ``make test`` (every operation of the shift still comes: the rebuy after the third,
the rotation after the fifth, the fill after the sixth, the credit after the seventh), the benchmark's ten in
``make test-slow`` (tests/support/sizes.py)."""


def shift_of(served: Served, game: Game) -> ShiftKeys:
    """The whole shift of ``game`` at its stations, then its checks: :data:`HANDS` hands from the shoe with no read
    refused and no card typed, at most one key a player action; the dealers' report names both croupiers at the
    table with their hands, the rotation and the void; the shift's report its opener, closer, fill and credit, by
    name."""
    since = datetime.now(UTC)  # to the microsecond: the last game's table closed just before, in the same second
    shift = asyncio.run(run_shift(served.address, game, pit_token=PIT, hands=HANDS))
    assert shift.hands == HANDS and shift.refused_reads == 0 and shift.card_keys == 0, shift
    assert shift.action_keys == shift.actions, shift  # one key a decision (a count of cards given back: a digit)
    assert shift.bet_keys <= 2 * shift.bets, shift  # an ante: e and Enter on the amount proposed; no more bets: v
    dealers = report(served.db, since, "dealers")
    at_table = {row["dealer"]: row for row in dealers["dealers"] if game.table in row["tables"]}
    assert set(at_table) == {"C1", "C2"}, dealers
    assert at_table["C1"]["name"] == "Carmen Croupier" and at_table["C2"]["name"] == "Carlos Croupier"
    assert at_table["C1"]["hands"] == 5 and at_table["C2"]["hands"] == HANDS - 5 + 1, at_table  # the void's too
    assert at_table["C2"]["voids"] >= 1, at_table  # a dealer's figures are of every table he dealt at meanwhile
    rotations = [(r["dealer"], r["previous"]) for r in dealers["rotations"] if r["table"] == game.table]
    assert rotations == [("C1", ""), ("C2", "C1")], dealers["rotations"]
    (accounts,) = report(served.db, since, "shift", "--table", game.table)
    assert accounts["opened_by"] == "Carmen Croupier (C1)" and accounts["closed_by"] == "Carlos Croupier (C2)"
    assert (accounts["opener_value"], accounts["closer_value"]) == (16000, 16000), accounts
    assert (accounts["fills"], accounts["credits"], accounts["win"]) == (2000, 2000, 0), accounts
    slips = {t["slip"]: (t["kind"], t["requested_by"], t["signed_by"]) for t in accounts["transfers"]}
    assert slips == {"F-1": ("fill", "Carlos Croupier (C2)", "Pilar Pit (P1)"),
                     "C-1": ("credit", "Pilar Pit (P1)", "Carlos Croupier (C2)")}, slips
    assert (accounts["first_hand"], accounts["last_hand"], accounts["open"]) == (1, HANDS + 1, False), accounts
    return shift
