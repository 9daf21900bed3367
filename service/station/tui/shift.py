"""The table menu (``t``): the shift's operations at the station (issue 33, item 1), from the menu of what the
station's role may do now (:mod:`.operations`) to the form, a confirmation where nothing can be taken back, and the
request; the answer, or the refusal with its rule, is the station's message line.

A sign-in here changes who the station acts for: his session goes with every later call of the screen and of the
devices cabled to it (a rotation: the croupier before him is signed out by the service, R-AUD-1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import grpc

from service.api import table_service_pb2 as svc
from service.station.tui.forms import ConfirmScreen, FormScreen, MenuScreen
from service.station.tui.link import Link, refusal
from service.station.tui.operation_base import Operation, Situation
from service.station.tui.operations import CONFIRMED, OPERATIONS, offered
from service.station.tui.prompts import card_code

if TYPE_CHECKING:
    from service.api import types_pb2 as pb
    from service.station.tui.devices import StationDevices
    from service.station.tui.i18n import Labels

REASONS = ("number", "low", "chips", "choice", "required")


@dataclass
class Person:
    """Who is signed in at the station, as the service answered his sign-in."""

    person_id: str
    name: str
    role: str


class StationApp(Protocol):
    """What the menu uses of :class:`service.station.tui.app.StationApp`."""

    table_name: str
    view: pb.TableView
    labels: Labels
    role: str
    person: Person | None
    session: str
    devices: StationDevices | None
    message: str
    answer: str | None

    @property
    def link(self) -> Link: ...

    def push_screen(self, screen: Any, callback: Any) -> Any: ...
    async def refresh_view(self) -> None: ...
    def say(self, message: str) -> None: ...
    def exit(self) -> None: ...


def who(app: StationApp) -> str:
    """Who the station acts for: the person signed in here, or the table's dealer, or nobody."""
    if app.person is not None:
        return app.labels("signed_in_as", name=app.person.name or app.person.person_id,
                          person=app.person.person_id, role=app.person.role)
    return app.view.dealer_id or app.labels("nobody_signed_in")


def leave(app: StationApp) -> None:
    """Quit the station: asked first while a hand is in progress (its keys would be lost mid-hand)."""
    if not app.view.hand_in_progress:
        app.exit()
        return

    def answered(yes: bool | None) -> None:
        if yes:
            app.exit()

    app.push_screen(ConfirmScreen(app.labels("quit_mid_hand", number=app.view.hand_number)), answered)


def situation(app: StationApp) -> Situation:
    hardware = app.devices.hardware if app.devices is not None else None
    return Situation(app.view, app.role, signed_in=app.person is not None or bool(app.view.dealer_id),
                     shuffler=hardware is not None and hardware.shuffler is not None)


def menu(app: StationApp) -> None:
    """The operations offered now; the one chosen goes on to its choice, its form and its request."""
    now = situation(app)
    entries = [(operation.name, app.labels(operation.name)) for operation in offered(now)]

    async def chosen(name: object) -> None:
        if isinstance(name, str) and name in OPERATIONS:
            await start(app, OPERATIONS[name], now)

    app.push_screen(MenuScreen(app.labels("menu_title", table=app.table_name), entries), chosen)


async def start(app: StationApp, operation: Operation, now: Situation) -> None:
    """An operation's preliminary choice (a menu), then its form."""
    if not operation.choices:
        form(app, operation, now, "")
        return
    entries = [(code, app.labels.game(code)) for code in operation.choices]

    async def chosen(choice: object) -> None:
        if isinstance(choice, str):
            form(app, operation, now, choice)

    app.push_screen(MenuScreen(app.labels("game_title", table=app.table_name), entries), chosen)


def form(app: StationApp, operation: Operation, now: Situation, choice: str) -> None:
    """The operation's fields, then its request; asked a second time first (y/n) where one key would do it (no
    fields) or where nothing can be taken back (:data:`.operations.CONFIRMED`)."""
    fields = operation.fields(now, choice)
    what = app.labels(operation.name) + (f" · {app.labels.game(choice)}" if choice else "")

    def confirmed(values: dict[str, Any]) -> None:
        async def answered(yes: object) -> None:
            if yes is True:
                await send(app, operation, values, choice, what)

        app.push_screen(ConfirmScreen(app.labels("confirm", what=what)), answered)

    if not fields:
        confirmed({})
        return

    async def filled(values: object) -> None:
        if not isinstance(values, dict):
            return
        if operation.name in CONFIRMED:
            confirmed(values)
        else:
            await send(app, operation, values, choice, what)

    reasons = {reason: app.labels(f"r_{reason}") for reason in REASONS}
    app.push_screen(FormScreen(f"{what}\n{app.labels('form_hint')}", fields, app.labels, reasons), filled)


async def send(app: StationApp, operation: Operation, values: dict[str, Any], choice: str, what: str) -> None:
    """The operation's request; the answer (a sign-in changes the station's session) or its refusal, shown."""
    if "card" in values:  # a card typed as this station's language writes it (Spanish suits: p, c, d, t)
        values = {**values, "card": card_code(str(values["card"]), app.labels.lang) or values["card"]}
    method, request = operation.request(app.table_name, app.link.command_id(), values, choice)
    try:
        reply = await app.link.call(method, request)
    except grpc.aio.AioRpcError as error:
        rule, message = refusal(error)
        await app.refresh_view()
        app.answer = app.labels.refusal(rule, message)
        app.say(app.answer)
        return
    if isinstance(reply, svc.SignInResponse):
        signed_in(app, reply)
    elif isinstance(reply, svc.SignOutResponse) and app.person is not None:
        signed_in(app, None)
    await app.refresh_view()
    app.answer = app.labels("done", what=what)
    app.say(app.answer)


def signed_in(app: StationApp, reply: svc.SignInResponse | None) -> None:
    """The person now signed in here (None: nobody): his session for the screen's calls and the devices'."""
    session = reply.session if reply is not None else ""
    app.session = session
    app.link.signed_in(session)
    if app.devices is not None and app.devices.hardware is not None:
        app.devices.hardware.station.session = session
    if reply is None or not reply.session:
        app.person = None
        return
    app.person = Person(reply.person_id, reply.name, reply.role)
    app.role = reply.role
