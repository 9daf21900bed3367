"""A croupier at the station's keys, for the demo and the benchmark: Textual's pilot presses the keys a croupier would
press for a whole hand, and each key waits until the screen shows what it did.

The policy is the plainest table: nobody raises (``c`` checks or calls), ``s`` shows at the showdown, ``i`` brings in;
at five-card draw the first player holding the openers in force opens (``b``: the script knows the cards it drew, the
croupier's screen never shows them) and each player gives back his first card not paired (none: he stands pat), at
Pineapple each player gives back his first card, and at Casino Draw Poker each box exchanges its
first card (``1``: the shoe reads the card passed over it); at a banked table ``e`` Enter puts an ante on the next free
box, ``v`` closes the bets, ``p`` plays (THB flop bet, CDP play bet), ``c`` checks the turn and the river.  Cards come
from ``next_card``: drawn from the ``shoe`` (no key: the station deals each read and shows it from the Watch stream),
or, without one, typed where they are face up (three keys: rank, suit, Enter) and keyed at the ``pit``'s station where
they are face down (D-SEE-1: never at the croupier's); without a shoe the croupier's players stand pat (``0``) and the
pit keys Pineapple's discards.
"""

from __future__ import annotations

import asyncio
import time
import unicodedata
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

from devices.simulators import ShoeSimulator
from domain.cards.cards import Card
from domain.cards.ranking import hand_ranking
from domain.circle.betting import holds_openers
from service.api import types_pb2 as pb
from service.station.client import Station
from service.station.tui import dealing

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from service.station.tui.app import StationApp

KeysPressed = Callable[[str, int], None]
"""Told of each group of keys: its kind (``start``, ``bets``, ``decision``, ``card``) and how many keys."""


class Shoe(Protocol):
    """The table's card-reading shoe, as the croupier uses it."""

    async def draw(self, card: str) -> None:
        """The croupier draws ``card``: the shoe reads it, the station deals it (returns once it is shown)."""

    async def read(self, card: str) -> None:
        """The croupier passes a card given back face down over the shoe's reader (D-SEE-1)."""


class Pit(Protocol):
    """The pit's station, which keys the face-down cards of a table without a shoe (D-SEE-1)."""

    async def deal(self, card: str) -> None:
        """A face-down card keyed at the pit's station."""

    async def discard(self, seat: int, cards: list[str], *, exchange: bool) -> None:
        """A seat's discards (a box's exchange) keyed at the pit's station."""


class SimulatedShoe:
    """The simulated shoe (:class:`devices.simulators.ShoeSimulator`) cabled to the station, as the croupier
    draws from it: each card's frame goes over its pty to the station's real adapter."""

    def __init__(self, shoe: ShoeSimulator, app: StationApp) -> None:
        self.shoe, self.app = shoe, app

    def _send(self, card: str) -> None:
        hardware = self.app.devices.hardware if self.app.devices is not None else None
        if hardware is None:
            raise RuntimeError("the station's devices are not attached")
        self.shoe.colour = hardware.shoe.colour  # the deck the shuffler delivered is the one in the shoe
        self.shoe.link.send(self.shoe.card_message(Card.parse(card)))

    async def draw(self, card: str) -> None:
        hardware = self.app.devices.hardware if self.app.devices is not None else None
        assert hardware is not None
        before, position = len(hardware.dealt), self.app.position
        faults = len(hardware.irregularities) + len(hardware.refused)

        def fault() -> bool:
            return len(hardware.irregularities) + len(hardware.refused) > faults

        await asyncio.to_thread(self._send, card)
        await until(lambda: len(hardware.dealt) > before or fault())
        if fault():
            raise AssertionError(f"the read of {card} was not dealt: {hardware.irregularities} {hardware.refused}")
        await until(lambda: self.app.position > position and self.app.settled
                    and self.app.shown_position >= self.app.position)

    async def read(self, card: str) -> None:
        await asyncio.to_thread(self._send, card)


