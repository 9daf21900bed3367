"""Issue 13, item 8 — attack the role matrix (docs/service.md) with every station's token, on every RPC of
pokertable.v1 and every command case of Act (issue 14).

The matrix: the pit boss opens, configures, corrects, closes and voids; a croupier's station (dealer) seats, starts
hands, plays and deals at its own table, and reports devices and cut exposures there; a device deals only what the
shoe reads, at its own table, and reports; the games director approves and refuses bonuses, reconstructs and
acknowledges alerts (with the pit boss), and does not seat, deal, bet or report; an observer only reads. A table's
accounts (docs/accounts.md): its croupier or the pit boss counts the tray, a fill or credit is asked and signed by
the croupier and the pit (boss or director), the pit records the drop; an observer or a device never reads them. The
shufflers' integrity over the floor (ListShufflers) and the dealers' figures (ListDealerFigures) are the pit boss's and
the games director's alone.
Everyone reads every table — the floor's list of tables, its view, history, legal actions, hands, search, exports
and Watch stream (docs/service.md: "list the tables, read views, Watch, hands, history, search" for every role) — and
only the pit boss and the games director see face-down cards: observers, devices and every croupier's station, its own
table's too (issue 15, item 5), see "??". Every refusal is PERMISSION_DENIED and changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from service.api import accounts_pb2 as acc
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support import grpc_support
from tests.support.grpc_support import (
    TOKENS,
    Client,
    act,
    deal,
    open_banked,
    open_circle,
    rule_of,
    seat,
    start,
    stored_changes,
)

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

STATIONS: dict[str, tuple[str, str | None]] = {
    "pit": ("pit-boss", None), "dealer": ("dealer", "Mesa 1"), "other": ("dealer", "Mesa 2"),
    "tv": ("observer", None), "director": ("games-director", None), "shoe": ("device", "Mesa 1"),
    "thb": ("dealer", "THB 1"),
}
"""Each token of :data:`tests.support.grpc_support.TOKENS`: its station's role and, for a dealer or a device, its
table."""
MATRIX: dict[str, frozenset[str]] = {
    "read": frozenset({"pit-boss", "dealer", "observer", "games-director", "device"}),
    "open-table": frozenset({"pit-boss"}),
    "seat": frozenset({"pit-boss", "dealer"}),
    "configure": frozenset({"pit-boss"}),
    "correct": frozenset({"pit-boss"}),
    "close": frozenset({"pit-boss"}),
    "start-hand": frozenset({"pit-boss", "dealer"}),
    "play": frozenset({"pit-boss", "dealer"}),
    "deal": frozenset({"pit-boss", "dealer", "device"}),
    "deal-by-hand": frozenset({"pit-boss", "dealer"}),  # a device deals only what the shoe reads (R-DECK-4)
    "device-report": frozenset({"pit-boss", "dealer", "device"}),
    "cut-exposure": frozenset({"pit-boss", "dealer"}),
    "void": frozenset({"pit-boss"}),
    "approve": frozenset({"games-director"}),
    "reconstruct": frozenset({"pit-boss", "games-director"}),
    "sign-in": frozenset({"pit-boss", "dealer"}),  # a croupier's station signs its dealer in at its own table
    "request-correction": frozenset({"pit-boss", "dealer"}),  # R-AUD-1: the croupier asks
    "decide-correction": frozenset({"pit-boss", "games-director"}),  # R-AUD-1: the pit decides
    "acknowledge-alert": frozenset({"pit-boss", "games-director"}),  # R-AUD-1: the pit clears a table's alerts
    "shufflers": frozenset({"pit-boss", "games-director"}),  # R-DECK-2: the shufflers' integrity is the pit's
    "dealers": frozenset({"pit-boss", "games-director"}),  # R-AUD-1: the dealers' figures are the pit's
    "floor": frozenset({"pit-boss", "games-director", "observer"}),  # the floor's alerts: the pit's, an observer's
    "accounts-count": frozenset({"pit-boss", "dealer"}),  # R-ACC-1: the tray counted by its croupier or the pit
    "accounts-transfer": frozenset({"pit-boss", "dealer", "games-director"}),  # R-ACC-3: one side asks, one signs
    "accounts-drop": frozenset({"pit-boss", "games-director"}),  # R-ACC-4: the pit records the drop
    "accounts-read": frozenset({"pit-boss", "dealer", "games-director"}),  # a table's accounts: never an observer
    "staff": frozenset(),  # issue 32: the administrator's only (none of these stations is one)
    "access-log": frozenset(),  # issue 32: the administrator's and the auditor's only
}
"""The role matrix of docs/service.md, written out here as the test's own statement of it."""
HOLE = "As Kd Qh Ac Kc Qs"
"""Mesa 1's first hand: seats 1, 2, 3 get As Ac, Kd Kc, Qh Qs; seats 1 and 2 fold, nobody shows."""
HIDDEN_CODES = re.compile(r"\b(As|Kd|Qh|Ac|Kc|Qs)\b")
SECOND = "2c 3d 4h 5s 6c 7d"
"""Mesa 1's second hand, in progress: the hole cards dealt, preflop betting open."""


