"""Hostile inputs through the API of a hardened server on SQLite (the ``port`` fixture): Mesa 1 opened and started, and
a refusal checked for its status, rule and field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from tests.support.attack_server import running_server
from tests.support.grpc_support import TOKENS, Client, open_circle, rule_of, seat, start, violations


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    with running_server(tmp_path) as bound:
        yield bound


def _refused(call: Any, request: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        call(request)
    return refused.value


def _invalid(error: grpc.RpcError, rule: str, field: str, what: object = "") -> None:
    """INVALID_ARGUMENT breaking ``rule``, with a BadRequest field violation naming ``field`` (a list's field may be
    named with the index of the entry, ``cards[1]``)."""
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (what, error.code(), error.details())
    assert rule_of(error) == rule, (what, rule_of(error), error.details())
    named = violations(error)
    assert any(path == field or path.startswith(f"{field}[") for path in named), (what, field, named)


def _view(client: Client, table: str = "Mesa 1") -> svc.GetTableResponse:
    view: svc.GetTableResponse = client.GetTable(svc.GetTableRequest(table=table))
    return view


def _opened(port: int) -> tuple[Client, Client]:
    """Mesa 1 (no-limit Hold'em 1/2, no burns) with seats 1 to 3 at 100 chips; the pit boss's and dealer's clients."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1", no_burns=True)
    for number in (1, 2, 3):
        seat(dealer, "Mesa 1", number)
    return pit, dealer


def _started(port: int) -> tuple[Client, Client]:
    pit, dealer = _opened(port)
    start(dealer, "Mesa 1")
    return pit, dealer


def _act_request(client: Client, table: str, **case: Any) -> svc.ActRequest:
    return svc.ActRequest(command_id=client.next_id(), table=table, command=cmd.Command(**case))
