"""A croupier's whole shift at the full-screen station, per game, through the keys alone (issue 33, acceptance).

Two stations of one table run headless under Textual's pilot against a real server: the pit boss's (``--pit``) and
the croupier's, with the simulated shoe and shuffler on pseudo-terminals (the real adapters).  Every step is a key
pressed at one of them, as a person would press it, and each waits until the screen shows the service's answer:

1. the pit boss signs in at his station (``t`` the table menu, his badge and PIN) and opens the table of the game
   with its settings (the game's menu line, Enter on each proposed setting);
2. the first croupier signs in at the croupier's station; he seats the players (circle) and opens the shift's tray
   by denomination (R-ACC-1);
3. ten hands from the shoe (no card typed, no read refused), a rebuy between the third and the fourth (circle), a
   rotation after the fifth (the second croupier signs in at the same station), a fill the croupier asks for and the
   pit boss signs off, a credit the pit boss asks for and the croupier signs off (R-ACC-3), and one more hand the pit
   boss voids at his station mid-deal (R-CIRC-14, R-THB-11);
4. the croupier closes the shift with the tray's count, and the pit boss closes the table.

The keys of each step are counted: per hand (start, bets, decisions, cards) and per operation of the shift.
``benchmarks/station.py --shift`` prints them for every game; tests/e2e/test_station_shift.py runs the script and
then reads ``report dealers`` and ``report shift``.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual.pilot import Pilot
from textual.widgets import Input

from benchmarks.station import Game, stock_of
from devices.simulators import ShoeSimulator, ShufflerSimulator
from service.api import types_pb2 as pb
from service.station.client import word
from service.station.tui import DevicePorts, StationApp, autopilot
from service.station.tui.autopilot import SimulatedShoe, until
from service.station.tui.forms import MENU_KEYS, ConfirmScreen, FormScreen, MenuScreen
from service.station.tui.operations import GAMES as MENU_GAMES

STAFF = {"A1": ("Ana Admin", ("administrator",), "admin-pin-1"),
         "C1": ("Carmen Croupier", ("croupier",), "croupier-1"),
         "C2": ("Carlos Croupier", ("croupier",), "croupier-2"),
         "P1": ("Pilar Pit", ("pit-boss",), "pitboss-1")}
"""The shift's people: employee number → name, roles, PIN."""
HANDS = 10
TRAY = "1000x10 100x50 25x40"
"""The opener: ten chips of 1000, fifty of 100, forty of 25 (R-ACC-2)."""
SIZE = (120, 44)


@dataclass
class ShiftKeys:
    """The keys of one game's shift."""

    game: str
    hands: int = 0
    hand_keys: list[int] = field(default_factory=list)
    """The keys of each hand, start to payment."""
    actions: int = 0
    """The players' (boxes') decisions of the hands, card counts given back included."""
    action_keys: int = 0
    bets: int = 0
    """A banked table's bets placed at the croupier's keys (an ante a box, then no more bets)."""
    bet_keys: int = 0
    card_keys: int = 0
    operations: Counter[str] = field(default_factory=Counter)
    """The keys of each operation of the shift (sign in, open, seat, tray, rebuy, fill, credit, void, close)."""
    refused_reads: int = 0

    def line(self) -> str:
        per_hand = sum(self.hand_keys) / max(1, len(self.hand_keys))
        per_action = self.action_keys / max(1, self.actions)
        bets = f", {self.bet_keys / self.bets:4.2f} a bet" if self.bets else ""
        ops = ", ".join(f"{name} {keys}" for name, keys in self.operations.items())
        return (f"  {self.game:<13} {per_hand:5.1f} keys/hand ({per_action:4.2f} a player action{bets}, cards typed "
                f"{self.card_keys}, reads refused {self.refused_reads}); the shift's operations: {ops}")


async def shown(app: StationApp, what: str, timeout: float = 10.0) -> None:
    """Wait until the station has the answer of the operation (``done: …``, shown on its message line); a refusal
    fails."""
    try:
        await until(lambda: app.answer is not None, timeout=timeout)
    except TimeoutError:
        raise AssertionError(f"{what}: no answer on the screen\n{app.screen_text()}") from None
    if not (app.answer or "").startswith(("done:", "hecho:")):
        raise AssertionError(f"{what}: {app.answer}")
    await until(lambda: app.settled)


