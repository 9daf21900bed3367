"""The gRPC service (pokertable.v1) end to end: a real server on a free port, a real channel, SQLite (as the file's
sole writer) and PostgreSQL underneath."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import grpc
import pokerkit
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.grpc.server import WATCH_PAGE
from tests.support import grpc_support
from tests.support.grpc_support import (
    TOKENS,
    Client,
    act,
    deal,
    get_table,
    open_circle,
    open_table,
    rule_of,
    seat,
    start,
    violations,
)

port = grpc_support.port


def test_a_hand_is_played_through_the_api(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    reply = start(dealer, "Mesa 1", pb.DECK_COLOUR_BLUE).result
    assert reply.hand_number == 1 and reply.hand_id
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    legal = dealer.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1"))
    assert legal.HasField("seat") and legal.seat == 1 and legal.call == 2 and legal.raise_min == 4
    assert {pb.ACTION_KIND_FOLD, pb.ACTION_KIND_CALL, pb.ACTION_KIND_BET} <= set(legal.allowed)
    bet = act(dealer, "Mesa 1", bet=cmd.Bet(seat=1, amount=10)).result
    assert bet.hand_id == reply.hand_id and bet.hand_number == 1
    for number in (2, 3):
        result = act(dealer, "Mesa 1", fold=cmd.Fold(seat=number)).result
    assert result.hand_complete and result.hand_number == 1
    view = get_table(dealer)
    assert view.game == pb.GAME_HOLDEM and view.family == pb.GAME_FAMILY_CIRCLE
    assert view.WhichOneof("detail") == "circle"
    assert dict(view.circle.stacks) == {1: 103, 2: 99, 3: 98} and not view.hand_in_progress
    hands = dealer.ListHands(svc.ListHandsRequest(table="Mesa 1")).hands
    assert [(h.hand_id, h.number) for h in hands] == [(reply.hand_id, 1)]
    legal = dealer.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1"))
    assert not legal.HasField("seat") and not legal.allowed


def played_to_the_big_blind(port: int) -> tuple[Client, Client]:
    """Mesa 1's first hand, dealt and folded to the big blind (seat 3); the pit boss's and the dealer's clients."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    start(dealer, "Mesa 1")
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    for number in (1, 2):
        act(dealer, "Mesa 1", fold=cmd.Fold(seat=number))
    return pit, dealer


def test_the_pit_boss_streams_a_reconstruction_and_the_request_is_recorded(port: int) -> None:
    pit, dealer = played_to_the_big_blind(port)
    request = svc.ReconstructHandRequest(command_id="rc-1", table="Mesa 1", hand_number=1, reason="seat 3 disputes")
    with pytest.raises(grpc.RpcError) as refused:
        list(dealer.ReconstructHand(request))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(refused.value) == "R-THB-13"
    steps = list(pit.ReconstructHand(request))
    assert [s.version for s in steps] == list(range(1, len(steps) + 1))
    assert steps[2].event.WhichOneof("event") == "hand_card_dealt" and steps[2].event.hand_card_dealt.card == "As"
    assert steps[2].description.startswith("As to seat") and steps[2].timestamp.seconds > 0
    assert steps[-1].state["phase"] == "complete" and "seat  3" in steps[-1].rendered
    changes = pit.Watch(svc.WatchRequest(table="Mesa 1"))
    requested = next(c for c in changes if c.event.WhichOneof("event") == "table_reconstruction_requested")
    changes.cancel()
    assert requested.event.table_reconstruction_requested.reason == "seat 3 disputes"


