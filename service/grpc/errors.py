"""One place maps domain and application errors to gRPC statuses with the rule id in their details."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
import psycopg
from eventsourcing.persistence import PersistenceError
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from domain.circle.settings import (
    InvalidSettingsError,
)
from domain.device_reports import DeviceReportError
from domain.errors import InvalidCardError, RuleError
from domain.names import InvalidNameError
from service.app.application import (
    AccessDeniedError,
    ConflictError,
    DuplicateCommandError,
    NotFoundError,
    PreconditionError,
    ServiceError,
)
from service.store.chain import TamperedLogError

UNAUTHENTICATED_MESSAGE = "unknown or missing station token (authorization: Bearer TOKEN)"


class _StatusError(Exception):
    """Raised inside handlers; turned into a rich status by :func:`_guarded`."""

    def __init__(self, code: grpc.StatusCode, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.rule = code, message, rule


def _status(code: grpc.StatusCode, message: str, rule: str) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=rule or "NONE", domain="pokertable", metadata={"rule": rule})
    detail = any_pb2.Any()
    detail.Pack(info)
    return rpc_status.to_status(status_pb2.Status(code=getattr(code_pb2, code.name), message=message,
                                                  details=[detail]))


def _translate(error: Exception) -> _StatusError:  # noqa: PLR0911  (one case a kind of error)
    """One place maps domain and application errors to gRPC status codes."""
    match error:
        case _StatusError():
            return error
        case InvalidCardError() | InvalidSettingsError() | DeviceReportError() | InvalidNameError():
            return _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule)
        case RuleError():
            return _StatusError(grpc.StatusCode.FAILED_PRECONDITION, str(error), error.rule)
        case NotFoundError():
            return _StatusError(grpc.StatusCode.NOT_FOUND, str(error), error.rule)
        case ConflictError():
            return _StatusError(grpc.StatusCode.ABORTED, str(error), error.rule)
        case AccessDeniedError():
            return _StatusError(grpc.StatusCode.PERMISSION_DENIED, str(error), error.rule)
        case DuplicateCommandError():
            return _StatusError(grpc.StatusCode.ALREADY_EXISTS, str(error), error.rule)
        case PreconditionError():  # no hand in progress, a stack at the cap: the state refuses it now
            return _StatusError(grpc.StatusCode.FAILED_PRECONDITION, str(error), error.rule)
        case TamperedLogError():  # an event its chain link does not vouch for: not loaded (R-AUD-1)
            return _StatusError(grpc.StatusCode.DATA_LOSS, str(error), error.rule)
        case ServiceError():
            return _StatusError(grpc.StatusCode.INVALID_ARGUMENT, str(error), error.rule)
        case PersistenceError() | sqlite3.Error() | psycopg.Error():  # a full disk, a lost connection: retryable
            return _StatusError(grpc.StatusCode.UNAVAILABLE, f"the event store failed ({type(error).__name__}: "
                                f"{error}); the command is not acknowledged: retry it with the same command id",
                                "R-AUD-1")
    raise error


Handler = TypeVar("Handler", bound=Callable[..., Awaitable[Any]])


def _guarded(handler: Handler) -> Handler:
    """Every error of a unary handler becomes a status with the rule in its details; nothing else escapes."""

    @functools.wraps(handler)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        try:
            return await handler(self, request, context)
        except Exception as error:
            abort = _translate(error)
        await context.abort_with_status(_status(abort.code, abort.message, abort.rule))
        raise AssertionError("unreachable")

    return wrapper  # type: ignore[return-value]
