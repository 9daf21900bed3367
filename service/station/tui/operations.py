"""The shift's operations at the station (issue 33, item 1): everything a croupier or a pit boss does at the table
besides dealing a hand, one class each, keyed by name in :data:`OPERATIONS`.

Each says who may do it (the role matrix of docs/service.md: ``croupier`` or ``pit-boss``), when (a hand in
progress or between hands, a circle or banked table), the fields it asks for (:mod:`.forms`) and the request it
sends (``(rpc, request)``).  The station offers only what its role may do now; the service checks everything again and
a refusal is shown with its rule (nothing is recorded then)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.client import value, word
from service.station.tui.forms import Field
from service.station.tui.operation_base import (
    PIT,
    Operation,
    Request,
    Situation,
    Values,
    act_request,
)
from service.station.tui.operations_accounts import (
    CloseShift,
    OpenShift,
    RecordDrop,
    RequestCredit,
    RequestFill,
    SignTransfer,
    WithdrawTransfer,
)

GAMES = tuple(word(pb.Game, number) for number in pb.Game.values() if number)
"""Every game's code, as the API numbers them (the table menu's game menu)."""
STRUCTURES = ("no-limit", "pot-limit", "fixed-limit")


def _seat_field(now: Situation, *, free: bool = False) -> Field:
    taken = now.seats
    if free:
        count = 10
        default = next((str(seat) for seat in range(1, count + 1) if seat not in taken), "")
    else:
        default = str(taken[0]) if taken else ""
    return Field("seat", "f_seat", "int", default, low=1)


CIRCLE_DEFAULTS: Mapping[str, Mapping[str, str]] = {
    "holdem": {"structure": "no-limit", "blinds": "1/2"},
    "omaha": {"structure": "pot-limit", "blinds": "1/2"},
    "pineapple": {"structure": "no-limit", "blinds": "1/2"},
    "stud7": {"structure": "fixed-limit", "ante": "1", "bring_in": "1", "small_bet": "2", "big_bet": "4"},
    "stud5": {"structure": "fixed-limit", "ante": "1", "small_bet": "2", "big_bet": "4"},
    "draw": {"structure": "fixed-limit", "ante": "1", "small_bet": "2", "big_bet": "4"},
    "sintetico": {"structure": "pot-limit", "ante": "1", "min_bet": "2"},
}
"""The settings a new circle table of each game is proposed with (every one can be changed in the form)."""


def circle_fields(game: str) -> tuple[Field, ...]:
    """Every setting of a circle table (R-CIRC-4, R-CIRC-5, R-FLOP-1, R-STUD7-1, R-CARD-2)."""
    given = CIRCLE_DEFAULTS.get(game, CIRCLE_DEFAULTS["holdem"])
    return (Field("structure", "f_structure", "choice", given["structure"], STRUCTURES),
            Field("ante", "f_ante", "int", given.get("ante", "0")),
            Field("blinds", "f_blinds", "optional-text", given.get("blinds", "")),
            Field("bring_in", "f_bring_in", "int", given.get("bring_in", "0")),
            Field("small_bet", "f_small_bet", "int", given.get("small_bet", "0")),
            Field("big_bet", "f_big_bet", "int", given.get("big_bet", "0")),
            Field("min_bet", "f_min_bet", "int", given.get("min_bet", "0")),
            Field("deck_size", "f_deck_size", "int", "0"))


def circle_settings(values: Values) -> pb.CircleSettings:
    """The circle settings typed in the form (blinds as ``1/2``: small, big, then any straddles)."""
    blinds = [int(part) for part in str(values["blinds"]).replace(" ", "").split("/") if part.isdigit()]
    return pb.CircleSettings(
        structure=cast("pb.BettingStructure", value(pb.BettingStructure, values["structure"])),
        ante=values["ante"], blinds=blinds, bring_in=values["bring_in"], small_bet=values["small_bet"],
        big_bet=values["big_bet"], min_bet=values["min_bet"], deck_size=values["deck_size"])


class OpenTable(Operation):
    """The pit boss opens the table of this station, of any game, with every setting it needs."""

    name, roles, choices = "op_open", PIT, GAMES

    def offered(self, now: Situation) -> bool:
        return not now.view.table

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        language = Field("language", "f_language", "choice", "es", ("es", "en"))
        game = value(pb.Game, choice)
        if game == pb.GAME_HOLDEM_BONUS:  # a standard table of R-THB-2
            return (Field("ante_min", "f_ante_min", "choice", "5", ("5", "10", "20")), language)
        if game == pb.GAME_CASINO_DRAW:  # R-CDP-1
            return (Field("ante_min", "f_ante_min", "int", "5", low=1),
                    Field("ante_max", "f_ante_max", "int", "100", low=1), language)
        return (Field("seat_count", "f_seat_count", "int", "10", low=2), *circle_fields(choice), language)

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        game = cast("pb.Game", value(pb.Game, choice))
        request = svc.OpenTableRequest(command_id=command_id, table=table, game=game, language=values["language"])
        if game == pb.GAME_HOLDEM_BONUS:
            request.holdem_bonus.CopyFrom(pb.HoldemBonusSettings(ante_min=int(values["ante_min"])))
        elif game == pb.GAME_CASINO_DRAW:
            request.casino_draw.CopyFrom(pb.CasinoDrawSettings(ante_min=values["ante_min"],
                                                               ante_max=values["ante_max"]))
        else:
            request.seat_count = values["seat_count"]
            request.circle.CopyFrom(circle_settings(values))
        return "OpenTable", request


class ConfigureTable(Operation):
    """The pit boss changes a circle table's settings between hands (its game stays, R-CIRC-5)."""

    name, roles = "op_configure", PIT

    def offered(self, now: Situation) -> bool:
        return now.between_hands and now.circle

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return circle_fields(word(pb.Game, now.view.game))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "ConfigureTable", svc.ConfigureTableRequest(command_id=command_id, table=table,
                                                           settings=circle_settings(values))


