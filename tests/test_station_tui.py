"""Issue 15: the full-screen dealer station (service/station/tui), driven headless by Textual's pilot against a real
server on a free port (SQLite, the sole writer).  A four-handed Hold'em hand is dealt from typed cards and played
through the app's keys to the end; a Texas Hold'em Bonus hand too (antes, bonus, no va más, each box's decision);
the croupier's screen never shows a face-down card (R-AUD-1 visibility, issue 15 item 5); the screen's snapshots in
English and Spanish (tests/snapshots/station_tui/: regenerate with UPDATE_SNAPSHOTS=1 and read the diff)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from service.api import types_pb2 as pb
from service.station.tui import StationApp
from service.station.tui.render import FACE_DOWN
from tests import grpc_support
from tests.grpc_support import TOKENS, Client, open_circle, seat

port = grpc_support.port
"""The server fixture of the gRPC suite (SQLite only here: the station is a client; the store is not its concern)."""

SQLITE = pytest.mark.parametrize("port", ["sqlite"], indirect=True)
SNAPSHOTS = Path(__file__).parent / "snapshots" / "station_tui"
SIZE = (110, 36)
HOLDEM = "Ah Kd Qs Jc 2h 3d 9c 9d"
"""Hole cards, one at a time from the seat left of the button (1): seat 2 Ah, 3 Kd, 4 Qs, 1 Jc, 2 2h, 3 3d, 4 9c,
1 9d."""
BOARD = "5c 7h 8s Td 2c 4s 6d Js"
"""Burn, flop, burn, turn, burn, river (burns are the 1st, 5th and 7th)."""


async def until(pilot: Pilot[None], ready: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait (the app running) until the station shows what is expected."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


async def press_card(pilot: Pilot[None], card: str) -> None:
    """Type a card code in lower case (the station reads "as" as As) and Enter."""
    await pilot.press(*card.lower(), "enter")


def station(port: int, token: str, table: str, lang: str = "en") -> StationApp:
    return StationApp(f"127.0.0.1:{port}", token, table, lang=lang)


def run(app: StationApp, body: Callable[[Pilot[None], StationApp], Awaitable[None]]) -> None:
    """Run the app headless with its pilot and the test's body."""

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: bool(app.view.table), "the first view")
            await body(pilot, app)

    asyncio.run(main())


def hidden_codes(text: str, cards: str) -> list[str]:
    """The face-down cards (of ``cards``) a screen shows."""
    return [card for card in cards.split() if re.search(rf"\b{card}\b", text)]


def open_holdem(port: int) -> Client:
    pit = Client(port, TOKENS["pit"])
    open_circle(pit, "Mesa 1", pb.GAME_HOLDEM, blinds=[1, 2])
    dealer = Client(port, TOKENS["dealer"])
    for number in (1, 2, 3, 4):
        seat(dealer, "Mesa 1", number, 100)
    return dealer


def phase(app: StationApp) -> int:
    return int(app.view.circle.phase)


@SQLITE
def test_holdem_hand_through_the_keys_croupier_never_sees_down_cards(port: int) -> None:
    """Four-handed Hold'em: n starts, every card typed where the station says it is due, every action one key
    (c to call or check, b then Enter to raise the legal minimum, f to fold), the pots paid and shown at the end;
    at every step the croupier's screen shows no hole card that is face down."""
    open_holdem(port)
    app = station(port, TOKENS["dealer"], "Mesa 1")

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        screens: list[str] = []

        async def step(keys: Callable[[], Awaitable[None]], what: str) -> None:
            before = app.shown_position
            await keys()
            await until(pilot, lambda: app.shown_position > before, what)
            text = app.screen_text()
            screens.append(text)
            shown = " ".join(card for cards in app.hand.shown.values() for card in cards)
            still_down = " ".join(card for card in HOLDEM.split() if card not in shown.split())
            assert not hidden_codes(text, still_down), text  # issue 15 item 5

        await step(lambda: pilot.press("n"), "the hand started")
        assert app.view.hand_in_progress and app.card_due()
        for card in HOLDEM.split():
            await step(lambda card=card: press_card(pilot, card), f"{card} dealt")
        assert app.legal.seat == 4 and pb.ACTION_KIND_CALL in app.legal.allowed  # button 1, blinds 2 and 3
        assert "seat 4 to act:" in app.screen_text() and "[c] call 2" in app.screen_text()
        await step(lambda: pilot.press("c"), "seat 4 calls")
        await step(lambda: pilot.press("b", "enter"), "seat 1 raises the minimum")  # to 4
        await step(lambda: pilot.press("f"), "seat 2 folds")
        await step(lambda: pilot.press("c"), "seat 3 calls")
        await step(lambda: pilot.press("c"), "seat 4 calls")
        for card in BOARD.split()[:4]:
            await step(lambda card=card: press_card(pilot, card), f"{card} dealt")
        for _ in range(3):
            await step(lambda: pilot.press("c"), "a check on the flop")
        for card in BOARD.split()[4:6]:
            await step(lambda card=card: press_card(pilot, card), f"{card} dealt")
        for _ in range(3):
            await step(lambda: pilot.press("c"), "a check on the turn")
        for card in BOARD.split()[6:]:
            await step(lambda card=card: press_card(pilot, card), f"{card} dealt")
        for _ in range(3):
            await step(lambda: pilot.press("c"), "a check on the river")
        assert "seat 3 to act:  [s] show   [m] muck" in screens[-1]  # R-CIRC-13: nobody bet the river
        for _ in range(3):
            await step(lambda: pilot.press("s"), "a hand shown")
        await until(pilot, lambda: not app.view.hand_in_progress and app.hand.finished and bool(app.hand.pots),
                    "the pots paid")
        final = app.screen_text()
        assert "Result of hand 1" in final and "main pot 13" in final, final
        assert "seat 4 shows Qs 9c" in final and "pay 13 to seat 4" in final, final  # the queen-high straight
        assert FACE_DOWN in screens[10]

    run(app, body)
