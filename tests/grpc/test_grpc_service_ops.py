"""The service as the IT engineer and a generic client see it: reflection v1 and v1alpha, health that reflects readiness
and stopping, and two instances on one PostgreSQL that never both apply conflicting commands."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from service.api import table_service_pb2 as svc
from service.app.application import PokerTables
from service.bootstrap import open_store
from service.grpc import server as server_module
from tests.support import grpc_support
from tests.support.grpc_support import (
    STATIONS,
    TOKENS,
    Client,
    Served,
    get_table,
    open_circle,
    served,
)
from tests.support.stores import postgres_store

port = grpc_support.port


def reflected_services(channel: grpc.Channel, version: str) -> set[str]:
    """The services a real reflection client lists, over ``grpc.reflection.<version>`` (the same messages)."""
    method = channel.stream_stream(f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
                                   request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                   response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    responses = method(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5)
    return {s.name for r in responses for s in r.list_services_response.service}


def test_reflection_answers_as_v1_and_v1alpha(port: int) -> None:
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    requests = iter([reflection_pb2.ServerReflectionRequest(list_services="")])
    alpha = {s.name for r in stub.ServerReflectionInfo(requests, timeout=5)  # type: ignore[operator]
             for s in r.list_services_response.service}
    assert reflected_services(channel, "v1alpha") == alpha
    v1 = reflected_services(channel, "v1")
    assert {"pokertable.v1.TableService", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"} <= v1 == alpha
    method = channel.stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                                   request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                   response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    for symbol in ("pokertable.v1.TableService", "grpc.reflection.v1.ServerReflection"):
        described = list(method(iter([reflection_pb2.ServerReflectionRequest(file_containing_symbol=symbol)]),
                                timeout=5))
        assert described[0].file_descriptor_response.file_descriptor_proto, symbol


@pytest.fixture
def waiting_server(tmp_path: Path) -> Iterator[tuple[Served, threading.Event]]:
    """A server whose readiness waits for a gate the test opens (the store has answered; one more check waits)."""
    store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
    gate = threading.Event()
    try:
        with served(store.app, STATIONS, ready_check=lambda: gate.wait(10)) as server:
            try:
                yield server, gate
            finally:
                gate.set()
    finally:
        store.close()


def test_health_says_serving_only_when_ready_and_not_serving_while_stopping(
        waiting_server: tuple[Served, threading.Event]) -> None:
    server, gate = waiting_server
    bound = server.port
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(f"127.0.0.1:{bound}"))
    request = health_pb2.HealthCheckRequest(service="pokertable.v1.TableService")
    assert health.Check(request, timeout=5).status == health_pb2.HealthCheckResponse.NOT_SERVING  # type: ignore[attr-defined]
    watch = health.Watch(request, timeout=30)  # type: ignore[attr-defined]
    assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
    gate.set()
    assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
    everything = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)  # type: ignore[attr-defined]
    assert everything.status == health_pb2.HealthCheckResponse.SERVING
    stopping = server.stop(5)
    assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
    watch.cancel()
    stopping.result(timeout=10)


def test_a_stop_ends_and_leaves_no_probe_reading_the_store_it_hands_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped while the store probe runs back to back (no pause between probes): each stop returns, with no probe
    left reading the store, which the caller then closes. A probe that ended as it was cancelled once swallowed the
    cancellation (Python 3.11's ``wait_for``) and the stop waited for ever; closing an SQLite file while a thread
    still read it crashed the process (a segmentation fault in the CI)."""
    monkeypatch.setattr(server_module, "STORE_PROBE_SECONDS", 0.0)
    store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
    try:
        for attempt in range(40):
            with served(store.app, STATIONS) as server:
                readiness = server_module._READINESS[server.server]
                deadline = time.monotonic() + 10
                while readiness.probe is None and time.monotonic() < deadline:  # SERVING, and probing
                    time.sleep(0.001)
                assert readiness.probe is not None
                time.sleep(attempt % 5 / 1000)
                server.stop(0).result(timeout=10)
                assert readiness.task is not None and readiness.task.done(), attempt
                assert readiness.probe.done(), attempt
    finally:
        store.close()


def test_health_checking_answers_serving_on_each_store(port: int) -> None:
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
    watch = health.Watch(health_pb2.HealthCheckRequest(service="pokertable.v1.TableService"),  # type: ignore[attr-defined]
                         timeout=60)
    assert next(s for s in watch if s.status == health_pb2.HealthCheckResponse.SERVING)
    watch.cancel()


def test_two_instances_on_one_postgres_never_both_apply_conflicting_commands() -> None:
    """Both instances race to seat a player in the same seat, many times: exactly one applies each time; the loser
    gets ABORTED (retryable) or FAILED_PRECONDITION (it saw the winner's change), and nothing else changes."""
    env = postgres_store()
    with served(PokerTables(env=env)) as one, served(PokerTables(env=env)) as other:
        ports = [one.port, other.port]
        pit, first, second = Client(ports[0], TOKENS["pit"]), Client(ports[0], TOKENS["dealer"]), \
            Client(ports[1], TOKENS["dealer"])
        open_circle(pit, "Mesa 1", blinds=[1, 2])
        codes: list[grpc.StatusCode] = []
        for number in range(1, 11):
            barrier = threading.Barrier(2)
            outcomes: list[grpc.StatusCode] = []

            def race(client: Client, tag: str, number: int = number, barrier: threading.Barrier = barrier,
                     outcomes: list[grpc.StatusCode] = outcomes) -> None:
                barrier.wait()
                try:
                    client.SeatPlayer(svc.SeatPlayerRequest(command_id=f"{tag}-{number}", table="Mesa 1", seat=number,
                                                            chips=100 if tag == "a" else 200))
                    outcomes.append(grpc.StatusCode.OK)
                except grpc.RpcError as error:
                    outcomes.append(error.code())

            threads = [threading.Thread(target=race, args=(c, t)) for c, t in ((first, "a"), (second, "b"))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert outcomes.count(grpc.StatusCode.OK) == 1, outcomes
            codes.extend(code for code in outcomes if code != grpc.StatusCode.OK)
        assert set(codes) <= {grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION}
        assert sorted(get_table(first).circle.stacks) == list(range(1, 11))