class CloseTable(Operation):
    """The pit boss closes the table between hands, of any game (asked to confirm)."""

    name, roles = "op_close_table", PIT

    def offered(self, now: Situation) -> bool:
        return now.between_hands

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "CloseTable", svc.CloseTableRequest(command_id=command_id, table=table)


class SeatPlayer(Operation):
    """A player sits at a free seat with his chips (R-CIRC-6)."""

    name = "op_seat"

    def offered(self, now: Situation) -> bool:
        return now.open and now.circle

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (_seat_field(now, free=True), Field("chips", "f_chips", "int", "", low=1))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "SeatPlayer", svc.SeatPlayerRequest(command_id=command_id, table=table, seat=values["seat"],
                                                   chips=values["chips"])


class LeaveSeat(Operation):
    """A player leaves his seat with his chips."""

    name = "op_leave"

    def offered(self, now: Situation) -> bool:
        return now.between_hands and now.circle and bool(now.seats)

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (_seat_field(now),)

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "LeaveSeat", svc.LeaveSeatRequest(command_id=command_id, table=table, seat=values["seat"])


class AddChips(Operation):
    """A seated player buys more chips between hands (a rebuy, R-CIRC-6)."""

    name = "op_add_chips"

    def offered(self, now: Situation) -> bool:
        return now.between_hands and now.circle and bool(now.seats)

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (_seat_field(now), Field("chips", "f_chips", "int", "", low=1))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "AddChips", svc.AddChipsRequest(command_id=command_id, table=table, seat=values["seat"],
                                               chips=values["chips"])


class CorrectStack(Operation):
    """The pit boss sets a seat's stack, with the reason (recorded, R-AUD-1)."""

    name, roles = "op_correct_stack", PIT

    def offered(self, now: Situation) -> bool:
        return now.between_hands and now.circle and bool(now.seats)

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (_seat_field(now), Field("chips", "f_new_stack", "int", ""), Field("reason", "f_reason", "text"))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "CorrectStack", svc.CorrectStackRequest(command_id=command_id, table=table, seat=values["seat"],
                                                       chips=values["chips"], reason=values["reason"])


