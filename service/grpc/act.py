"""The Act RPC's Command (commands.proto) as the domain's action (:mod:`domain.actions`): each case of Command is one
action class for each game that takes it (:data:`CASES`; ``bet`` is a circle table's :class:`BetTo` and a Texas
Hold'em Bonus box's :class:`StreetBet`), chosen by the table's game (:attr:`domain.games.Game.actions`).

A case's fields are read generically by name (``seat``, ``amount``, ``card``, ``cards``, ``source``, ``sequence``,
``rule``, ``reason``, ``director``, ``correctable``, ``approve``, ``replacement``), each checked with its field path
(``command.bet.amount``), and are the action's fields of the same names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import grpc

from domain.actions import (
    BETTING,
    Absent,
    Action,
    AllIn,
    ApproveBonus,
    BetTo,
    BringIn,
    Call,
    Check,
    CloseBets,
    Deal,
    DealerCardShown,
    DecideCorrection,
    Discard,
    Exchange,
    ExposeCard,
    ExposeHand,
    FaceUpCard,
    FlopBet,
    Fold,
    Muck,
    PlaceAnte,
    PlaceBonus,
    Play,
    Reconstruction,
    RefuseBonus,
    RequestCorrection,
    Reshuffle,
    ReshuffleDiscards,
    Show,
    StreetBet,
    Void,
    WrongCount,
)
from domain.games import Game
from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from service.grpc.errors import _StatusError, invalid
from service.grpc.requests import _cards, _chips, _parsed_card, _seat, _source, _text

CASES: Mapping[str, tuple[type[Action], ...]] = {
    "deal": (Deal,), "fold": (Fold,), "check": (Check,), "call": (Call,), "bet": (BetTo, StreetBet),
    "all_in": (AllIn,), "bring_in": (BringIn,), "discard": (Discard,), "reshuffle_discards": (ReshuffleDiscards,),
    "show": (Show,), "muck": (Muck,), "expose_card": (ExposeCard,), "expose_hand": (ExposeHand,),
    "absent": (Absent,), "void": (Void,), "ante": (PlaceAnte,), "bonus": (PlaceBonus,), "close_bets": (CloseBets,),
    "flop_bet": (FlopBet,), "exchange": (Exchange,), "play": (Play,), "approve_bonus": (ApproveBonus,),
    "refuse_bonus": (RefuseBonus,), "dealer_card_shown": (DealerCardShown,), "face_up_card": (FaceUpCard,),
    "wrong_count": (WrongCount,), "reconstruction": (Reconstruction,), "reshuffle": (Reshuffle,),
    "request_correction": (RequestCorrection,), "decide_correction": (DecideCorrection,),
}
"""Each case of Command, by the action classes it is (one for each game that takes it)."""
CASE_OF: Mapping[type[Action], str] = {kind: case for case, kinds in CASES.items() for kind in kinds}
"""The Command case (and ActionKind) of each action class."""


def action_kind(kind: type[Action]) -> pb.ActionKind:
    """The ActionKind of an action class (GetLegalActions' ``allowed``)."""
    return cast(pb.ActionKind, pb.ActionKind.Value(f"ACTION_KIND_{CASE_OF[kind].upper()}"))


@dataclass(frozen=True)
class Parsed:
    """A command's case and fields, checked, before the table's game is known."""

    case: str
    fields: dict[str, Any]

    def action(self, game: Game) -> Action:
        """The action this case is at a table of ``game``; FAILED_PRECONDITION (the game's rule) when the game
        takes no action of this case."""
        kind = next((kind for kind in CASES[self.case] if kind in game.actions), None)
        if kind is None:
            raise _StatusError(grpc.StatusCode.FAILED_PRECONDITION, f"{self.case} is not a command of {game.code}",
                               game.foreign_rule)
        return kind(**self.fields)


def parse_command(command: cmd.Command, path: str = "command") -> Parsed:
    """The case and fields of a Command; INVALID_ARGUMENT (field path under ``path``) for a malformed one."""
    case = command.WhichOneof("command")
    if case is None:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "a command is one of the cases of Command (e.g. deal, "
                           "fold, bet)", "R-CIRC-3", path)
    message = getattr(command, case)
    where = f"{path}.{case}"
    fields: dict[str, Any] = {}
    for name, optional in _fields_of(message):
        if optional and not message.HasField(name):
            continue
        fields[name] = _field(name, getattr(message, name), f"{where}.{name}")
    if case in CORRECTIONS:
        _verify_correction(case, fields, where)
    return Parsed(case, fields)


_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}
"""Each command case's fields (name, has presence), read once from its descriptor."""


def _fields_of(message: Any) -> tuple[tuple[str, bool], ...]:
    found = _FIELDS.get(type(message))
    if found is None:
        found = _FIELDS[type(message)] = tuple((d.name, d.has_presence) for d in message.DESCRIPTOR.fields)
    return found


def _field(name: str, value: Any, at: str) -> Any:  # noqa: PLR0911  (one case a field)
    """One field of a command case, checked (``at``: its path)."""
    if name == "seat":
        return _seat(value, at)
    if name == "amount":
        return _chips(value, at)
    if name == "card":
        return _parsed_card(_text(value, at), at)
    if name == "cards":
        return _cards(value, at)
    if name == "source":
        return _source(value, at)
    if name == "sequence":
        return value
    if name in ("rule", "reason", "director"):
        return _text(value, at, required=False)
    if name in ("correctable", "approve"):
        return bool(value)
    if name == "replacement":
        return _replacement(value, at)
    raise invalid(f"{at} is not understood by this server", at)  # a field this server does not know yet: refused


def _verify_correction(case: str, fields: dict[str, Any], where: str) -> None:
    """A correction names its replacement (a request) and its reason (R-AUD-1)."""
    if case == "request_correction" and "replacement" not in fields:
        raise invalid("a correction names the betting action that happened", f"{where}.replacement", "R-AUD-1")
    if not fields.get("reason"):
        raise invalid("a correction states its reason (1 to 200 characters)", f"{where}.reason", "R-AUD-1")


CORRECTIONS = ("request_correction", "decide_correction")
"""The Command cases of a correction (R-AUD-1, docs/station.md)."""
BETTING_CASES = ("fold", "check", "call", "bet", "all_in", "bring_in")
"""The cases a correction's replacement may be (R-AUD-1)."""


def _replacement(command: cmd.Command, at: str) -> Action:
    """A correction's replacement: a betting case of Command, checked like any (``...replacement.bet.amount``), as
    the circle betting action it is (R-AUD-1)."""
    case = command.WhichOneof("command")
    if case not in BETTING_CASES:
        raise invalid(f"a correction's replacement is a betting action ({', '.join(BETTING_CASES)})", at, "R-AUD-1")
    parsed = parse_command(command, at)
    kind = next(kind for kind in CASES[case] if kind in BETTING)
    return kind(**parsed.fields)