@dataclass(frozen=True)
class Call:
    """One RPC with its request, the table it concerns and the matrix entry it needs."""

    name: str
    rpc: str
    table: str
    action: str
    request: Callable[[Client], Any]

    def allowed(self, who: str) -> bool:
        role, own = STATIONS[who]
        anywhere = self.action == "read"  # every station reads every table (without the down cards it may not see)
        return role in MATRIX[self.action] and (anywhere or role not in ("dealer", "device") or own == self.table)

    def run(self, client: Client) -> Any:
        """Call it; a stream is read to its end (Watch: as long as its 1-second deadline)."""
        answer = getattr(client, self.rpc)(self.request(client), **({"timeout": 1} if self.rpc == "Watch" else {}))
        if self.rpc in ("Watch", "ReconstructHand"):
            try:
                return list(answer)
            except grpc.RpcError as error:
                if self.rpc == "Watch" and error.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                    return []  # a live table's stream waits for more: its deadline ends it
                raise
        return answer


def _fault_position(client: Client, table: str) -> int:
    """The log position of the table's first device fault (the alert :func:`_prepare` raised), from its Watch stream
    (left as soon as it comes: every station reads it)."""
    stream = client.Watch(svc.WatchRequest(table=table), timeout=10)
    try:
        fault = next(change for change in stream
                     if change.event.WhichOneof("event") in ("table_device_reported", "banked_table_device_reported")
                     and getattr(change.event, str(change.event.WhichOneof("event"))).kind == "fault")
    finally:
        stream.cancel()
    return int(fault.position)


def _acknowledge(table: str) -> Call:
    return Call(f"AcknowledgeAlert.{'banked' if table == 'THB 1' else 'circle'}", "AcknowledgeAlert", table,
                "acknowledge-alert", lambda c: svc.AcknowledgeAlertRequest(
                    command_id=c.next_id(), table=table, position=_fault_position(c, table), reason="jam cleared"))


def _act(name: str, table: str, action: str, **case: Any) -> Call:
    return Call(f"Act.{name}", "Act", table, action,
                lambda c: svc.ActRequest(command_id=c.next_id(), table=table, command=cmd.Command(**case)))


