"""The demo's full-screen dealer station, headless: a four-handed Hold'em hand dealt through the station's keys.

The station (:class:`service.station.tui.StationApp`) runs under Textual's pilot against the demo's server with a
croupier's token; :mod:`service.station.tui.autopilot` presses the keys a croupier would (``n`` a new hand, each
face-up card typed as the station asks for it, ``c`` for every check or call, ``s`` at the showdown); with no shoe at
the demo's table the face-down cards are keyed at the pit's station (RULES.md D-SEE-1), never at the croupier's.
The screen at the end of the hand is printed as the croupier sees it (no face-down card).
"""

from __future__ import annotations

import asyncio
import random
import re

import grpc

from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.station.tui import StationApp
from service.station.tui.autopilot import PitKeys, play_hand, until

TABLE = "Mesa 7"
"""The table the full-screen station deals."""
SEATS = (1, 2, 3, 4)


def open_table(address: str, pit_token: str) -> None:
    """The pit boss opens a no-limit Hold'em table and seats four players."""
    channel = grpc.insecure_channel(address)
    stub = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
    metadata = (("authorization", f"Bearer {pit_token}"),)
    stub.OpenTable(svc.OpenTableRequest(command_id="station-demo-open", table=TABLE, game=pb.GAME_HOLDEM,
                                        circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT,
                                                                 blinds=[5, 10])),
                   metadata=metadata, timeout=10)
    for seat in SEATS:
        stub.SeatPlayer(svc.SeatPlayerRequest(command_id=f"station-demo-seat-{seat}", table=TABLE, seat=seat,
                                              chips=500), metadata=metadata, timeout=10)
    channel.close()


async def _deal(address: str, pit_token: str, token: str, rng: random.Random, lang: str) -> tuple[int, str]:
    app = StationApp(address, token, TABLE, lang=lang)
    pit = PitKeys(address, pit_token, TABLE)  # no shoe here: the face-down cards are keyed at the pit's (D-SEE-1)
    deck = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
    rng.shuffle(deck)
    keys = 0

    def pressed(_: str, count: int) -> None:
        nonlocal keys
        keys += count

    async with app.run_test(size=(110, 34)) as pilot:
        await until(lambda: bool(app.view.table) and app.settled)
        try:
            await play_hand(pilot, app, deck.pop, pit=pit, keys_pressed=pressed)
        finally:
            pit.close()
        await until(lambda: app.settled)
        screen = app.screen_text()
    return keys, screen


def run_station_demo(address: str, pit_token: str, token: str, rng: random.Random, lang: str) -> str:
    """Deal one hand at the full-screen station; print its last screen; a line for the demo's summary."""
    print(f"== The full-screen dealer station (pokertable station), headless: {TABLE}, Hold'em, four players")
    open_table(address, pit_token)
    keys, screen = asyncio.run(_deal(address, pit_token, token, rng, lang))
    print(re.sub(r"\n{3,}", "\n\n", screen.rstrip()))  # the screen's empty rows, once
    print(f"   {keys} keys for the whole hand (each board card typed: rank, suit, Enter; no shoe here, so the hole "
          "cards and burns, face down, were keyed at the pit's station: D-SEE-1)\n")
    return f"   {TABLE}: one Hold'em hand dealt through the full-screen station's keys ({keys} keys)"
