"""Issue 33, acceptance: no screen text, alert or key bar of the croupier's station ever contains the code of a card
that is face down at that moment, in any of the nine games (D-SEE-1, docs/station.md).

A hand of each game is dealt at the croupier's station from the simulated shoe on a pseudo-terminal (the real
adapters), through the keys (``service.station.tui.autopilot``), cards given back read by the shoe.  After every
step the whole screen is read as the croupier sees it (the table, what is due and its keys, the result, the
messages, the device alerts, the key bar) and compared with the cards that are face down at that moment: every card
dealt face down (hole cards, burns, a box's and the house's cards, the cards given back) that an observer of the
table — who is never shown a face-down card — does not see at the same log position.  Mid-hand the shoe reads a
face-down card a second time: the service refuses the read and the alert says so, without the card."""

from __future__ import annotations

import asyncio
import contextlib
import random
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from textual.pilot import Pilot

from benchmarks.station import GAMES, Game, config, open_tables, stock_of
from devices.simulators import ShoeSimulator, ShufflerSimulator
from domain.cards.cards import Card
from service.api import table_service_pb2 as svc
from service.app.application import PokerTables
from service.bootstrap import open_store
from service.grpc.server import Stations
from service.station.tui import DevicePorts, StationApp, autopilot
from service.station.tui.autopilot import until
from service.station.tui.i18n import CARD_CODE
from tests.support.grpc_support import Client, serving

OBSERVER = "face-down-observer-token-0123456789"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, PokerTables]]:
    """A server with a table of each game (benchmarks.station's), each with its croupier's station, and an
    observer's station."""
    stations = dict(tomllib.loads(config())["stations"])
    stations["tv"] = {"token": OBSERVER, "role": "observer"}
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('face-down') / 'tables.db'}", writer=True)
    try:
        with serving(store.app, Stations.from_mapping(stations)) as port:
            open_tables(port)
            yield f"127.0.0.1:{port}", port, store.app
    finally:
        store.close()


@dataclass
class Witness:
    """The cards dealt face down so far, and what an observer sees of the table at a log position."""

    observer: Client
    table: str
    dealt_down: set[str] = field(default_factory=set)

    seen_up: set[str] = field(default_factory=set)
    """Every card an observer has been shown so far (a card shown once is public from then on)."""
    read_up_to: int = 0

    def face_down(self, position: int) -> set[str]:
        """The cards face down at ``position``: dealt face down, and never shown to an observer at any position of
        the table's log up to it (the hand's own, the showdown's included)."""
        for moment in range(self.read_up_to + 1, position + 1):
            reply: svc.GetTableResponse = self.observer.GetTable(svc.GetTableRequest(table=self.table,
                                                                                     position=moment))
            self.seen_up |= set(CARD_CODE.findall(str(reply.view)))
        self.read_up_to = max(self.read_up_to, position)
        return self.dealt_down - self.seen_up


class WatchedShoe(autopilot.SimulatedShoe):
    """The simulated shoe, each card noted face down when the table deals it face down (or it is given back)."""

    def __init__(self, shoe: ShoeSimulator, app: StationApp, witness: Witness) -> None:
        super().__init__(shoe, app)
        self.witness = witness

    async def draw(self, card: str) -> None:
        detail = self.app.view.banked if self.app.banked else self.app.view.circle
        if not detail.next_card.face_up:
            self.witness.dealt_down.add(card)
        await super().draw(card)

    async def read(self, card: str) -> None:
        self.witness.dealt_down.add(card)
        await super().read(card)


def codes_on(app: StationApp) -> set[str]:
    """The card codes on the croupier's whole screen, and in the texts it shows (message, alerts)."""
    texts = [app.screen_text(), app.shown(app.message)]
    if app.devices is not None:
        texts.extend(app.shown(alert) for alert in app.devices.alerts)
    return {code for text in texts for code in CARD_CODE.findall(text)}


async def repeat_a_down_card(app: StationApp, shoe: ShoeSimulator, witness: Witness) -> None:
    """The shoe reads a card dealt face down a second time: the service refuses it (R-DECK-4), an alert says so."""
    hardware = app.devices.hardware if app.devices is not None else None
    assert hardware is not None and witness.dealt_down
    card = sorted(witness.dealt_down)[0]
    refused = len(hardware.refused)
    shoe.colour = hardware.shoe.colour
    await asyncio.to_thread(shoe.link.send, shoe.card_message(Card.parse(card)))
    await until(lambda: len(hardware.refused) > refused and app.devices is not None and bool(app.devices.waiting))
    assert card in hardware.refused[-1] or card in " ".join(app.devices.alerts if app.devices else [])
    await until(lambda: app.settled)


@pytest.mark.parametrize("game", GAMES, ids=[game.code for game in GAMES])
def test_no_face_down_card_on_the_croupiers_screen(served: tuple[str, int, PokerTables], game: Game) -> None:
    address, port, _ = served
    shoe, shuffler = ShoeSimulator(seed=11), ShufflerSimulator(seed=12)
    app = StationApp(address, game.token(), game.table, lang="en", devices=DevicePorts(shoe.url, shuffler.url))
    witness = Witness(Client(port, OBSERVER), game.table)
    steps = 0

    async def checked() -> None:
        nonlocal steps
        await until(lambda: app.settled)
        steps += 1
        if steps == 3:  # a face-down card is in play: read it again, and see the alert
            await repeat_a_down_card(app, shoe, witness)
        leaked = codes_on(app) & witness.face_down(app.position)
        assert not leaked, f"{sorted(leaked)} face down on the croupier's screen:\n{app.screen_text()}"

    async def main() -> None:
        async with app.run_test(size=(120, 44)) as pilot:
            await until(lambda: bool(app.view.table) and app.devices is not None
                        and app.devices.hardware is not None and app.settled, timeout=30)
            await asyncio.to_thread(shoe.hello)
            await asyncio.to_thread(shuffler.hello)
            await body(pilot)

    async def body(pilot: Pilot[None]) -> None:
        witness.read_up_to = app.position  # the table's log up to here: no hand yet
        await autopilot.play_hand(pilot, app, stock_of(app, random.Random(game.code)), boxes=game.boxes,
                                  shoe=WatchedShoe(shoe, app, witness), after_step=checked)
        assert not app.view.hand_in_progress and steps > 5 and witness.dealt_down
        shown = app.screen_text()
        assert "⚠" in shown or "ALERTS" in shown, shown  # the refused read's alert is on the screen, card hidden

    try:
        asyncio.run(main())
    finally:
        with contextlib.suppress(Exception):
            witness.observer.channel.close()
        shoe.close()
        shuffler.close()
