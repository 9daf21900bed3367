"""Issue 15: the full-screen dealer station (service/station/tui), driven headless by Textual's pilot against a real
server on a free port (SQLite, the sole writer).  A four-handed Hold'em hand is dealt from typed cards and played
through the app's keys to the end; a Texas Hold'em Bonus hand too (antes, bonus, no va más, each box's decision);
the croupier's screen never shows a face-down card (R-AUD-1 visibility, issue 15 item 5); the screen's snapshots in
English and Spanish (tests/snapshots/station_tui/: regenerate with UPDATE_SNAPSHOTS=1 and read the diff)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.tui import StationApp
from service.station.tui.autopilot import shown_after
from service.station.tui.render import FACE_DOWN
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, open_banked
from tests.support.station_tui_support import HOLDEM, SQLITE, THB_CARDS, open_holdem, run, station, thb_decision, until

port = grpc_support.port
"""The server fixture of the gRPC suite (SQLite only here: the station is a client; the store is not its concern)."""

SNAPSHOTS = Path(__file__).parent.parent / "snapshots" / "station_tui"
BOARD = "5c 7h 8s Td 2c 4s 6d Js"
"""Burn, flop, burn, turn, burn, river (burns are the 1st, 5th and 7th)."""


def hidden_codes(text: str, cards: str) -> list[str]:
    """The face-down cards (of ``cards``) a screen shows."""
    return [card for card in cards.split() if re.search(rf"\b{card}\b", text)]


def phase(app: StationApp) -> int:
    return int(app.view.circle.phase)


@SQLITE
def test_holdem_hand_through_the_keys_croupier_never_sees_down_cards(port: int) -> None:
    """Four-handed Hold'em without a shoe: n starts, every face-up card typed where the station says it is due, the
    face-down ones (hole cards, burns) keyed at the pit's station (D-SEE-1: the croupier's has no field for them),
    every action one key (c to call or check, b then Enter to raise the legal minimum, f to fold), the pots paid and
    shown at the end; at every step the croupier's screen shows no hole card that is face down."""
    pit, _ = open_holdem(port)
    app = station(port, TOKENS["dealer"], "Mesa 1")

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        screens: list[str] = []

        async def step(*keys: str, what: str) -> None:
            before = app.shown_position
            await pilot.press(*keys)
            await until(pilot, lambda: app.shown_position > before, what)
            text = app.screen_text()
            screens.append(text)
            shown = " ".join(card for cards in app.hand.shown.values() for card in cards)
            still_down = " ".join(card for card in HOLDEM.split() if card not in shown.split())
            assert not hidden_codes(text, still_down), text  # issue 15 item 5

        async def by_pit(card: str) -> None:
            assert not app.query_one("#card").display  # face down: nothing to type it into here
            await shown_after(app, asyncio.to_thread(grpc_support.deal, pit, "Mesa 1", card))
            assert not hidden_codes(app.screen_text(), card), app.screen_text()

        async def typed_or_keyed(cards: list[str]) -> None:
            for card in cards:
                if app.view.circle.next_card.face_up:
                    await step(*card.lower(), "enter", what=f"{card} dealt")
                else:
                    await by_pit(card)

        await step("n", what="the hand started")
        assert app.view.hand_in_progress and app.card_due()
        assert "face down: the shoe deals it, or the pit boss keys it at his station (D-SEE-1)" in app.screen_text()
        await typed_or_keyed(HOLDEM.split())
        assert app.legal.seat == 4 and pb.ACTION_KIND_CALL in app.legal.allowed  # button 1, blinds 2 and 3
        assert "seat 4 to act:" in app.screen_text() and "[c] call 2" in app.screen_text()
        await step("c", what="seat 4 calls")
        await step("b", "enter", what="seat 1 raises the minimum")  # to 4
        await step("f", what="seat 2 folds")
        await step("c", what="seat 3 calls")
        await step("c", what="seat 4 calls")
        await typed_or_keyed(BOARD.split()[:4])
        for _ in range(3):
            await step("c", what="a check on the flop")
        await typed_or_keyed(BOARD.split()[4:6])
        for _ in range(3):
            await step("c", what="a check on the turn")
        await typed_or_keyed(BOARD.split()[6:])
        for _ in range(3):
            await step("c", what="a check on the river")
        assert "seat 3 to act:  [s] show   [m] muck" in screens[-1]  # R-CIRC-13: nobody bet the river
        for _ in range(3):
            await step("s", what="a hand shown")
        await until(pilot, lambda: not app.view.hand_in_progress and app.hand.finished and bool(app.hand.pots),
                    "the pots paid")
        final = app.screen_text()
        assert "Result of hand 1" in final and "main pot 13" in final, final
        assert "seat 4 shows Qs 9c" in final and "pay 13 to seat 4" in final, final  # the queen-high straight
        assert FACE_DOWN in screens[10]

    run(app, body)