CIRCLE = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[5, 10])
CALLS: list[Call] = [
    Call("OpenTable.circle", "OpenTable", "Mesa 9", "open-table", lambda c: svc.OpenTableRequest(
        command_id=c.next_id(), table="Mesa 9", game=pb.GAME_HOLDEM, circle=CIRCLE)),
    Call("OpenTable.banked", "OpenTable", "THB 9", "open-table", lambda c: svc.OpenTableRequest(
        command_id=c.next_id(), table="THB 9", game=pb.GAME_HOLDEM_BONUS,
        holdem_bonus=pb.HoldemBonusSettings(ante_min=5))),
    Call("SeatPlayer", "SeatPlayer", "Mesa 1", "seat", lambda c: svc.SeatPlayerRequest(
        command_id=c.next_id(), table="Mesa 1", seat=5, chips=100)),
    Call("LeaveSeat", "LeaveSeat", "Mesa 1", "seat", lambda c: svc.LeaveSeatRequest(
        command_id=c.next_id(), table="Mesa 1", seat=3)),
    Call("AddChips", "AddChips", "Mesa 1", "seat", lambda c: svc.AddChipsRequest(
        command_id=c.next_id(), table="Mesa 1", seat=1, chips=1_000_000_000)),
    Call("ConfigureTable", "ConfigureTable", "Mesa 1", "configure", lambda c: svc.ConfigureTableRequest(
        command_id=c.next_id(), table="Mesa 1", settings=CIRCLE)),
    Call("CorrectStack", "CorrectStack", "Mesa 1", "correct", lambda c: svc.CorrectStackRequest(
        command_id=c.next_id(), table="Mesa 1", seat=1, chips=9999, reason="a forged correction")),
    Call("StartHand.circle", "StartHand", "Mesa 1", "start-hand", lambda c: svc.StartHandRequest(
        command_id=c.next_id(), table="Mesa 1")),
    Call("StartHand.banked", "StartHand", "THB 1", "start-hand", lambda c: svc.StartHandRequest(
        command_id=c.next_id(), table="THB 1")),
    Call("RecordDeviceReport.circle", "RecordDeviceReport", "Mesa 1", "device-report",
         lambda c: svc.RecordDeviceReportRequest(command_id=c.next_id(), table="Mesa 1", device="X", serial="1",
                                                 kind=pb.DEVICE_REPORT_KIND_SHUFFLE, colour=pb.DECK_COLOUR_RED,
                                                 result="forged")),
    Call("RecordDeviceReport.banked", "RecordDeviceReport", "THB 1", "device-report",
         lambda c: svc.RecordDeviceReportRequest(command_id=c.next_id(), table="THB 1", device="X", serial="1",
                                                 kind=pb.DEVICE_REPORT_KIND_FAULT, colour=pb.DECK_COLOUR_BLUE,
                                                 result="jam")),
    Call("RecordCutExposure", "RecordCutExposure", "Mesa 1", "cut-exposure", lambda c: svc.RecordCutExposureRequest(
        command_id=c.next_id(), table="Mesa 1", card="Qh", colour=pb.DECK_COLOUR_RED)),
    # every case of Act, at a table of a game it belongs to
    _act("deal.croupier", "Mesa 1", "deal-by-hand", deal=cmd.Deal(card="8h", source=pb.CARD_SOURCE_CROUPIER)),
    _act("deal.unspecified", "Mesa 1", "deal-by-hand", deal=cmd.Deal(card="8h")),
    _act("deal.shoe", "Mesa 1", "deal", deal=cmd.Deal(card="8h", source=pb.CARD_SOURCE_SHOE, sequence=900)),
    _act("fold", "Mesa 1", "play", fold=cmd.Fold(seat=1)),
    _act("check", "Mesa 1", "play", check=cmd.Check(seat=1)),
    _act("call", "Mesa 1", "play", call=cmd.Call(seat=1)),
    _act("bet", "Mesa 1", "play", bet=cmd.Bet(seat=1, amount=20)),
    _act("all_in", "Mesa 1", "play", all_in=cmd.AllIn(seat=1)),
    _act("bring_in", "Mesa 1", "play", bring_in=cmd.BringIn(seat=1)),
    _act("discard", "Mesa 1", "play", discard=cmd.Discard(seat=1, cards=["2c"])),
    _act("reshuffle_discards", "Mesa 1", "play", reshuffle_discards=cmd.ReshuffleDiscards()),
    _act("show", "Mesa 1", "play", show=cmd.Show(seat=1)),
    _act("muck", "Mesa 1", "play", muck=cmd.Muck(seat=1)),
    _act("expose_card", "Mesa 1", "play", expose_card=cmd.ExposeCard(seat=1, card="2c")),
    _act("expose_hand", "Mesa 1", "play", expose_hand=cmd.ExposeHand(seat=1)),
    _act("absent", "Mesa 1", "play", absent=cmd.Absent(seat=1)),
    _act("void.circle", "Mesa 1", "void", void=cmd.Void(rule="R-CIRC-14", reason="only the pit voids")),
    _act("void.banked", "THB 1", "void", void=cmd.Void(rule="R-THB-11", reason="only the pit voids")),
    _act("ante", "THB 1", "play", ante=cmd.Ante(seat=2, amount=10)),
    _act("bonus", "THB 1", "play", bonus=cmd.Bonus(seat=1, amount=5)),
    _act("close_bets", "THB 1", "play", close_bets=cmd.CloseBets()),
    _act("flop_bet", "THB 1", "play", flop_bet=cmd.FlopBet(seat=1, amount=20)),
    _act("bet.banked", "THB 1", "play", bet=cmd.Bet(seat=1, amount=10)),
    _act("check.banked", "THB 1", "play", check=cmd.Check(seat=1)),
    _act("fold.banked", "THB 1", "play", fold=cmd.Fold(seat=1)),
    _act("deal.banked", "THB 1", "deal-by-hand", deal=cmd.Deal(card="8h")),
    _act("approve_bonus", "THB 1", "approve", approve_bonus=cmd.ApproveBonus(seat=1, reason="camera checked")),
    _act("refuse_bonus", "THB 1", "approve", refuse_bonus=cmd.RefuseBonus(seat=1, reason="suspicious")),
    _act("dealer_card_shown", "THB 1", "play", dealer_card_shown=cmd.DealerCardShown()),
    _act("face_up_card", "THB 1", "play", face_up_card=cmd.FaceUpCard(card="9c")),
    _act("wrong_count", "THB 1", "play", wrong_count=cmd.WrongCount(seat=1, correctable=False)),
    _act("reconstruction", "THB 1", "reconstruct", reconstruction=cmd.Reconstruction(reason="a dispute",
                                                                                       director="dj")),
    _act("reshuffle", "THB 1", "play", reshuffle=cmd.Reshuffle()),
    _act("request_correction", "Mesa 1", "request-correction", request_correction=cmd.RequestCorrection(
        replacement=cmd.Command(fold=cmd.Fold(seat=1)), reason="keyed wrong")),
    _act("decide_correction", "Mesa 1", "decide-correction", decide_correction=cmd.DecideCorrection(
        approve=True, reason="seen on camera")),
    _act("exchange", "CDP 1", "play", exchange=cmd.Exchange(seat=1, cards=["2c"])),
    _act("play", "CDP 1", "play", play=cmd.Play(seat=1, amount=20)),
    Call("SignIn.circle", "SignIn", "Mesa 1", "sign-in", lambda c: svc.SignInRequest(
        command_id=c.next_id(), table="Mesa 1", dealer_id="D-1001")),
    Call("SignIn.banked", "SignIn", "THB 1", "sign-in", lambda c: svc.SignInRequest(
        command_id=c.next_id(), table="THB 1", dealer_id="D-2002")),
    Call("SignOut.circle", "SignOut", "Mesa 1", "sign-in", lambda c: svc.SignOutRequest(
        command_id=c.next_id(), table="Mesa 1")),
    Call("SignOut.banked", "SignOut", "THB 1", "sign-in", lambda c: svc.SignOutRequest(
        command_id=c.next_id(), table="THB 1")),
    _acknowledge("Mesa 1"),
    _acknowledge("THB 1"),
    # a table's accounts (docs/accounts.md): THB 1's shift is open, slips W-1 and W-2 asked for by the pit wait
    Call("OpenShift", "OpenShift", "THB 1", "accounts-count", lambda c: acc.OpenShiftRequest(
        command_id=c.next_id(), table="THB 1", opener=[acc.ChipCount(denomination=25, chips=40)])),
    Call("RequestTransfer", "RequestTransfer", "THB 1", "accounts-transfer", lambda c: acc.RequestTransferRequest(
        command_id=c.next_id(), table="THB 1", slip=c.next_id(), kind=acc.TRANSFER_KIND_FILL,
        chips=[acc.ChipCount(denomination=100, chips=50)])),
    Call("SignTransfer", "SignTransfer", "THB 1", "accounts-transfer", lambda c: acc.SignTransferRequest(
        command_id=c.next_id(), table="THB 1", slip="W-1")),
    Call("WithdrawTransfer", "WithdrawTransfer", "THB 1", "accounts-transfer", lambda c: acc.WithdrawTransferRequest(
        command_id=c.next_id(), table="THB 1", slip="W-2", reason="a forged withdrawal")),
    Call("RecordDrop", "RecordDrop", "THB 1", "accounts-drop", lambda c: acc.RecordDropRequest(
        command_id=c.next_id(), table="THB 1", amount=1_000_000)),
    Call("CloseShift", "CloseShift", "THB 1", "accounts-count", lambda c: acc.CloseShiftRequest(
        command_id=c.next_id(), table="THB 1", closer=[acc.ChipCount(denomination=1, chips=1)])),
    Call("GetShiftAccounts", "GetShiftAccounts", "THB 1", "accounts-read",
         lambda c: acc.GetShiftAccountsRequest(table="THB 1")),
    Call("ReconstructHand", "ReconstructHand", "Mesa 1", "reconstruct", lambda c: svc.ReconstructHandRequest(
        command_id=c.next_id(), table="Mesa 1", hand_number=1, reason="seat 3 disputes")),
    Call("CloseTable", "CloseTable", "Mesa 1", "close", lambda c: svc.CloseTableRequest(
        command_id=c.next_id(), table="Mesa 1")),
    # reads
    Call("ListTables", "ListTables", "Mesa 1", "read", lambda c: svc.ListTablesRequest()),
    Call("ListTables.filtered", "ListTables", "THB 1", "read", lambda c: svc.ListTablesRequest(
        game=pb.GAME_HOLDEM_BONUS, include_closed=True)),
    Call("GetTable", "GetTable", "Mesa 1", "read", lambda c: svc.GetTableRequest(table="Mesa 1")),
    Call("GetTable.position", "GetTable", "Mesa 1", "read", lambda c: svc.GetTableRequest(table="Mesa 1",
                                                                                        position=3)),
    Call("GetTable.at", "GetTable", "Mesa 1", "read", lambda c: svc.GetTableRequest(
        table="Mesa 1", at=Timestamp(seconds=4_000_000_000))),
    Call("GetTable.banked", "GetTable", "THB 1", "read", lambda c: svc.GetTableRequest(table="THB 1")),
    Call("GetLegalActions", "GetLegalActions", "Mesa 1", "read",
         lambda c: svc.GetLegalActionsRequest(table="Mesa 1")),
    Call("ListHands", "ListHands", "Mesa 1", "read", lambda c: svc.ListHandsRequest(table="Mesa 1")),
    Call("SearchHands", "SearchHands", "Mesa 1", "read", lambda c: svc.SearchHandsRequest(table="Mesa 1")),
    Call("ExportHand", "ExportHand", "Mesa 1", "read", lambda c: svc.ExportHandRequest(
        table="Mesa 1", hand_number=1, format=pb.EXPORT_FORMAT_JSON)),
    Call("Watch", "Watch", "Mesa 1", "read", lambda c: svc.WatchRequest(table="Mesa 1")),
    Call("ListShufflers", "ListShufflers", "", "shufflers", lambda c: svc.ListShufflersRequest()),
    Call("ListDealerFigures", "ListDealerFigures", "", "dealers", lambda c: svc.ListDealerFiguresRequest()),
    Call("GetFloor", "GetFloor", "", "floor", lambda c: svc.GetFloorRequest()),
    Call("ListAlerts", "ListAlerts", "", "floor", lambda c: svc.ListAlertsRequest(table="Mesa 1")),
    Call("GetShiftReport", "GetShiftReport", "", "floor", lambda c: svc.GetShiftReportRequest(
        since=Timestamp(seconds=1_700_000_000))),
    # the staff (issue 32): the administrator's; an enrolment by any station here would put the staff in force
    Call("EnrolPerson", "EnrolPerson", "", "staff", lambda c: svc.EnrolPersonRequest(
        command_id=c.next_id(), person_id="X1", name="Intruder", roles=["administrator"], pin="take-over-1")),
    Call("ChangePerson", "ChangePerson", "", "staff", lambda c: svc.ChangePersonRequest(
        command_id=c.next_id(), person_id="X1", suspend="a forged suspension")),
    Call("ListStaff", "ListStaff", "", "access-log", lambda c: svc.ListStaffRequest()),
    Call("ListAccess", "ListAccess", "", "access-log", lambda c: svc.ListAccessRequest()),
]
WRITES = [call for call in CALLS if call.action != "read"]


