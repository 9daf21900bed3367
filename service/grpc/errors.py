"""One place maps domain and application errors to gRPC statuses: a ``google.rpc.Status`` whose details hold a
``google.rpc.ErrorInfo`` (reason = the rule id, "NONE" when no rule applies; domain "pokertable"; metadata ``rule``,
``table`` and ``command_id``) and, for INVALID_ARGUMENT, a ``google.rpc.BadRequest`` naming the request field path
(``command.bet.amount``, ``settings.circle.blinds``).  Nothing escapes as UNKNOWN."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
import psycopg
from eventsourcing.persistence import PersistenceError
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from domain.circle.settings import InvalidSettingsError
from domain.device_reports import DeviceReportError
from domain.errors import InvalidCardError, RuleError
from domain.names import InvalidNameError
from service.app.access import SessionError, SignInRefusedError
from service.app.application import (
    AccessDeniedError,
    ConflictError,
    DuplicateCommandError,
    NotFoundError,
    PreconditionError,
    ServiceError,
    TamperedLogError,
)

UNAUTHENTICATED_MESSAGE = "unknown or missing station token (authorization: Bearer TOKEN)"
DOMAIN = "pokertable"


class _StatusError(Exception):
    """Raised inside handlers; turned into a rich status by :func:`_guarded`.  ``field``: the request field path an
    INVALID_ARGUMENT is about (its BadRequest violation)."""

    def __init__(self, code: grpc.StatusCode, message: str, rule: str = "", field: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.rule, self.field = code, message, rule, field


def invalid(message: str, field: str, rule: str = "") -> _StatusError:
    """An INVALID_ARGUMENT about one request field."""
    return _StatusError(grpc.StatusCode.INVALID_ARGUMENT, message, rule, field)


def _status(code: grpc.StatusCode, message: str, rule: str, *, field: str | None = None, table: str = "",
            command_id: str = "") -> grpc.Status:
    """The status with its details; an INVALID_ARGUMENT always carries a BadRequest (``field`` "" when the request
    as a whole is at fault)."""
    info = error_details_pb2.ErrorInfo(reason=rule or "NONE", domain=DOMAIN,
                                       metadata={"rule": rule, "table": table, "command_id": command_id})
    details = [any_pb2.Any()]
    details[0].Pack(info)
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        bad = error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=field or "", description=message)])
        details.append(any_pb2.Any())
        details[1].Pack(bad)
    return rpc_status.to_status(status_pb2.Status(code=getattr(code_pb2, code.name), message=message,
                                                  details=details))


def _translate(error: Exception, field: str = "") -> _StatusError:  # noqa: PLR0911, PLR0912  (a case a kind)
    """One place maps domain and application errors to gRPC status codes; ``field``: the request field an
    INVALID_ARGUMENT raised by the application is about (the RPC's guess, :func:`_guarded`)."""
    match error:
        case _StatusError():
            if error.code == grpc.StatusCode.INVALID_ARGUMENT and not error.field:
                error.field = field
            return error
        case InvalidCardError() | InvalidSettingsError() | DeviceReportError() | InvalidNameError():
            return _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule, field)
        case RuleError():
            return _StatusError(grpc.StatusCode.FAILED_PRECONDITION, str(error), error.rule)
        case NotFoundError():
            return _StatusError(grpc.StatusCode.NOT_FOUND, str(error), error.rule)
        case ConflictError():
            return _StatusError(grpc.StatusCode.ABORTED, str(error), error.rule)
        case SessionError() | SignInRefusedError():  # no person signed in, a session ended, a wrong PIN (issue 32)
            return _StatusError(grpc.StatusCode.UNAUTHENTICATED, str(error), error.rule)
        case AccessDeniedError():
            return _StatusError(grpc.StatusCode.PERMISSION_DENIED, str(error), error.rule)
        case DuplicateCommandError():
            return _StatusError(grpc.StatusCode.ALREADY_EXISTS, str(error), error.rule)
        case PreconditionError():  # no hand in progress, a stack at the cap: the state refuses it now
            return _StatusError(grpc.StatusCode.FAILED_PRECONDITION, str(error), error.rule)
        case TamperedLogError():  # an event its chain link does not vouch for: not loaded (R-AUD-1)
            return _StatusError(grpc.StatusCode.DATA_LOSS, str(error), error.rule)
        case ServiceError():
            return _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule, field)
        case PersistenceError() | sqlite3.Error() | psycopg.Error():  # a full disk, a lost connection: retryable
            return _StatusError(grpc.StatusCode.UNAVAILABLE, f"the event store failed ({type(error).__name__}: "
                                f"{error}); the command is not acknowledged: retry it with the same command id",
                                "R-AUD-1")
    return _StatusError(grpc.StatusCode.INTERNAL, f"the server failed: {type(error).__name__}: {error}", "R-AUD-1")


def status_of(error: Exception, request: Any) -> grpc.Status:
    """The status an error of a request ends with (its table and command id in the ErrorInfo)."""
    abort = _translate(error, _field_guess(request))
    return _status(abort.code, abort.message, abort.rule, field=abort.field, table=str(getattr(request, "table", "")),
                   command_id=str(getattr(request, "command_id", "")))


def _oneof_path(request: Any, message: str, oneof: str) -> str:
    inner = getattr(request, message)
    case = inner.WhichOneof(oneof) if hasattr(inner, "WhichOneof") else None
    return f"{message}.{case}" if case else message


_FIELD_GUESS: dict[str, Callable[[Any], str]] = {
    "ActRequest": lambda r: _oneof_path(r, "command", "command"),
    "OpenTableRequest": lambda r: r.WhichOneof("settings") or "game",
    "ConfigureTableRequest": lambda r: "settings",
    "SeatPlayerRequest": lambda r: "seat",
    "LeaveSeatRequest": lambda r: "seat",
    "AddChipsRequest": lambda r: "chips",
    "CorrectStackRequest": lambda r: "chips",
    "StartHandRequest": lambda r: "deck_size",
    "RecordDeviceReportRequest": lambda r: "kind",
    "RecordCutExposureRequest": lambda r: "card",
    "SearchHandsRequest": lambda r: "outcome",
    "ReconstructHandRequest": lambda r: "hand_number",
}
"""Which request field an INVALID_ARGUMENT the application raises is most likely about, by request message."""


def _field_guess(request: Any) -> str:
    guess = _FIELD_GUESS.get(type(request).__name__)
    return guess(request) if guess is not None else ""


Handler = TypeVar("Handler", bound=Callable[..., Awaitable[Any]])
Streamer = TypeVar("Streamer", bound=Callable[..., AsyncIterator[Any]])


def _guarded(handler: Handler) -> Handler:
    """Every error of a unary handler becomes a status with the rule in its details; nothing else escapes."""

    @functools.wraps(handler)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        try:
            return await handler(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as error:
            status = status_of(error, request)
        await context.abort_with_status(status)
        raise AssertionError("unreachable")

    return wrapper  # type: ignore[return-value]


def _guarded_stream(handler: Streamer) -> Streamer:
    """Every error of a server-streaming handler, before or between its messages, becomes a status."""

    @functools.wraps(handler)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
        try:
            async for message in handler(self, request, context):
                yield message
            return
        except grpc.aio.AbortError:
            raise
        except Exception as error:
            status = status_of(error, request)
        await context.abort_with_status(status)

    return wrapper  # type: ignore[return-value]
