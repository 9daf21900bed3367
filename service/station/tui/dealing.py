"""The station's cards: which keys are live now, a card keyed where it is due, the next hand's deck, and the
discards a seat gives back (issue 33, item 2).

**Never a face-down card in the croupier's hands or eyes** (RULES.md D-SEE-1): at the croupier's station a face-down
card (a hole card, a burn, a box's or the house's card) comes from the shoe; the croupier keys only a face-up card
(the board, a stud up card) and, when a seat discards or a box exchanges, how many cards (one digit): the shoe reads
them as he passes them face down over its reader (:mod:`service.station.discards`).  Without a working shoe a
face-down card is keyed at the pit's station, by the pit boss, whom the visibility policy lets see it.  The pit's
station (``sees_down_cards``) keys any card."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import grpc

from devices.protocol import Colour
from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from service.station.tui import corrections
from service.station.tui.keys import ALLOWS
from service.station.tui.link import Link, refusal
from service.station.tui.prompts import card_code

if TYPE_CHECKING:
    from service.api import table_service_pb2 as svc
    from service.station.tui.devices import StationDevices
    from service.station.tui.hand_log import HandLog
    from service.station.tui.i18n import Labels

MOST_GIVEN_BACK = {pb.GAME_DRAW: 4, pb.GAME_PINEAPPLE: 1, pb.GAME_CASINO_DRAW: 2}
"""The most cards a seat discards (R-DRAW-4, R-PINE-1) or a box exchanges (R-CDP-2); the service checks exactly."""


class StationApp(Protocol):
    """What the station's cards use of :class:`service.station.tui.app.StationApp`."""

    table_name: str
    view: pb.TableView
    legal: svc.GetLegalActionsResponse
    hand: HandLog
    labels: Labels
    devices: StationDevices | None
    sees_down_cards: bool
    message: str

    @property
    def link(self) -> Link: ...
    @property
    def banked(self) -> bool: ...

    def card_due(self) -> bool: ...
    def devices_changed(self) -> None: ...
    def say(self, message: str) -> None: ...
    async def send(self, command: cmd.Command) -> bool: ...
    async def refresh_view(self) -> None: ...
    def run_worker(self, work: Any, *, name: str, exclusive: bool) -> Any: ...


def next_card(view: pb.TableView) -> pb.NextCard:
    return view.circle.next_card if view.WhichOneof("detail") == "circle" else view.banked.next_card


def shoe_deals(app: StationApp) -> bool:
    return app.devices is not None and app.devices.shoe_deals


def keyed_card_due(app: StationApp) -> bool:
    """A card is due that this station may key: a face-up one, or any at the pit's station (D-SEE-1)."""
    return app.card_due() and (app.sees_down_cards or next_card(app.view).face_up)


def giving_back(app: StationApp) -> bool:
    """A seat is to discard (a box to exchange) now."""
    allowed = set(app.legal.allowed)
    return app.legal.HasField("seat") and not app.card_due() and (
        pb.ACTION_KIND_DISCARD in allowed or pb.ACTION_KIND_EXCHANGE in allowed)


def reading_discards(app: StationApp) -> bool:
    """The shoe is reading a seat's discards now."""
    hardware = app.devices.hardware if app.devices is not None else None
    return hardware is not None and hardware.discards.collecting is not None


def reading(app: StationApp) -> tuple[int, int, int] | None:
    """The discards the shoe is reading now: (seat, read so far, how many)."""
    hardware = app.devices.hardware if app.devices is not None else None
    collecting = hardware.discards.collecting if hardware is not None else None
    return None if collecting is None else (collecting.seat, len(collecting.cards), collecting.count)


def give_back_keys(app: StationApp) -> str:
    """The digits offered when a seat discards (a box exchanges), with what they do; "" when none is."""
    if not giving_back(app) or reading_discards(app):
        return ""
    counts = [count for count in range(5) if enabled(app, "discard", (count,))]
    if not counts:
        return ""
    keys = f"[{counts[0]}]" if len(counts) == 1 else f"[{counts[0]}–{counts[-1]}]"
    return f"{keys} {app.labels('give_back_shoe' if shoe_deals(app) else 'give_back_pat')}"