async def operation(pilot: Pilot[None], app: StationApp, name: str, values: Iterable[str | None] = (), *,
                    choice: str = "", confirm: bool = False, keys: Counter[str], counted: str) -> None:
    """One operation of the table menu: ``t``, its line's key, its choice's key, each field (``None``: the value
    proposed, Enter; a string: the proposed value cleared, the string typed, Enter), ``y`` to confirm."""
    app.answer = None
    pressed = 0

    async def press(*typed: str) -> None:
        nonlocal pressed
        await autopilot.send_keys(app, typed)
        pressed += len(typed)

    await press("f2" if isinstance(app.focused, Input) else "t")  # t types into a card field: F2 there
    await until(lambda: isinstance(app.screen, MenuScreen))
    menu = app.screen
    assert isinstance(menu, MenuScreen)
    names = [entry for entry, _ in menu.entries]
    if name not in names:
        raise AssertionError(f"{name} is not offered at the station now: {names}\n{app.screen_text()}")
    await press(MENU_KEYS[names.index(name)])
    if choice:
        await until(lambda: isinstance(app.screen, MenuScreen) and app.screen is not menu)
        await press(MENU_KEYS[MENU_GAMES.index(choice)])
    await until(lambda: isinstance(app.screen, FormScreen | ConfirmScreen))  # every operation asks one of them
    form = app.screen if isinstance(app.screen, FormScreen) else None
    given: list[str | None] = list(values)
    if form is not None:  # every field not given keeps the value proposed
        given += [None] * (len(form.fields) - len(given))
    for index, value in enumerate(given):
        assert form is not None
        await fill(app, f"field-{form.fields[index].name}", value, press)
    if form is not None:
        try:
            await until(lambda: app.screen is not form)
        except TimeoutError:
            raise AssertionError(f"{name}: the form stayed open\n{app.screen_text()}") from None
    if confirm:
        await until(lambda: isinstance(app.screen, ConfirmScreen))
        await press("y")
    await shown(app, name)
    keys[counted] += pressed


async def fill(app: StationApp, field_id: str, value: str | None,
               press: Callable[..., Awaitable[None]]) -> None:
    """One field of a form, typed once it has the keys: Enter on the value proposed (``None``), or the value
    proposed cleared (one key), ``value`` typed and Enter."""

    def focused() -> bool:
        return app.focused is not None and app.focused.id == field_id

    await until(focused)
    field = app.focused
    assert isinstance(field, Input)
    if value is not None:
        if field.value:
            await press("ctrl+u")
            await until(lambda: not field.value)
        await press(*(("space" if char == " " else char) for char in value))
        await until(lambda: field.value == value)
    await press("enter")


def count_hand(shift: ShiftKeys, boxes: int) -> Callable[[str, int], None]:
    """The autopilot's key counter for one hand (``boxes``: the antes placed at a banked table)."""
    shift.hand_keys.append(0)

    def counted(kind: str, keys: int) -> None:
        shift.hand_keys[-1] += keys
        if kind == "decision":
            shift.actions += 1
            shift.action_keys += keys
        elif kind == "bets":
            shift.bets += boxes + 1
            shift.bet_keys += keys
        elif kind == "card":
            shift.card_keys += keys

    return counted


async def void_mid_deal(pilot: Pilot[None], croupier: StationApp, pit_pilot: Pilot[None], pit: StationApp, *,
                        shoe: SimulatedShoe, game: Game, keys: Counter[str], rng: random.Random) -> None:
    """A hand started and two cards drawn, then voided at the pit's station (a card turned over in the deal)."""
    await autopilot.press(pilot, croupier, ("n",))
    await until(lambda: croupier.hand.deck_size > 0 and croupier.settled)
    if croupier.banked:
        for _ in range(game.boxes):
            await autopilot.press(pilot, croupier, ("e", "enter"))
        await autopilot.press(pilot, croupier, ("v",))
    next_card = stock_of(croupier, rng)
    for _ in range(2):
        await shoe.draw(next_card())
    rule = "R-CIRC-14" if not croupier.banked else "R-THB-11"
    await until(lambda: pit.view.hand_in_progress and pit.settled)
    await operation(pit_pilot, pit, "op_void", (rule, "a card turned over in the deal"), confirm=True, keys=keys,
                    counted="void")
    await until(lambda: not croupier.view.hand_in_progress and croupier.settled)


