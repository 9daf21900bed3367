"""What every operation of the table menu shares (:mod:`.operations`): the situation the station offers them in,
the roles that may do them, and the shape of an operation: its label key, when it is offered, its fields and its
request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from google.protobuf.message import Message

from service.api import accounts_pb2 as acc
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.tui.forms import Field

CROUPIER, PIT_BOSS = "croupier", "pit-boss"
BOTH = frozenset({CROUPIER, PIT_BOSS})
PIT = frozenset({PIT_BOSS})


@dataclass(frozen=True)
class Situation:
    """What the station knows when it offers the operations: the table (an empty view: not open), the role the
    station acts in, whether a person is signed in there, the hand's deck size (a shuffler to reshuffle with)."""

    view: pb.TableView
    role: str
    signed_in: bool = False
    shuffler: bool = False

    @property
    def open(self) -> bool:
        return bool(self.view.table) and not (self.view.circle.closed if self.circle else self.view.banked.closed)

    @property
    def circle(self) -> bool:
        return bool(self.view.WhichOneof("detail") == "circle")

    @property
    def between_hands(self) -> bool:
        return self.open and not self.view.hand_in_progress

    @property
    def seats(self) -> list[int]:
        """The seats taken at a circle table between hands."""
        return sorted(self.view.circle.stacks)


Values = Mapping[str, Any]
Request = tuple[str, Message]


def chips(values: Any) -> list[acc.ChipCount]:
    """Chips by denomination as the accounts take them (R-ACC-2)."""
    return [acc.ChipCount(denomination=denomination, chips=count) for denomination, count in values]


class Operation:
    """One thing done at the table: its label key, its roles and when it is offered, its fields, its request."""

    name: ClassVar[str]
    roles: ClassVar[frozenset[str]] = BOTH
    choices: ClassVar[tuple[str, ...]] = ()
    """A choice made before the form (the game of a table to open), from a menu."""

    def offered(self, now: Situation) -> bool:
        return now.open

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return ()

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        raise NotImplementedError


def act_request(table: str, command_id: str, command: cmd.Command) -> Request:
    """An ``Act`` of one command at the table."""
    return "Act", svc.ActRequest(command_id=command_id, table=table, command=command)
