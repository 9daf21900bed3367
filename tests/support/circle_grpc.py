"""Mesa 1 through the gRPC service for the circle-poker tests: the pit's and the croupier's clients, the table opened
and seated, a command, a card dealt, a hand started and the table's view."""

from __future__ import annotations

from typing import Any

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, act

TABLE = "Mesa 1"  # the table of the "mesa-1" dealer station


def _clients(port: int) -> tuple[Client, Client]:
    return Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])


def _open(pit: Client, dealer: Client, game: pb.Game, settings: dict[str, Any],
          stacks: dict[int, int]) -> None:
    grpc_support.open_circle(pit, TABLE, game, **settings)
    for seat, chips in stacks.items():
        grpc_support.seat(dealer, TABLE, seat, chips)


def _command(client: Client, **one_command: Any) -> svc.ActResponse:
    return act(client, TABLE, **one_command)


def _deal(dealer: Client, cards: str) -> None:
    grpc_support.deal(dealer, TABLE, cards)


def _start(dealer: Client, colour: pb.DeckColour = pb.DECK_COLOUR_RED) -> svc.StartHandResponse:
    return grpc_support.start(dealer, TABLE, colour)


def _table(client: Client) -> pb.TableView:
    reply: svc.GetTableResponse = client.GetTable(svc.GetTableRequest(table=TABLE))
    return reply.view


def _view(client: Client) -> pb.CircleTableView:
    view = _table(client)
    assert view.WhichOneof("detail") == "circle", view
    return view.circle
