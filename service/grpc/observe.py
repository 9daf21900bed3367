"""The request log and the RPC metrics (issue 17): one observer, the last to wrap each call's handler as it is looked
up (:class:`service.grpc.gateway.Gateway`), sees every RPC — unary and streaming, of every service (pokertable.v1,
health, reflection), a station's or a call without a token that :class:`service.grpc.hardening.StationGate` refuses.

What it logs (logger ``pokertable.requests``) is what an RPC was, never what it carried: the method, the table and
command id, the status code, the rule the error names (R-…, from the ``google.rpc.ErrorInfo`` of the status,
:mod:`service.grpc.errors`), the calling station's name and role (never its token) and the time taken — never a
request or a reply, so never a card, face down or not:

* a refused RPC (``INVALID_ARGUMENT``, ``FAILED_PRECONDITION``, ``NOT_FOUND``, ``ALREADY_EXISTS``, ``ABORTED``,
  ``PERMISSION_DENIED``, ``UNAUTHENTICATED``, ``RESOURCE_EXHAUSTED``, ``OUT_OF_RANGE``) at WARNING, without the
  error's message (a refusal's words may name a card: "As is already in this hand"); the calls without a known
  token at most one line a second, with the number of those left out;
* a failed RPC (``INTERNAL``, ``UNAVAILABLE``, ``DATA_LOSS``, ``UNKNOWN``, …) at ERROR, with the status message,
  which says the cause (the store's error, R-AUD-1);
* every other RPC (answered, or cancelled by its client) at DEBUG: the request log, on with ``--log-level debug``.
  Nothing of it is formatted otherwise: an answered command costs two clock reads, a counter and a histogram.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias

import grpc
from google.rpc import error_details_pb2, status_pb2

from service.app.application import Viewer
from service.grpc.hardening import bearer_token
from service.grpc.metrics import ServiceMetrics, cover_cards

REFUSED = frozenset({
    grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.ABORTED, grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.OUT_OF_RANGE,
})
"""What the caller asked wrongly (WARNING); any other code but OK and CANCELLED is the service's failure (ERROR)."""
STOPPING = "the service is stopping"
"""How a Watch stream ended by the service's stop begins its UNAVAILABLE status (service.grpc.streams): logged at
INFO, the station resumes it."""
ANSWERED = frozenset({grpc.StatusCode.OK, grpc.StatusCode.CANCELLED})
STATUS_DETAILS = "grpc-status-details-bin"
MAX_TEXT = 128
"""The most of a table name or command id a log line shows (a refused request may carry 64 KiB of anything)."""
MAX_CACHED = 1024
UNAUTHENTICATED_EVERY_S = 1.0

log = logging.getLogger("pokertable.requests")

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"


class _Method:
    """One method's name and metric series, made once (its latency if it answers once, its open streams if it
    streams its answer)."""

    __slots__ = ("counts", "latency", "metrics", "rpc", "streams")

    def __init__(self, metrics: ServiceMetrics, rpc: str) -> None:
        self.metrics, self.rpc = metrics, rpc
        self.counts: dict[grpc.StatusCode, Any] = {}
        self.latency: Any = None
        self.streams: Any = None

    def timed(self) -> None:
        if self.latency is None:
            self.latency = self.metrics.latency.labels(self.rpc)

    def streamed(self) -> None:
        if self.streams is None:
            self.streams = self.metrics.streams.labels(self.rpc)

    def count(self, code: grpc.StatusCode) -> None:
        counter = self.counts.get(code)
        if counter is None:
            counter = self.counts[code] = self.metrics.rpcs.labels(self.rpc, code.name)
        counter.inc()


