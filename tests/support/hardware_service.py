"""A real service on an SQLite file with the stations of Mesa HW and THB HW (the ``service`` fixture: its application
and its address), and a card drawn from the simulated shoe and forwarded by the hardware station."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devices.simulators import ShoeSimulator
from service.app.application import PokerTables
from service.grpc.server import Stations
from service.station.hardware import HardwareStation
from service.store.persistence import environment
from tests.support.grpc_support import serving

STATIONS = Stations.from_mapping({
    "pit": {"token": "hw-pit-boss-token-0000001", "role": "pit-boss"},
    "dj": {"token": "hw-director-token-0000002", "role": "games-director"},
    "mesa": {"token": "hw-dealer-token-000000003", "role": "dealer", "table": "Mesa HW"},
    "thb": {"token": "hw-dealer-token-000000004", "role": "dealer", "table": "THB HW"},
})


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[PokerTables, str]]:
    app = PokerTables(env=environment(f"sqlite:///{tmp_path / 'hw.db'}"))
    with serving(app, STATIONS) as port:
        yield app, f"127.0.0.1:{port}"


def draw_and_wait(shoe: ShoeSimulator, station: HardwareStation) -> None:
    """The croupier draws the next card; the station forwards it."""
    before = len(station.dealt) + len(station.refused) + len(station.irregularities)
    shoe.draw()
    assert station.wait(lambda: len(station.dealt) + len(station.refused) + len(station.irregularities) > before)