THB_DOWN = "Qs 7c 9h Qh 2d 4c"


@SQLITE
def test_thb_hand_through_the_keys(port: int) -> None:
    """Texas Hold'em Bonus through the keys: e + Enter an ante per box (prefilled with the next free box and the
    smallest ante), o + Enter box 1's bonus, v no va más, the cards typed, p the flop bet of box 1 and f the fold of
    box 2 in order, c and b the turn and river decisions; the boxes are settled and the croupier never saw a box's
    or the house's card face down: those, and the burns, are keyed at the pit's station (D-SEE-1), the board typed
    at the croupier's."""
    pit = Client(port, TOKENS["pit"])
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS, ante_min=5)
    app = station(port, TOKENS["thb"], "THB 1")

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        async def step(*keys: str, what: str) -> None:
            before = app.shown_position
            await pilot.press(*keys)
            await until(pilot, lambda: app.shown_position > before, what)
            if app.view.banked.stage != pb.BANKED_STAGE_COMPLETE and not app.hand.boxes:
                assert not hidden_codes(app.screen_text(), THB_DOWN), app.screen_text()
            assert not hidden_codes(app.screen_text(), "7c 2d"), app.screen_text()  # box 2 folds: never opened
            # once settled, the boxes still in and the croupier's cards are opened (R-THB-7; the showdown panel)

        await step("n", what="the hand started")
        assert "Bets open" in app.screen_text()
        await step("e", "enter", what="box 1's ante")
        await step("e", "enter", what="box 2's ante")
        await step("o", "enter", what="box 1's bonus")
        boxes = {box.seat: (box.bets.ante, box.bets.bonus) for box in app.view.banked.boxes}
        assert boxes == {1: (5, 1), 2: (5, 0)}, boxes  # the smallest ante and bonus (R-THB-2)
        await step("v", what="no more bets")
        cards = THB_CARDS.split()

        async def deal(chosen: list[str]) -> None:
            for card in chosen:
                if app.view.banked.next_card.face_up:
                    await step(*card.lower(), "enter", what=f"{card} dealt")
                    continue
                assert not app.query_one("#card").display  # face down: never keyed here (D-SEE-1)
                await shown_after(app, asyncio.to_thread(grpc_support.deal, pit, "THB 1", card))

        await deal(cards[:6])
        assert app.view.banked.to_decide == 1 and "box 1 to act:  [f] fold   [p] play (flop 10)" in app.screen_text()
        await step("p", what="box 1 plays")
        await step("f", what="box 2 folds")
        await deal(cards[6:10])
        assert "box 1 to act:  [c] check   [b] bet 5" in app.screen_text(), app.screen_text()
        await step("c", what="box 1 checks the turn")
        await deal(cards[10:12])
        await step("b", what="box 1 bets the river")
        await deal(cards[12:])
        await until(pilot, lambda: app.hand.bank_result is not None, "the boxes settled")
        final = app.screen_text()
        assert app.view.banked.stage == pb.BANKED_STAGE_COMPLETE or not app.view.hand_in_progress
        assert "Result of hand 1" in final and "box 1:" in final and "box 2:" in final, final
        assert 1 in app.hand.boxes and app.hand.boxes[1].bonus_class, app.hand.boxes

    run(app, body)


def deal_to_flop(port: int, pit: Client) -> None:
    """The pit's client (another station) starts a hand at Mesa 1 and deals the hole cards and the flop; seat 4
    calls, seat 1 calls, seat 2 calls and seat 3 checks: seat 2 acts first on the flop."""
    grpc_support.start(pit, "Mesa 1", pb.DECK_COLOUR_RED)
    grpc_support.deal(pit, "Mesa 1", HOLDEM)
    for number in (4, 1, 2):
        grpc_support.act(pit, "Mesa 1", call=cmd.Call(seat=number))
    grpc_support.act(pit, "Mesa 1", check=cmd.Check(seat=3))
    grpc_support.deal(pit, "Mesa 1", " ".join(BOARD.split()[:4]))