def _code_of(error: BaseException, context: grpc.aio.ServicerContext[Any, Any]) -> grpc.StatusCode:
    """The status an RPC ends with when its handler raised ``error``."""
    if isinstance(error, grpc.aio.AbortError):
        return context.code() or grpc.StatusCode.UNKNOWN
    if isinstance(error, (asyncio.CancelledError, GeneratorExit)):
        return grpc.StatusCode.CANCELLED
    return grpc.StatusCode.UNKNOWN  # what gRPC answers for an error no handler turned into a status


def _details(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The status message the handler set (empty when there is none)."""
    try:
        return str(context.details() or "")
    except Exception:  # an older grpc's context has none to give
        return ""


def _error_info(context: grpc.aio.ServicerContext[Any, Any]) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo of the status the RPC was aborted with (rule, table, command id), if it has one."""
    for key, value in context.trailing_metadata() or ():
        if key == STATUS_DETAILS and isinstance(value, bytes):
            try:
                status = status_pb2.Status.FromString(value)
            except Exception:
                return None
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info
    return None


def _short(value: object) -> str:
    text = value if isinstance(value, str) else ""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


class RequestObserver:
    """Counts, times and logs every RPC (see the module). ``caller``: the station a token is, or ``None``."""

    def __init__(self, metrics: ServiceMetrics, caller: Callable[[str], Viewer | None], service: str) -> None:
        self.metrics, self.caller, self.prefix = metrics, caller, f"/{service}/"
        self._wrapped: dict[tuple[str, int], tuple[Handler, Handler]] = {}
        self._methods: dict[str, _Method] = {}
        self._unauthenticated_logged = 0.0
        self._unauthenticated_left_out = 0

    def resolve(self, handler: Handler | None, handler_call_details: grpc.HandlerCallDetails) -> Handler | None:
        """The handler of the call, wrapped, as it is looked up (:class:`service.grpc.gateway.Gateway`; once a
        handler: the wrapper is kept)."""
        if handler is None:  # no such method: gRPC answers UNIMPLEMENTED, and its name is not a label
            return None
        method = handler_call_details.method
        key = (method, id(handler))
        found = self._wrapped.get(key)
        if found is not None and found[0] is handler:
            return found[1]
        if len(self._wrapped) >= MAX_CACHED:
            self._wrapped.clear()
        wrapped = self._wrap(self._method(method), handler)
        self._wrapped[key] = (handler, wrapped)
        return wrapped

    def _method(self, method: str) -> _Method:
        found = self._methods.get(method)
        if found is None:
            rpc = method.removeprefix(self.prefix) if method.startswith(self.prefix) else method.lstrip("/")
            found = self._methods[method] = _Method(self.metrics, rpc)
        return found

    def _wrap(self, m: _Method, handler: Handler) -> Handler:
        """The handler with its RPC observed: four kinds of call, each a coroutine or an async generator."""
        done = self._done
        parse, serialize = handler.request_deserializer, handler.response_serializer

        def unary(inner: Any, streams: bool) -> Callable[..., Awaitable[Any]]:
            async def observed(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                started, code = time.perf_counter(), None
                if streams:
                    m.streams.inc()
                try:
                    return await inner(request, context)
                except BaseException as error:
                    code = _code_of(error, context)
                    raise
                finally:
                    if streams:
                        m.streams.dec()
                    done(m, code or context.code() or grpc.StatusCode.OK, started, context, request, not streams)

            return observed

        def streamed(inner: Any) -> Callable[..., AsyncIterator[Any]]:
            async def observed(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
                started, code = time.perf_counter(), None
                m.streams.inc()
                try:
                    async for response in inner(request, context):
                        yield response
                except BaseException as error:
                    code = _code_of(error, context)
                    raise
                finally:
                    m.streams.dec()
                    done(m, code or context.code() or grpc.StatusCode.OK, started, context, request, False)

            return observed

        def either(inner: Any) -> Any:
            m.streamed()
            return streamed(inner) if inspect.isasyncgenfunction(inner) else unary(inner, True)

        if handler.unary_unary is not None:
            m.timed()
            return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary, False), parse, serialize)
        if handler.stream_unary is not None:
            m.timed()
            return grpc.stream_unary_rpc_method_handler(unary(handler.stream_unary, False), parse, serialize)
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(either(handler.unary_stream), parse, serialize)
        assert handler.stream_stream is not None
        return grpc.stream_stream_rpc_method_handler(either(handler.stream_stream), parse, serialize)

    def _done(self, m: _Method, code: grpc.StatusCode, started: float,  # noqa: PLR0917
              context: grpc.aio.ServicerContext[Any, Any], request: Any, timed: bool) -> None:
        """An RPC ended with ``code``: counted, timed (``timed``: a unary answer) and, unless it was answered or
        cancelled and the request log is off, logged."""
        elapsed = time.perf_counter() - started
        m.count(code)
        if timed and code is not grpc.StatusCode.UNAUTHENTICATED:
            m.latency.observe(elapsed)
        if code in ANSWERED:
            if log.isEnabledFor(logging.DEBUG):
                self._log(logging.DEBUG, m, code, elapsed, context, request, None)
            return
        info = _error_info(context)
        rule = info.reason if info is not None and info.reason else "NONE"
        self.metrics.refusals.labels(m.rpc, code.name, rule).inc()
        if code is grpc.StatusCode.UNAUTHENTICATED:
            now = time.monotonic()
            if now - self._unauthenticated_logged < UNAUTHENTICATED_EVERY_S:
                self._unauthenticated_left_out += 1
                return
            self._unauthenticated_logged = now
        level = logging.WARNING if code in REFUSED else logging.ERROR
        if code is grpc.StatusCode.UNAVAILABLE and _details(context).startswith(STOPPING):
            level = logging.INFO  # a Watch stream ended by the service's own stop, to be resumed: not a failure
        self._log(level, m, code, elapsed, context, request, info)

    def _log(self, level: int, m: _Method, code: grpc.StatusCode, elapsed: float,  # noqa: PLR0917
             context: grpc.aio.ServicerContext[Any, Any], request: Any,
             info: error_details_pb2.ErrorInfo | None) -> None:
        token = bearer_token(context.invocation_metadata())  # type: ignore[arg-type]
        viewer = self.caller(token) if token is not None else None
        station, role = (viewer.station, viewer.role.value) if viewer is not None else ("", "")
        if info is not None:
            table, command_id = _short(info.metadata.get("table", "")), _short(info.metadata.get("command_id", ""))
        else:
            table, command_id = _short(getattr(request, "table", "")), _short(getattr(request, "command_id", ""))
        rule = info.reason if info is not None and info.reason != "NONE" else ""
        ms = round(elapsed * 1000, 3)
        fields: dict[str, object] = {"event": "rpc", "rpc": m.rpc, "code": code.name, "rule": rule, "table": table,
                                     "command_id": command_id, "caller": station, "role": role, "duration_ms": ms}
        outcome = "answered" if code in ANSWERED else "refused" if code in REFUSED else "failed"
        caller = f"{station} ({role})" if station else "no known station"
        if level < logging.ERROR:
            if code is grpc.StatusCode.UNAUTHENTICATED and self._unauthenticated_left_out:
                fields["left_out"] = self._unauthenticated_left_out
                caller += f"; {self._unauthenticated_left_out} more such calls not logged"
                self._unauthenticated_left_out = 0
            log.log(level, "%s %s %s %s table=%r command_id=%r by %s in %.1f ms", m.rpc, outcome, code.name,
                    rule or "-", table, command_id, caller, ms, extra={"fields": fields})
            return
        fields["cause"] = cause = cover_cards(context.details() or "")  # the store's error, R-AUD-1
        log.log(level, "%s %s %s %s table=%r command_id=%r by %s in %.1f ms: %s", m.rpc, outcome, code.name,
                rule or "-", table, command_id, caller, ms, cause, extra={"fields": fields})