def test_hands_are_searched_through_the_api(port: int) -> None:
    pit, dealer = played_to_the_big_blind(port)
    found = pit.SearchHands(svc.SearchHandsRequest(table="Mesa 1", outcome=pb.HAND_OUTCOME_UNCONTESTED, seat=3)).hands
    assert [(h.number, h.outcome, list(h.winners), dict(h.net)) for h in found] == [
        (1, pb.HAND_OUTCOME_UNCONTESTED, [3], {1: 0, 2: -1, 3: 1})]
    assert found[0].started.seconds > 0 and found[0].ended.ToDatetime() >= found[0].started.ToDatetime()
    assert not dealer.SearchHands(svc.SearchHandsRequest(table="Mesa 1", outcome=pb.HAND_OUTCOME_SHOWDOWN)).hands
    assert not dealer.SearchHands(svc.SearchHandsRequest(table="Mesa 1", game=pb.GAME_OMAHA)).hands
    later = Timestamp(seconds=found[0].ended.seconds + 3600)
    assert not pit.SearchHands(svc.SearchHandsRequest(table="Mesa 1", since=later)).hands
    assert len(pit.SearchHands(svc.SearchHandsRequest(table="Mesa 1", until=later)).hands) == 1
    with pytest.raises(grpc.RpcError) as refused:
        pit.SearchHands(svc.SearchHandsRequest(table="Mesa 1", since=Timestamp(seconds=10**12)))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and violations(refused.value) == ["since"]
    other = Client(port, TOKENS["other"]).SearchHands(svc.SearchHandsRequest(table="Mesa 1")).hands
    assert other == found  # every station reads every table's hands (docs/service.md): a summary shows no card


def command(case: str, **fields: Any) -> cmd.Command:
    return cmd.Command(**{case: getattr(cmd, "".join(p.title() for p in case.split("_")))(**fields)})


def test_every_error_class_has_its_status_and_rule(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    start(dealer, "Mesa 1")
    circle = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2])
    cases: list[tuple[Client, str, Any, grpc.StatusCode, str]] = [
        (Client(port, None), "GetTable", svc.GetTableRequest(table="Mesa 1"), grpc.StatusCode.UNAUTHENTICATED,
         "R-AUD-1"),
        (Client(port, "wrong-token-0123456789"), "GetTable", svc.GetTableRequest(table="Mesa 1"),
         grpc.StatusCode.UNAUTHENTICATED, "R-AUD-1"),
        (dealer, "Act", svc.ActRequest(command_id="x1", table="Mesa 1", command=command("check", seat=1)),
         grpc.StatusCode.FAILED_PRECONDITION, "R-CIRC-3"),
        (dealer, "GetTable", svc.GetTableRequest(table="Mesa 9"), grpc.StatusCode.NOT_FOUND, "NONE"),
        (Client(port, TOKENS["tv"]), "Act",
         svc.ActRequest(command_id="x2", table="Mesa 1", command=command("deal", card="As")),
         grpc.StatusCode.PERMISSION_DENIED, "NONE"),
        (Client(port, TOKENS["other"]), "SeatPlayer",
         svc.SeatPlayerRequest(command_id="x3", table="Mesa 1", seat=4, chips=100),
         grpc.StatusCode.PERMISSION_DENIED, "NONE"),
        (dealer, "SeatPlayer", svc.SeatPlayerRequest(command_id="x4", table="Mesa 1", seat=4, chips=-5),
         grpc.StatusCode.INVALID_ARGUMENT, "R-CIRC-6"),
        (dealer, "SeatPlayer", svc.SeatPlayerRequest(command_id="", table="Mesa 1", seat=4, chips=5),
         grpc.StatusCode.INVALID_ARGUMENT, "NONE"),
        (dealer, "Act", svc.ActRequest(command_id="x5", table="Mesa 1", command=command("deal", card="Zz")),
         grpc.StatusCode.INVALID_ARGUMENT, "R-CARD-1"),
        (dealer, "Act", svc.ActRequest(command_id="x6", table="Mesa 1", command=cmd.Command()),
         grpc.StatusCode.INVALID_ARGUMENT, "R-CIRC-3"),
        (dealer, "Act", svc.ActRequest(command_id="x7", table="M" * 300, command=command("fold", seat=1)),
         grpc.StatusCode.INVALID_ARGUMENT, "NONE"),
        (pit, "OpenTable", svc.OpenTableRequest(command_id="x8", table="Mesa 3", game=99, circle=circle),  # type: ignore[arg-type]
         grpc.StatusCode.INVALID_ARGUMENT, "R-CIRC-5"),
        (dealer, "StartHand", svc.StartHandRequest(command_id="x9", table="Mesa 1", deck_colour=7),  # type: ignore[arg-type]
         grpc.StatusCode.INVALID_ARGUMENT, "R-DECK-2"),
        (dealer, "Act", svc.ActRequest(command_id="x10", table="Mesa 1", command=command("ante", seat=1, amount=5)),
         grpc.StatusCode.FAILED_PRECONDITION, "R-CIRC-3"),
    ]
    before = get_table(dealer)
    for client, method, request, code, rule in cases:
        with pytest.raises(grpc.RpcError) as error:
            getattr(client, method)(request)
        assert error.value.code() == code, (method, request, error.value.details())
        assert rule_of(error.value) == rule, (method, error.value.details())
        assert bool(violations(error.value)) == (code == grpc.StatusCode.INVALID_ARGUMENT), method
    assert get_table(dealer).circle == before.circle  # nothing changed


