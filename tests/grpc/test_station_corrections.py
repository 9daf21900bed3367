"""Issue 15, item 6 at the full-screen station (R-AUD-1; docs/station.md "Corrections"): the croupier who keyed a
raise to 60 when the player raised to 6 presses ``r``, types what happened and why; the hand waits and his screen
says so; the pit boss's station (``--pit``) approves or refuses it with ``r``; the log keeps the wrong action, the
request, the decision and the replacement. Headless (Textual's pilot) against a real server on a free port."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from textual.pilot import Pilot

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.tui import StationApp
from service.station.tui.autopilot import shown_after
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, _log
from tests.support.station_tui_support import HOLDEM, SIZE, SQLITE, focus_on, open_holdem, until

port = grpc_support.port


def at_station(port: int, token: str, body: Callable[[Pilot[None], StationApp], Awaitable[None]], *,
               pit: bool = False) -> None:
    """One station of Mesa 1 (the croupier's, or the pit boss's with ``pit``), headless, running ``body``."""
    app = StationApp(f"127.0.0.1:{port}", token, "Mesa 1", lang="en", sees_down_cards=pit)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: bool(app.view.table) and app.settled, "the first view")
            await body(pilot, app)

    asyncio.run(main())


async def keys(pilot: Pilot[None], app: StationApp, *pressed: str, what: str) -> None:
    """Press keys and wait until the screen shows the service's answer."""
    before = app.shown_position
    await pilot.press(*pressed)
    await until(pilot, lambda: app.shown_position > before and app.settled, what)


def raise_to_60(port: int) -> Client:
    """Mesa 1 dealt, and seat 4 (first to act) raised to 60 by the croupier's keys (the player had raised to 6)."""
    pit, _ = open_holdem(port)

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        await keys(pilot, app, "n", what="the hand started")
        for card in HOLDEM.split():  # face down: keyed at the pit's station (D-SEE-1)
            await shown_after(app, asyncio.to_thread(grpc_support.deal, pit, "Mesa 1", card))
        assert app.legal.seat == 4
        await pilot.press("b")
        await focus_on(pilot, app, "value")
        await pilot.press("end", *["backspace"] * 4, "6", "0")  # the prompt proposes the legal minimum
        await keys(pilot, app, "enter", what="seat 4 raises to 60")
        assert "[r] correct the last action" in app.screen_text()

    at_station(port, TOKENS["dealer"], body)
    return pit


async def type_text(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` into the focused field, key by key."""
    await pilot.press(*("space" if char == " " else char for char in text))


async def offered(pilot: Pilot[None], app: StationApp) -> None:
    """Wait until the station offers ``r`` (its footer shows it): the hand's log, which names the seat that acted
    last, reaches the station after the table's view; a key pressed before is refused, as it is at the table."""
    await until(pilot, lambda: app.check_action("correction", ()) is True, "r offered")


async def ask_correction(pilot: Pilot[None], app: StationApp, replacement: str, reason: str) -> None:
    await offered(pilot, app)
    await pilot.press("r")
    await focus_on(pilot, app, "what")
    await type_text(pilot, replacement)
    await pilot.press("enter")
    await focus_on(pilot, app, "why")
    await type_text(pilot, reason)


def bets(client: Client) -> dict[int, int]:
    reply: svc.GetTableResponse = client.GetTable(svc.GetTableRequest(table="Mesa 1"))
    return {player.seat: player.bet for player in reply.view.circle.players}


@SQLITE
def test_r_aud_1_a_mis_keyed_raise_is_corrected_at_the_croupiers_station_and_approved_at_the_pits(port: int) -> None:
    pit = raise_to_60(port)
    assert bets(pit)[4] == 60

    async def croupier(pilot: Pilot[None], app: StationApp) -> None:
        await ask_correction(pilot, app, "b 6x", "keyed 60 for 6")
        await pilot.press("enter")
        await pilot.pause()
        assert "type f, k, c, a, i, or b and the amount" in app.screen_text()  # not sent: stays in the dialog
        await pilot.press("shift+tab")  # back to what happened
        await focus_on(pilot, app, "what")
        await pilot.press("end", "backspace")  # "b 6"
        await pilot.press("enter")
        await focus_on(pilot, app, "why")
        await keys(pilot, app, "enter", what="the correction asked")
        text = app.screen_text()
        assert "correction pending for seat 4: bet 6 (\"keyed 60 for 6\") — waiting for the pit boss" in text, text
        assert not app.check_action("correction", ()) and not app.check_action("fold", ())  # the hand waits

    at_station(port, TOKENS["dealer"], croupier)
    assert bets(pit)[4] == 60  # nothing changes until the pit decides

    async def pit_boss(pilot: Pilot[None], app: StationApp) -> None:
        # the hand's log (the pending correction in it) reaches the station after the table's first view
        await until(pilot, lambda: "correction pending for seat 4: bet 6" in app.screen_text(), "the pending shown")
        await offered(pilot, app)
        await pilot.press("r")
        await focus_on(pilot, app, "what")
        await type_text(pilot, "a")
        await pilot.press("enter")
        await focus_on(pilot, app, "why")
        await type_text(pilot, "seen on camera")
        await keys(pilot, app, "enter", what="the correction approved")
        assert app.legal.seat == 1 and "correction pending" not in app.screen_text()

    at_station(port, TOKENS["pit"], pit_boss, pit=True)
    assert bets(pit) == {2: 1, 3: 2, 4: 6, 1: 0}  # the hand goes on from the corrected state
    assert _log(pit)[-4:] == ["hand_bet_or_raised:60", "hand_correction_requested", "hand_correction_approved",
                              "hand_bet_or_raised:6"]  # the wrong action and its correction are both kept (R-AUD-1)


@SQLITE
def test_r_aud_1_a_refused_correction_changes_nothing_and_the_croupiers_station_cannot_decide(port: int) -> None:
    pit = raise_to_60(port)

    async def croupier(pilot: Pilot[None], app: StationApp) -> None:
        await ask_correction(pilot, app, "c", "he only called")
        await keys(pilot, app, "enter", what="the correction asked")
        await pilot.press("r")  # the croupier's own station is never offered the decision
        await pilot.pause()
        assert len(app.screen_stack) == 1 and "waiting for the pit boss" in app.screen_text()

    at_station(port, TOKENS["dealer"], croupier)

    async def pit_boss(pilot: Pilot[None], app: StationApp) -> None:
        await offered(pilot, app)
        await pilot.press("r")
        await focus_on(pilot, app, "what")
        await type_text(pilot, "r")
        await pilot.press("enter")
        await focus_on(pilot, app, "why")
        await type_text(pilot, "the player raised to 60")
        await keys(pilot, app, "enter", what="the correction refused")
        assert app.legal.seat == 1 and pb.ACTION_KIND_CALL in app.legal.allowed

    at_station(port, TOKENS["pit"], pit_boss, pit=True)
    assert bets(pit)[4] == 60
    assert _log(pit)[-3:] == ["hand_bet_or_raised:60", "hand_correction_requested", "hand_correction_refused"]
