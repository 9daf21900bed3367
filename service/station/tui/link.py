"""The full-screen station's connection to the table service: asynchronous gRPC (``grpc.aio``) on the application's
own event loop, one token, fresh command ids, and the refusing rule read from the error's ``ErrorInfo``."""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

import grpc
from google.rpc import error_details_pb2, status_pb2

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.station import RECONNECT
from service.station.client import call_metadata

if TYPE_CHECKING:
    from service.station.tui.i18n import Labels

DEADLINE = 10.0
"""Seconds a unary call may take."""


class Failed(Protocol):
    """A failed call, asynchronous (``grpc.aio.AioRpcError``) or not (the devices' synchronous calls)."""

    def code(self) -> grpc.StatusCode: ...
    def details(self) -> str | None: ...
    def trailing_metadata(self) -> Any: ...


def refusal(error: grpc.RpcError | Failed) -> tuple[str, str]:
    """The rule id of a refused call (its ``ErrorInfo.reason``; without one, the status code's name) and its
    message."""
    failed = cast("Failed", error)
    for key, value in failed.trailing_metadata() or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return str(info.reason), str(failed.details() or "")
    return failed.code().name, str(failed.details() or "")


def failure(labels: Labels, error: grpc.RpcError | Failed) -> str:
    """A failed call as the croupier is told it: no connection only when there is none; else the service's
    answer (a refusal: no person signed in, no such table) with its rule."""
    rule, message = refusal(error)
    if cast("Failed", error).code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return labels("unavailable", message=message)
    return labels.refusal(rule, message)


async def table_language(address: str, token: str, table: str,
                         credentials: grpc.ChannelCredentials | None = None, session: str = "") -> str:
    """The language the table was opened with (``TableView.language``): its stations' default; Spanish when the
    service cannot be asked now (the station then shows its connection's state itself)."""
    link = Link(address, token, credentials, session)
    try:
        return (await link.table(table)).language or "es"
    except grpc.aio.AioRpcError:
        return "es"
    finally:
        await link.close()


class Link:
    """One station's channel to the service (create it inside the running event loop)."""

    def __init__(self, address: str, token: str, credentials: grpc.ChannelCredentials | None = None,
                 session: str = "") -> None:
        self.address = address
        self.channel = (grpc.aio.secure_channel(address, credentials, options=RECONNECT) if credentials
                        else grpc.aio.insecure_channel(address, options=RECONNECT))
        self.stub = svc_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.token = token
        self.metadata = call_metadata(token, session)  # the croupier's session too (issue 32)
        self.prefix = uuid.uuid4().hex[:12]
        self.counter = itertools.count(1)

    def command_id(self) -> str:
        """A new command id."""
        return f"{self.prefix}-{next(self.counter)}"

    async def table(self, table: str) -> pb.TableView:
        """The table as this station may see it now."""
        reply: svc.GetTableResponse = await self.stub.GetTable(
            svc.GetTableRequest(table=table), metadata=self.metadata, timeout=DEADLINE)
        return reply.view

    async def legal(self, table: str) -> svc.GetLegalActionsResponse:
        """What may be done now."""
        reply: svc.GetLegalActionsResponse = await self.stub.GetLegalActions(
            svc.GetLegalActionsRequest(table=table), metadata=self.metadata, timeout=DEADLINE)
        return reply

    async def act(self, table: str, command: cmd.Command) -> svc.ActResponse:
        """One command of the table's hand; a lost answer (UNAVAILABLE) is retried once with the same command id,
        which the service applies at most once."""
        request = svc.ActRequest(command_id=self.command_id(), table=table, command=command)
        try:
            reply: svc.ActResponse = await self.stub.Act(request, metadata=self.metadata, timeout=DEADLINE)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            reply = await self.stub.Act(request, metadata=self.metadata, timeout=DEADLINE)
        return reply

    async def start(self, table: str, colour: pb.DeckColour) -> svc.StartHandResponse:
        """Start the next hand from a deck of this colour."""
        reply: svc.StartHandResponse = await self.stub.StartHand(svc.StartHandRequest(
            command_id=self.command_id(), table=table, deck_colour=colour), metadata=self.metadata, timeout=DEADLINE)
        return reply

    async def call(self, method: str, request: Any) -> Any:
        """Any unary RPC of the table service with this station's token and session (the shift's operations)."""
        return await getattr(self.stub, method)(request, metadata=self.metadata, timeout=DEADLINE)

    def signed_in(self, session: str) -> None:
        """A person signed in here (or out: ``""``): his session goes with every later call (issue 32)."""
        self.metadata = call_metadata(self.token, session)

    async def watch(self, table: str, after: int) -> AsyncIterator[svc.WatchResponse]:
        """Every change of the table after a log position, then new ones as they happen."""
        call = self.stub.Watch(svc.WatchRequest(table=table, after_position=after), metadata=self.metadata)
        async for response in call:
            yield response

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()


async def follow(link: Callable[[], Link], table: str, received: Callable[[svc.WatchResponse], None],
                 lost: Callable[[grpc.aio.AioRpcError], None]) -> None:
    """Follow a table's Watch stream from its start (the log of the current hand is rebuilt), each event to
    ``received``; a broken stream is said to ``lost`` and resumed after the last position seen, a second later, or
    at once when the station signed a person in or out meanwhile (the stream of the session before is refused)."""
    seen = 0
    while True:
        current = link()
        metadata = current.metadata
        try:
            async for response in current.watch(table, seen):
                seen = response.position
                received(response)
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.CANCELLED:
                return
            if current.metadata != metadata:
                continue
            lost(error)
            await asyncio.sleep(1.0)
