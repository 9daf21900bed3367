"""Corrections at the station (issue 15, item 6; R-AUD-1; the rule: docs/station.md, "Corrections").

The croupier who keyed something other than what happened presses ``r`` while the service allows a correction of the
hand's last action (``REQUEST_CORRECTION``): he types what really happened — ``f`` fold, ``k`` check, ``c`` call,
``a`` all-in, ``i`` bring-in, ``b 40`` bet or raise to 40 — for the seat that acted, and the reason. The request is
recorded and the hand waits. At the pit boss's station (``--pit``) the same key, while the correction waits
(``DECIDE_CORRECTION``), approves (``a``) or refuses (``r``) it with a reason. Nothing is sent that is not a
replacement or a decision with its reason; the service judges the replacement against the hand as it was and
refuses, with the rule, one that was not legal then.

>>> replacement("b 40", 3).bet.amount, replacement(" k ", 2).WhichOneof("command"), replacement("x", 1)
(40, 'check', None)
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from service.station.tui import render

if TYPE_CHECKING:
    from service.api import table_service_pb2 as svc
    from service.station.tui.hand_log import HandLog
    from service.station.tui.i18n import Labels


class StationApp(Protocol):
    """What the corrections use of :class:`service.station.tui.app.StationApp`."""

    legal: svc.GetLegalActionsResponse
    hand: HandLog
    labels: Labels
    sees_down_cards: bool

    def push_screen(self, screen: Any, callback: Any) -> Any: ...
    async def send(self, command: cmd.Command) -> bool: ...

MAX_REASON = 200
"""The longest reason the service records (R-AUD-1)."""
_TYPED = re.compile(r"^\s*(?:(?P<verb>[fkcai])|b\s*(?P<amount>\d{1,9}))\s*$")


def replacement(typed: str, seat: int) -> cmd.Command | None:
    """The betting command a croupier typed as what really happened, for ``seat``; None when it is not one."""
    match = _TYPED.match(typed.lower())
    if match is None:
        return None
    if match["amount"] is not None:
        return cmd.Command(bet=cmd.Bet(seat=seat, amount=int(match["amount"])))
    return {"f": lambda: cmd.Command(fold=cmd.Fold(seat=seat)), "k": lambda: cmd.Command(check=cmd.Check(seat=seat)),
            "c": lambda: cmd.Command(call=cmd.Call(seat=seat)), "a": lambda: cmd.Command(all_in=cmd.AllIn(seat=seat)),
            "i": lambda: cmd.Command(bring_in=cmd.BringIn(seat=seat))}[match["verb"]]()


def reason_of(typed: str) -> str | None:
    """A reason as recorded: 1 to 200 characters once trimmed."""
    reason = typed.strip()
    return reason if 0 < len(reason) <= MAX_REASON else None


Check = Callable[[str, str], "tuple[object, str]"]
"""The two typed fields → (the value, "") when they are right, or (None, why not)."""


class TwoFieldPrompt(ModalScreen[object]):
    """A title, what (the replacement or the decision) and why; Enter moves on, then checks both; Escape cancels."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape", "cancel", show=False)]
    DEFAULT_CSS = """
    TwoFieldPrompt { align: center middle; }
    TwoFieldPrompt > Vertical { width: 90; height: auto; border: thick $warning; padding: 0 1; background: $surface; }
    TwoFieldPrompt #reason { color: $error; }
    """

    def __init__(self, title: str, placeholders: tuple[str, str], check: Check) -> None:
        super().__init__()
        self.title_text, self.placeholders, self.check = title, placeholders, check

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="title")
            yield Input(placeholder=self.placeholders[0], id="what")
            yield Input(placeholder=self.placeholders[1], id="why")
            yield Static("", id="reason")

    def on_mount(self) -> None:
        self.query_one("#what", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "what":
            self.query_one("#why", Input).focus()
            return
        value, problem = self.check(self.query_one("#what", Input).value, self.query_one("#why", Input).value)
        if value is None:
            self.query_one("#reason", Static).update(problem)
        else:
            self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


def can_correct(app: StationApp) -> bool:
    """``r`` is offered: the croupier's while the last action may be corrected, the pit's while one waits."""
    allowed = set(app.legal.allowed)
    if pb.ACTION_KIND_DECIDE_CORRECTION in allowed:
        return app.sees_down_cards  # the pit's station decides; the croupier's waits
    return pb.ACTION_KIND_REQUEST_CORRECTION in allowed and app.hand.last_bettor is not None


def ask(app: StationApp) -> None:
    """The dialog that fits now: the pit's decision, or the croupier's request for the seat that acted last."""
    labels = app.labels
    if pb.ACTION_KIND_DECIDE_CORRECTION in app.legal.allowed:
        def decision(what: str, why: str) -> tuple[object, str]:
            verdict, reason = what.strip().lower(), reason_of(why)
            if verdict not in ("a", "r"):
                return None, labels("bad_decision")
            if reason is None:
                return None, labels("bad_reason", most=MAX_REASON)
            return cmd.Command(decide_correction=cmd.DecideCorrection(approve=verdict == "a", reason=reason)), ""

        title = labels("decision_title", pending=render.correction_pending(app.hand, labels) or "")
        app.push_screen(TwoFieldPrompt(title, (labels("decision_what"), labels("reason_what")), decision), _send(app))
        return
    seat = app.hand.last_bettor
    if seat is None:
        return

    def request(what: str, why: str) -> tuple[object, str]:
        command, reason = replacement(what, seat), reason_of(why)
        if command is None:
            return None, labels("bad_replacement")
        if reason is None:
            return None, labels("bad_reason", most=MAX_REASON)
        return cmd.Command(request_correction=cmd.RequestCorrection(replacement=command, reason=reason)), ""

    title = labels("correction_title", seat=seat)
    app.push_screen(TwoFieldPrompt(title, (labels("correction_what"), labels("reason_what")), request), _send(app))


def _send(app: StationApp) -> Callable[[object], Awaitable[None]]:
    async def chosen(command: object) -> None:
        if isinstance(command, cmd.Command):
            await app.send(command)

    return chosen