def test_the_calls_cover_every_rpc_and_every_command_case() -> None:
    methods = {method.name for method in svc.DESCRIPTOR.services_by_name["TableService"].methods}
    assert {call.rpc for call in CALLS} == methods
    cases = {field.name for field in cmd.Command.DESCRIPTOR.oneofs_by_name["command"].fields}
    assert {call.name.removeprefix("Act.").split(".")[0] for call in CALLS if call.rpc == "Act"} == cases


def _prepare(port: int) -> Client:
    """Mesa 1 with its first hand played (seats 1 and 2 fold) and its second dealt and in progress, Mesa 2 open,
    THB 1 and CDP 1 each with a hand taking bets, a device fault (an alert) at Mesa 1 and at THB 1; the pit boss's
    client."""
    pit, dealer, thb = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["thb"])
    open_circle(pit, "Mesa 1", no_burns=True)
    open_circle(pit, "Mesa 2")
    for number in (1, 2, 3):
        seat(dealer, "Mesa 1", number)
    start(dealer, "Mesa 1")
    deal(dealer, "Mesa 1", HOLE)
    for number in (1, 2):
        act(dealer, "Mesa 1", fold=cmd.Fold(seat=number))
    start(dealer, "Mesa 1")
    deal(dealer, "Mesa 1", SECOND)
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    pit.OpenShift(acc.OpenShiftRequest(command_id=pit.next_id(), table="THB 1",
                                       opener=[acc.ChipCount(denomination=25, chips=400)]))
    for slip in ("W-1", "W-2"):
        pit.RequestTransfer(acc.RequestTransferRequest(command_id=pit.next_id(), table="THB 1", slip=slip,
                                                       kind=acc.TRANSFER_KIND_CREDIT,
                                                       chips=[acc.ChipCount(denomination=25, chips=4)]))
    start(thb, "THB 1")
    act(thb, "THB 1", ante=cmd.Ante(seat=1, amount=10))
    open_banked(pit, "CDP 1", pb.GAME_CASINO_DRAW)
    start(pit, "CDP 1")
    act(pit, "CDP 1", ante=cmd.Ante(seat=1, amount=10))
    for table in ("Mesa 1", "THB 1"):
        pit.RecordDeviceReport(svc.RecordDeviceReportRequest(
            command_id=pit.next_id(), table=table, device="PT-SHOE", serial="SH-1", kind=pb.DEVICE_REPORT_KIND_FAULT,
            colour=pb.DECK_COLOUR_RED, result="jam"))
    return pit


