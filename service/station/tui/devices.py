"""The shoe and the shuffler at the full-screen station (issue 15, item 4): ``--shoe URL --shuffler URL``.

The devices are driven by :class:`service.station.hardware.HardwareStation`, the same code as the plain station's:
every checked shoe read is dealt to the service as the next card (the croupier presses no key), refused reads and
device faults are recorded at the table, reads the service did not acknowledge are held and reconciled.  This module
shows it on the screen:

- **the devices panel**: each device's identity and connection (a port that does not exist yet, or goes away, is a
  state: "not connected", never a traceback), the deck in the shoe, the deck the shuffler is shuffling, the last deck
  check of each colour (R-DECK-3), the reads dealt, irregular and refused, and reads held while the service is away;
- **alerts**: every fault (a device fault, an irregular or refused read, a deck not ready) is an alert the croupier
  acknowledges with ``k``; until he does, the alert stays on the screen and no new hand starts.

The device threads never touch the screen: they post to the application's event loop.

One fault raised again while its alert waits is that alert, counted (a service outage holds every read: one alert):

>>> devices = StationDevices(DevicePorts("/dev/ttyUSB0"))
>>> for read in (44, 45, 46):
...     devices.raise_alert(f"service lost (UNAVAILABLE): read {read} (Qh) held, not dealt")
>>> devices.raise_alert("shuffler: jam; the blue deck is not ready (R-DECK-3)")
>>> devices.counts, devices.alerts[0]
([3, 1], 'service lost (UNAVAILABLE): read 46 (Qh) held, not dealt')
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import grpc
from rich.text import Text

from devices.protocol import Colour
from service.station.client import Station
from service.station.hardware import HardwareStation
from service.station.tui.i18n import CARD_CODE

if TYPE_CHECKING:
    from service.station.tui.i18n import Labels

PREPARE_WAIT_SECONDS = 5.0
"""How long the next deck's preparation waits for the hand's deck size from the Watch stream."""
ALERTS_SHOWN = 3
"""The unacknowledged alerts drawn at once (the newest); the count says how many more wait."""


class Screen(Protocol):
    """What the devices need of the station: a redraw of their panels."""

    def devices_changed(self) -> None: ...


def _kind(message: str) -> str:
    """An alert's words but for its numbers and card codes: what makes two alerts the same fault."""
    return re.sub(r"\d+", "#", CARD_CODE.sub("??", message))


@dataclass(frozen=True)
class DevicePorts:
    """The ports of the devices cabled to the station, and their line speed."""

    shoe: str
    shuffler: str | None = None
    baudrate: int = 115200


