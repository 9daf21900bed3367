"""The station's connection to the table service: one token, fresh command ids, a method for each kind of call.

The command language of the reference station (service/station/reference.py, service/station/banked.py) and the devices
(service/station/hardware.py) all speak through it; it lives apart from them so that none of them imports another
in a circle (docs/architecture.md, "Walls").

Every command of a hand, circle or banked, is one ``Act`` RPC carrying a typed ``Command`` (commands.proto); the
helpers here build it from the command's name (``"flop-bet"`` is the ``flop_bet`` case) and its fields, and turn
the enums of types.proto into the words a croupier reads ("red", "preflop") and back.
"""

from __future__ import annotations

import argparse
import getpass
import itertools
import os
import stat
import sys
import uuid
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.station import RECONNECT

COMMAND_CASES = {f.name: f for f in cmd.Command.DESCRIPTOR.fields}
"""The cases of ``Command.command`` by name (``deal``, ``fold``, ..., ``reshuffle``)."""


def command(action: str, **fields: Any) -> cmd.Command:
    """The ``Command`` of one action: ``command("flop-bet", seat=1, amount=20)``; ``source="shoe"`` and an enum's
    short name are accepted where the field is an enum.  Unknown actions or fields raise ``ValueError``."""
    case = COMMAND_CASES.get(action.replace("-", "_"))
    if case is None:
        raise ValueError(f"no command {action!r}")
    shape = case.message_type
    assert shape is not None  # every case of the oneof is a message
    message_class: type[Message] = getattr(cmd, shape.name)
    typed = {name: _enum_field(shape.fields_by_name[name], value) if name in shape.fields_by_name else value
             for name, value in fields.items()}
    try:
        message = message_class(**typed)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{action}: {error}") from error
    typed_command = cmd.Command()
    getattr(typed_command, case.name).CopyFrom(message)
    return typed_command


def _enum_field(descriptor: Any, value: Any) -> Any:
    """A string given for an enum field is its value's short name: ``"shoe"`` for ``CARD_SOURCE_SHOE``."""
    if descriptor.enum_type is None or not isinstance(value, str):
        return value
    prefix = enum_prefix(descriptor.enum_type.name)
    return descriptor.enum_type.values_by_name[prefix + value.upper().replace("-", "_")].number


def enum_prefix(enum_name: str) -> str:
    """The prefix of an enum's value names: ``DeckColour`` → ``DECK_COLOUR_``."""
    return "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(enum_name)).upper() + "_"


def word(enum: Any, value: int) -> str:
    """An enum value as the croupier reads it: ``word(pb.DeckColour, pb.DECK_COLOUR_RED)`` is ``"red"``,
    ``word(pb.Game, pb.GAME_STUD7)`` is ``"stud7"``; ``""`` for the unspecified value."""
    name: str = enum.Name(value)
    short = name.removeprefix(enum_prefix(enum.DESCRIPTOR.name))
    return "" if short == "UNSPECIFIED" else short.lower().replace("_", "-")


def value(enum: Any, short: str) -> int:
    """The enum value of a short name: ``value(pb.DeckColour, "blue")`` is ``pb.DECK_COLOUR_BLUE``."""
    number: int = enum.Value(enum_prefix(enum.DESCRIPTOR.name) + short.upper().replace("-", "_"))
    return number


def colour(short: str) -> pb.DeckColour:
    """A deck colour from its word (``red``, ``blue``); ``ValueError`` otherwise."""
    return cast("pb.DeckColour", value(pb.DeckColour, short))


def target(view: pb.TableView) -> str:
    """Where the next card goes, as a croupier says it (``hole 3``, ``box 2``, ``dealer-left``), or ``""``."""
    detail = view.circle if view.WhichOneof("detail") == "circle" else view.banked
    if not detail.HasField("next_card"):
        return ""
    due = detail.next_card
    where = word(pb.CardTarget, due.target)
    return f"{where} {due.seat}" if due.HasField("seat") else where


def card_due(view: pb.TableView) -> bool:
    """Whether a card is due at the table (circle or banked)."""
    detail = view.circle if view.WhichOneof("detail") == "circle" else view.banked
    return detail.HasField("next_card") and detail.next_card.target != pb.CARD_TARGET_UNSPECIFIED


RULE_REFUSALS = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT)


def refusing_rule(error: grpc.RpcError) -> str:
    """The rule a refusal names (``R-…``, the reason of its google.rpc.ErrorInfo), or ``""`` when the service did not
    refuse by a rule: then the command may not have been applied for any reason (unreachable, store failure, …) and is
    held and retried, never dropped."""
    if not isinstance(error, grpc.Call) or error.code() not in RULE_REFUSALS:
        return ""
    status = rpc_status.from_call(error)
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info) and info.reason.startswith("R-"):
            return str(info.reason)
    return ""


def call_metadata(token: str, session: str = "") -> tuple[tuple[str, str], ...]:
    """A call's metadata: the station's token and, with a person signed in there, his session (issue 32)."""
    station = ("authorization", f"Bearer {token}")
    return (station, ("pokertable-session", session)) if session else (station,)


