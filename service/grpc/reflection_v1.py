"""Server reflection under both names clients use: ``grpc.reflection.v1alpha`` (grpcio-reflection's own) and
``grpc.reflection.v1`` (grpcurl, Postman and newer tools ask this first).

grpcio-reflection has no v1 module in the version installed here; the two protocols are the same messages under
another package, so the v1 service is the v1alpha servicer answering from the same descriptor pool, with the v1
descriptor (v1alpha's renamed) added to that pool so that clients can describe the v1 service too."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

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


def _v1_module() -> Any:
    """grpcio-reflection's own v1 module, when a newer version has one."""
    try:
        from grpc_reflection.v1 import reflection as v1  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return v1


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Reflection v1alpha and v1 on ``server``, listing ``service_names`` and both reflection services."""
    pool = descriptor_pool.Default()
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE)
    v1 = _v1_module()
    if v1 is not None:
        v1.enable_server_reflection(names, server)
    else:
        _add_v1_descriptor(pool)
        servicer = reflection.aio.ReflectionServicer(names, pool=pool)
        handler = grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            V1_SERVICE, {"ServerReflectionInfo": handler}),))
    reflection.enable_server_reflection(names, server, pool=pool)
