"""How a call finds its handler: one generic handler for every service of the server, which passes the handler it
finds through the station gate and the request observer as the call is looked up.

The gate (:class:`service.grpc.hardening.StationGate`) and the observer (:class:`service.grpc.observe.RequestObserver`)
were two gRPC server interceptors. gRPC's asyncio server runs interceptors as a chain of coroutines for every call,
and serves methods registered one by one (as the generated ``add_…_to_server`` functions register them) by waiting
on one pending future per method in its serving loop: with pokertable.v1's 31 methods, health and reflection, both
were paid at every command. Here the services register with :class:`Handlers` instead, whose generic handlers the
:class:`Gateway` asks, and what the gate and the observer decide is decided in that one synchronous lookup: the same
handlers, the same refusals before a body is parsed, the same metrics and log (issue 18, SQLite sequential).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias

import grpc

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
Resolve: TypeAlias = "Callable[[Handler | None, grpc.HandlerCallDetails], Handler | None]"


class Handlers:
    """Stands for the server while services register (``add_…_to_server(servicer, handlers)``): their generic
    handlers are kept for the :class:`Gateway`; their per-method registrations are not needed (the generic handler
    of a generated service serves the same methods) and are dropped."""

    def __init__(self) -> None:
        self.generic: list[grpc.GenericRpcHandler] = []

    def add_generic_rpc_handlers(self, generic_rpc_handlers: Iterable[grpc.GenericRpcHandler]) -> None:
        self.generic.extend(generic_rpc_handlers)

    def add_registered_method_handlers(self, service_name: str, method_handlers: dict[str, Handler]) -> None:
        del service_name, method_handlers  # served by the service's generic handler, kept above


class Gateway(grpc.GenericRpcHandler):
    """The server's one generic handler: the handler of the first service that has the call's method, passed through
    ``resolvers`` in order (the gate, then the observer, which so sees the gate's refusals too); ``None`` for a method
    no service has (gRPC answers UNIMPLEMENTED)."""

    def __init__(self, handlers: Handlers, resolvers: Sequence[Resolve]) -> None:
        self._generic = tuple(handlers.generic)
        self._resolvers = tuple(resolvers)

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Handler | None:
        handler: Handler | None = None
        for generic in self._generic:
            handler = generic.service(handler_call_details)
            if handler is not None:
                break
        for resolve in self._resolvers:
            handler = resolve(handler, handler_call_details)
        return handler
