"""Dealer sign-in (issue 15, item 8; R-AUD-1): a dealer signs in at his table's croupier station (SignIn), the
sign-in is an event of the table (circle and banked), and his id is recorded with every command the table's own
stations send from then on (the stored command record's ``dealer``), until another dealer signs in.  Against a real
server on a free port; the command records are read from the server's own application."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from eventsourcing.persistence import StoredEvent

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.api.events_pb2 import TableEvent
from service.app.application import PokerTables, ProcessedCommand
from service.bootstrap import open_store
from tests.support import grpc_support
from tests.support.grpc_support import (
    STATIONS,
    TOKENS,
    Client,
    act,
    open_banked,
    open_circle,
    rule_of,
    seat,
    serving,
    start,
    stored_changes,
)

port = grpc_support.port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, PokerTables]]:
    """A server on a free port, the sole writer of an SQLite file as ``pokertable serve`` runs it, and its
    application (to read the stored command records)."""
    store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
    try:
        with serving(store.app, STATIONS) as bound:
            yield bound, store.app
    finally:
        store.close()


def _dealer_of(app: PokerTables, command_id: str) -> str:
    record: object = app.repository.get(ProcessedCommand.create_id(command_id))
    assert isinstance(record, ProcessedCommand)
    return record.dealer


def _sign_in(client: Client, table: str, dealer_id: str) -> str:
    command_id = client.next_id()
    client.SignIn(svc.SignInRequest(command_id=command_id, table=table, dealer_id=dealer_id))
    return command_id


def test_r_aud_1_the_signed_in_dealer_is_on_every_command_record_of_his_table_and_the_next_replaces_him(
    server: tuple[int, PokerTables],
) -> None:
    port, app = server
    pit, croupier, shoe = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["shoe"])
    open_circle(pit, "Mesa 1", no_burns=True)
    before = croupier.next_id()
    croupier.SeatPlayer(svc.SeatPlayerRequest(command_id=before, table="Mesa 1", seat=1, chips=100))
    signed = _sign_in(croupier, "Mesa 1", "D-1001")
    ids = [signed]
    for number in (2, 3):
        ids.append(croupier.next_id())
        croupier.SeatPlayer(svc.SeatPlayerRequest(command_id=ids[-1], table="Mesa 1", seat=number, chips=100))
    ids.append(croupier.next_id())
    croupier.StartHand(svc.StartHandRequest(command_id=ids[-1], table="Mesa 1"))
    for sequence, card in enumerate(["As", "Kd", "Qh", "Ac", "Kc"], start=1):  # the shoe: a device of the table
        ids.append(shoe.next_id())
        act(shoe, "Mesa 1", command_id=ids[-1], deal=cmd.Deal(card=card, source=pb.CARD_SOURCE_SHOE,
                                                                 sequence=sequence))
    pit_id = pit.next_id()  # the pit's commands are his own, not the dealer's
    act(pit, "Mesa 1", command_id=pit_id, deal=cmd.Deal(card="Qs"))
    ids.append(croupier.next_id())
    act(croupier, "Mesa 1", command_id=ids[-1], fold=cmd.Fold(seat=1))
    assert _dealer_of(app, before) == ""
    assert [_dealer_of(app, command_id) for command_id in ids] == ["D-1001"] * len(ids)
    assert _dealer_of(app, pit_id) == ""
    # the relief dealer signs in: later commands are his, earlier ones stay the first dealer's
    relief = _sign_in(croupier, "Mesa 1", "D-2002")
    later = croupier.next_id()
    act(croupier, "Mesa 1", command_id=later, fold=cmd.Fold(seat=2))
    assert _dealer_of(app, relief) == _dealer_of(app, later) == "D-2002"
    assert _dealer_of(app, ids[-1]) == "D-1001"
    # the table's view names the dealer dealing now, and its history the one dealing then
    assert pit.GetTable(svc.GetTableRequest(table="Mesa 1")).view.dealer_id == "D-2002"
    # the sign-ins are events of the table, on its Watch stream: who, where, and whom he replaced
    positions = stored_changes(pit, "Mesa 1")
    changes: list[TableEvent] = [change.event for change in positions]
    signed_in = [e.table_dealer_signed_in for e in changes if e.HasField("table_dealer_signed_in")]
    assert [(e.dealer_id, e.station, e.previous) for e in signed_in] == [("D-1001", "mesa-1", ""),
                                                                         ("D-2002", "mesa-1", "D-1001")]
    first = next(change for change in positions if change.event.HasField("table_dealer_signed_in"))
    then = pit.GetTable(svc.GetTableRequest(table="Mesa 1", position=first.position)).view
    assert then.dealer_id == "D-1001"


def test_r_aud_1_a_banked_table_records_its_dealer_too(server: tuple[int, PokerTables]) -> None:
    port, app = server
    pit, croupier = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"])
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    _sign_in(croupier, "THB 1", "D-3003")
    start(croupier, "THB 1")
    ante = croupier.next_id()
    act(croupier, "THB 1", command_id=ante, ante=cmd.Ante(seat=1, amount=10))
    assert _dealer_of(app, ante) == "D-3003"
    assert pit.GetTable(svc.GetTableRequest(table="THB 1")).view.dealer_id == "D-3003"


def test_r_aud_1_a_croupier_signs_in_only_at_his_own_table(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    open_circle(pit, "Mesa 1")
    for who in ("other", "tv", "director", "shoe"):
        with pytest.raises(grpc.RpcError) as denied:
            _sign_in(Client(port, TOKENS[who]), "Mesa 1", "D-9")
        assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(denied.value) == "R-AUD-1"
    _sign_in(pit, "Mesa 1", "D-1001")  # the pit boss may sign a dealer in
    with pytest.raises(grpc.RpcError) as empty:
        _sign_in(Client(port, TOKENS["dealer"]), "Mesa 1", "")
    assert empty.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as padded:
        _sign_in(Client(port, TOKENS["dealer"]), "Mesa 1", " D-1 ")
    assert padded.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(padded.value) == "R-AUD-1"
    seat(Client(port, TOKENS["dealer"]), "Mesa 1", 1)


def test_command_records_stored_before_sign_in_load_with_no_dealer() -> None:
    """Stored-event compatibility: a version-2 ProcessedCommand (fingerprint, no dealer) loads with dealer ""."""
    app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    record = ProcessedCommand(command_id="v2-1", result={"table": "Mesa 1"}, fingerprint="abc", dealer="D-1")
    stored = app.mapper.to_stored_event(record.collect_events()[0])
    state = json.loads(stored.state)
    del state["dealer"]
    state["class_version"] = 2
    app.recorder.insert_events([StoredEvent(stored.originator_id, stored.originator_version, stored.topic,
                                            json.dumps(state).encode())])
    loaded: object = app.repository.get(record.id)
    assert isinstance(loaded, ProcessedCommand) and loaded.dealer == "" and loaded.fingerprint == "abc"
