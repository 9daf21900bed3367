"""A table's accounts over gRPC (accounts.proto; issue 19, item 3; R-ACC-1 … R-ACC-6), against a real server on
SQLite and on PostgreSQL: the croupier's station and the pit sign fills and credits off, the pit records the drop,
the shift closes with its win and hold against the theoretical win; refusals (a wrong role, a second sign-off, a
slip signed by the side that asked, negative amounts, a close while a slip waits) name their rule and record no
event, and an unsigned fill never counts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from service.api import accounts_pb2 as acc
from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.bootstrap import open_store
from tests.support.grpc_support import STATIONS, TOKENS, Client, act, open_banked, rule_of, serving, start, violations
from tests.support.stores import postgres_store

TABLE = "THB 1"  # the table of the "thb-1" croupier station


@pytest.fixture(params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[int, PokerTables]]:
    """A real server on a free port and its application (to count the events stored)."""
    store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True) if request.param == "sqlite" else None
    app = store.app if store is not None else PokerTables(env=postgres_store())
    try:
        with serving(app, STATIONS) as bound:
            yield bound, app
    finally:
        if store is not None:
            store.close()
        else:
            app.close()


def counts(**chips: int) -> list[acc.ChipCount]:
    """``counts(c25=4, c100=2)``: chips by denomination."""
    return [acc.ChipCount(denomination=int(name[1:]), chips=n) for name, n in chips.items()]


def refused(call: Any, request: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as error:
        call(request)
    return error.value


def test_a_shift_over_grpc_from_opener_to_closer(served: tuple[int, PokerTables]) -> None:
    port, app = served
    pit, croupier, director = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"]), Client(port, TOKENS["director"])
    tv, other = Client(port, TOKENS["tv"]), Client(port, TOKENS["other"])
    open_banked(pit, TABLE, pb.GAME_HOLDEM_BONUS)
    opened = croupier.OpenShift(acc.OpenShiftRequest(command_id=croupier.next_id(), table=TABLE,
                                                     opener=counts(c100=20, c25=40)))
    assert opened.shift == 1
    start(croupier, TABLE, pb.DECK_COLOUR_RED)
    act(croupier, TABLE, ante=cmd.Ante(seat=1, amount=10))
    act(croupier, TABLE, close_bets=cmd.CloseBets())
    for card in ["As", "Kd", "2c", "3h"]:
        act(croupier, TABLE, deal=cmd.Deal(card=card))
    act(croupier, TABLE, fold=cmd.Fold(seat=1))  # R-THB-5: the ante is lost to the house
    croupier.RequestTransfer(acc.RequestTransferRequest(command_id=croupier.next_id(), table=TABLE, slip="F-1",
                                                        kind=acc.TRANSFER_KIND_FILL, chips=counts(c100=5)))
    pit.SignTransfer(acc.SignTransferRequest(command_id=pit.next_id(), table=TABLE, slip="F-1"))
    director.RequestTransfer(acc.RequestTransferRequest(command_id=director.next_id(), table=TABLE, slip="C-1",
                                                        kind=acc.TRANSFER_KIND_CREDIT, chips=counts(c25=4)))
    croupier.RequestTransfer(acc.RequestTransferRequest(command_id=croupier.next_id(), table=TABLE, slip="F-9",
                                                        kind=acc.TRANSFER_KIND_FILL, chips=counts(c100=3)))
    head = app.recorder.max_notification_id()
    shift = acc.GetShiftAccountsRequest(table=TABLE)
    before = pit.GetShiftAccounts(shift).accounts
    assert (before.fills, before.credits) == (500, 0)  # F-9 and C-1 wait for their sign-off: they do not count

    def req(message: type, **fields: Any) -> Any:
        return message(command_id=pit.next_id(), table=TABLE, **fields)

    for client, call, request, code, rule in [
        (pit, "SignTransfer", req(acc.SignTransferRequest, slip="F-1"), "FAILED_PRECONDITION", "R-ACC-3"),  # twice
        (pit, "SignTransfer", req(acc.SignTransferRequest, slip="C-1"), "FAILED_PRECONDITION", "R-ACC-3"),  # asker
        (tv, "SignTransfer", req(acc.SignTransferRequest, slip="C-1"), "PERMISSION_DENIED", "R-ACC-3"),
        (other, "SignTransfer", req(acc.SignTransferRequest, slip="C-1"), "PERMISSION_DENIED", "R-ACC-3"),
        (croupier, "RecordDrop", req(acc.RecordDropRequest, amount=900), "PERMISSION_DENIED", "R-ACC-4"),
        (pit, "RecordDrop", req(acc.RecordDropRequest, amount=-900), "INVALID_ARGUMENT", "R-ACC-4"),
        (pit, "RequestTransfer", req(acc.RequestTransferRequest, slip="F-2", kind=acc.TRANSFER_KIND_FILL,
                                     chips=counts(c25=-3)), "INVALID_ARGUMENT", "R-ACC-2"),
        (pit, "RequestTransfer", req(acc.RequestTransferRequest, slip="F-2", kind=acc.TRANSFER_KIND_FILL,
                                     chips=counts(c25=0)), "FAILED_PRECONDITION", "R-ACC-2"),
        (pit, "CloseShift", req(acc.CloseShiftRequest, closer=counts(c100=25)), "FAILED_PRECONDITION", "R-ACC-3"),
        (director, "OpenShift", req(acc.OpenShiftRequest, opener=counts(c25=1)), "PERMISSION_DENIED", "R-ACC-1"),
        (pit, "OpenShift", req(acc.OpenShiftRequest, opener=counts(c25=1)), "FAILED_PRECONDITION", "R-ACC-1"),
        (tv, "GetShiftAccounts", shift, "PERMISSION_DENIED", "R-ACC-5"),
    ]:
        error = refused(getattr(client, call), request)
        assert (error.code().name, rule_of(error)) == (code, rule), (call, error.details())
        if code == "INVALID_ARGUMENT":
            assert violations(error), error
    assert app.recorder.max_notification_id() == head  # no refusal recorded anything
    assert pit.GetShiftAccounts(shift).accounts == before

    croupier.SignTransfer(acc.SignTransferRequest(command_id=croupier.next_id(), table=TABLE, slip="C-1"))
    pit.WithdrawTransfer(acc.WithdrawTransferRequest(command_id=pit.next_id(), table=TABLE, slip="F-9",
                                                     reason="the cage sent it to THB 2"))
    pit.RecordDrop(acc.RecordDropRequest(command_id=pit.next_id(), table=TABLE, amount=400))
    # the tray: 2,000 + 1,000 opened, + 10 (the ante), + 500 filled, − 100 credited
    closed = pit.CloseShift(acc.CloseShiftRequest(command_id=pit.next_id(), table=TABLE,
                                                  closer=counts(c100=25, c25=36, c5=2)))
    assert (closed.shift, closed.win, closed.flagged) == (1, 10, False)
    accounts = croupier.GetShiftAccounts(shift).accounts
    assert not accounts.open and accounts.win == 10 and accounts.hold == pytest.approx(10 / 400)
    assert (accounts.fills, accounts.credits, accounts.drop) == (500, 100, 400)
    assert accounts.theoretical.box_hands == 1 and accounts.theoretical.wagered["ante"] == 10
    assert accounts.theoretical.low <= 10 <= accounts.theoretical.high and not accounts.outside_band
    assert [(t.slip, t.signed_by, t.withdrawn) for t in accounts.transfers] == [
        ("F-1", "pit", False), ("C-1", "thb-1", False), ("F-9", "", True)]
