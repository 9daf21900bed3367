"""A real server on a free port on SQLite, as ``pokertable serve`` runs it, for the attack suites of issues 13 and 14
(pokertable.v1): the server, raw calls that send any bytes, and the error details of a refusal."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.descriptor import MethodDescriptor
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from service.api import table_service_pb2 as svc
from service.bootstrap import open_store
from service.grpc.hardening import HARDENED, Hardening
from tests.support.grpc_support import STATIONS, serving

SERVICE = svc.DESCRIPTOR.services_by_name["TableService"]
SERVICE_NAME = SERVICE.full_name
METHODS: list[MethodDescriptor] = list(SERVICE.methods)


@contextmanager
def running_server(directory: Path, hardening: Hardening = HARDENED) -> Iterator[int]:
    """A server on a free port, in its own event loop thread, the sole writer of an SQLite file; its port."""
    store = open_store(f"sqlite:///{directory / 'tables.db'}", writer=True)
    try:
        with serving(store.app, STATIONS, hardening=hardening) as port:
            yield port
    finally:
        store.close()


def raw_call(channel: grpc.Channel, method: MethodDescriptor, body: bytes,
             metadata: list[tuple[str, str]] | None = None, timeout: float = 10) -> grpc.StatusCode:
    """Send ``body`` as they are to ``method``; the status the call ends with (a stream is read to its end)."""
    return raw_status(channel, method, body, metadata, timeout)[0]


def raw_status(channel: grpc.Channel, method: MethodDescriptor, body: bytes,
               metadata: list[tuple[str, str]] | None = None, timeout: float = 10) -> tuple[grpc.StatusCode, str]:
    """:func:`raw_call`'s status and its details."""
    path = f"/{SERVICE_NAME}/{method.name}"
    try:
        if method.server_streaming:
            streaming: Any = channel.unary_stream(path)  # no serializers: the body goes as it is
            stream: Any = streaming(body, metadata=tuple(metadata or ()), timeout=timeout)
            for _ in stream:
                pass
        else:
            unary: Any = channel.unary_unary(path)
            unary(body, metadata=tuple(metadata or ()), timeout=timeout)
    except grpc.RpcError as error:
        failed: Any = error  # a call's error is also its grpc.Call
        return failed.code(), failed.details() or ""
    return grpc.StatusCode.OK, ""


def error_reason(error: grpc.RpcError) -> str:
    """The ``reason`` of the ErrorInfo detail of a refused call (the rule id), or ``""`` without one."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if status is None:
        return ""
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""