@SQLITE
def test_croupier_screen_follows_others_and_never_shows_down_cards(port: int) -> None:
    """Issue 15 item 5: the hole cards dealt by another station (the pit's, as a shoe would) reach the croupier's
    screen live from the Watch stream, face down (▒▒), never as card codes, although the service lets the table's
    own croupier read them; the pit's station (``sees_down_cards``) shows them."""
    pit, _ = open_holdem(port)

    async def croupier(pilot: Pilot[None], app: StationApp) -> None:
        await asyncio.get_running_loop().run_in_executor(None, deal_to_flop, port, pit)
        await until(pilot, lambda: list(app.view.circle.board) == BOARD.split()[1:4] and app.legal.seat == 2,
                    "the flop on the screen")
        text = app.screen_text()
        assert not hidden_codes(text, HOLDEM), text
        assert text.count(FACE_DOWN) == 8 and "7h 8s Td" in text and "seat 2 to act:" in text, text
        assert "red deck" in text, text

    run(station(port, TOKENS["dealer"], "Mesa 1"), croupier)

    async def pit_boss(pilot: Pilot[None], app: StationApp) -> None:
        text = app.screen_text()
        assert set(hidden_codes(text, HOLDEM)) == set(HOLDEM.split()), text

    run(StationApp(f"127.0.0.1:{port}", TOKENS["pit"], "Mesa 1", lang="en", sees_down_cards=True), pit_boss)


def play_to_showdown(port: int, pit: Client) -> None:
    """Mesa 1's hand to its end by the pit's client: to the flop, then everyone checks, and shows at the showdown."""
    deal_to_flop(port, pit)
    board = BOARD.split()[4:]
    while True:
        legal = pit.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1"))
        if legal.HasField("seat"):
            show = pb.ACTION_KIND_SHOW in legal.allowed
            grpc_support.act(pit, "Mesa 1", **({"show": cmd.Show(seat=legal.seat)} if show
                                               else {"check": cmd.Check(seat=legal.seat)}))
        elif board:
            grpc_support.deal(pit, "Mesa 1", board.pop(0))
        else:
            return


SCREENS: dict[str, tuple[str, str, Callable[[int, Client], None], Callable[[StationApp], bool]]] = {
    "table": ("Mesa 1", "dealer", deal_to_flop, lambda app: app.legal.seat == 2 and bool(app.hand.deck_colour)),
    "showdown": ("Mesa 1", "dealer", play_to_showdown, lambda app: app.hand.finished and not app.view.hand_in_progress),
    "thb_decision": ("THB 1", "thb", thb_decision, lambda app: app.view.banked.to_decide == 1),
}
"""The main screens: the table on the flop, the showdown's result, a Texas Hold'em Bonus box's decision."""


@SQLITE
@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_screen_snapshot(port: int, screen: str, lang: str) -> None:
    """The main screens in English and in Spanish as the croupier sees them (the screen's text compared with
    tests/snapshots/station_tui/<screen>_<lang>.txt; the SVG the app exports is written beside it on update)."""
    table, token, prepare, ready = SCREENS[screen]
    pit, _ = open_holdem(port)
    prepare(port, pit)

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        await until(pilot, lambda: ready(app) and app.settled, f"the {screen} screen")
        golden = SNAPSHOTS / f"{screen}_{lang}.txt"
        if os.environ.get("UPDATE_SNAPSHOTS") or not golden.exists():
            await pilot.pause(0.5)  # the last repaint
            SNAPSHOTS.mkdir(parents=True, exist_ok=True)
            golden.write_text(app.screen_text() + "\n", encoding="utf-8")
            (SNAPSHOTS / f"{screen}_{lang}.svg").write_text(app.export_screenshot(title=f"{table} ({lang})"),
                                                            encoding="utf-8")
        expected = golden.read_text(encoding="utf-8")
        with contextlib.suppress(AssertionError):  # until the last repaint (then the assertion shows the screen)
            await until(pilot, lambda: app.screen_text() + "\n" == expected, "the snapshot", timeout=3)
        text = app.screen_text()
        assert text + "\n" == expected, text

    run(station(port, TOKENS[token], table, lang=lang), body)