@dataclass
class StationDevices:
    """The devices of one station as its screen shows them."""

    ports: DevicePorts
    alerts: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    """How many times each alert of ``alerts`` was raised while it waited (one outage is one alert, counted)."""
    acknowledged: int = 0
    """How many of ``alerts`` the croupier acknowledged (the oldest first)."""
    hardware: HardwareStation | None = None

    async def attach(self, screen: Screen, address: str, token: str, table: str, *, banked: bool,
                     credentials: grpc.ChannelCredentials | None = None, session: str = "") -> None:
        """Open the devices' ports (in a thread: the first reports go to the service) and follow them."""
        loop = asyncio.get_running_loop()

        def post(message: str, alert: bool) -> None:
            """From a device's thread: an alert kept, the panels redrawn (news is on the panel: its state)."""
            def note() -> None:
                if alert:
                    self.raise_alert(message)
                screen.devices_changed()

            with contextlib.suppress(RuntimeError):  # the station closed meanwhile: nobody to tell
                loop.call_soon_threadsafe(note)

        def build() -> HardwareStation:
            station = Station(address, token, credentials, session=session)
            return HardwareStation(station, table, self.ports.shoe, self.ports.shuffler, banked=banked,
                                   baudrate=self.ports.baudrate,
                                   show=lambda message: post(message, False), alert=lambda message: post(message, True))

        self.hardware = await asyncio.to_thread(build)
        screen.devices_changed()

    @property
    def shoe_deals(self) -> bool:
        """The shoe is connected: it deals, and no card is typed (one keyed by hand stays possible with ``d``)."""
        return self.hardware is not None and self.hardware.shoe.link.connected

    def raise_alert(self, message: str) -> None:
        """An alert; the same fault again while one waits (the same words but for numbers and cards: each read
        held while the service is away, each retry) is that alert once more, counted, its words the latest."""
        kind = _kind(message)
        for index in range(self.acknowledged, len(self.alerts)):
            if _kind(self.alerts[index]) == kind:
                self.alerts[index] = message
                self.counts[index] += 1
                return
        self.alerts.append(message)
        self.counts.append(1)

    @property
    def waiting(self) -> list[str]:
        """The alerts the croupier has not acknowledged yet."""
        return self.alerts[self.acknowledged:]

    def acknowledge(self) -> None:
        """The croupier saw every alert on the screen."""
        self.acknowledged = len(self.alerts)

    async def start_hand(self, colour: Colour) -> None:
        """Start the next hand with this deck in the shoe, the shuffler delivering it (then :meth:`prepare_next`)."""
        hardware = self.hardware
        if hardware is None:
            raise RuntimeError("the devices are not attached yet")
        await asyncio.to_thread(hardware.start_hand, colour, prepare=False)

    async def prepare_next(self, screen: Screen, deck_size: Callable[[], int]) -> None:
        """While the hand is dealt, the shuffler shuffles and checks the next hand's deck, of the size of this
        hand's (``deck_size()``: 0 until the Watch stream says the hand started; 52 if it does not say in time)."""
        deadline = time.monotonic() + PREPARE_WAIT_SECONDS
        while not (size := deck_size()) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        if (hardware := self.hardware) is not None:
            hardware.deck_size = size or 52
            await asyncio.to_thread(hardware.prepare_next)
            screen.devices_changed()

    async def close(self) -> None:
        """Release the ports."""
        if self.hardware is not None:
            hardware, self.hardware = self.hardware, None
            await asyncio.to_thread(hardware.close)
            hardware.station.close()

    # -- the panels ---------------------------------------------------------------------------------

    def panel(self, labels: Labels) -> Text:
        """The devices as the croupier sees them."""
        hardware = self.hardware
        if hardware is None:
            return Text(labels("devices_opening"))
        lines = [self._device_line(labels, "shoe", hardware.shoe.link.connected,
                                   hardware.shoe.identity, self.ports.shoe)]
        lines[0].append("  ·  " + labels("in_shoe", colour=labels(hardware.shoe.colour.name.lower())))
        if hardware.shuffler is not None:
            line = self._device_line(labels, "shuffler", hardware.shuffler.link.connected,
                                     hardware.shuffler.identity, self.ports.shuffler or "")
            if hardware.shuffling is not None:
                line.append("  ·  " + labels("shuffling", colour=labels(hardware.shuffling.name.lower())),
                            style="yellow")
            for colour in (Colour.RED, Colour.BLUE):
                check = hardware.checks.get(colour)
                if check is None:
                    continue
                complete = not (check.missing or check.duplicates or check.foreign)
                line.append("  ·  " + labels("deck_check", colour=labels(colour.name.lower()), counted=check.counted,
                                             state=labels("complete" if complete else "incomplete")),
                            style=None if complete else "bold red")
            lines.append(line)
        reads = Text(labels("reads", dealt=len(hardware.dealt), irregular=len(hardware.irregularities),
                            refused=len(hardware.refused)))
        if hardware.held:
            reads.append("  ·  " + labels("held", count=len(hardware.held)), style="bold red")
        lines.append(reads)
        return Text("\n").join(lines)

    @staticmethod
    def _device_line(labels: Labels, device: str, connected: bool, identity: object, port: str) -> Text:
        who = f"{getattr(identity, 'model', '')} {getattr(identity, 'serial', '')}".strip()
        line = Text(f"{labels(device):<11}", style="bold")
        if connected:
            line.append(who or labels("unidentified"))
            line.append("  ·  " + labels("connected_device"), style="green")
        else:
            line.append(labels("not_connected", port=port), style="bold red")
        return line

    def alerts_text(self, labels: Labels, shown: Callable[[str], str] = str) -> Text:
        """The alerts waiting for the croupier's ``k``, the newest last, in the station's language (``shown``: how a
        text is shown here; at the croupier's station no card code, :func:`.render.redact`)."""
        waiting = self.waiting
        if not waiting:
            return Text("")
        text = Text(labels("alerts_title", count=len(waiting)), style="bold white on red")
        first = len(self.alerts) - len(waiting)
        for index in range(max(first, len(self.alerts) - ALERTS_SHOWN), len(self.alerts)):
            times = f" (×{self.counts[index]})" if self.counts[index] > 1 else ""
            text.append(f"\n⚠ {labels.cards_in(shown(labels.device(self.alerts[index])))}{times}", style="bold red")
        return text
