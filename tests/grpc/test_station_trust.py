"""Issue 13 ("Trust"), items 3, 9, 10 and 11, attacked the way the issue did it: a real service on a real store, the
hardware station, and the simulated shoe and shuffler over real pseudo-terminals.

3. the store fails (a full disk, a killed PostgreSQL connection): the service answers UNAVAILABLE and the station holds
   every read it could not store, and deals them in order once the store is back;
9. a shoe read with a wild number (2³²−1) or a shoe power cycle does not poison the reads after it; a silent shoe is a
   fault recorded at the table;
10. a shuffler that delivers the wrong deck: the table refuses the deck (R-DECK-2) and records the fault;
11. a read the service refuses is recorded at the table as a device fault (R-DECK-4).
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from devices.protocol import Colour
from devices.simulators import ShoeSimulator
from service.api import table_service_pb2 as svc
from service.app.application import PokerTables
from service.station.hardware import HardwareStation
from service.station.reference import Station
from service.store.persistence import environment
from tests.support.station_trust_support import ISSUE_SHOE, _deals, _open, _serve
from tests.support.station_trust_support import service as service  # noqa: PLC0414  (a fixture)


class Disk:
    """Where the SQLite file lives, and a way to fill that disk up and free it again.

    With the right to mount (root, as in CI's container), a 4 MB tmpfs filled with a ballast file: a full disk, the
    kernel refusing writes with ENOSPC and SQLite saying "database or disk is full".  Without it, the process's file
    size limit (RLIMIT_FSIZE) set to the WAL's size: the kernel refuses writes that grow it (EFBIG; SQLite says "disk
    I/O error")."""

    def __init__(self, base: Path) -> None:
        self.dir = base / "disk"
        self.dir.mkdir()
        mount = shutil.which("mount")
        self.mounted = mount is not None and subprocess.run(
            [mount, "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(self.dir)], capture_output=True, check=False
        ).returncode == 0
        self.limits = resource.getrlimit(resource.RLIMIT_FSIZE)
        self.ballast = self.dir / "ballast"
        self.message = "database or disk is full" if self.mounted else "disk I/O error"

    def fill(self) -> None:
        if not self.mounted:
            wal = self.dir / "trust.db-wal"
            resource.setrlimit(resource.RLIMIT_FSIZE, (wal.stat().st_size + 100, self.limits[1]))
            return
        with self.ballast.open("wb") as ballast, contextlib.suppress(OSError):
            while True:
                ballast.write(b"\0" * 65536)
                ballast.flush()
                os.fsync(ballast.fileno())

    def free(self) -> None:
        if self.mounted:
            self.ballast.unlink(missing_ok=True)
        else:
            resource.setrlimit(resource.RLIMIT_FSIZE, self.limits)

    def close(self) -> None:
        self.free()
        if self.mounted:
            subprocess.run([shutil.which("umount") or "umount", "-l", str(self.dir)], check=False)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    disk = Disk(tmp_path)
    try:
        yield disk
    finally:
        disk.close()


@pytest.fixture
def service_on_disk(disk: Disk) -> Iterator[tuple[PokerTables, str]]:
    yield from _serve(environment(f"sqlite:///{disk.dir / 'trust.db'}"))


# -- item 3: a storage failure never drops a shoe read ---------------------------------------------------------------


def _held_through_a_store_failure(app: PokerTables, dealer: Station, fail: Callable[[], object],
                                  recover: Callable[[], object], shown: list[str], *, lasting: bool = True) -> None:
    """The issue's hand: As Kd dealt, the store fails, Qh Ac Kc drawn; back, the table holds all five in order.
    ``lasting``: the store stays failed until ``recover`` (a full disk), rather than failing once (a connection
    killed: the next one works)."""
    shoe = ShoeSimulator(seed=31)
    hardware = HardwareStation(dealer, "Mesa T", shoe.url, show=shown.append, retry_seconds=0.1)
    try:
        shoe.hello()
        hardware.start_hand()
        shoe.load(Colour.RED, ISSUE_SHOE)
        for _ in range(2):
            shoe.draw()
        assert hardware.wait(lambda: len(hardware.dealt) == 2)
        fail()
        try:
            for _ in range(3):
                shoe.draw()
            if lasting:
                assert hardware.wait(lambda: len(hardware.held) == 3, timeout=10), shown
                assert [seq for _, seq in hardware.held] == [3, 4, 5] and hardware.refused == []
                assert _deals(app) == [("As", 1), ("Kd", 2)]
        finally:
            recover()
        assert hardware.wait(lambda: not hardware.held, timeout=10), shown
        assert _deals(app) == [("As", 1), ("Kd", 2), ("Qh", 3), ("Ac", 4), ("Kc", 5)]
        assert hardware.refused == []
    finally:
        hardware.close()
        shoe.close()


def test_r_aud_1_a_full_disk_holds_the_shoe_reads_and_they_are_dealt_in_order_when_it_is_freed(
    service_on_disk: tuple[PokerTables, str], disk: Disk
) -> None:
    """The disk under the SQLite file fills up: the service answers UNAVAILABLE naming the store (it answered
    UNKNOWN, and the station forgot the reads); the station holds Qh Ac Kc and deals them when the disk is freed."""
    app, address = service_on_disk
    dealer = _open(address, "disk")
    shown: list[str] = []
    _held_through_a_store_failure(app, dealer, disk.fill, disk.free, shown)
    lost = [line for line in shown if line.startswith("service lost (")]
    assert lost and all("UNAVAILABLE" in line and "event store failed" in line for line in lost), lost
    assert any(disk.message in line for line in lost), lost


def test_r_aud_1_a_store_failure_reaches_the_client_as_unavailable_and_its_retry_applies_once(
    service_on_disk: tuple[PokerTables, str], disk: Disk
) -> None:
    app, address = service_on_disk
    dealer = _open(address, "unavailable")
    disk.fill()
    try:
        with pytest.raises(grpc.RpcError) as refused:
            dealer.call("SeatPlayer", svc.SeatPlayerRequest(command_id="full", table="Mesa T", seat=4, chips=100))
    finally:
        disk.free()
    details = refused.value.details() or ""
    assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
    assert "the event store failed" in details and disk.message in details
    assert "retry it with the same command id" in details
    dealer.call("SeatPlayer", svc.SeatPlayerRequest(command_id="full", table="Mesa T", seat=4, chips=100))
    assert app.table("Mesa T").stacks[4] == 100


def test_r_aud_1_a_killed_postgresql_connection_holds_the_shoe_reads_until_it_is_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.stores import postgres_store

    env = postgres_store()
    import psycopg

    # the service's connections are named (libpq's PGAPPNAME, this worker's own environment): the kill ends them
    # alone, not the connections of the tests other workers run on the same server meanwhile
    name = f"pokertable-test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("PGAPPNAME", name)

    def kill() -> None:  # every connection of the service to its schema's database, as an administrator would
        with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                             dbname=env["POSTGRES_DBNAME"], autocommit=True, application_name="killer") as conn:
            killed = conn.execute("select count(pg_terminate_backend(pid)) from pg_stat_activity where datname = "
                                  "current_database() and application_name = %s", (name,)).fetchone()
            assert killed is not None and killed[0] > 0  # the service's connections were found, and ended

    for app, address in _serve(env):
        dealer = _open(address, "pg")
        shown: list[str] = []
        _held_through_a_store_failure(app, dealer, kill, lambda: None, shown, lasting=False)
        lost = [line for line in shown if line.startswith("service lost (")]
        assert lost and "UNAVAILABLE" in lost[0] and "terminating connection" in lost[0], shown


# -- item 9: the shoe's numbering, its restarts, and its silence ---------------------------------------------------
