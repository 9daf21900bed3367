"""The gRPC server's defences against clients that are not stations (issue 13, item 7).

Four clients without a token sending huge messages once took the server to 99 % CPU and 781 MB: every request was
read in full (up to gRPC's default 4 MiB) and parsed into Python objects before its handler looked at the token, and
some handlers did work proportional to the message before asking who called. Now:

* :class:`StationGate`, as each call's handler is looked up (:mod:`service.grpc.gateway`), checks the ``authorization:
  Bearer TOKEN`` metadata before any handler runs. A call without a known token is answered ``UNAUTHENTICATED``
  (reason R-AUD-1) by a handler that never reads its body: nothing of the service runs for it, and not a byte of it is
  parsed or copied into Python. The answer waits :data:`REFUSAL_DELAY_S` (at most :data:`MAX_DELAYED_REFUSALS` at
  once, the rest at once), so each call a bad client keeps in flight costs one refusal a second, not as many as the
  server can make (≈ 0.3 ms of a core each).
* A request may be at most :data:`MAX_REQUEST_BYTES`; gRPC refuses a larger one (``RESOURCE_EXHAUSTED``) before it
  is read into Python, and takes no more than that ahead on any stream (no window growth by bandwidth probing: with
  it, 256 refused 4 MiB calls in flight held 886 MB). The largest legal request (every text field at its
  256-character limit in 4-byte UTF-8, every number at 10 bytes, ten entries in every list) is about 19 KiB
  (``tests/grpc/test_attack_unauthenticated.py`` computes it from the service descriptor): 64 KiB leaves three
  times that.
* A connection carries at most :data:`MAX_STREAMS_PER_CONNECTION` calls at once (further calls wait, they do not
  fail): enough for one pit screen watching every table of a large floor over one channel, or a benchmark's 200
  tables flat out.
* Connections: the server pings a silent peer every minute and drops it if the ping goes unanswered for 20 s; a
  client may ping at most every 10 s (two strikes and it is sent away); a connection with no call for 5 minutes is
  closed, and one older than an hour is asked to reconnect (``GOAWAY``) for its next calls. Calls in progress are
  never cut: the grace after ``GOAWAY`` is unlimited, so a ``Watch`` stream keeps flowing on its old connection,
  and a client that loses one anyway resumes from the last position it saw. A connection must finish its TLS or
  HTTP/2 handshake within 10 s.

``benchmarks/flood.py`` measures a croupier's latency with and without a flood of such clients, and against the
defaults of gRPC (:data:`GRPC_DEFAULTS`, the server as it was).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

MAX_REQUEST_BYTES = 64 * 1024
MAX_STREAMS_PER_CONNECTION = 256
KEEPALIVE_MS = 60_000
KEEPALIVE_TIMEOUT_MS = 20_000
MIN_CLIENT_PING_INTERVAL_MS = 10_000
MAX_PING_STRIKES = 2
MAX_CONNECTION_IDLE_MS = 5 * 60_000
MAX_CONNECTION_AGE_MS = 60 * 60_000
HANDSHAKE_TIMEOUT_MS = 10_000
REFUSAL_DELAY_S = 1.0
MAX_DELAYED_REFUSALS = 4096
BEARER = "bearer"


@dataclass(frozen=True)
class Hardening:
    """The limits a server applies; :data:`HARDENED` by default."""

    authenticate_first: bool = True
    """Refuse calls without a known station token in an interceptor, before their bodies are parsed."""
    max_request_bytes: int | None = MAX_REQUEST_BYTES
    """The largest request read; ``None``: gRPC's default (4 MiB)."""
    connection_limits: bool = True
    """Streams per connection, keepalive, idle and age limits, handshake timeout."""
    max_connection_idle_ms: int = MAX_CONNECTION_IDLE_MS
    max_connection_age_ms: int = MAX_CONNECTION_AGE_MS
    refusal_delay_s: float = REFUSAL_DELAY_S
    """How long a refused call waits before its ``UNAUTHENTICATED`` (a bad client's calls in flight then come back
    once a second each, not as fast as the server can refuse them)."""

    def options(self) -> list[tuple[str, int]]:
        """The gRPC server options (channel arguments) of these limits."""
        options: list[tuple[str, int]] = []
        if self.max_request_bytes is not None:
            options.append(("grpc.max_receive_message_length", self.max_request_bytes))
        if self.connection_limits:
            options += [
                ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION),
                ("grpc.keepalive_time_ms", KEEPALIVE_MS),
                ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
                ("grpc.keepalive_permit_without_calls", 1),
                ("grpc.http2.min_ping_interval_without_data_ms", MIN_CLIENT_PING_INTERVAL_MS),
                ("grpc.http2.max_ping_strikes", MAX_PING_STRIKES),
                ("grpc.max_connection_idle_ms", self.max_connection_idle_ms),
                ("grpc.max_connection_age_ms", self.max_connection_age_ms),
                ("grpc.server_handshake_timeout_ms", HANDSHAKE_TIMEOUT_MS),
                ("grpc.http2.bdp_probe", 0),
                ("grpc.http2.lookahead_bytes", MAX_REQUEST_BYTES),
            ]
        return options


