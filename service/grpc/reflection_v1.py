"""Server reflection under both names clients use: ``grpc.reflection.v1alpha`` (grpcio-reflection's own) and
``grpc.reflection.v1`` (grpcurl, Postman and newer tools ask this first).

The two protocols are the same messages under another package, so the v1 service is the v1alpha servicer answering
from the same descriptor pool, with the v1 descriptor (v1alpha's renamed, unless the pool has it) added to that pool
so that clients can describe the v1 service too (grpcio-reflection had no v1 module when this was written)."""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from service.grpc.gateway import Handlers

V1_SERVICE = "grpc.reflection.v1.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"


def _add_v1_descriptor(pool: descriptor_pool.DescriptorPool) -> None:
    """The v1 reflection.proto in the pool: v1alpha's, with v1's package and file name."""
    try:
        pool.FindFileByName(V1_FILE)
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name, proto.package = V1_FILE, "grpc.reflection.v1"
    proto.options.Clear()
    pool.Add(proto)


def enable_reflection(service_names: Iterable[str], handlers: Handlers) -> None:
    """Reflection v1alpha and v1 (asyncio servicers), listing ``service_names`` and both reflection services, among
    a server's ``handlers`` (:mod:`service.grpc.gateway`)."""
    pool = descriptor_pool.Default()
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE)
    _add_v1_descriptor(pool)
    servicer = reflection.aio.ReflectionServicer(names, pool=pool)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)
    handlers.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        V1_SERVICE, {"ServerReflectionInfo": handler}),))
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, handlers)  # type: ignore[no-untyped-call]
