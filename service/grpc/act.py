"""The Act RPC's Command (commands.proto) as the application's command of the table's family: a circle hand's
:class:`HandCommand` or a banked table's :class:`BankedCommand` (``service/app/commands.py``).

A case's name is the application's action (``all_in`` → ``all-in``), but for the two the application names shorter;
its fields are read generically by name (``seat``, ``amount``, ``card``, ``cards``, ``source``, ``sequence``,
``rule``, ``reason``, ``director``, ``correctable``), each checked with its field path (``command.bet.amount``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from service.api import commands_pb2 as cmd
from service.app.application import BankedCommand, HandCommand
from service.grpc.errors import _StatusError, invalid
from service.grpc.requests import _cards, _chips, _parsed_card, _seat, _source, _text

ACTIONS: Mapping[str, str] = {"approve_bonus": "approve", "refuse_bonus": "refuse"}
"""Command cases whose application action is not their name with ``-`` for ``_``."""


def action_of(case: str) -> str:
    """The application's action of a Command case."""
    return ACTIONS.get(case, case.replace("_", "-"))


def case_of(action: str) -> str:
    """The Command case of an application action (for legal actions)."""
    named = {value: key for key, value in ACTIONS.items()}
    return named.get(action, action.replace("-", "_"))


@dataclass(frozen=True)
class Parsed:
    """A command's case and fields, checked, before the family is known."""

    case: str
    fields: dict[str, Any]

    @property
    def action(self) -> str:
        """The application's action."""
        return action_of(self.case)

    def circle(self) -> HandCommand:
        """As a circle hand's command."""
        fields = dict(self.fields)
        fields.pop("director", None)
        fields.pop("correctable", None)
        return HandCommand(action=self.action, **fields)

    def banked(self) -> BankedCommand:
        """As a banked table's command (a seat is the box)."""
        fields = dict(self.fields)
        fields["box"] = fields.pop("seat", None)
        return BankedCommand(action=self.action, **fields)


def parse_command(command: cmd.Command, path: str = "command") -> Parsed:
    """The case and fields of a Command; INVALID_ARGUMENT (field path under ``path``) for a malformed one."""
    case = command.WhichOneof("command")
    if case is None:
        raise _StatusError(grpc.StatusCode.INVALID_ARGUMENT, "a command is one of the cases of Command (e.g. deal, "
                           "fold, bet)", "R-CIRC-3", path)
    message = getattr(command, case)
    where = f"{path}.{case}"
    fields: dict[str, Any] = {}
    for descriptor in message.DESCRIPTOR.fields:
        name, at = descriptor.name, f"{where}.{descriptor.name}"
        optional = descriptor.has_presence
        if optional and not message.HasField(name):
            continue
        value = getattr(message, name)
        if name == "seat":
            fields["seat"] = _seat(value, at)
        elif name == "amount":
            fields["amount"] = _chips(value, at)
        elif name == "card":
            fields["card"] = _parsed_card(_text(value, at), at)
        elif name == "cards":
            fields["cards"] = _cards(value, at)
        elif name == "source":
            fields["source"] = _source(value, at)
        elif name == "sequence":
            fields["sequence"] = value
        elif name in ("rule", "reason", "director"):
            fields[name] = _text(value, at, required=False)
        elif name == "correctable":
            fields["correctable"] = bool(value)
        else:  # a field this server does not know yet: refused rather than dropped
            raise invalid(f"{at} is not understood by this server", at)
    return Parsed(case, fields)
