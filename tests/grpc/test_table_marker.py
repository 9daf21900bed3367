"""Issue 33: the station calls the round marker by its name — la mano where its holder speaks first (a table
without blinds, R-CIRC-1), the button at a table with blinds — from what the table view says (``button_is_mano``),
over a real server on a free port."""

from __future__ import annotations

from typing import Any

import pytest

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.tui.i18n import Labels
from service.station.tui.render import marker_name
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, open_circle, seat, start

port = grpc_support.port

SQLITE = pytest.mark.parametrize("port", ["sqlite"], indirect=True)


@SQLITE
@pytest.mark.parametrize(("game", "settings", "mano"), [
    (pb.GAME_DRAW, {"ante": 1, "structure": pb.BETTING_STRUCTURE_FIXED_LIMIT, "small_bet": 2, "big_bet": 4}, True),
    (pb.GAME_HOLDEM, {"blinds": [1, 2]}, False),
], ids=["draw-mano", "holdem-button"])
def test_r_circ_1_the_marker_is_la_mano_without_blinds_and_the_button_with_them(
        port: int, game: pb.Game, settings: dict[str, Any], mano: bool) -> None:
    pit = Client(port, TOKENS["pit"])
    open_circle(pit, "Mesa 1", game, **settings)
    for number in (1, 2, 3):
        seat(pit, "Mesa 1", number, 100)
    start(pit, "Mesa 1", pb.DECK_COLOUR_RED)
    view = pit.GetTable(svc.GetTableRequest(table="Mesa 1")).view
    assert view.circle.HasField("button_seat") and view.circle.button_is_mano is mano
    names = (marker_name(view.circle, Labels("es")), marker_name(view.circle, Labels("en")))
    assert names == (("mano", "la mano") if mano else ("botón", "button"))
