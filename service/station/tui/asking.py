"""The station's actions that ask the croupier for something before they are sent: a bet's amount within the legal
range, the cards a seat discards or a box exchanges, a box's ante or bonus, a card keyed by hand while a shoe deals.

Each opens one of :mod:`.prompts`' dialogs, which keep what is typed until it is valid; the command is sent only
then (:meth:`StationApp.send`), the seat being the one whose turn it is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from service.station.tui.prompts import AmountPrompt, BoxAmountPrompt, CardsPrompt

BOXES = {pb.GAME_HOLDEM_BONUS: 7, pb.GAME_CASINO_DRAW: 6}
"""The boxes of a banked table: Texas Hold'em Bonus up to seven (R-THB-1), Casino Draw Poker six (R-CDP-1)."""

if TYPE_CHECKING:
    from service.api import table_service_pb2 as svc
    from service.station.tui.hand_log import HandLog
    from service.station.tui.i18n import Labels


class StationApp(Protocol):
    """What these actions use of :class:`service.station.tui.app.StationApp`."""

    legal: svc.GetLegalActionsResponse
    view: pb.TableView
    hand: HandLog
    labels: Labels

    @property
    def banked(self) -> bool: ...

    def push_screen(self, screen: Any, callback: Any) -> Any: ...
    async def send(self, command: cmd.Command) -> bool: ...
    async def deal(self, typed: str) -> None: ...


async def bet(app: StationApp) -> None:
    """A bet or raise: at a circle table, the amount (prefilled with the legal minimum, refused outside the legal
    range; at a fixed-limit table the one amount the structure allows, sent at once); at a banked table, the bet
    the box must make."""
    seat, labels = app.legal.seat, app.labels
    if app.banked:
        await app.send(cmd.Command(bet=cmd.Bet(seat=seat, amount=app.legal.bet)))
        return
    low, high = app.legal.raise_min, app.legal.raise_max
    if low == high:  # fixed limit (or a stack that allows one amount): nothing to ask, one key (R-CIRC-4)
        await app.send(cmd.Command(bet=cmd.Bet(seat=seat, amount=low)))
        return
    verb = "bet" if pb.ACTION_KIND_CHECK in app.legal.allowed else "raise"
    title = labels("amount_title", what=f"{labels('seat', seat=seat)} · {labels(verb, low=low, high=high)}",
                   low=low, high=high)

    async def chosen(amount: object) -> None:
        if isinstance(amount, int):
            await app.send(cmd.Command(bet=cmd.Bet(seat=seat, amount=amount)))

    app.push_screen(AmountPrompt(title, low, high, labels("bad_amount", low=low, high=high)), chosen)


def cards(app: StationApp) -> None:
    """The cards a box exchanges (CDP, 0 to 2) or a seat discards (five-card draw 0 to 4, Pineapple 1)."""
    seat, banked, labels = app.legal.seat, app.banked, app.labels
    who = labels("box" if banked else "seat", seat=seat)
    title = labels("cards_title", what=labels("exchange"), who=who, most=2 if banked else 4)

    async def chosen(given: object) -> None:
        if isinstance(given, list):
            await app.send(cmd.Command(exchange=cmd.Exchange(seat=seat, cards=given)) if banked
                           else cmd.Command(discard=cmd.Discard(seat=seat, cards=given)))

    app.push_screen(CardsPrompt(title, 2 if banked else 4, labels("bad_card", text="{text}"), labels.lang), chosen)


def box_bet(app: StationApp, spot: str) -> None:
    """An ante (or a THB bonus) for a box: the dialog proposes the first box without one (a bonus: with an ante)
    and the table's smallest bet."""
    labels = app.labels
    low, high = app.hand.limits.get(spot, (1, 1_000_000))
    boxes = app.view.banked.boxes
    most = BOXES.get(app.view.game, 6)
    if spot == "ante":
        taken = {box.seat for box in boxes}
        free = [seat for seat in range(1, most + 1) if seat not in taken]
    else:
        free = [box.seat for box in boxes if not box.bets.HasField("bonus")]
    title = labels("box_amount_title", what=labels(spot), low=low, high=high)

    async def chosen(entry: object) -> None:
        if isinstance(entry, tuple):
            box, amount = entry
            await app.send(cmd.Command(ante=cmd.Ante(seat=box, amount=amount)) if spot == "ante"
                           else cmd.Command(bonus=cmd.Bonus(seat=box, amount=amount)))

    reasons = (labels("bad_box_amount"), labels("bad_amount", low=low, high=high))
    app.push_screen(BoxAmountPrompt(title, free[0] if free else 1, low, high, reasons, most=most), chosen)


def card_by_hand(app: StationApp) -> None:
    """One card keyed by hand while a shoe deals (a card the shoe could not read, R-DECK-4)."""

    async def chosen(given: object) -> None:
        if isinstance(given, list) and given:
            await app.deal(given[0])

    app.push_screen(CardsPrompt(app.labels("card_by_hand"), 1, app.labels("bad_card", text="{text}"),
                                app.labels.lang), chosen)