def test_invalid_arguments_name_the_request_field(port: int) -> None:
    """R-AUD-1: a malformed request says which field, as a BadRequest field violation with the field's path."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    start(dealer, "Mesa 1")
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    fixed = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, blinds=[1, 2])
    cases: list[tuple[Client, str, Any, str, str]] = [
        (dealer, "Act", svc.ActRequest(command_id="v1", table="Mesa 1", command=command("bet", seat=1, amount=0)),
         "command.bet.amount", "R-CIRC-6"),
        (dealer, "Act", svc.ActRequest(command_id="v2", table="Mesa 1", command=command("fold")),
         "command.fold.seat", "R-CIRC-2"),
        (dealer, "Act", svc.ActRequest(command_id="v3", table="Mesa 1",
                                       command=command("discard", seat=1, cards=["As", "1x"])),
         "command.discard.cards", "R-CARD-1"),
        (pit, "OpenTable", svc.OpenTableRequest(command_id="v4", table="Mesa 4", game=pb.GAME_HOLDEM, circle=fixed),
         "circle.small_bet", "R-CIRC-5"),
        (pit, "OpenTable", svc.OpenTableRequest(
            command_id="v5", table="Mesa 5", game=pb.GAME_HOLDEM,
            circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[2, -1])),
         "circle.blinds", "R-CIRC-5"),
        (pit, "OpenTable", svc.OpenTableRequest(command_id="v6", table="THB 9", game=pb.GAME_HOLDEM_BONUS,
                                                circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT)),
         "circle", "R-CIRC-5"),
        (pit, "OpenTable", svc.OpenTableRequest(command_id="v7", table="THB 9", game=pb.GAME_HOLDEM_BONUS,
                                                holdem_bonus=pb.HoldemBonusSettings(ante_min=7)),
         "holdem_bonus.ante_min", "R-THB-2"),
        (dealer, "RecordCutExposure", svc.RecordCutExposureRequest(command_id="v8", table="Mesa 1", card="Qh"),
         "colour", "R-DECK-2"),
        (pit, "CorrectStack", svc.CorrectStackRequest(command_id="v9", table="Mesa 1", seat=1, chips=5),
         "reason", "NONE"),
    ]
    for client, method, request, field, rule in cases:
        with pytest.raises(grpc.RpcError) as error:
            getattr(client, method)(request)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (method, error.value.details())
        assert violations(error.value) == [field], (method, error.value.details())
        assert rule_of(error.value) == rule, (method, error.value.details())


def test_a_retried_command_id_returns_the_first_result_and_applies_once(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    start(dealer, "Mesa 1")
    first = act(dealer, "Mesa 1", command_id="deal-once", deal=cmd.Deal(card="As"))
    second = act(dealer, "Mesa 1", command_id="deal-once", deal=cmd.Deal(card="As"))
    assert first == second
    view = get_table(pit)
    assert {p.seat: list(p.cards) for p in view.circle.players} == {2: ["As"], 3: [], 1: []}  # left of the button


def test_observers_and_other_tables_never_see_face_down_cards(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    start(dealer, "Mesa 1")
    deal(dealer, "Mesa 1", "As Kd Qh Ac Kc Qs")
    pits = get_table(pit)
    assert {p.seat: list(p.cards) for p in pits.circle.players} == {2: ["As", "Ac"], 3: ["Kd", "Kc"], 1: ["Qh", "Qs"]}
    for token in ("tv", "other", "dealer"):  # the table's own croupier too: he deals them, never reads them
        view = get_table(Client(port, TOKENS[token]))
        assert [list(p.cards) for p in view.circle.players] == [["??", "??"]] * 3
        changes = Client(port, TOKENS[token]).Watch(svc.WatchRequest(table="Mesa 1"))
        seen = [next(changes) for _ in range(10)]
        dealt = [c.event.hand_card_dealt for c in seen if c.event.WhichOneof("event") == "hand_card_dealt"]
        assert dealt and all(d.card == "??" for d in dealt)
        changes.cancel()


def test_the_watch_stream_resumes_after_a_reconnect_without_missing_or_repeating(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    stream = dealer.Watch(svc.WatchRequest(table="Mesa 1"))
    first = [next(stream) for _ in range(4)]  # opened and three players seated
    stream.cancel()
    assert [c.event.WhichOneof("event") for c in first] == ["table_opened"] + ["table_player_seated"] * 3
    assert [c.version for c in first] == [1, 2, 3, 4] and first[0].timestamp.seconds > 0
    start(dealer, "Mesa 1")
    deal(dealer, "Mesa 1", "As Kd")
    resumed = dealer.Watch(svc.WatchRequest(table="Mesa 1", after_position=first[-1].position))
    rest = [next(resumed) for _ in range(5)]
    resumed.cancel()
    assert [c.event.WhichOneof("event") for c in rest] == ["table_hand_started", "hand_started",
                                                           "hand_forced_bets_posted", "hand_card_dealt",
                                                           "hand_card_dealt"]
    positions = [c.position for c in first + rest]
    assert positions == sorted(set(positions))


def test_a_table_stream_does_not_stall_behind_a_page_of_another_tables_events(port: int) -> None:
    """A busy casino: the store holds more than a page of another table's events before this table's first one."""
    pit, dealer, other = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["other"])
    open_circle(pit, "Mesa 2", blinds=[1, 2])
    for number in range(WATCH_PAGE + 10):
        other.RecordDeviceReport(svc.RecordDeviceReportRequest(
            command_id=other.next_id(), table="Mesa 2", device="SHUFFLER-SIM", serial="S-1",
            kind=pb.DEVICE_REPORT_KIND_DECK_CHECK, colour=pb.DECK_COLOUR_RED if number % 2 else pb.DECK_COLOUR_BLUE,
            result="52 counted, complete"))
    open_table(pit, dealer)
    stream = dealer.Watch(svc.WatchRequest(table="Mesa 1"))
    first = [next(stream) for _ in range(4)]
    stream.cancel()
    assert [c.event.WhichOneof("event") for c in first] == ["table_opened"] + ["table_player_seated"] * 3


def test_the_table_as_it_stood_at_a_past_position_or_time(port: int) -> None:
    """Issue 8: GetTable with a position (or a time) shows the table and its hand then; as the caller may see it."""
    pit, _ = played_to_the_big_blind(port)
    changes = pit.Watch(svc.WatchRequest(table="Mesa 1"))
    seen = [next(changes) for _ in range(12)]  # opened, 3 seated, hand started (table and hand), blinds, 5 cards
    changes.cancel()
    fifth_card = seen[-1]
    assert fifth_card.event.WhichOneof("event") == "hand_card_dealt"
    then = get_table(pit, position=fifth_card.position)
    assert then.position == fifth_card.position and then.hand_in_progress and then.hand_number == 1
    assert then.time.ToDatetime() == fifth_card.timestamp.ToDatetime()
    assert {p.seat: len(p.cards) for p in then.circle.players} == {2: 2, 3: 2, 1: 1}
    assert then.circle.phase == pb.HAND_PHASE_DEALING and then.circle.next_card.target == pb.CARD_TARGET_HOLE
    assert then.circle.next_card.seat == 1
    observer = get_table(Client(port, TOKENS["tv"]), position=fifth_card.position)
    assert {c for p in observer.circle.players for c in p.cards} == {"??"}
    by_time = get_table(pit, at=fifth_card.timestamp)
    assert by_time.position == fifth_card.position
    before = get_table(pit, position=seen[3].position)
    assert not before.hand_in_progress and dict(before.circle.stacks) == {1: 100, 2: 100, 3: 100}
    now = get_table(pit)
    assert not now.hand_in_progress and dict(now.circle.stacks) == {1: 100, 2: 99, 3: 101}
    other_table = get_table(Client(port, TOKENS["other"]), position=fifth_card.position)
    assert {c for p in other_table.circle.players for c in p.cards} == {"??"}  # another table's croupier: no card


def test_a_hand_is_exported_as_json_and_phh_as_the_caller_may_see_it(port: int) -> None:
    pit, _dealer = played_to_the_big_blind(port)
    request = svc.ExportHandRequest(table="Mesa 1", hand_number=1, format=pb.EXPORT_FORMAT_JSON)
    own = pit.ExportHand(request)
    assert own.media_type == "application/json"
    document = json.loads(own.content)
    assert document["format"] == "pokertable-hand/1" and document["number"] == 1 and document["game"] == "holdem"
    dealt = [e["data"]["card"] for e in document["events"] if e["event"] == "Hand.CardDealt"]
    assert dealt == ["As", "Kd", "Qh", "Ac", "Kc", "Qs"]
    for token in ("tv", "dealer"):  # an observer, and the croupier's station (issue 15, item 5)
        public = json.loads(Client(port, TOKENS[token]).ExportHand(request).content)
        assert [e["data"]["card"] for e in public["events"] if e["event"] == "Hand.CardDealt"] == ["??"] * 6
    phh = pit.ExportHand(svc.ExportHandRequest(table="Mesa 1", hand_number=1, format=pb.EXPORT_FORMAT_PHH))
    history = tomllib.loads(phh.content)
    assert phh.media_type == "application/toml" and history["variant"] == "NT" and history["hand"] == 1
    assert "d dh p1 AsAc" in history["actions"] and history["table"] == "Mesa 1"
    public_text = Client(port, TOKENS["tv"]).ExportHand(
        svc.ExportHandRequest(table="Mesa 1", hand_number=1, format=pb.EXPORT_FORMAT_PHH)).content
    public_phh = tomllib.loads(public_text)
    assert "d dh p1 ????" in public_phh["actions"] and not any("As" in a for a in public_phh["actions"])
    for text in (phh.content, public_text):  # both read by pokerkit, to the same finishing stacks
        states = list(pokerkit.HandHistory.loads(text))
        assert list(states[-1].stacks) == history["finishing_stacks"]
    with pytest.raises(grpc.RpcError) as missing:
        pit.ExportHand(svc.ExportHandRequest(table="Mesa 1", hand_number=2))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    open_circle(pit, "Mesa 2", pb.GAME_STUD5, structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, ante=1, bring_in=1,
                small_bet=2, big_bet=4)
    other = Client(port, TOKENS["other"])
    for number in (1, 2):
        seat(other, "Mesa 2", number)
    start(other, "Mesa 2")
    act(pit, "Mesa 2", void=cmd.Void(rule="R-DECK-1", reason="a card missing from the deck"))
    with pytest.raises(grpc.RpcError) as refused:
        pit.ExportHand(svc.ExportHandRequest(table="Mesa 2", hand_number=1, format=pb.EXPORT_FORMAT_PHH))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "PHH" in (refused.value.details() or "")
