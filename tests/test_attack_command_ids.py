"""Issue 13, item 5 — attack: reuse a command id for another command, or at another table.

Only an identical retry is answered with the first reply; anything else under a used id is refused with
ALREADY_EXISTS naming the id, and applies nothing.
"""

from __future__ import annotations

import json

import grpc
from eventsourcing.persistence import StoredEvent

from service.api import pokertable_pb2 as pb
from service.app.application import HandCommand, PokerTables, ProcessedCommand, fingerprint
from tests import test_grpc_service
from tests.test_grpc_service import TOKENS, Client, open_table

port = test_grpc_service.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""


def _stacks(client: Client, table: str = "Mesa 1") -> dict[int, int]:
    return dict(client.GetTable(pb.TableRequest(table=table)).stacks)


def test_a_command_id_reused_with_another_payload_is_refused_and_applies_nothing(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    first = dealer.AddChips(pb.SeatPlayerRequest(command_id="chips-1", table="Mesa 1", seat=1, chips=50))
    assert dealer.AddChips(pb.SeatPlayerRequest(command_id="chips-1", table="Mesa 1", seat=1, chips=50)) == first
    assert _stacks(dealer)[1] == 150, "an identical retry is answered, not applied twice"
    for attack in (pb.SeatPlayerRequest(command_id="chips-1", table="Mesa 1", seat=1, chips=5000),
                   pb.SeatPlayerRequest(command_id="chips-1", table="Mesa 1", seat=2, chips=50)):
        try:
            dealer.AddChips(attack)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.ALREADY_EXISTS
            assert "chips-1" in (error.details() or "")
        else:
            raise AssertionError("a different command under a used id was answered OK")
    try:
        dealer.SeatPlayer(pb.SeatPlayerRequest(command_id="chips-1", table="Mesa 1", seat=4, chips=100))
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.ALREADY_EXISTS
    else:
        raise AssertionError("another RPC under a used id was answered OK")
    assert _stacks(dealer) == {1: 150, 2: 100, 3: 100}


def test_a_command_id_reused_at_another_table_is_refused(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    settings = pb.Settings(variant="holdem", structure="no-limit", blinds=[1, 2])
    pit.OpenTable(pb.OpenTableRequest(command_id="open-2", table="Mesa 2", settings=settings))
    pit.SeatPlayer(pb.SeatPlayerRequest(command_id="same-id", table="Mesa 1", seat=5, chips=80))
    try:
        pit.SeatPlayer(pb.SeatPlayerRequest(command_id="same-id", table="Mesa 2", seat=5, chips=80))
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.ALREADY_EXISTS and "same-id" in (error.details() or "")
    else:
        raise AssertionError("the same id at another table was answered OK")
    assert _stacks(pit, "Mesa 2") == {}


def test_command_records_stored_before_fingerprints_still_answer_their_retries() -> None:
    """Stored-event compatibility: a ProcessedCommand written by the previous version (no fingerprint) loads, and a
    retry of it is answered with its result."""
    app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    record = ProcessedCommand(command_id="old-1", result={"table": "Mesa 1", "version": 3}, fingerprint="x")
    stored = app.mapper.to_stored_event(record.collect_events()[0])
    state = json.loads(stored.state)
    del state["fingerprint"], state["class_version"]
    app.recorder.insert_events([StoredEvent(stored.originator_id, stored.originator_version, stored.topic,
                                            json.dumps(state).encode())])
    loaded: object = app.repository.get(record.id)
    assert isinstance(loaded, ProcessedCommand) and loaded.fingerprint == "" and loaded.result["version"] == 3
    assert app._processed("old-1", fingerprint("Mesa 9", ("anything",))) == {"table": "Mesa 1", "version": 3}


def test_the_fingerprint_tells_tables_commands_and_payloads_apart() -> None:
    sit = fingerprint("Mesa 1", ("sit", 1, 100))
    assert sit == fingerprint("Mesa 1", ("sit", 1, 100))
    assert sit != fingerprint("Mesa 2", ("sit", 1, 100))
    assert sit != fingerprint("Mesa 1", ("sit", 1, 101))
    assert sit != fingerprint("Mesa 1", ("add_chips", 1, 100))
    assert fingerprint("M", ("hand_command", HandCommand("fold", seat=1))) != fingerprint(
        "M", ("hand_command", HandCommand("fold", seat=2)))