def enabled(app: StationApp, action: str, parameters: tuple[object, ...]) -> bool:
    """Only what the service allows now, and this station may do, is offered (and bound)."""
    if action == "discard":
        count = parameters[0] if parameters else 0
        most = MOST_GIVEN_BACK.get(app.view.game, 0)
        keyed = app.sees_down_cards or shoe_deals(app) or count == 0  # standing pat shows no card
        return (giving_back(app) and not reading_discards(app) and isinstance(count, int) and count <= most
                and keyed and not (app.view.game == pb.GAME_PINEAPPLE and count != 1))
    if action == "exchange":  # cards keyed by code: the pit's station only (D-SEE-1)
        return app.sees_down_cards and giving_back(app)
    if action in ALLOWS:
        if not app.legal.HasField("seat") or app.card_due() or reading_discards(app):
            return False
        return any(kind in app.legal.allowed for kind in ALLOWS[action])
    stage = app.view.banked.stage if app.banked else None
    betting = app.view.hand_in_progress and stage == pb.BANKED_STAGE_BETTING
    alerts = app.devices is not None and bool(app.devices.waiting)
    held = bool(app.view.holds) or bool(app.view.decks_out_of_play)
    checks = {"deal": app.view.hand_in_progress and app.card_due()
              and (keyed_card_due(app) if shoe_deals(app) else True),
              "acknowledge": alerts,
              "new_hand": bool(app.view.table) and not app.view.hand_in_progress and not alerts and not held,
              "ante": betting, "close_bets": betting, "correction": corrections.can_correct(app),  # type: ignore[arg-type]
              "bonus": betting and app.view.game == pb.GAME_HOLDEM_BONUS}
    return checks.get(action, True)


async def deal(app: StationApp, typed: str) -> None:
    """Deal the typed card where it is due, once it is a card code this station may key (the field is cleared
    either way)."""
    code = card_code(typed, app.labels.lang)
    if code is None:
        app.say(app.labels("bad_card", text=typed.strip()))
        return
    if not keyed_card_due(app):
        app.say(app.labels("face_down_due"))
        return
    await app.send(cmd.Command(deal=cmd.Deal(card=code, source=pb.CARD_SOURCE_CROUPIER)))


async def discard(app: StationApp, count: int) -> None:
    """The seat to act gives back ``count`` cards: with the shoe, it reads them (the croupier passes them over its
    reader); standing pat is sent at once.  At the pit's station without a shoe the cards are keyed by code."""
    seat, exchange = app.legal.seat, app.banked
    if count == 0:
        await app.send(cmd.Command(exchange=cmd.Exchange(seat=seat)) if exchange
                       else cmd.Command(discard=cmd.Discard(seat=seat)))
        return
    hardware = app.devices.hardware if app.devices is not None else None
    if hardware is None or not shoe_deals(app):  # not offered: cards given back are read by the shoe (D-SEE-1)
        return
    hardware.discards.expect(seat, count, exchange=exchange)
    app.say(app.labels("reading_discards", who=app.labels("box" if exchange else "seat", seat=seat), count=count))


async def new_hand(app: StationApp) -> None:
    """Start the next hand from the deck the table did not deal its last hand from (the service says which, so a
    restarted station knows: R-DECK-2; red first)."""
    colour = pb.DECK_COLOUR_BLUE if app.view.last_deck == pb.DECK_COLOUR_RED else pb.DECK_COLOUR_RED
    try:
        if (devices := app.devices) is not None and devices.hardware is not None:  # the shuffler delivers
            before = app.hand.number
            await devices.start_hand(Colour.BLUE if colour == pb.DECK_COLOUR_BLUE else Colour.RED)
            app.run_worker(devices.prepare_next(app, lambda: app.hand.deck_size * (app.hand.number != before)),
                           name="next deck", exclusive=False)
        else:
            await app.link.start(app.table_name, colour)
    except grpc.RpcError as error:  # the aio error, or the devices' synchronous one: the same refusal
        rule, message = refusal(error)
        app.message = app.labels.refusal(rule, message)
    else:
        app.message = ""
    await app.refresh_view()
