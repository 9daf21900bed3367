"""The full-screen station driven headless by Textual's pilot against a real server on a free port: the station, its
run with the test's body, a wait until it shows something, Mesa 1's Hold'em and THB 1's decision."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot

from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from service.station.tui import StationApp
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, open_banked, open_circle, seat

SQLITE = pytest.mark.parametrize("port", ["sqlite"], indirect=True)
SIZE = (110, 36)
HOLDEM = "Ah Kd Qs Jc 2h 3d 9c 9d"
"""Hole cards, one at a time from the seat left of the button (1): seat 2 Ah, 3 Kd, 4 Qs, 1 Jc, 2 2h, 3 3d, 4 9c,
1 9d."""


async def until(pilot: Pilot[None], ready: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait (the app running) until the station shows what is expected."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


async def focus_on(pilot: Pilot[None], app: StationApp, widget: str) -> None:
    """Wait until the field ``widget`` (an id) has the keyboard: keys typed before a dialog is mounted and focused
    would go to the table's screen (``c`` calls), so a test types only once the dialog is ready, as a croupier does."""
    await until(pilot, lambda: app.focused is not None and app.focused.id == widget, f"the field #{widget} focused")


def station(port: int, token: str, table: str, lang: str = "en") -> StationApp:
    return StationApp(f"127.0.0.1:{port}", token, table, lang=lang)


def run(app: StationApp, body: Callable[[Pilot[None], StationApp], Awaitable[None]]) -> None:
    """Run the app headless with its pilot and the test's body."""

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: bool(app.view.table), "the first view")
            await body(pilot, app)

    asyncio.run(main())


def open_holdem(port: int) -> tuple[Client, Client]:
    """Mesa 1, no-limit Hold'em 1/2, four players with 100 each: the pit's and the croupier's clients."""
    pit = Client(port, TOKENS["pit"])
    open_circle(pit, "Mesa 1", pb.GAME_HOLDEM, blinds=[1, 2])
    dealer = Client(port, TOKENS["dealer"])
    for number in (1, 2, 3, 4):
        seat(dealer, "Mesa 1", number, 100)
    return pit, dealer


THB_CARDS = "Qs 7c 9h Qh 2d 4c 3s Qd 8c 2s 5h Jc 6d Th"
"""Texas Hold'em Bonus (R-THB-4): box 1, box 2, the dealer's left spot, box 1, box 2, the dealer's right spot; then
burn, flop, burn, turn, burn, river."""


def thb_decision(port: int, pit: Client) -> None:
    """THB 1: boxes 1 and 2 with antes of 10, box 1 a bonus of 5, the cards dealt: box 1 decides before the flop."""
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS, ante_min=5)
    grpc_support.start(pit, "THB 1", pb.DECK_COLOUR_BLUE)
    for box in (1, 2):
        grpc_support.act(pit, "THB 1", ante=cmd.Ante(seat=box, amount=10))
    grpc_support.act(pit, "THB 1", bonus=cmd.Bonus(seat=1, amount=5))
    grpc_support.act(pit, "THB 1", close_bets=cmd.CloseBets())
    grpc_support.deal(pit, "THB 1", " ".join(THB_CARDS.split()[:6]))