class PitKeys:
    """The pit's station keying the face-down cards of a table without a shoe (D-SEE-1), over its own
    connection (a pit boss's token)."""

    def __init__(self, address: str, token: str, table: str, session: str = "") -> None:
        self.station, self.table = Station(address, token, session=session), table

    async def deal(self, card: str) -> None:
        await asyncio.to_thread(self.station.act, self.table, "deal", card=card)

    async def discard(self, seat: int, cards: list[str], *, exchange: bool) -> None:
        await asyncio.to_thread(self.station.act, self.table, "exchange" if exchange else "discard", seat=seat,
                                cards=cards)

    def close(self) -> None:
        self.station.close()


async def until(ready: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until ``ready()`` (the station's screen shows something), at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError("the station did not show the change in time")
        await asyncio.sleep(0.001)


async def send_keys(app: StationApp, keys: Iterable[str]) -> None:
    """Send keys to the station as its terminal does (the names Textual's pilot takes: ``a``, ``enter``,
    ``space``, ``ctrl+u``), without the pilot's wait for the whole process to go quiet after each key (with a
    server, devices and a second station in the process, that wait took a tenth of a second a key): the caller
    waits for what the keys did."""
    driver = app._driver  # the app's own terminal: the pilot posts there too
    if driver is None:
        raise RuntimeError("the station is not running")
    for key in keys:
        name = _character_to_key(key) if len(key) == 1 and not key.isalnum() else key
        try:
            char: str | None = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(name, name)))
        except KeyError:
            char = name if len(name) == 1 else None
        event = events.Key(name, char)
        event.set_sender(app)
        driver.send_message(event)
        await asyncio.sleep(0)


async def press(pilot: Pilot[None], app: StationApp, keys: tuple[str, ...]) -> None:
    """Press keys and wait until the screen shows what they did."""
    before = app.shown_position
    await send_keys(app, keys)
    await until(lambda: app.shown_position > before and app.settled)


def given_back(app: StationApp, cards: list[str]) -> list[str]:
    """The cards the seat to act gives back: at five-card draw its first card not paired (so an opener keeps his
    openers), elsewhere its first card (Pineapple, a Casino Draw Poker box)."""
    if app.view.game != pb.GAME_DRAW:
        return cards[:1]
    ranks = [card[:-1] for card in cards]
    return [card for card in cards if ranks.count(card[:-1]) == 1][:1]


def opens(app: StationApp, cards: list[str]) -> bool:
    """Five-card draw: these five cards hold the openers in force, a pair of ``openers`` or better (R-DRAW-2,
    R-DRAW-3)."""
    if app.view.game != pb.GAME_DRAW or not app.hand.openers or len(cards) != 5:
        return False
    value = hand_ranking(app.hand.deck_size or 52).evaluate([Card.parse(card) for card in cards])
    return holds_openers(value, app.hand.openers)


def decision(app: StationApp, held: dict[int, list[str]] | None = None) -> tuple[str, ...]:
    """The keys of a decision due now (a discard aside: :func:`play_hand` reads it from the shoe); ``held``: the
    cards the script dealt each seat, for five-card draw's opening."""
    allowed = set(app.legal.allowed)
    if pb.ACTION_KIND_BET in allowed and held is not None and opens(app, held.get(app.legal.seat, [])):
        return ("b",)
    if app.banked:
        stage = app.view.banked.stage
        return ("c",) if stage in (pb.BANKED_STAGE_TURN, pb.BANKED_STAGE_RIVER) else ("p",)
    if pb.ACTION_KIND_SHOW in allowed:
        return ("s",)
    if pb.ACTION_KIND_BRING_IN in allowed and pb.ACTION_KIND_CALL not in allowed:
        return ("i",)
    return ("c",)


def _card_target(app: StationApp) -> int | None:
    """The seat (circle) or box (banked) the due card goes to (None: the board, a burn, the house or the bank)."""
    detail = app.view.banked if app.banked else app.view.circle
    target = detail.next_card
    own = target.target in (pb.CARD_TARGET_HOLE, pb.CARD_TARGET_BOX)
    return target.seat if own and target.HasField("seat") else None


