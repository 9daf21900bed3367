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
        fields.pop("replacement", None)  # corrections are circle commands (refused at a banked table before this)
        fields.pop("approve", None)
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


def _replacement(command: cmd.Command, at: str) -> HandCommand:
    """A correction's replacement: a betting case of Command, checked like any (``...replacement.bet.amount``)."""
    case = command.WhichOneof("command")
    if case not in BETTING_CASES:
        raise invalid(f"a correction's replacement is a betting action ({', '.join(BETTING_CASES)})", at, "R-AUD-1")
    return parse_command(command, at).circle()
