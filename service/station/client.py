"""The station's connection to the table service: one token, fresh command ids, a method for each kind of call.

The command language of the reference station (service/station/reference.py, service/station/banked.py) and the devices
(service/station/hardware.py) all speak through it; it lives apart from them so that none of them imports another
in a circle (docs/architecture.md, "Walls").
"""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc

from service.api import pokertable_pb2 as pb
from service.api import pokertable_pb2_grpc as pb_grpc


@dataclass
class Station:
    """A connection to the service as one station (token), with fresh command ids."""

    address: str
    token: str
    credentials: grpc.ChannelCredentials | None = None
    prefix: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    counter: itertools.count[int] = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self.channel = (grpc.secure_channel(self.address, self.credentials) if self.credentials
                        else grpc.insecure_channel(self.address))
        self.stub = pb_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]

    def call(self, method: str, request: Any) -> Any:
        """One RPC with this station's token."""
        return getattr(self.stub, method)(request, metadata=(("authorization", f"Bearer {self.token}"),), timeout=30)

    def command_id(self) -> str:
        """A new command id (a retry reuses the previous one)."""
        return f"{self.prefix}-{next(self.counter)}"

    def hand(self, table: str, action: str, **fields: Any) -> pb.CommandReply:
        """A hand command."""
        reply: pb.CommandReply = self.call("HandCommand", pb.HandCommandRequest(
            command_id=self.command_id(), table=table, action=action, **fields))
        return reply

    def banked(self, table: str, action: str, **fields: Any) -> pb.CommandReply:
        """A banked-table command."""
        reply: pb.CommandReply = self.call("BankedCommand", pb.BankedCommandRequest(
            command_id=self.command_id(), table=table, action=action, **fields))
        return reply

    def table(self, table: str) -> pb.TableView:
        """The table as this station may see it."""
        view: pb.TableView = self.call("GetTable", pb.TableRequest(table=table))
        return view

    def legal(self, table: str) -> pb.LegalActions:
        """The actions open to the player to act."""
        legal: pb.LegalActions = self.call("GetLegalActions", pb.TableRequest(table=table))
        return legal

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()