def station_token(args: argparse.Namespace, command: str = "station") -> str:
    """The station's token: ``--token-file FILE`` (its first line), else ``POKERTABLE_TOKEN``, else ``--token`` with
    a warning (the command line shows it to everyone on the machine: ``ps``).  ``ValueError`` for none."""
    path = getattr(args, "token_file", None)
    if path is not None:
        if path.exists() and path.stat().st_mode & stat.S_IROTH:
            raise ValueError(f"--token-file {path} is readable by anyone on this machine: chmod o-rwx {path}")
        try:
            token = path.read_text(encoding="utf-8").partition("\n")[0].strip()
        except OSError as error:
            raise ValueError(f"--token-file {path}: {error.strerror}") from None
    else:
        token = os.environ.get("POKERTABLE_TOKEN", "").strip()
    given = getattr(args, "token", None)
    if not token and given:
        print(f"pokertable {command}: warning: --token shows the station's token to everyone on this machine (ps, "
              "the shell's history): use --token-file FILE or POKERTABLE_TOKEN", file=sys.stderr, flush=True)
        token = given
    if not token:
        raise ValueError("the station's token: --token-file FILE or POKERTABLE_TOKEN")
    return str(token)


def croupier_pin(badge: str) -> str:
    """The PIN of the croupier signing in: ``POKERTABLE_PIN``, else asked on the terminal (not echoed)."""
    pin = os.environ.get("POKERTABLE_PIN", "")
    if pin:
        return pin
    if not sys.stdin.isatty():
        raise ValueError(f"the PIN of {badge}: POKERTABLE_PIN, or run on a terminal to be asked")
    return getpass.getpass(f"PIN of {badge}: ")


@dataclass
class Station:
    """A connection to the service as one station (token), with fresh command ids."""

    address: str
    token: str = field(repr=False)
    credentials: grpc.ChannelCredentials | None = None
    prefix: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    counter: itertools.count[int] = field(default_factory=itertools.count)
    session: str = field(default="", repr=False)
    """The session of the person signed in here (issue 32: sent with every call once the staff are in force)."""

    def __post_init__(self) -> None:
        self.channel = (grpc.secure_channel(self.address, self.credentials, options=RECONNECT) if self.credentials
                        else grpc.insecure_channel(self.address, options=RECONNECT))
        self.stub = svc_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]

    def call(self, method: str, request: Any) -> Any:
        """One RPC with this station's token (and the session of the person signed in here)."""
        return getattr(self.stub, method)(request, metadata=call_metadata(self.token, self.session), timeout=30)

    def sign_in(self, badge: str, pin: str) -> svc.SignInResponse:
        """A person signs in here with his badge and PIN (issue 32): his session goes with every later call."""
        reply: svc.SignInResponse = self.call("SignIn", svc.SignInRequest(badge=badge, pin=pin))
        self.session = reply.session
        return reply

    def command_id(self) -> str:
        """A new command id (a retry reuses the previous one)."""
        return f"{self.prefix}-{next(self.counter)}"

    def act(self, table: str, action: str | cmd.Command, *, command_id: str | None = None,
            **fields: Any) -> svc.ActResponse:
        """One command of the table's hand (any game): a ``Command`` or an action's name and fields
        (``act(t, "bet", seat=3, amount=40)``)."""
        typed = action if isinstance(action, cmd.Command) else command(action, **fields)
        reply: svc.ActResponse = self.call("Act", svc.ActRequest(
            command_id=command_id or self.command_id(), table=table, command=typed))
        return reply

    def hand(self, table: str, action: str, **fields: Any) -> svc.ActResponse:
        """A command of a circle hand (``Act``): ``hand(t, "fold", seat=2)``."""
        return self.act(table, action, **fields)

    def banked(self, table: str, action: str, **fields: Any) -> svc.ActResponse:
        """A command of a banked table (``Act``); a box is a ``seat``: ``banked(t, "ante", seat=1, amount=10)``."""
        return self.act(table, action, **fields)

    def start(self, table: str, deck_colour: str | pb.DeckColour = pb.DECK_COLOUR_UNSPECIFIED,
              **fields: Any) -> svc.StartHandResponse:
        """Start the next hand at a table of any game (``deck_colour``: ``red``/``blue`` or the enum)."""
        deck = colour(deck_colour) if isinstance(deck_colour, str) else deck_colour
        reply: svc.StartHandResponse = self.call("StartHand", svc.StartHandRequest(
            command_id=self.command_id(), table=table, deck_colour=deck, **fields))
        return reply

    def table(self, table: str) -> pb.TableView:
        """The table (any game) as this station may see it: the common fields and its ``circle`` or ``banked``
        detail."""
        reply: svc.GetTableResponse = self.call("GetTable", svc.GetTableRequest(table=table))
        return reply.view

    def legal(self, table: str) -> svc.GetLegalActionsResponse:
        """What may be done now: the seat (or box) to act and its allowed commands."""
        legal: svc.GetLegalActionsResponse = self.call("GetLegalActions", svc.GetLegalActionsRequest(table=table))
        return legal

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()