async def run_shift(address: str, game: Game, *, pit_token: str, hands: int = HANDS, seed: int = 0,
                    lang: str = "en") -> ShiftKeys:
    """The whole shift of one game (the table must not exist yet; the staff of :data:`STAFF` enrolled)."""
    shift = ShiftKeys(game.code)
    keys = shift.operations
    rng = random.Random(seed)
    shoe_device, shuffler = ShoeSimulator(seed=seed + 3), ShufflerSimulator(seed=seed + 4)
    pit = StationApp(address, pit_token, game.table, lang=lang, sees_down_cards=True)
    croupier = StationApp(address, game.token(), game.table, lang=lang,
                          devices=DevicePorts(shoe_device.url, shuffler.url))
    try:
        async with pit.run_test(size=SIZE) as pit_pilot, croupier.run_test(size=SIZE) as pilot:
            await until(lambda: pit.settled and croupier.devices is not None  # each device says HELLO, unasked
                        and (hardware := croupier.devices.hardware) is not None
                        and hardware.shoe.identity is not None and hardware.shuffler is not None
                        and hardware.shuffler.identity is not None, timeout=30)
            shoe = SimulatedShoe(shoe_device, croupier)
            await operation(pit_pilot, pit, "op_sign_in", ("P1", STAFF["P1"][2]), keys=keys, counted="sign in")
            await operation(pit_pilot, pit, "op_open", [], choice=game_choice(game), keys=keys, counted="open")
            await operation(pilot, croupier, "op_sign_in", ("C1", STAFF["C1"][2]), keys=keys, counted="sign in")
            await until(lambda: bool(croupier.view.table) and croupier.settled)
            if not croupier.banked:
                for _ in range(game.seats):
                    await operation(pilot, croupier, "op_seat", (None, "1000"), keys=keys, counted="seat")
            await operation(pilot, croupier, "op_open_shift", (TRAY,), keys=keys, counted="tray")
            for number in range(1, hands + 1):
                await autopilot.play_hand(pilot, croupier, stock_of(croupier, rng), boxes=game.boxes, shoe=shoe,
                                          keys_pressed=count_hand(shift, game.boxes))
                shift.hands += 1
                if number == min(3, hands) and not croupier.banked:
                    await operation(pilot, croupier, "op_add_chips", (None, "500"), keys=keys, counted="rebuy")
                if number == min(5, hands):
                    await operation(pilot, croupier, "op_sign_in", ("C2", STAFF["C2"][2]), keys=keys,
                                    counted="rotation")
                if number == min(6, hands):
                    await operation(pilot, croupier, "op_fill", ("F-1", "100x20"), keys=keys, counted="fill")
                    await operation(pit_pilot, pit, "op_sign_slip", ("F-1",), keys=keys, counted="fill")
                if number == min(7, hands):
                    await operation(pit_pilot, pit, "op_credit", ("C-1", "1000x2"), keys=keys, counted="credit")
                    await operation(pilot, croupier, "op_sign_slip", ("C-1",), keys=keys, counted="credit")
            await void_mid_deal(pilot, croupier, pit_pilot, pit, shoe=shoe, game=game, keys=keys, rng=rng)
            hardware = croupier.devices.hardware if croupier.devices is not None else None
            assert hardware is not None
            shift.refused_reads = len(hardware.refused)
            await operation(pilot, croupier, "op_close_shift", ("1000x8 100x70 25x40",), keys=keys, counted="close")
            await until(lambda: not pit.view.hand_in_progress and pit.settled)  # the pit's screen between hands
            await operation(pit_pilot, pit, "op_close_table", (), confirm=True, keys=keys, counted="close")
    finally:
        shoe_device.close()
        shuffler.close()
    return shift


def game_choice(game: Game) -> str:
    """The table menu's code of the game (its line in the game menu)."""
    return word(pb.Game, game.request.game)