class VoidHand(Operation):
    """The pit boss voids the hand in progress: every chip goes back (R-CIRC-14, R-THB-11 1.c)."""

    name, roles = "op_void", PIT

    def offered(self, now: Situation) -> bool:
        return now.open and now.view.hand_in_progress

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        rule = "R-CIRC-14" if now.circle else "R-THB-11"
        return (Field("rule", "f_rule", "text", rule), Field("reason", "f_reason", "text"))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return act_request(table, command_id, cmd.Command(void=cmd.Void(rule=values["rule"], reason=values["reason"])))


class ExposeCard(Operation):
    """A player's down card was shown by mistake: it is played face up (R-CIRC-9); the card is seen by all."""

    name = "op_expose"

    def offered(self, now: Situation) -> bool:
        return now.open and now.circle and now.view.hand_in_progress

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (Field("seat", "f_seat", "int", low=1), Field("card", "f_card", "text"))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        card = values["card"]  # read as a card code in the station's language by the table menu (shift.send)
        return act_request(table, command_id, cmd.Command(expose_card=cmd.ExposeCard(seat=values["seat"], card=card)))


class AcknowledgeHold(Operation):
    """The pit boss acknowledges an alert holding the table, with the reason (R-HOLD-1)."""

    name, roles = "op_acknowledge_hold", PIT

    def offered(self, now: Situation) -> bool:
        return bool(now.view.holds)

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (Field("position", "f_hold", "int", str(now.view.holds[0].position), low=1),
                Field("reason", "f_reason", "text"))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "AcknowledgeAlert", svc.AcknowledgeAlertRequest(command_id=command_id, table=table,
                                                               position=values["position"], reason=values["reason"])


class Reshuffle(Operation):
    """The deck the table requires shuffled again is reshuffled by hand (R-THB-11, no shuffler at this station)."""

    name = "op_reshuffle"

    def offered(self, now: Situation) -> bool:
        return (now.between_hands and not now.circle and not now.shuffler
                and now.view.banked.HasField("reshuffle_required"))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return act_request(table, command_id, cmd.Command(reshuffle=cmd.Reshuffle()))


class SignIn(Operation):
    """A person signs in at this station with his badge and PIN (issue 32); at a croupier's station he becomes the
    table's dealer, the one before him signed out (a rotation, R-AUD-1)."""

    name = "op_sign_in"

    def offered(self, now: Situation) -> bool:
        return True

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (Field("badge", "f_badge", "text"), Field("pin", "f_pin", "secret"))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        if not values["pin"]:  # before the staff are in force: the dealer's id alone (R-AUD-1)
            return "SignIn", svc.SignInRequest(command_id=command_id, table=table, dealer_id=values["badge"])
        return "SignIn", svc.SignInRequest(command_id=command_id, table=table, badge=values["badge"],
                                           pin=values["pin"])


class SignOut(Operation):
    """The person signed in here signs out (the station then does nothing until the next one signs in)."""

    name = "op_sign_out"

    def offered(self, now: Situation) -> bool:
        return now.signed_in

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "SignOut", svc.SignOutRequest(command_id=command_id, table=table)


OPERATIONS: Mapping[str, Operation] = {operation.name: operation for operation in (
    SignIn(), SignOut(), OpenTable(), SeatPlayer(), AddChips(), LeaveSeat(), CorrectStack(), OpenShift(),
    RequestFill(), RequestCredit(), SignTransfer(), WithdrawTransfer(), RecordDrop(), CloseShift(), VoidHand(),
    ExposeCard(), AcknowledgeHold(), Reshuffle(), ConfigureTable(), CloseTable())}
"""Every operation of the shift, by its label key, in the order the menu lists them."""
CONFIRMED = frozenset({"op_close_table", "op_void", "op_sign_out"})
"""Operations asked again (y/n) before they are sent: they cannot be taken back."""


def offered(now: Situation) -> list[Operation]:
    """The operations this station's role may do now, in the menu's order."""
    return [operation for operation in OPERATIONS.values() if now.role in operation.roles and operation.offered(now)]

