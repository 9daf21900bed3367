"""The full-screen dealer station (issue 15): one table, live from the Watch stream, one key per action.

The view is the truth, the stream the wake-up: every event on the table's ``Watch`` stream (whoever caused it: this
station, another, the pit, a shoe) wakes the station, which reads ``GetTable`` and ``GetLegalActions`` again and
redraws; a burst of events is one read.  Only the actions the service allows now are offered
(``GetLegalActionsResponse.allowed``), the seat is the one whose turn it is, an amount is bounded by the legal range
and a typed card is checked as a card code before it is sent.  The croupier's screen never shows a face-down card
(:mod:`service.station.tui.render`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import time
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

import grpc
from rich.console import Console, RenderableType
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input, Static

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.client import card_due
from service.station.tui import asking, corrections, dealing, render, shift
from service.station.tui.devices import DevicePorts, StationDevices
from service.station.tui.hand_log import HandLog
from service.station.tui.i18n import Labels
from service.station.tui.keys import KEYS
from service.station.tui.link import Link, failure, follow, refusal
from service.station.tui.prompts import HelpScreen


class StationApp(App[None]):
    """The dealer station of one table."""

    CSS = """
    #header { height: 1; padding: 0 1; }
    #table { height: auto; border: round $primary; padding: 0 1; }
    #due { height: auto; padding: 0 1; }
    #card { width: 44; margin: 0 1; }
    #alerts { height: auto; padding: 0 1; }
    #devices { height: auto; border: round $secondary; padding: 0 1; }
    #result { height: auto; padding: 0 1; color: $success; }
    #message { height: auto; padding: 0 1; color: $warning; }
    #keys { dock: bottom; height: 1; padding: 0 1; background: $panel; }
    """
    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = []

    def __init__(self, address: str, token: str, table: str, *, lang: str = "es", sees_down_cards: bool = False,
                 credentials: grpc.ChannelCredentials | None = None, devices: DevicePorts | None = None,
                 session: str = "", person: shift.Person | None = None) -> None:
        super().__init__()
        self.session = session
        """The session of the croupier signed in here (issue 32), sent with every call."""
        self.role = person.role if person is not None else "pit-boss" if sees_down_cards else "croupier"
        """The role the station acts in (its sign-in's; the pit's station: the pit boss): the table menu offers what
        it may do (:mod:`.operations`)."""
        self.person: shift.Person | None = person
        """Who is signed in here, as the service answered his sign-in (the table menu's or ``--badge``)."""
        self.devices = StationDevices(devices) if devices is not None else None
        """The shoe and shuffler cabled to this station (``--shoe``, ``--shuffler``), if any."""
        self.address, self.token, self.table_name, self.credentials = address, token, table, credentials
        self.labels = Labels(lang)
        self.sees_down_cards = sees_down_cards
        self.view = pb.TableView()
        self.legal = svc.GetLegalActionsResponse()
        self.hand = HandLog()
        self.position = 0
        """The last log position of the table the station has read (view or stream)."""
        self.shown_position = 0
        """The last position drawn on the screen (after the repaint)."""
        self.shown_at = 0.0
        self.received_at = 0.0
        """When the last event of the Watch stream arrived (``time.perf_counter``)."""
        self.message = ""
        self.answer: str | None = None
        """The answer to the last operation of the table menu (done, or refused with its rule): :mod:`.shift`."""
        self._wake = asyncio.Event()
        self._drawn: dict[str, object] = {}
        self._enabled: tuple[bool, ...] = ()
        self._redrawing = False
        self._link: Link | None = None
        self.title = f"{self.labels('title')} · {table}"
        for key, action, label in KEYS:
            self.bind(key, action, description=self.labels(label), show=key != "question_mark")
        for count in range(5):  # how many cards a seat gives back (the shoe reads them)
            self.bind(str(count), f"discard({count})", show=False)
        self.bind("escape", "cancel_reading", show=False)
        self.bind("f2", "table_menu", show=False)  # the table menu while a card field has the keys (t types there)

    # -- the screen ------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        alerts = Static(id="alerts")
        alerts.display = False  # shown while an alert waits for the croupier
        yield alerts
        yield Static(id="table")
        yield Static(id="due")
        card = Input(placeholder=self.labels("card_prompt"), id="card")
        card.display = card.can_focus = False
        yield card
        yield Static(id="result")
        yield Static(id="message")
        devices = Static(id="devices")
        devices.display = self.devices is not None
        yield devices
        yield Static(self.labels("keys_bar"), id="keys")

    @property
    def link(self) -> Link:
        assert self._link is not None, "the station is not connected yet"
        return self._link

    async def on_mount(self) -> None:
        self._link = Link(self.address, self.token, self.credentials, self.session)
        await self.refresh_view()
        self.call_after_refresh(self.refresh_bindings)  # the footer, mounted meanwhile, shows the allowed keys
        # Everything built so far (modules, widgets, stubs) lives as long as the station: out of the collector's
        # sight, a full collection no longer walks it (it took 70 to 120 ms a time, the tail of the screen's latency).
        gc.freeze()
        self.run_worker(follow(lambda: self.link, self.table_name, self._received, self._lost), name="watch",
                        exclusive=False)
        self.run_worker(self._redraw_on_wake(), name="redraw", exclusive=False)
        if self.devices is not None:
            self.run_worker(self.devices.attach(self, self.address, self.token, self.table_name, banked=self.banked,
                                                credentials=self.credentials, session=self.session),
                            name="devices", exclusive=False)
            self.set_interval(1.0, self.devices_changed)  # a link that comes back or goes says so on its own

    async def on_unmount(self) -> None:
        if self.devices is not None:
            await self.devices.close()
        if self._link is not None:
            await self._link.close()

    def devices_changed(self) -> None:
        """A device said something (or a second passed): its panels, and the keys an alert holds, redrawn."""
        with contextlib.suppress(NoMatches):
            self.draw()

    def card_due(self) -> bool:
        """A card is due at the table."""
        return card_due(self.view)

    @property
    def banked(self) -> bool:
        return bool(self.view.WhichOneof("detail") == "banked")

    def _update(self, widget: str, key: object, content: Callable[[], RenderableType]) -> None:
        """Redraw a panel only when what it shows changed (a repaint and a layout cost frames)."""
        if self._drawn.get(widget) != key:
            self._drawn[widget] = key
            self.query_one(f"#{widget}", Static).update(content())

    def draw(self) -> None:
        """Every panel from the view, the legal actions and the hand's log."""
        labels, sees, view, legal, hand = self.labels, self.sees_down_cards, self.view, self.legal, self.hand
        detail = view.SerializeToString(deterministic=True)
        who = shift.who(self)
        self._update("header", (view.table, view.hand_in_progress, view.hand_number, hand.deck_colour, who),
                     lambda: render.header(view, hand, labels, who))
        self._update("table", detail, lambda: render.banked_panel(view, labels, sees_down_cards=sees) if self.banked
                     else render.circle_panel(view, labels, sees_down_cards=sees))
        devices = self.devices
        shoe = devices is not None and devices.shoe_deals
        if devices is not None:
            panel, alerts = devices.panel(labels), devices.alerts_text(labels, self.shown)
            self._update("devices", panel.plain, lambda: panel)
            self._update("alerts", alerts.plain, lambda: alerts)
            if (shown := self.query_one("#alerts", Static)).display != bool(devices.waiting):
                shown.display = bool(devices.waiting)
        due = render.due_text(view, legal, hand, labels, shoe=shoe, keyed=dealing.keyed_card_due(self),
                              reading=dealing.reading(self), give_back=dealing.give_back_keys(self))
        self._update("due", due.plain, lambda: due)
        result = render.result_text(hand, labels, banked=self.banked)
        self._update("result", result.plain, lambda: result)
        message = self.shown(self.message)
        self._update("message", message, lambda: message)
        card = self.query_one("#card", Input)
        card_due = dealing.keyed_card_due(self) and not shoe  # typed: a face-up card, and no shoe deals it
        if card.display != card_due:
            card.display = card_due
            card.can_focus = card_due  # a hidden field never gets the focus back (after a dialog) to eat the keys
        if card_due and self.screen is self.screen_stack[0] and not card.has_focus:
            card.focus()
        elif not card_due and card.has_focus:
            self.set_focus(None)
        enabled = tuple(bool(self.check_action(action, ())) for _, action, _ in KEYS)
        if enabled != self._enabled:
            self._enabled = enabled
            self.refresh_bindings()

    async def refresh_view(self) -> None:
        """Read the table and its legal actions again and redraw (an older answer than the one shown is dropped)."""
        try:
            view, legal = await asyncio.gather(self.link.table(self.table_name), self.link.legal(self.table_name))
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:  # not opened yet: the pit boss opens it from the menu
                self.view, self.legal = pb.TableView(), svc.GetLegalActionsResponse()
                self.say(self.labels("not_open", table=self.table_name))
                with contextlib.suppress(NoMatches):
                    self.draw()
            else:
                self.say(failure(self.labels, error))
            return
        if view.position < self.view.position:
            return
        self.view, self.legal = view, legal
        if self.message == self.labels("not_open", table=self.table_name):  # opened meanwhile
            self.message = ""
        self.position = max(self.position, view.position)
        try:
            self.draw()
        except NoMatches:  # the station is closing: its panels are gone
            return
        shown = self.position
        self.call_after_refresh(self._shown, shown)

    def say(self, message: str) -> None:
        """A line for the croupier (a refusal, a lost connection) until the next command succeeds."""
        self.message = message
        shown = self.shown(message)
        with contextlib.suppress(NoMatches):
            self._update("message", shown, lambda: shown)

    def shown(self, text: str) -> str:
        """A text as this station shows it: at the croupier's, no card code (D-SEE-1)."""
        return text if self.sees_down_cards else render.redact(text)

    def screen_text(self) -> str:
        """The screen as plain text, as the croupier sees it (snapshots; the SVG is ``export_screenshot``)."""
        width, height = self.size
        console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system=None,
                          record=True, legacy_windows=False, safe_box=False)
        console.print(self.screen._compositor.render_update(full=True, screen_stack=self._background_screens))
        return "\n".join(line.rstrip() for line in console.export_text().splitlines())

    def _shown(self, position: int) -> None:
        if position > self.shown_position:
            self.shown_position, self.shown_at = position, time.perf_counter()

    def _received(self, response: svc.WatchResponse) -> None:
        """An event of the table's Watch stream: the hand's log, and the redraw woken (a burst is one read)."""
        self.received_at = time.perf_counter()
        self.hand.apply(response.event)
        self._wake.set()

    def _lost(self, error: grpc.aio.AioRpcError) -> None:
        if error.code() != grpc.StatusCode.NOT_FOUND:  # a table not open yet is said by the view
            self.say(failure(self.labels, error))

    async def _redraw_on_wake(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            self._redrawing = True
            try:
                await self.refresh_view()
            finally:
                self._redrawing = False

    @property
    def settled(self) -> bool:
        """Every event received is on the screen: no read pending, none under way, the last one drawn."""
        return not self._wake.is_set() and not self._redrawing and self.shown_position >= self.position

    # -- commands ----------------------------------------------------------------------------------------

    async def send(self, command: cmd.Command) -> bool:
        """Send one command; a refusal is shown with its rule; the screen is redrawn from the service."""
        try:
            await self.link.act(self.table_name, command)
        except grpc.aio.AioRpcError as error:
            rule, message = refusal(error)
            self.message = self.labels.refusal(rule, message)
            await self.refresh_view()
            return False
        self.message = ""
        await self.refresh_view()
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only what the service allows now is offered (and bound): :func:`.dealing.enabled`."""
        return dealing.enabled(self, action, parameters)

    async def action_fold(self) -> None:
        await self.send(cmd.Command(fold=cmd.Fold(seat=self.legal.seat)))

    async def action_check_call(self) -> None:
        if pb.ACTION_KIND_CHECK in self.legal.allowed:
            await self.send(cmd.Command(check=cmd.Check(seat=self.legal.seat)))
        else:
            await self.send(cmd.Command(call=cmd.Call(seat=self.legal.seat)))

    async def action_bet(self) -> None:
        await asking.bet(self)

    async def action_all_in(self) -> None:
        await self.send(cmd.Command(all_in=cmd.AllIn(seat=self.legal.seat)))

    async def action_bring_in(self) -> None:
        await self.send(cmd.Command(bring_in=cmd.BringIn(seat=self.legal.seat)))

    async def action_show(self) -> None:
        await self.send(cmd.Command(show=cmd.Show(seat=self.legal.seat)))

    async def action_muck(self) -> None:
        await self.send(cmd.Command(muck=cmd.Muck(seat=self.legal.seat)))

    async def action_play(self) -> None:
        seat, amount = self.legal.seat, self.legal.bet
        if pb.ACTION_KIND_FLOP_BET in self.legal.allowed:
            await self.send(cmd.Command(flop_bet=cmd.FlopBet(seat=seat, amount=amount)))
        else:
            await self.send(cmd.Command(play=cmd.Play(seat=seat, amount=amount)))

    async def action_exchange(self) -> None:
        asking.cards(self)

    def action_ante(self) -> None:
        asking.box_bet(self, "ante")

    def action_bonus(self) -> None:
        asking.box_bet(self, "bonus")

    async def action_close_bets(self) -> None:
        await self.send(cmd.Command(close_bets=cmd.CloseBets()))

    async def action_deal(self) -> None:
        """Deal the typed card; with a shoe dealing, key one face-up card by hand (one the shoe could not read)."""
        if self.devices is None or not self.devices.shoe_deals:
            await self.deal(self.query_one("#card", Input).value)
        else:
            asking.card_by_hand(self)

    def action_cancel_reading(self) -> None:
        """Esc, the undo of an entry not sent: a card half typed is cleared; a count of discards keyed wrong drops
        the reads so far (nothing was sent)."""
        self.query_one("#card", Input).value = ""
        if self.devices is not None and self.devices.hardware is not None:
            self.devices.hardware.discards.cancel()
        self.say("")

    async def action_discard(self, count: int) -> None:
        """The seat to act gives back ``count`` cards (a digit): the shoe reads them (D-SEE-1)."""
        await dealing.discard(self, count)

    def action_acknowledge(self) -> None:
        """The croupier saw the device alerts on the screen."""
        if self.devices is not None:
            self.devices.acknowledge()
            self.devices_changed()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "card":
            event.stop()
            await self.deal(event.value)

    async def deal(self, typed: str) -> None:
        """Deal the typed card where it is due (:func:`.dealing.deal`); the field is cleared either way."""
        self.query_one("#card", Input).value = ""
        await dealing.deal(self, typed)

    async def action_new_hand(self) -> None:
        """Start the next hand from the deck not in play in the last one (:func:`.dealing.new_hand`)."""
        await dealing.new_hand(self)

    def action_correction(self) -> None:
        corrections.ask(self)

    def action_table_menu(self) -> None:
        """The table and the shift: what this station's role may do now (:mod:`.shift`)."""
        shift.menu(self)

    def action_leave(self) -> None:
        """Quit the station (asked first while a hand is in progress: :func:`.shift.leave`)."""
        shift.leave(self)

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.labels("help_title"), self.labels("help_body")))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette: the station's actions allowed now (translated), then Textual's own."""
        for _, action, label in KEYS:
            if action not in ("help", "leave") and self.check_action(action, ()):
                yield SystemCommand(self.labels(label), action, getattr(self, f"action_{action}"))
        yield SystemCommand(self.labels("help"), "?", self.action_help)
        yield from super().get_system_commands(screen)

