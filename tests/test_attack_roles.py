"""Issue 13, item 8 — attack the role matrix (docs/service.md) with every station's token.

The games director approves, refuses and reconstructs; he does not seat players, add chips, deal, bet or report
devices. A device deals only what the shoe reads, at its own table, and reports; an observer only reads. Every
refusal is PERMISSION_DENIED and changes nothing.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from service.api import pokertable_pb2 as pb
from tests import test_grpc_service
from tests.test_grpc_service import TOKENS, Client, open_table

port = test_grpc_service.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""


def _hand(action: str, **fields: Any) -> tuple[str, Any]:
    return "HandCommand", pb.HandCommandRequest(command_id=f"attack-{action}-{len(fields)}", table="Mesa 1",
                                                action=action, **fields)


ATTACKS: dict[str, list[tuple[str, Any]]] = {
    "director": [
        ("SeatPlayer", pb.SeatPlayerRequest(command_id="d1", table="Mesa 1", seat=5, chips=100)),
        ("AddChips", pb.SeatPlayerRequest(command_id="d2", table="Mesa 1", seat=1, chips=1_000_000_000)),
        ("StartHand", pb.StartHandRequest(command_id="d3", table="Mesa 1")),
        _hand("deal", card="2c"),
        _hand("check", seat=1),
        ("RecordDeviceReport", pb.DeviceReportRequest(command_id="d4", table="Mesa 1", device="X", serial="1",
                                                      kind="shuffle", colour="red", result="forged")),
        ("OpenTable", pb.OpenTableRequest(command_id="d5", table="Mesa 9",
                                          settings=pb.Settings(variant="holdem", structure="no-limit",
                                                               blinds=[1, 2]))),
        ("CloseTable", pb.CloseTableRequest(command_id="d6", table="Mesa 1")),
    ],
    "shoe": [
        _hand("deal", card="2c", source="croupier"),
        _hand("fold", seat=1),
        ("SeatPlayer", pb.SeatPlayerRequest(command_id="s1", table="Mesa 1", seat=5, chips=100)),
        ("StartHand", pb.StartHandRequest(command_id="s2", table="Mesa 1")),
        ("RecordDeviceReport", pb.DeviceReportRequest(command_id="s3", table="Mesa 2", device="X", serial="1",
                                                      kind="shuffle", colour="red", result="other table")),
    ],
    "tv": [
        _hand("deal", card="2c"),
        ("AddChips", pb.SeatPlayerRequest(command_id="t1", table="Mesa 1", seat=1, chips=5)),
        ("RecordCutExposure", pb.CutExposureRequest(command_id="t2", table="Mesa 1", card="Qh", colour="red")),
    ],
    "dealer": [
        _hand("void", rule="R-CIRC-14", reason="the croupier may not void"),
        ("CorrectStack", pb.CorrectStackRequest(command_id="c1", table="Mesa 1", seat=1, chips=9999, reason="x")),
        ("ConfigureTable", pb.ConfigureTableRequest(command_id="c2", table="Mesa 1",
                                                    settings=pb.Settings(variant="holdem", structure="no-limit",
                                                                         blinds=[5, 10]))),
    ],
}


@pytest.mark.parametrize("who", sorted(ATTACKS))
def test_every_role_is_refused_what_the_matrix_does_not_give_it_and_nothing_changes(port: int, who: str) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    dealer.StartHand(pb.StartHandRequest(command_id="start", table="Mesa 1"))
    before = pit.GetTable(pb.TableRequest(table="Mesa 1"))
    attacker = Client(port, TOKENS[who])
    for method, request in ATTACKS[who]:
        with pytest.raises(grpc.RpcError) as refused:
            getattr(attacker, method)(request)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED, (who, method, refused.value.details())
    assert pit.GetTable(pb.TableRequest(table="Mesa 1")) == before


def test_the_director_approves_and_reconstructs_and_the_shoe_deals_what_it_reads(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    dealer.StartHand(pb.StartHandRequest(command_id="start", table="Mesa 1"))
    shoe = Client(port, TOKENS["shoe"])
    for sequence, card in enumerate(["As", "Kd", "Qh", "Ac", "Kc", "Qs"], start=1):
        shoe.HandCommand(pb.HandCommandRequest(command_id=f"read-{sequence}", table="Mesa 1", action="deal",
                                               card=card, source="shoe", sequence=sequence))
    shoe.RecordDeviceReport(pb.DeviceReportRequest(command_id="rep-1", table="Mesa 1", device="Shoe", serial="S-1",
                                                   kind="deck-check", colour="blue", result="52 counted"))
    view = shoe.GetTable(pb.TableRequest(table="Mesa 1"))
    assert all(card == "??" for player in view.players for card in player.cards), "a device sees no down card"
    for seat in (1, 2):
        dealer.HandCommand(pb.HandCommandRequest(command_id=f"fold-{seat}", table="Mesa 1", action="fold",
                                                 seat=seat))
    director = Client(port, TOKENS["director"])
    steps = list(director.ReconstructHand(pb.ReconstructRequest(command_id="rc-dj", table="Mesa 1", hand_number=1,
                                                                reason="seat 3 disputes")))
    assert steps and steps[-1].event.endswith("Completed")
