"""Issue 13, item 7 — attack the server as a client without a token, with huge and malformed requests (pokertable.v1,
issue 14).

Calls without ``authorization: Bearer TOKEN`` of a known station are refused before their bodies are parsed
(``UNAUTHENTICATED``, reason R-AUD-1), requests larger than any legal command are refused unread
(``RESOURCE_EXHAUSTED``), a station's request that does not parse is ``INVALID_ARGUMENT``, and the connection limits
leave long ``Watch`` streams flowing. Timings under a flood: ``benchmarks/flood.py`` (never a timed test here).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.grpc.hardening import MAX_REQUEST_BYTES, REFUSAL_DELAY_S, Hardening
from service.grpc.requests import MAX_TEXT
from tests.support.attack_server import METHODS, SERVICE_NAME, error_reason, raw_call, running_server
from tests.support.grpc_support import TOKENS, Client, open_circle, seat

NOT_PROTOBUF = b"\xff" * 60_000  # field 536870911 of wire type 7, which does not exist: no message parses from it


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    with running_server(tmp_path) as bound:
        yield bound


def test_a_call_without_a_token_is_refused_before_its_body_is_parsed(port: int) -> None:
    """Every method, unary and streaming: 60 KB that no message parses from, without a token or with an unknown one.
    Parsed first, the body would fail as a malformed request; refused first, it is UNAUTHENTICATED."""
    calls = [(method, metadata) for method in METHODS
             for metadata in ([], [("authorization", "Bearer not-a-station-token-000000")])]
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel, ThreadPoolExecutor(len(calls)) as pool:
        ended = list(pool.map(lambda call: (call[0].name, raw_call(channel, call[0], NOT_PROTOBUF, call[1])), calls))
    assert all(code == grpc.StatusCode.UNAUTHENTICATED for _, code in ended), ended
    anonymous = Client(port, None)
    with pytest.raises(grpc.RpcError) as refused:
        anonymous.GetTable(svc.GetTableRequest(table="Mesa 1"))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED and error_reason(refused.value) == "R-AUD-1"


def test_refusals_wait_out_a_delay_and_hold_no_station_back(port: int) -> None:
    """A bad client's calls come back UNAUTHENTICATED after a delay, so each call it keeps in flight costs the server
    one refusal a second, not as many as it can answer; meanwhile stations are served as ever."""
    pit = Client(port, TOKENS["pit"])
    started = time.monotonic()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        get_table: Any = channel.unary_unary(f"/{SERVICE_NAME}/GetTable")
        pending = [get_table.future(NOT_PROTOBUF, timeout=30) for _ in range(200)]
        with pytest.raises(grpc.RpcError) as missing:  # served while the 200 refusals wait
            pit.GetTable(svc.GetTableRequest(table="Mesa 1"))
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        codes = {call.exception().code() for call in pending}
    assert codes == {grpc.StatusCode.UNAUTHENTICATED}
    assert time.monotonic() - started >= REFUSAL_DELAY_S


@pytest.mark.parametrize("header", [TOKENS["pit"], f"Basic {TOKENS['pit']}", f"Token {TOKENS['pit']}",
                                    f"Bearer{TOKENS['pit']}", "Bearer ", "Bearer"])
def test_a_token_without_the_bearer_scheme_is_refused(port: int, header: str) -> None:
    pit = Client(port, None)
    pit.metadata = [("authorization", header)]
    with pytest.raises(grpc.RpcError) as refused:
        pit.OpenTable(svc.OpenTableRequest(command_id="open", table="Mesa 1", game=pb.GAME_HOLDEM,
                                           circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT,
                                                                    blinds=[1, 2])))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert error_reason(refused.value) == "R-AUD-1"


def test_the_bearer_scheme_is_case_insensitive_and_one_header_is_required(port: int) -> None:
    pit = Client(port, None)
    pit.metadata = [("authorization", f"bearer {TOKENS['pit']}")]
    with pytest.raises(grpc.RpcError) as missing:
        pit.GetTable(svc.GetTableRequest(table="Mesa 1"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND, "authenticated: the table does not exist"
    pit.metadata = [("authorization", f"Bearer {TOKENS['pit']}"), ("authorization", f"Bearer {TOKENS['tv']}")]
    with pytest.raises(grpc.RpcError) as ambiguous:
        pit.GetTable(svc.GetTableRequest(table="Mesa 1"))
    assert ambiguous.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_request_larger_than_any_legal_command_is_refused_unread(port: int) -> None:
    """A pit boss's OpenTable with 100,000 blinds (≈ 100 KB): refused by gRPC before it is read into Python; the old
    server parsed it, built settings of 100,000 blinds and opened the table, every later command paying for them."""
    pit = Client(port, TOKENS["pit"])
    request = svc.OpenTableRequest(command_id="huge", table="Mesa 1", game=pb.GAME_HOLDEM, circle=pb.CircleSettings(
        structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1] * 100_000))
    assert request.ByteSize() > MAX_REQUEST_BYTES
    with pytest.raises(grpc.RpcError) as refused:
        pit.OpenTable(request)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    with pytest.raises(grpc.RpcError) as missing:
        pit.GetTable(svc.GetTableRequest(table="Mesa 1"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def _largest(descriptor: Descriptor, within: tuple[str, ...] = ()) -> Message:
    """The largest request of a type that can be legal: every text at its 256-character limit in 4-byte UTF-8,
    every number and enum at 10 bytes (negative), ten entries in every list (a table has at most ten seats, and no
    command carries more than ten cards), every nested message filled alike, and of each oneof the largest case.
    A message nested in itself (a correction's replacement Command) is filled once: a replacement is a betting
    action, never another correction."""
    message: Any = GetMessageClass(descriptor)()
    within = (*within, descriptor.full_name)
    for field in descriptor.fields:
        if field.containing_oneof is not None and not field.containing_oneof.name.startswith("_"):
            continue  # a real oneof: its largest case, below
        _fill(message, field, within)
    for oneof in descriptor.oneofs:
        if oneof.name.startswith("_"):
            continue  # proto3 `optional`: the field, filled above
        sizes = {}
        for field in oneof.fields:
            _fill(message, field, within)
            sizes[field.name] = message.ByteSize()
        largest = max(sizes, key=lambda name: sizes[name])
        _fill(message, next(field for field in oneof.fields if field.name == largest), within)
    return message  # type: ignore[no-any-return]


def _fill(message: Any, field: FieldDescriptor, within: tuple[str, ...]) -> None:
    if field.message_type is not None:
        if field.message_type.full_name in within:
            return
        nested = _largest(field.message_type, within)
        if field.is_repeated:
            getattr(message, field.name).extend([nested] * 10)
        else:
            getattr(message, field.name).CopyFrom(nested)
        return
    value: object = {FieldDescriptor.TYPE_STRING: "\U0010ffff" * MAX_TEXT, FieldDescriptor.TYPE_BOOL: True,
                     FieldDescriptor.TYPE_BYTES: b"\xff" * MAX_TEXT}.get(field.type, -1)
    if field.is_repeated:
        getattr(message, field.name).extend([value] * 10)
    else:
        setattr(message, field.name, value)


def test_the_request_limit_leaves_three_times_the_largest_legal_command() -> None:
    sizes = {method.name: _largest(method.input_type).ByteSize() for method in METHODS}
    largest = max(sizes.values())
    # ActRequest: two texts and a discard (or exchange) of ten cards; EnrolPersonRequest (issue 32): five texts and a
    # role listed ten times over, every text at its limit (a role is one of six words: the service refuses the rest)
    assert max(sizes["Act"], sizes["EnrolPerson"]) == largest, sizes
    assert 8_000 < largest < 20_000, sizes
    assert 3 * largest <= MAX_REQUEST_BYTES
    act: Any = _largest(next(method.input_type for method in METHODS if method.name == "Act"))
    assert act.command.WhichOneof("command") in ("discard", "exchange")


def test_a_station_request_that_does_not_parse_is_invalid_argument(port: int) -> None:
    metadata = [("authorization", f"Bearer {TOKENS['pit']}")]
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        for method in METHODS:
            assert raw_call(channel, method, NOT_PROTOBUF[:100], metadata) == grpc.StatusCode.INVALID_ARGUMENT, \
                method.name
            # a text field (table, 2 or 1) that is not UTF-8 (ListTables has none: its fields are an enum and a bool,
            # and a field of another wire type is an unknown field, as protobuf reads it)
            if not any(method.input_type.fields_by_number[number].type == FieldDescriptor.TYPE_STRING
                       for number in (1, 2) if number in method.input_type.fields_by_number):
                continue
            assert raw_call(channel, method, b"\x0a\x02\xc3\x28\x12\x02\xc3\x28", metadata) in (
                grpc.StatusCode.INVALID_ARGUMENT,), method.name


def test_a_watch_stream_outlives_its_connection_s_age_and_idle_limits(tmp_path: Path) -> None:
    """Connections older than the age limit are asked to reconnect for new calls (GOAWAY) and idle ones closed; a
    Watch stream in progress is never cut: with limits of half a second, it still delivers every change seconds
    later, and new calls go through."""
    quick = Hardening(max_connection_age_ms=500, max_connection_idle_ms=500)
    with running_server(tmp_path, quick) as port:
        pit, dealer, tv = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["tv"])
        open_circle(pit, "Mesa 1", no_burns=True)
        for number in (1, 2, 3):
            seat(dealer, "Mesa 1", number)
        stream = tv.Watch(svc.WatchRequest(table="Mesa 1"), timeout=30)
        seen: list[str] = []
        done = threading.Event()

        def read() -> None:
            for change in stream:
                seen.append(str(change.event.WhichOneof("event")))
                if seen[-1] == "table_closed":
                    break
            done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(2.0)  # four connection ages, four idle limits
        seat(dealer, "Mesa 1", 4)
        time.sleep(1.0)
        pit.CloseTable(svc.CloseTableRequest(command_id=pit.next_id(), table="Mesa 1"))
        assert done.wait(10), f"the stream stopped delivering: {seen}"
        assert seen.count("table_player_seated") == 4 and seen[-1] == "table_closed", seen
        stream.cancel()
