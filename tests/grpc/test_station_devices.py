"""Issue 15, item 4: the full-screen station with the simulated shoe and shuffler on real pseudo-terminals
(``pokertable station --shoe URL --shuffler URL``), driven headless by Textual's pilot against a real server on a free
port (SQLite, the sole writer, in this process's own event loop thread).

A whole hand of every game is dealt from the shoe through the app's keys (no key for a card): the shuffler delivers
the deck in play and shuffles and checks the other (R-DECK-2, R-DECK-3), every card is a checked shoe read dealt with
its read sequence.  A shuffler that jams is an alert on the screen that holds the next hand until the croupier
acknowledges it (``k``); a port that does not exist yet, or a shoe that goes away mid-hand, is a state on the screen
and the croupier types the cards; the device-fault screen's snapshots in English and Spanish."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import tomllib
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from benchmarks.station import GAMES, Game, config, open_tables, stock_of
from devices.protocol import DeckCheck, Deliver, Shuffle
from devices.simulators import ShoeSimulator, ShufflerSimulator
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.bootstrap import open_store
from service.grpc.server import Stations
from service.station.hardware import HardwareStation
from service.station.tui import DevicePorts, StationApp, autopilot
from service.station.tui.autopilot import until
from tests.support.grpc_support import Client, open_circle, seat, serving

SNAPSHOTS = Path(__file__).parent.parent / "snapshots" / "station_tui"
SIZE = (120, 44)
STATIONS = tomllib.loads(config())["stations"]
FAULTS = ("jam", "absent", "gone", "snapshot-en", "snapshot-es")
"""The Hold'em tables of the fault tests (one each: ``Mesa <fault>``), each with its croupier's token."""


def fault_token(fault: str) -> str:
    return f"{fault}-croupier-token-0123456789"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, PokerTables]]:
    """A server with a table of each game (benchmarks.station's) and the fault tests' Hold'em tables, each with
    its croupier's token, four players seated at each circle table."""
    stations = dict(STATIONS)
    for fault in FAULTS:
        stations[fault] = {"token": fault_token(fault), "role": "dealer", "table": f"Mesa {fault}"}
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('devices') / 'tables.db'}", writer=True)
    try:
        with serving(store.app, Stations.from_mapping(stations)) as port:
            open_tables(port)
            pit = Client(port, STATIONS["pit"]["token"])
            for fault in FAULTS:
                open_circle(pit, f"Mesa {fault}", pb.GAME_HOLDEM, blinds=[1, 2])
                for number in (1, 2, 3, 4):
                    seat(pit, f"Mesa {fault}", number, 100)
            yield f"127.0.0.1:{port}", store.app
    finally:
        store.close()


@pytest.fixture
def server(served: tuple[str, PokerTables]) -> str:
    """The server's address."""
    return served[0]


@pytest.fixture
def tables(served: tuple[str, PokerTables]) -> PokerTables:
    """The server's application (what it recorded)."""
    return served[1]


@contextlib.contextmanager
def simulators() -> Iterator[tuple[ShoeSimulator, ShufflerSimulator]]:
    """The simulated shoe and shuffler, each on a pseudo-terminal (the real serial path)."""
    shoe, shuffler = ShoeSimulator(seed=3), ShufflerSimulator(seed=4)
    try:
        yield shoe, shuffler
    finally:
        shoe.close()
        shuffler.close()


def at_station(app: StationApp, body: Callable[[Pilot[None], StationApp], Awaitable[None]]) -> None:
    """Run the station headless, its devices attached, and the test's body."""

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(lambda: bool(app.view.table) and app.devices is not None
                        and app.devices.hardware is not None and app.settled)
            await body(pilot, app)

    asyncio.run(main())


def hardware(app: StationApp) -> HardwareStation:
    assert app.devices is not None and app.devices.hardware is not None
    return app.devices.hardware


async def identified(shoe: ShoeSimulator, shuffler: ShufflerSimulator, app: StationApp) -> None:
    """The devices say who they are as the station opens their ports: their HELLO, unasked (issue 33)."""
    del shoe, shuffler  # they greet the station on their own
    devices = hardware(app)
    await until(lambda: devices.shoe.identity is not None and devices.shuffler is not None
                and devices.shuffler.identity is not None)


async def shows(app: StationApp, *texts: str) -> None:
    """Wait until the croupier's screen shows every one of ``texts`` (at most 5 s; then the screen is the error)."""
    try:
        await until(lambda: all(text in app.screen_text() for text in texts), timeout=5)
    except TimeoutError:
        raise AssertionError(app.screen_text()) from None


def drawn_by(shoe: ShoeSimulator, app: StationApp) -> autopilot.SimulatedShoe:
    """The croupier draws cards from the shoe (the simulated shoe reports each over its pty, the station deals it)
    and passes the cards given back over its reader."""
    return autopilot.SimulatedShoe(shoe, app)