@SQLITE
def test_pending_bonus_approval_then_the_directors_decision(port: int) -> None:
    """R-THB-10: box 1's aces against the croupier's aces win the 1000:1 bonus; the croupier's station shows the
    payment PENDING the games director's approval and, once the director approves it from his own station, the
    settlement (the station follows every event, whoever caused it)."""
    pit = Client(port, TOKENS["pit"])
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS, ante_min=5)
    director = Client(port, TOKENS["director"])
    # box 1, dealer left, box 1, dealer right; the board
    cards = ["As", "Ad", "Ah", "Ac", "2c", "3d", "7h", "9s", "4c", "Jd", "5h", "Kc"]

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        async def step(*keys: str, what: str) -> None:
            before = app.shown_position
            await pilot.press(*keys)
            await until(pilot, lambda: app.shown_position > before and app.settled, what)

        await step("n", what="the hand started")
        await step("e", "enter", what="box 1's ante")
        await step("o", "enter", what="box 1's bonus")
        await step("v", what="no more bets")
        while app.view.banked.stage not in (pb.BANKED_STAGE_APPROVAL, pb.BANKED_STAGE_COMPLETE):
            if app.card_due():
                card = cards.pop(0)
                if app.view.banked.next_card.face_up:
                    await step(*card.lower(), "enter", what=f"{card} dealt")
                else:  # a box's, the croupier's or a burn: keyed at the pit's station (D-SEE-1)
                    await shown_after(app, asyncio.to_thread(grpc_support.deal, pit, "THB 1", card))
            else:
                keys = ("p",) if app.view.banked.stage == pb.BANKED_STAGE_PREFLOP else ("c",)
                await step(*keys, what="box 1 decides")
        text = app.screen_text()
        assert app.view.banked.stage == pb.BANKED_STAGE_APPROVAL, text
        assert "PENDING: the games director approves the 1000:1 payment (box 1)" in text, text
        assert not any(key in text for key in ("[p]", "[c]", "[f]")), text  # nothing for the croupier to key
        assert "box 1: the bonus of 1000 waits for the games director's approval: not paid yet (R-THB-10)" in text
        assert "pay 1000" not in text, text  # R-THB-10: no payment before the approval
        await asyncio.get_running_loop().run_in_executor(
            None, lambda: grpc_support.act(director, "THB 1", approve_bonus=cmd.ApproveBonus(seat=1, reason="ok")))
        await until(pilot, lambda: app.hand.bank_result is not None and app.settled,
                    "the director's approval on the screen")
        text = app.screen_text()
        assert "PENDING" not in text and "bonus +1000" in text, text
        assert "bonus: aces against the croupier's aces (1000 to 1" in text, text  # named, not its code

    run(station(port, TOKENS["thb"], "THB 1"), body)


@SQLITE
def test_help_palette_and_what_is_refused_before_sending(port: int) -> None:
    """? shows the help (Spanish by default), the command palette offers the actions allowed now; a raise outside
    the legal range stays in its dialog with the reason, and a typed string that is not a card is never sent (the
    hole cards, face down, are keyed at the pit's station: D-SEE-1)."""
    pit, _ = open_holdem(port)

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        await pilot.press("question_mark")
        await until(pilot, lambda: "Ayuda del puesto de croupier" in app.screen_text(), "the help")
        await pilot.press("escape")
        await until(pilot, lambda: "Ayuda" not in app.screen_text(), "the help closed")
        before = app.shown_position
        await pilot.press("n")
        await until(pilot, lambda: app.shown_position > before and app.card_due(), "the hand started")
        position = app.view.position
        assert not app.query_one("#card").display  # a hole card is due: face down, never keyed here (D-SEE-1)
        await pilot.press("z", "z", "enter")
        await pilot.pause(0.1)
        assert app.view.position == position and app.card_due()
        for card in HOLDEM.split():
            await shown_after(app, asyncio.to_thread(grpc_support.deal, pit, "Mesa 1", card))
        await until(pilot, lambda: app.legal.seat == 4 and app.settled, "seat 4 to act")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: "no ir" in app.screen_text() and "pasar/igualar" in app.screen_text(),
                    "the palette's actions")
        await pilot.press("escape")
        await pilot.press("b", "9", "9", "9", "enter")  # prefilled 4: 4999 is more than the stack
        await until(pilot, lambda: "el importe va de 4 a 100" in app.screen_text(), "the refused amount")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.screen_stack[0], "the dialog closed")
        assert app.legal.seat == 4 and app.view.position >= position
        for _ in range(3):  # seat 4, then 1 and 2 call; the big blind checks
            await shown_after(app, pilot.press("c"))
        await shown_after(app, pilot.press("c"))
        await shown_after(app, asyncio.to_thread(grpc_support.deal, pit, "Mesa 1", "5c"))  # the burn, face down
        await until(pilot, lambda: bool(app.query_one("#card").display), "the flop's first card, face up, typed")
        position = app.view.position
        await pilot.press("z", "z", "enter")
        await until(pilot, lambda: "«zz» no es una carta" in app.screen_text(), "the refused card")
        assert app.view.position == position and app.card_due()
        await shown_after(app, pilot.press("7", "c", "enter"))  # Spanish: c is corazones, hearts
        assert app.view.circle.board == ["7h"] and "Comunes: 7c" in app.screen_text()

    run(station(port, TOKENS["dealer"], "Mesa 1", lang="es"), body)