HARDENED = Hardening()
GRPC_DEFAULTS = Hardening(authenticate_first=False, max_request_bytes=None, connection_limits=False)
"""The server as it was before issue 13: gRPC's defaults, the token checked by each handler after parsing (for
``benchmarks/flood.py``'s comparison only)."""


def bearer_token(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    """The token of the one ``authorization: Bearer TOKEN`` header, or ``None``: no header, several, another
    scheme, or an empty token. The scheme is required (RFC 6750) and, as HTTP schemes are, case-insensitive."""
    headers = [value for key, value in metadata or () if key.lower() == "authorization"]
    if len(headers) != 1 or not isinstance(headers[0], str):
        return None
    scheme, _, token = headers[0].partition(" ")
    token = token.strip()
    if scheme.lower() != BEARER or not token:
        return None
    return token


SESSION = "pokertable-session"
"""The metadata that carries a person's session (issue 32) with each call, beside the station's token."""


def session_of(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    """The one ``pokertable-session`` value of a call, or ``None`` (none, several, or empty)."""
    values = [value for key, value in metadata or () if key.lower() == SESSION]
    if len(values) != 1 or not isinstance(values[0], str) or not values[0].strip():
        return None
    return values[0].strip()


_UNDECODABLE = object()
"""What a station's request that is not a message of its method deserializes to."""
_UNREAD = object()
"""What a request too large for a station that may never make it deserializes to (it is not parsed)."""
MAX_UNENTITLED_BYTES = 2048
"""The largest request of a method its station may never call that is still parsed, to be refused with the precise
rule of its command (an observer's approval: R-THB-10); a larger one is refused unread (issue 32: four observers
sending 16,000-card discards had taken the service to 78 % of its CPU)."""


class StationGate:
    """Calls to the guarded service without a known station token end ``UNAUTHENTICATED`` before any handler runs and
    before their requests are parsed; a station's request that is not a message of its method ends
    ``INVALID_ARGUMENT`` (gRPC would say ``INTERNAL``). Other services (health checking, reflection) are open."""

    def __init__(self, service: str, known: Callable[[str], object | None], refusal: grpc.Status,
                 malformed: grpc.Status, delay: float = REFUSAL_DELAY_S, *,
                 entitled: Callable[[Any, str], bool] | None = None, unentitled: grpc.Status | None = None) -> None:
        """``known``: the station of a token (None: no station's); ``entitled``: whether that station may ever call
        a method (by its name): a larger request of one that may not (``MAX_UNENTITLED_BYTES``) is answered
        ``unentitled`` without being parsed.  The token is looked up once a call."""
        self.prefix, self.known, self.malformed = f"/{service}/", known, malformed
        self.entitled, self.unentitled = entitled, unentitled
        self.delayed = 0  # refusals waiting out their delay now
        self.checked: dict[str, tuple[grpc.RpcMethodHandler[Any, Any], grpc.RpcMethodHandler[Any, Any]]] = {}
        """By method: the service's handler and the same checking its request parses (made once)."""
        self.limited: dict[str, tuple[grpc.RpcMethodHandler[Any, Any], grpc.RpcMethodHandler[Any, Any]]] = {}
        """By method: the service's handler and the same for a station that may never call it (made once)."""

        async def refuse(requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
            del requests  # never read: the body is dropped by gRPC as it comes
            if delay and self.delayed < MAX_DELAYED_REFUSALS:
                self.delayed += 1
                try:
                    await asyncio.sleep(delay)
                finally:
                    self.delayed -= 1
            await context.abort_with_status(refusal)

        # A client-streaming handler whatever the method: gRPC reads no request before calling it, so a refused
        # call's body (up to the limit) is neither parsed nor even taken into Python.
        self.refusal_handler: grpc.RpcMethodHandler[Any, Any] = grpc.stream_unary_rpc_method_handler(refuse)

    def resolve(self, handler: grpc.RpcMethodHandler[Any, Any] | None,
                handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[Any, Any] | None:
        """The handler a call is given as it is looked up (:class:`service.grpc.gateway.Gateway`): the service's
        for a station's call, the refusal for any other call to the guarded service."""
        if handler is None or not handler_call_details.method.startswith(self.prefix):
            return handler  # None: an unknown method, which gRPC answers UNIMPLEMENTED
        token = bearer_token(handler_call_details.invocation_metadata)
        station = self.known(token) if token is not None else None
        if station is None:
            return self.refusal_handler
        method = handler_call_details.method
        cache = self.checked
        limit: int | None = None
        if self.entitled is not None and not self.entitled(station, method.removeprefix(self.prefix)):
            cache, limit = self.limited, MAX_UNENTITLED_BYTES
        checked = cache.get(method)
        if checked is None or checked[0] is not handler:
            checked = cache[method] = (handler, self._checked(handler, limit))
        return checked[1]

    def _checked(self, handler: grpc.RpcMethodHandler[Any, Any],
                 limit: int | None = None) -> grpc.RpcMethodHandler[Any, Any]:
        """The station's handler, answering a body that does not parse with ``INVALID_ARGUMENT``, and (``limit``,
        for a station that may never call it) a body larger than ``limit`` with the unentitled refusal, unparsed."""
        parse, malformed, unentitled = handler.request_deserializer, self.malformed, self.unentitled

        def deserialize(body: bytes) -> Any:
            if limit is not None and len(body) > limit:
                return _UNREAD
            try:
                return parse(body) if parse is not None else body
            except Exception:  # DecodeError, or a field that is not valid UTF-8
                return _UNDECODABLE

        if handler.unary_stream is not None:
            stream: Any = handler.unary_stream  # a coroutine or async generator function (grpc.aio)

            async def streamed(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
                if request is _UNREAD and unentitled is not None:
                    await context.abort_with_status(unentitled)
                if request is _UNDECODABLE or request is _UNREAD:
                    await context.abort_with_status(malformed)
                async for response in stream(request, context):
                    yield response

            return grpc.unary_stream_rpc_method_handler(streamed, deserialize, handler.response_serializer)
        unary: Any = handler.unary_unary
        assert unary is not None, "the guarded service has unary and server-streaming methods only"

        async def answered(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if request is _UNREAD and unentitled is not None:
                await context.abort_with_status(unentitled)
            if request is _UNDECODABLE or request is _UNREAD:
                await context.abort_with_status(malformed)
            return await unary(request, context)

        return grpc.unary_unary_rpc_method_handler(answered, deserialize, handler.response_serializer)