@pytest.mark.parametrize("game", GAMES, ids=[game.code for game in GAMES])
def test_a_whole_hand_of_every_game_dealt_from_the_shoe_through_the_keys(server: str, game: Game) -> None:
    """n starts the hand (the shuffler delivers the red deck, then shuffles and checks the blue one, of the hand's
    size: R-DECK-2, R-DECK-3, R-CARD-2), every card comes from the shoe with no key, every decision is the croupier's
    keys; the hand is paid, every read dealt in sequence, nothing refused, and the croupier typed no card."""
    with simulators() as (shoe, shuffler):
        app = StationApp(server, game.token(), game.table, lang="en", devices=DevicePorts(shoe.url, shuffler.url))

        async def body(pilot: Pilot[None], app: StationApp) -> None:
            await identified(shoe, shuffler, app)
            keys: dict[str, int] = {}
            await autopilot.play_hand(pilot, app, stock_of(app, random.Random(game.code)), boxes=game.boxes,
                                      shoe=drawn_by(shoe, app),
                                      keys_pressed=lambda kind, n: keys.__setitem__(kind, keys.get(kind, 0) + n))
            devices = hardware(app)
            # the hand's last events reach the log from the Watch stream, maybe after the view said it ended; a
            # blank five-card draw hand is passed out, not finished (R-DRAW-3)
            await until(lambda: not app.view.hand_in_progress and (app.hand.finished or app.hand.passed is not None))
            assert "card" not in keys and keys["start"] == 1  # no card typed: the shoe dealt them all
            reads = [seq for _, seq in devices.dealt]  # in sequence; the reads of the cards given back between
            assert reads == sorted(set(reads)) and reads[0] == 1 and len(reads) >= 5
            assert devices.refused == [] and devices.irregularities == []
            await until(lambda: len(shuffler.received) >= 5 and app.settled)
            shuffle = shuffler.received[3]
            # the hand's deck shuffled and checked before it is delivered (issue 33), then the next hand's
            assert [type(message) for message in shuffler.received] == [Shuffle, DeckCheck, Deliver, Shuffle,
                                                                         DeckCheck]
            assert isinstance(shuffle, Shuffle) and shuffle.deck_size == app.hand.deck_size  # the next hand's deck
            await shows(app, "PT-SIM-SHOE SHOE-0001", "PT-SIM-SHUFFLER SHUF-0001", "in the shoe: the red deck",
                        f"Reads: {len(reads)} dealt, 0 irregular, 0 refused",
                        f"blue: {shuffle.deck_size} counted, complete")

        at_station(app, body)


async def jam_at_the_next_deck(pilot: Pilot[None], app: StationApp, shoe: ShoeSimulator,
                               shuffler: ShufflerSimulator) -> None:
    """The shuffler jams shuffling the next hand's deck: the hand in play starts, the jam is an alert."""
    await identified(shoe, shuffler, app)
    shuffler.jam_at = shuffler.shuffles + 2  # the hand's deck is shuffled first (issue 33), then the next one jams
    await autopilot.press(pilot, app, ("n",))
    devices = app.devices
    assert devices is not None
    await until(lambda: bool(devices.waiting) and app.settled)
    app.devices_changed()


def test_a_shuffler_jam_is_an_alert_that_holds_the_next_hand_until_acknowledged(server: str,
                                                                               tables: PokerTables) -> None:
    """R-DECK-3: the jam is shown as an alert and recorded at the table; n does nothing until k acknowledges it."""
    with simulators() as (shoe, shuffler):
        app = StationApp(server, fault_token("jam"), "Mesa jam", lang="en",
                         devices=DevicePorts(shoe.url, shuffler.url))

        async def body(pilot: Pilot[None], app: StationApp) -> None:
            await jam_at_the_next_deck(pilot, app, shoe, shuffler)
            await shows(app, "DEVICE ALERTS: 1 not acknowledged",
                        "shuffler fault: jam; the blue deck is not ready (R-DECK-3)")
            draw = drawn_by(shoe, app)
            next_card = stock_of(app, random.Random(7))
            while app.view.hand_in_progress:  # everyone folds to the big blind: the hand ends, the alert holds
                if app.card_due():
                    await draw.draw(next_card())
                else:
                    await autopilot.press(pilot, app, ("f",))
            assert not app.check_action("new_hand", ())
            await pilot.press("n")
            await pilot.pause(0.2)
            assert not app.view.hand_in_progress  # n did nothing: the alert waits
            await pilot.press("k")
            await until(lambda: app.devices is not None and not app.devices.waiting and app.settled)
            await until(lambda: "DEVICE ALERTS" not in app.screen_text(), timeout=5)
            # the croupier saw it; the table stays held until the pit boss acknowledges it (R-HOLD-1): no [n]
            (hold,) = app.view.holds
            assert hold.rule == "R-HOLD-1" and not app.check_action("new_hand", ())
            await shows(app, "table held: no hand until the pit boss acknowledges the alert (R-HOLD-1)")
            pit = Client(0, STATIONS["pit"]["token"], target=server)
            await asyncio.to_thread(pit.AcknowledgeAlert, svc.AcknowledgeAlertRequest(
                command_id=pit.next_id(), table="Mesa jam", position=hold.position, reason="jam cleared"))
            await until(lambda: not app.view.holds and app.settled)
            assert app.check_action("new_hand", ())

        at_station(app, body)
    # the red deck shuffled and checked, then delivered (issue 33: never delivered unshuffled), the blue deck's jam
    assert tables.table("Mesa jam").device_reports == 4


