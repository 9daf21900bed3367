"""A load on a served process: clients adding one chip at a time to the seats of several tables, each command with its
own id, as fast as the server answers (the kill -9 and backup tests)."""

from __future__ import annotations

import threading
import uuid

import grpc

from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc

PIT = [("authorization", "Bearer pit-boss-token-0123456789")]
TABLES = ("Mesa 1", "Mesa 2", "Mesa 3")
SEATS = (1, 2, 3)
START = 1000


class Load:
    """Client threads adding a chip per command; which commands were sent and which acknowledged."""

    def __init__(self, port: int) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = svc_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.sent: dict[str, tuple[str, int]] = {}
        self.acked: set[str] = set()
        self.stop = threading.Event()

    def run(self, table: str, seat: int) -> None:
        while not self.stop.is_set():
            command_id = f"chip-{uuid.uuid4().hex}"
            self.sent[command_id] = (table, seat)
            try:
                self.stub.AddChips(svc.AddChipsRequest(command_id=command_id, table=table, seat=seat, chips=1),
                                   metadata=PIT, timeout=5)
            except grpc.RpcError:
                return  # the server is gone: the command is in flight, its fate unknown
            self.acked.add(command_id)
