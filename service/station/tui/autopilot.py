"""A croupier at the station's keys, for the demo and the benchmark: Textual's pilot presses the keys a croupier would
press for a whole hand, and each key waits until the screen shows what it did.

The policy is the plainest table: nobody raises (``c`` checks or calls), ``s`` shows at the showdown, ``i`` brings in;
at five-card draw everyone stands pat (``x`` Enter), at Pineapple each player gives up his first card (``x``, the card
typed, Enter); at a banked table ``e`` Enter puts an ante on the next free box, ``v`` closes the bets, ``p`` plays (THB
flop bet, CDP play bet), ``c`` checks the turn and the river, ``x`` Enter stands pat at a CDP exchange. Cards come from
``next_card``: typed (three keys: rank, suit, Enter) where the station takes typed cards, or handed to ``shoe`` (another
client dealing as the table's shoe does) and shown from the Watch stream without a key.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from service.api import types_pb2 as pb

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from service.station.tui.app import StationApp

KeysPressed = Callable[[str, int], None]
"""Told of each group of keys: its kind (``start``, ``bets``, ``decision``, ``card``) and how many keys."""


async def until(ready: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until ``ready()`` (the station's screen shows something), at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError("the station did not show the change in time")
        await asyncio.sleep(0.001)


async def press(pilot: Pilot[None], app: StationApp, keys: tuple[str, ...]) -> None:
    """Press keys and wait until the screen shows what they did."""
    before = app.shown_position
    await pilot.press(*keys)
    await until(lambda: app.shown_position > before and app.settled)


def decision(app: StationApp, first_card: Callable[[int], str]) -> tuple[str, ...]:
    """The keys of the decision due now (``first_card(seat)``: the first card dealt to a seat, which the croupier
    keys when the player gives it up at Pineapple)."""
    allowed = set(app.legal.allowed)
    if app.banked:
        stage = app.view.banked.stage
        if stage == pb.BANKED_STAGE_EXCHANGE:
            return ("x", "enter")
        return ("c",) if stage in (pb.BANKED_STAGE_TURN, pb.BANKED_STAGE_RIVER) else ("p",)
    if pb.ACTION_KIND_SHOW in allowed:
        return ("s",)
    if pb.ACTION_KIND_BRING_IN in allowed and pb.ACTION_KIND_CALL not in allowed:
        return ("i",)
    if pb.ACTION_KIND_DISCARD in allowed:
        if app.view.game != pb.GAME_PINEAPPLE:
            return ("x", "enter")
        return ("x", *first_card(app.legal.seat).lower(), "enter")
    return ("c",)


def _card_target(app: StationApp) -> int | None:
    """The circle seat the due card goes to (None: the board, a burn, a box or the bank)."""
    detail = app.view.banked if app.banked else app.view.circle
    target = detail.next_card
    return target.seat if target.target == pb.CARD_TARGET_HOLE and target.HasField("seat") else None


async def play_hand(pilot: Pilot[None], app: StationApp, next_card: Callable[[], str], *, boxes: int = 0,
                    shoe: Callable[[str], Awaitable[None]] | None = None,
                    keys_pressed: KeysPressed | None = None) -> None:
    """One hand from ``n`` to the last payment; ``boxes``: the boxes that take an ante at a banked table."""
    counted = keys_pressed or (lambda kind, n: None)
    first: dict[int, str] = {}
    await press(pilot, app, ("n",))
    counted("start", 1)
    await until(lambda: app.hand.deck_size > 0 and app.settled)
    while app.view.hand_in_progress:
        if app.card_due():
            card, seat = next_card(), _card_target(app)
            if seat is not None:
                first.setdefault(seat, card)
            if shoe is None:
                await press(pilot, app, (*card.lower(), "enter"))
                counted("card", 3)
            else:
                await shoe(card)
        elif app.banked and app.view.banked.stage == pb.BANKED_STAGE_BETTING:
            for _ in range(boxes):
                await press(pilot, app, ("e", "enter"))
            await press(pilot, app, ("v",))
            counted("bets", 2 * boxes + 1)
        elif app.legal.HasField("seat"):
            keys = decision(app, first.__getitem__)
            await press(pilot, app, keys)
            counted("decision", len(keys))
        else:
            raise RuntimeError(f"nothing to do at the table: {app.screen_text()}")
