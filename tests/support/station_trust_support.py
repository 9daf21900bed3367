"""A real service on a real store with the stations of Mesa T and THB T (the ``service`` fixture: its application and
its address), Mesa T opened by the reference station, and the hand's deals and the table's device faults as recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.cards.cards import parse_cards
from domain.circle.hand import Hand
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.grpc.server import Stations
from service.station.reference import Station
from service.store.persistence import environment
from tests.support.grpc_support import serving

STATIONS = Stations.from_mapping({
    "pit": {"token": "trust-pit-boss-token-00001", "role": "pit-boss"},
    "mesa": {"token": "trust-dealer-token-0000002", "role": "dealer", "table": "Mesa T"},
    "thb": {"token": "trust-dealer-token-0000003", "role": "dealer", "table": "THB T"},
})


def _serve(env: dict[str, str]) -> Iterator[tuple[PokerTables, str]]:
    app = PokerTables(env=env)
    with serving(app, STATIONS) as port:
        yield app, f"127.0.0.1:{port}"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[PokerTables, str]]:
    yield from _serve(environment(f"sqlite:///{tmp_path / 'trust.db'}"))


def _open(address: str, command: str) -> Station:
    pit, dealer = Station(address, "trust-pit-boss-token-00001"), Station(address, "trust-dealer-token-0000002")
    settings = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2], no_burns=True)
    pit.call("OpenTable", svc.OpenTableRequest(command_id=f"{command}-open", table="Mesa T", game=pb.GAME_HOLDEM,
                                               circle=settings))
    for seat in (1, 2, 3):
        dealer.call("SeatPlayer", svc.SeatPlayerRequest(command_id=f"{command}-sit-{seat}", table="Mesa T",
                                                        seat=seat, chips=100))
    return dealer


def _deals(app: PokerTables) -> list[tuple[str, int | None]]:
    hand_id = app.hands_of("Mesa T")[-1]
    return [(str(e.card), e.sequence) for e in app.events.get(hand_id) if isinstance(e, Hand.CardDealt)]


def _faults(app: PokerTables, table: str = "Mesa T") -> list[dict[str, str]]:
    record = app.table(table) if table == "Mesa T" else app.any_table(table)
    return [vars(e) for e in app.events.get(record.id)
            if type(e).__name__ == "DeviceReported" and vars(e)["kind"] == "fault"]


ISSUE_SHOE = parse_cards("As Kd Qh Ac Kc Qs 9h 8d")