def _everything(pit: Client) -> list[Any]:
    """What the pit boss sees of every table (every card, the log position of each), and that no table was opened."""
    views = [pit.GetTable(svc.GetTableRequest(table=table)) for table in ("Mesa 1", "Mesa 2", "THB 1", "CDP 1")]
    for table in ("Mesa 9", "THB 9"):
        with pytest.raises(grpc.RpcError) as missing:
            pit.GetTable(svc.GetTableRequest(table=table))
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    accounts = pit.GetShiftAccounts(acc.GetShiftAccountsRequest(table="THB 1")).accounts
    return [*views, [list(pit.ListHands(svc.ListHandsRequest(table=t)).hands) for t in ("Mesa 1", "THB 1")],
            accounts]


@pytest.mark.parametrize("who", sorted(STATIONS))
def test_every_role_is_refused_every_call_the_matrix_does_not_give_it_and_nothing_changes(port: int,
                                                                                          who: str) -> None:
    pit = _prepare(port)
    _everything(pit)  # the pit's own first look at each hand's face-down cards is recorded, once (issue 29, item 7)
    before = _everything(pit)
    attacker = Client(port, TOKENS[who])
    refused = [call for call in CALLS if not call.allowed(who)]
    assert refused or who == "pit"
    wrong: list[tuple[str, str, str]] = []
    for call in refused:
        try:
            call.run(attacker)
        except grpc.RpcError as denied:
            if denied.code() != grpc.StatusCode.PERMISSION_DENIED:
                wrong.append((call.name, denied.code().name, denied.details() or ""))
            elif call.action.startswith("accounts-"):
                assert rule_of(denied) == {"accounts-count": "R-ACC-1", "accounts-transfer": "R-ACC-3",
                                           "accounts-drop": "R-ACC-4"}.get(call.action, "R-ACC-5"), call.name
            elif call.action in ("approve", "reconstruct", "sign-in", "request-correction", "decide-correction",
                                 "acknowledge-alert", "shufflers", "dealers"):
                assert rule_of(denied) == {"approve": "R-THB-10", "reconstruct": "R-THB-13",
                                           "shufflers": "R-DECK-2"}.get(call.action, "R-AUD-1"), call.name
            elif call.name == "Act.deal.croupier" and STATIONS[who][0] == "device":
                assert rule_of(denied) == "R-DECK-4"
        else:
            wrong.append((call.name, "OK", ""))
    assert not wrong, f"{who} was not refused: {wrong}"
    assert _everything(pit) == before, f"a refused call of {who} changed something"


