"""The dashboard's connection to the table service: a ``grpc.aio`` channel to the service's own gRPC port, on the
same event loop, every call made with the signed-in station's token.

The dashboard is a client of the API like any station (docs/pit.md): the service's role matrix, its rules and its
one visibility policy decide what a session sees and may do; nothing is decided twice.  A refusal keeps its rule id
(``ErrorInfo.reason``) for the page to show.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from google.rpc import error_details_pb2, status_pb2

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb

DEADLINE = 10.0


@dataclass(frozen=True)
class Caller:
    """Who a call is made as: a station's token and, once a person signed in there (issue 32), his session."""

    token: str
    session: str = ""

    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The call's metadata: the station's ``authorization`` and the person's ``pokertable-session``."""
        station = ("authorization", f"Bearer {self.token}")
        return (station, ("pokertable-session", self.session)) if self.session else (station,)

    def __repr__(self) -> str:  # secrets: never in a log line or a traceback
        return "Caller(…)"


def _metadata(token: str | Caller) -> tuple[tuple[str, str], ...]:
    return token.metadata() if isinstance(token, Caller) else (("authorization", f"Bearer {token}"),)


@dataclass(frozen=True)
class RefusedError(Exception):
    """A call the service refused: its status code's name, the rule it names (or ``""``) and its message."""

    code: str
    rule: str
    message: str

    def __str__(self) -> str:
        """The message with its rule, once (the service's message often names it already: issue 34).

        >>> str(RefusedError("FAILED_PRECONDITION", "R-THB-10", "the games director approves (R-THB-10)"))
        'the games director approves (R-THB-10)'
        >>> str(RefusedError("FAILED_PRECONDITION", "R-THB-10", "the games director approves"))
        'the games director approves (R-THB-10)'
        """
        if not self.rule or self.rule in self.message:
            return self.message
        return f"{self.message} ({self.rule})"


def refused(error: grpc.aio.AioRpcError) -> RefusedError:
    """The refusal of a failed call, with the rule from its ``google.rpc.Status`` details."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return RefusedError(error.code().name, str(info.reason), str(error.details() or ""))
    return RefusedError(error.code().name, "", str(error.details() or ""))


async def _streamed(call: Any) -> AsyncIterator[Any]:
    """A server stream's messages; :class:`RefusedError` when the service says no."""
    try:
        async for message in call:
            yield message
    except grpc.aio.AioRpcError as error:
        raise refused(error) from None


M = TypeVar("M", bound=Message)
"""A request message of the API."""



def ranged(request: M, since: datetime | None, until: datetime | None) -> M:
    """A request of a range (``since``/``until`` timestamps: ``ListShufflers``, ``ListDealerFigures``) with the bounds
    given set; an unset bound is the service's default (the current shift, or now)."""
    if since is not None:
        request.since.CopyFrom(timestamp(since))  # type: ignore[attr-defined]
    if until is not None:
        request.until.CopyFrom(timestamp(until))  # type: ignore[attr-defined]
    return request


def timestamp(moment: datetime) -> Timestamp:
    """A time as the API's ``google.protobuf.Timestamp``."""
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


class Api:
    """The table service, called with a station's token (create it inside the running event loop)."""

    def __init__(self, address: str, credentials: grpc.ChannelCredentials | None = None, *,
                 target_name: str = "") -> None:
        options = [("grpc.ssl_target_name_override", target_name)] if target_name else []
        self.channel = (grpc.aio.secure_channel(address, credentials, options=options) if credentials
                        else grpc.aio.insecure_channel(address))
        self.stub = svc_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.prefix = f"pit-{uuid.uuid4().hex[:10]}"
        self.counter = itertools.count(1)

    def command_id(self) -> str:
        """A fresh command id for a decision the dashboard sends."""
        return f"{self.prefix}-{next(self.counter)}"

    async def call(self, method: str, request: Any, token: str | Caller) -> Any:
        """One unary RPC; :class:`RefusedError` when the service says no."""
        try:
            return await getattr(self.stub, method)(request, metadata=_metadata(token), timeout=DEADLINE)
        except grpc.aio.AioRpcError as error:
            raise refused(error) from None

    async def tables(self, token: str | Caller, only: set[str] | None = None) -> list[pb.TableSummary]:
        """Every open table of the casino (or only these)."""
        reply: svc.ListTablesResponse = await self.call("ListTables", svc.ListTablesRequest(tables=sorted(only or ())),
                                                        token)
        return list(reply.tables)

    async def table(self, token: str | Caller, table: str, *, hand_start: bool = False) -> pb.TableView:
        """A table as the station may see it now (``hand_start``: with where its hand in progress started)."""
        reply: svc.GetTableResponse = await self.call(
            "GetTable", svc.GetTableRequest(table=table, with_hand_start=hand_start), token)
        return reply.view

    async def legal(self, token: str | Caller, table: str) -> svc.GetLegalActionsResponse:
        """Who acts at a table and what he may do (a decision waiting for the pit, among others)."""
        reply: svc.GetLegalActionsResponse = await self.call(
            "GetLegalActions", svc.GetLegalActionsRequest(table=table), token)
        return reply

    async def act(self, token: str | Caller, table: str, command: cmd.Command) -> svc.ActResponse:
        """One command of a table's hand (a decision: approve, refuse, decide a correction)."""
        reply: svc.ActResponse = await self.call(
            "Act", svc.ActRequest(command_id=self.command_id(), table=table, command=command), token)
        return reply

    def watch(self, token: str | Caller, table: str, after: int) -> AsyncIterator[svc.WatchResponse]:
        """Every change of a table (every table: ``""``) after a log position, then new ones as they are stored."""
        return _streamed(self.stub.Watch(svc.WatchRequest(table=table, after_position=after),
                                         metadata=_metadata(token)))

    def reconstruct(self, token: str | Caller, table: str, number: int,
                    reason: str) -> AsyncIterator[svc.ReconstructHandResponse]:
        """A hand event by event, for a dispute (the request and its reason recorded first, R-THB-13)."""
        return _streamed(self.stub.ReconstructHand(
            svc.ReconstructHandRequest(command_id=self.command_id(), table=table, hand_number=number, reason=reason),
            metadata=_metadata(token)))

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()