async def shown_after(app: StationApp, work: Awaitable[object]) -> None:
    """Do ``work`` (another station's, the shoe's) and wait until the screen shows what it did."""
    before = app.shown_position
    await work
    await until(lambda: app.shown_position > before and app.settled)


async def _give_back(pilot: Pilot[None], app: StationApp, *, held: dict[int, list[str]], shoe: Shoe | None,
                     pit: Pit | None, counted: KeysPressed) -> None:
    """The seat to act discards (the box exchanges) its first card: one digit, the shoe reads it; without a shoe
    the croupier keys only standing pat (``0``), the pit the discards Pineapple requires."""
    seat = app.legal.seat
    cards = given_back(app, held.get(seat, []))
    if shoe is None and app.view.game != pb.GAME_PINEAPPLE:
        cards = []
    if cards and shoe is None:
        if pit is None:
            raise RuntimeError("a discard without a shoe is keyed at the pit's station: no pit given")
        await shown_after(app, pit.discard(seat, cards, exchange=app.banked))
        return
    before = app.shown_position
    await send_keys(app, (str(len(cards)),))
    counted("decision", 1)
    if cards:
        await until(lambda: dealing.reading(app) is not None)  # the shoe now reads the cards given back
    for card in cards:
        held[seat].remove(card)
        assert shoe is not None
        await shoe.read(card)
    await until(lambda: app.shown_position > before and app.settled)


async def _deal(pilot: Pilot[None], app: StationApp, card: str, *, shoe: Shoe | None, pit: Pit | None,
                counted: KeysPressed) -> None:
    """The card due: drawn from the shoe; without one typed where face up, keyed at the pit's where face down."""
    face_up = (app.view.banked if app.banked else app.view.circle).next_card.face_up
    if shoe is not None:
        await shoe.draw(card)
    elif face_up or app.sees_down_cards:
        await press(pilot, app, (*card.lower(), "enter"))
        counted("card", 3)
    elif pit is not None:
        await shown_after(app, pit.deal(card))
    else:
        raise RuntimeError("a face-down card without a shoe is keyed at the pit's station: no pit given")


async def play_hand(pilot: Pilot[None], app: StationApp, next_card: Callable[[], str], *, boxes: int = 0,
                    shoe: Shoe | None = None, pit: Pit | None = None,
                    keys_pressed: KeysPressed | None = None,
                    after_step: Callable[[], Awaitable[None]] | None = None) -> None:
    """One hand from ``n`` to the last payment; ``boxes``: the boxes that take an ante at a banked table.  Cards
    come from the ``shoe``; without one the croupier types the face-up cards and the ``pit`` keys the face-down
    ones (D-SEE-1).  ``after_step``: awaited once the screen shows each step (a test reads the screen there)."""
    counted = keys_pressed or (lambda kind, n: None)
    held: dict[int, list[str]] = {}
    await press(pilot, app, ("n",))
    counted("start", 1)
    await until(lambda: app.hand.deck_size > 0 and app.settled)
    while app.view.hand_in_progress:
        if app.card_due():
            card, seat = next_card(), _card_target(app)
            if seat is not None:
                held.setdefault(seat, []).append(card)
            await _deal(pilot, app, card, shoe=shoe, pit=pit, counted=counted)
        elif app.banked and app.view.banked.stage == pb.BANKED_STAGE_BETTING:
            for _ in range(boxes):
                await press(pilot, app, ("e", "enter"))
            await press(pilot, app, ("v",))
            counted("bets", 2 * boxes + 1)
        elif app.legal.HasField("seat") and {pb.ACTION_KIND_DISCARD, pb.ACTION_KIND_EXCHANGE} & set(app.legal.allowed):
            await _give_back(pilot, app, held=held, shoe=shoe, pit=pit, counted=counted)
        elif app.legal.HasField("seat"):
            keys = decision(app, held)
            await press(pilot, app, keys)
            counted("decision", len(keys))
        else:
            raise RuntimeError(f"nothing to do at the table: {app.screen_text()}")
        if after_step is not None:
            await after_step()