@pytest.mark.parametrize("who", sorted(STATIONS))
def test_every_role_may_do_what_the_matrix_gives_it(port: int, who: str) -> None:
    """Each call the matrix allows gets past the role check (its outcome is then the rules' business: it may be
    refused as FAILED_PRECONDITION, never as PERMISSION_DENIED), the table's state being whatever the calls before
    it left."""
    _prepare(port)
    station = Client(port, TOKENS[who])
    wrong: list[tuple[str, str, str]] = []
    for call in CALLS:
        if not call.allowed(who):
            continue
        try:
            call.run(station)
        except grpc.RpcError as error:
            if error.code() in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED,
                                grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
                wrong.append((call.name, error.code().name, error.details() or ""))
    assert not wrong, f"{who} was refused what the matrix gives it: {wrong}"


def _hole_cards(view: svc.GetTableResponse) -> list[str]:
    return [card for player in view.view.circle.players for card in player.cards]


def _dealt(changes: list[svc.WatchResponse]) -> list[str]:
    return [change.event.hand_card_dealt.card for change in changes if change.event.HasField("hand_card_dealt")]


def _watch(client: Client) -> list[svc.WatchResponse]:
    return stored_changes(client, "Mesa 1")


@pytest.mark.parametrize("who", ["tv", "shoe", "other", "dealer"])  # the table's own croupier too (issue 15, item 5)
def test_observers_devices_and_other_tables_read_the_table_its_history_stream_and_exports_without_a_down_card(
    port: int, who: str,
) -> None:
    pit = _prepare(port)
    reader = Client(port, TOKENS[who])
    # the table now: the second hand's down cards
    assert sorted(_hole_cards(pit.GetTable(svc.GetTableRequest(table="Mesa 1")))) == sorted(SECOND.split())
    now = reader.GetTable(svc.GetTableRequest(table="Mesa 1"))
    assert _hole_cards(now) == ["??"] * 6
    # the table in the past: the first hand right after its deal, by log position and by time
    changes = _watch(pit)
    dealt = [change for change in changes if change.event.HasField("hand_card_dealt")]
    moment = dealt[5]  # the first hand's sixth card
    assert moment.event.hand_card_dealt.card == "Qs"
    for request in (svc.GetTableRequest(table="Mesa 1", position=moment.position),
                    svc.GetTableRequest(table="Mesa 1", at=moment.timestamp)):
        assert sorted(_hole_cards(pit.GetTable(request))) == sorted(HOLE.split()), "the pit's copy has every card"
        past = reader.GetTable(request)
        assert past.view.hand_number == 1 and _hole_cards(past) == ["??"] * 6, request
    # the stream
    assert sorted(_dealt(changes)) == sorted([*HOLE.split(), *SECOND.split()])
    assert _dealt(_watch(reader)) == ["??"] * 12
    # the exported first hand: nobody showed, so no hole card is in the observer's copy
    export = svc.ExportHandRequest(table="Mesa 1", hand_number=1, format=pb.EXPORT_FORMAT_JSON)
    full = pit.ExportHand(export)
    assert full.media_type == "application/json" and len(set(HIDDEN_CODES.findall(full.content))) == 6
    public = reader.ExportHand(export)
    assert public.media_type == "application/json" and not HIDDEN_CODES.findall(public.content), public.content
    # a reconstruction is the pit's
    with pytest.raises(grpc.RpcError) as denied:
        list(reader.ReconstructHand(svc.ReconstructHandRequest(command_id=reader.next_id(), table="Mesa 1",
                                                               hand_number=1, reason="curious")))
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(denied.value) == "R-THB-13"