@pytest.mark.parametrize("lang", ["en", "es"])
def test_device_fault_screen_snapshot(server: str, lang: str) -> None:
    """The device-fault screen as the croupier sees it, in English and Spanish (compared with
    tests/snapshots/station_tui/device_fault_<lang>.txt; the SVG beside it written on update, UPDATE_SNAPSHOTS=1)."""
    with simulators() as (shoe, shuffler):
        app = StationApp(server, fault_token(f"snapshot-{lang}"), f"Mesa snapshot-{lang}", lang=lang,
                         devices=DevicePorts(shoe.url, shuffler.url))

        async def body(pilot: Pilot[None], app: StationApp) -> None:
            await jam_at_the_next_deck(pilot, app, shoe, shuffler)
            golden = SNAPSHOTS / f"device_fault_{lang}.txt"
            if os.environ.get("UPDATE_SNAPSHOTS") or not golden.exists():
                await pilot.pause(0.5)
                golden.write_text(app.screen_text() + "\n", encoding="utf-8")
                (SNAPSHOTS / f"device_fault_{lang}.svg").write_text(
                    app.export_screenshot(title=f"Mesa ({lang})"), encoding="utf-8")
            expected = golden.read_text(encoding="utf-8")
            with contextlib.suppress(TimeoutError):
                await until(lambda: app.screen_text() + "\n" == expected, timeout=3)
            assert app.screen_text() + "\n" == expected, app.screen_text()

        at_station(app, body)


def test_ports_that_do_not_exist_are_a_state_on_the_screen_and_cards_are_typed(server: str) -> None:
    """A shoe and a shuffler not plugged in yet: the station starts, says so (an alert each); the hand is dealt
    from the deck the croupier puts in the shoe himself, its face-down cards keyed at the pit's station (D-SEE-1),
    never at his."""
    app = StationApp(server, fault_token("absent"), "Mesa absent", lang="en",
                     devices=DevicePorts("/dev/pokertable-no-shoe", "/dev/pokertable-no-shuffler", 9600))

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        devices = app.devices
        assert devices is not None
        await until(lambda: len(devices.waiting) == 2)
        await shows(app, "NOT CONNECTED (/dev/pokertable-no-shoe): waiting for it",
                    "NOT CONNECTED (/dev/pokertable-no-shuffler)", "DEVICE ALERTS: 2 not acknowledged")
        await pilot.press("k")
        await autopilot.press(pilot, app, ("n",))  # the shuffler cannot deliver: an alert, the hand starts
        assert app.view.hand_in_progress
        await until(app.card_due)
        await shows(app, "face down: the shoe deals it, or the pit boss keys it at his station (D-SEE-1)")
        assert not app.query_one("#card").display
        await pilot.press("a", "h", "enter")  # nothing to type into: nothing is dealt from the croupier's keys
        await pilot.pause(0.2)
        assert app.view.circle.next_card.seat == 2  # still the first hole card: nothing was dealt
        pit = autopilot.PitKeys(server, STATIONS["pit"]["token"], "Mesa absent")
        try:
            await autopilot.shown_after(app, pit.deal("Ah"))
        finally:
            pit.close()
        assert app.hand.deck_colour == "red" and app.position > 0

    at_station(app, body)


def test_a_shoe_that_goes_away_mid_hand_is_a_state_and_the_croupier_types_the_cards(server: str) -> None:
    """The shoe's cable is pulled mid-hand (its pty closed): the screen says it is not connected, an alert waits,
    the card field comes back for the croupier to type, and the hand goes on."""
    with simulators() as (shoe, shuffler):
        app = StationApp(server, fault_token("gone"), "Mesa gone", lang="en",
                         devices=DevicePorts(shoe.url, shuffler.url))

        async def body(pilot: Pilot[None], app: StationApp) -> None:
            await identified(shoe, shuffler, app)
            await autopilot.press(pilot, app, ("n",))
            draw = drawn_by(shoe, app)
            await draw.draw("As")
            await draw.draw("Kd")
            shoe.close()
            devices = app.devices
            assert devices is not None
            await until(lambda: not devices.shoe_deals and bool(devices.waiting))
            # a hole card is due: face down, it is never keyed at the croupier's station (D-SEE-1)
            await shows(app, "Shoe       NOT CONNECTED", "shoe connection lost",
                        "face down: the shoe deals it, or the pit boss keys it at his station (D-SEE-1)")
            assert not app.query_one("#card").display
            pit = autopilot.PitKeys(server, STATIONS["pit"]["token"], "Mesa gone")
            try:
                await autopilot.shown_after(app, pit.deal("Qs"))
            finally:
                pit.close()
            assert [seq for _, seq in hardware(app).dealt] == [1, 2] and app.view.hand_in_progress

        at_station(app, body)