def test_the_director_approves_and_reconstructs_and_the_shoe_deals_what_it_reads(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_circle(pit, "Mesa 1", no_burns=True)
    for number in (1, 2, 3):
        seat(dealer, "Mesa 1", number)
    start(dealer, "Mesa 1")
    shoe = Client(port, TOKENS["shoe"])
    for sequence, card in enumerate(HOLE.split(), start=1):
        act(shoe, "Mesa 1", deal=cmd.Deal(card=card, source=pb.CARD_SOURCE_SHOE, sequence=sequence))
    shoe.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id="rep-1", table="Mesa 1", device="Shoe", serial="S-1", kind=pb.DEVICE_REPORT_KIND_DECK_CHECK,
        colour=pb.DECK_COLOUR_BLUE, result="52 counted"))
    view = shoe.GetTable(svc.GetTableRequest(table="Mesa 1"))
    assert _hole_cards(view) == ["??"] * 6, "a device sees no down card"
    for number in (1, 2):
        act(dealer, "Mesa 1", fold=cmd.Fold(seat=number))
    director = Client(port, TOKENS["director"])
    steps = list(director.ReconstructHand(svc.ReconstructHandRequest(
        command_id="rc-dj", table="Mesa 1", hand_number=1, reason="seat 3 disputes")))
    assert steps and steps[-1].event.HasField("hand_completed")
    assert [step.event.hand_card_dealt.card for step in steps if step.event.HasField("hand_card_dealt")] == \
        HOLE.split(), "the director sees every card"
