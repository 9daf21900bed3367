"""The gRPC service end to end: a real server on a free port, a real channel, SQLite underneath."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from service.api import pokertable_pb2 as pb
from service.api import pokertable_pb2_grpc as pb_grpc
from service.app.application import PokerTables
from service.grpc.server import WATCH_PAGE, Stations, create_server
from service.store.persistence import claim_sole_writer, environment
from tests.test_application import postgres_store

TOKENS = {"pit": "pit-boss-token-0123456789", "dealer": "dealer-token-0123456789", "tv": "observer-token-0123456789",
          "other": "other-dealer-token-012345", "director": "games-director-token-012345",
          "thb": "thb-dealer-token-0123456789", "shoe": "mesa-1-shoe-token-0123456789"}
STATIONS = Stations.from_mapping({
    "pit": {"token": TOKENS["pit"], "role": "pit-boss"},
    "mesa-1": {"token": TOKENS["dealer"], "role": "dealer", "table": "Mesa 1"},
    "tv": {"token": TOKENS["tv"], "role": "observer"},
    "mesa-2": {"token": TOKENS["other"], "role": "dealer", "table": "Mesa 2"},
    "dj": {"token": TOKENS["director"], "role": "games-director"},
    "thb-1": {"token": TOKENS["thb"], "role": "dealer", "table": "THB 1"},
    "shoe-1": {"token": TOKENS["shoe"], "role": "device", "table": "Mesa 1"},
})


@pytest.fixture(params=["sqlite", "postgres"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    """A server on a free port, in its own event loop thread, on each kind of store: on SQLite as ``pokertable
    serve`` runs it, the file's sole writer (commands applied on the event loop, the cache not fast-forwarded)."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    claim = claim_sole_writer(url) if request.param == "sqlite" else None
    env = environment(url, sole_writer=True) if claim is not None else postgres_store()
    app = PokerTables(env=env)
    assert app.sole_writer is (claim is not None)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server, bound = asyncio.run_coroutine_threadsafe(create_server(app, STATIONS), loop).result(timeout=10)
    yield bound
    asyncio.run_coroutine_threadsafe(server.stop(0), loop).result(timeout=10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    if claim is not None:
        claim.release()


class Client:
    """A station's stub with its token."""

    def __init__(self, port: int, token: str | None) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = pb_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.metadata = [("authorization", f"Bearer {token}")] if token else []
        self.counter = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.stub, name)
        return lambda request, **kw: method(request, metadata=self.metadata, timeout=10, **kw)

    def next_id(self) -> str:
        self.counter += 1
        return f"{id(self)}-{self.counter}"


def rule_of(error: grpc.RpcError) -> str:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return str(info.reason)


def open_table(pit: Client, dealer: Client) -> None:
    settings = pb.Settings(variant="holdem", structure="no-limit", blinds=[1, 2], no_burns=True)
    pit.OpenTable(pb.OpenTableRequest(command_id=pit.next_id(), table="Mesa 1", settings=settings))
    for seat in (1, 2, 3):
        dealer.SeatPlayer(pb.SeatPlayerRequest(command_id=dealer.next_id(), table="Mesa 1", seat=seat, chips=100))


def deal(dealer: Client, cards: str) -> None:
    for card in cards.split():
        dealer.HandCommand(pb.HandCommandRequest(command_id=dealer.next_id(), table="Mesa 1", action="deal",
                                                 card=card, source="croupier"))


def test_a_hand_is_played_through_the_api(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    reply = dealer.StartHand(pb.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1", deck_colour="blue"))
    assert reply.hand_number == 1 and reply.hand_id
    deal(dealer, "As Kd Qh Ac Kc Qs")
    legal = dealer.GetLegalActions(pb.TableRequest(table="Mesa 1"))
    assert legal.anyone_to_act and legal.seat == 1 and legal.call == 2 and legal.raise_min == 4
    dealer.HandCommand(pb.HandCommandRequest(command_id=dealer.next_id(), table="Mesa 1", action="bet", seat=1,
                                             amount=10))
    for seat in (2, 3):
        reply = dealer.HandCommand(pb.HandCommandRequest(command_id=dealer.next_id(), table="Mesa 1", action="fold",
                                                         seat=seat))
    assert reply.hand_complete
    view = dealer.GetTable(pb.TableRequest(table="Mesa 1"))
    assert dict(view.stacks) == {1: 103, 2: 99, 3: 98} and not view.hand_in_progress
    assert len(dealer.ListHands(pb.TableRequest(table="Mesa 1")).hand_ids) == 1


def played_to_the_big_blind(port: int) -> tuple[Client, Client]:
    """Mesa 1's first hand, dealt and folded to the big blind (seat 3); the pit boss's and the dealer's clients."""
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    dealer.StartHand(pb.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1"))
    deal(dealer, "As Kd Qh Ac Kc Qs")
    for seat in (1, 2):
        dealer.HandCommand(pb.HandCommandRequest(command_id=dealer.next_id(), table="Mesa 1", action="fold",
                                                 seat=seat))
    return pit, dealer


def test_the_pit_boss_streams_a_reconstruction_and_the_request_is_recorded(port: int) -> None:
    pit, dealer = played_to_the_big_blind(port)
    request = pb.ReconstructRequest(command_id="rc-1", table="Mesa 1", hand_number=1, reason="seat 3 disputes")
    with pytest.raises(grpc.RpcError) as refused:
        list(dealer.ReconstructHand(request))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(refused.value) == "R-THB-13"
    steps = list(pit.ReconstructHand(request))
    assert [s.version for s in steps] == list(range(1, len(steps) + 1))
    assert steps[2].event == "Hand.CardDealt" and steps[2].description.startswith("As to seat")
    assert json.loads(steps[-1].state_json)["phase"] == "complete" and "seat  3" in steps[-1].rendered
    changes = pit.Watch(pb.WatchRequest(table="Mesa 1"))
    requested = next(c for c in changes if c.event == "Table.ReconstructionRequested")
    changes.cancel()
    assert json.loads(requested.payload_json)["reason"] == "seat 3 disputes"


def test_hands_are_searched_through_the_api(port: int) -> None:
    pit, dealer = played_to_the_big_blind(port)
    found = pit.SearchHands(pb.SearchHandsRequest(table="Mesa 1", outcome="uncontested", seat=3)).hands
    assert [(h.number, h.outcome, list(h.winners), dict(h.net)) for h in found] == [
        (1, "uncontested", [3], {1: 0, 2: -1, 3: 1})]
    assert not dealer.SearchHands(pb.SearchHandsRequest(table="Mesa 1", outcome="showdown")).hands
    with pytest.raises(grpc.RpcError) as refused:
        pit.SearchHands(pb.SearchHandsRequest(table="Mesa 1", since="2026-01-01T00:00:00"))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "offset" in (refused.value.details() or "")
    with pytest.raises(grpc.RpcError) as denied:
        Client(port, TOKENS["other"]).SearchHands(pb.SearchHandsRequest(table="Mesa 1"))
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_every_error_class_has_its_status_and_rule(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    dealer.StartHand(pb.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1"))
    cases: list[tuple[Client, str, Any, grpc.StatusCode, str]] = [
        (Client(port, None), "GetTable", pb.TableRequest(table="Mesa 1"), grpc.StatusCode.UNAUTHENTICATED, "R-AUD-1"),
        (Client(port, "wrong-token-0123456789"), "GetTable", pb.TableRequest(table="Mesa 1"),
         grpc.StatusCode.UNAUTHENTICATED, "R-AUD-1"),
        (dealer, "HandCommand", pb.HandCommandRequest(command_id="x1", table="Mesa 1", action="check", seat=1),
         grpc.StatusCode.FAILED_PRECONDITION, "R-CIRC-3"),
        (dealer, "GetTable", pb.TableRequest(table="Mesa 9"), grpc.StatusCode.NOT_FOUND, "NONE"),
        (Client(port, TOKENS["tv"]), "HandCommand",
         pb.HandCommandRequest(command_id="x2", table="Mesa 1", action="deal", card="As"),
         grpc.StatusCode.PERMISSION_DENIED, "NONE"),
        (Client(port, TOKENS["other"]), "SeatPlayer",
         pb.SeatPlayerRequest(command_id="x3", table="Mesa 1", seat=4, chips=100),
         grpc.StatusCode.PERMISSION_DENIED, "NONE"),
        (dealer, "SeatPlayer", pb.SeatPlayerRequest(command_id="x4", table="Mesa 1", seat=4, chips=-5),
         grpc.StatusCode.INVALID_ARGUMENT, "R-CIRC-6"),
        (dealer, "SeatPlayer", pb.SeatPlayerRequest(command_id="", table="Mesa 1", seat=4, chips=5),
         grpc.StatusCode.INVALID_ARGUMENT, "NONE"),
        (dealer, "HandCommand", pb.HandCommandRequest(command_id="x5", table="Mesa 1", action="deal", card="Zz"),
         grpc.StatusCode.INVALID_ARGUMENT, "R-CARD-1"),
        (dealer, "HandCommand", pb.HandCommandRequest(command_id="x6", table="Mesa 1", action="dance"),
         grpc.StatusCode.INVALID_ARGUMENT, "R-CIRC-3"),
        (dealer, "HandCommand", pb.HandCommandRequest(command_id="x7", table="M" * 300, action="fold", seat=1),
         grpc.StatusCode.INVALID_ARGUMENT, "NONE"),
        (pit, "OpenTable", pb.OpenTableRequest(command_id="x8", table="Mesa 3", settings=pb.Settings(variant="bingo")),
         grpc.StatusCode.INVALID_ARGUMENT, "R-CIRC-5"),
        (dealer, "StartHand", pb.StartHandRequest(command_id="x9", table="Mesa 1", deck_colour="green"),
         grpc.StatusCode.INVALID_ARGUMENT, "R-DECK-2"),
    ]
    before = dealer.GetTable(pb.TableRequest(table="Mesa 1"))
    for client, method, request, code, rule in cases:
        with pytest.raises(grpc.RpcError) as error:
            getattr(client, method)(request)
        assert error.value.code() == code, (method, request, error.value.details())
        assert rule_of(error.value) == rule, (method, error.value.details())
    assert dealer.GetTable(pb.TableRequest(table="Mesa 1")) == before  # nothing changed


def test_a_retried_command_id_returns_the_first_result_and_applies_once(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    dealer.StartHand(pb.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1"))
    request = pb.HandCommandRequest(command_id="deal-once", table="Mesa 1", action="deal", card="As")
    first, second = dealer.HandCommand(request), dealer.HandCommand(request)
    assert first == second
    view = dealer.GetTable(pb.TableRequest(table="Mesa 1"))
    assert {p.seat: list(p.cards) for p in view.players} == {2: ["As"], 3: [], 1: []}  # once, left of the button


def test_observers_and_other_tables_never_see_face_down_cards(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    dealer.StartHand(pb.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1"))
    deal(dealer, "As Kd Qh Ac Kc Qs")
    own = dealer.GetTable(pb.TableRequest(table="Mesa 1"))
    assert {p.seat: list(p.cards) for p in own.players} == {2: ["As", "Ac"], 3: ["Kd", "Kc"], 1: ["Qh", "Qs"]}
    for token in ("tv", "other"):
        view = Client(port, TOKENS[token]).GetTable(pb.TableRequest(table="Mesa 1"))
        assert [list(p.cards) for p in view.players] == [["??", "??"]] * 3
        changes = Client(port, TOKENS[token]).Watch(pb.WatchRequest(table="Mesa 1"))
        seen = [next(changes) for _ in range(10)]
        assert all('"card": "??"' in c.payload_json for c in seen if c.event == "Hand.CardDealt")
        changes.cancel()


def test_the_watch_stream_resumes_after_a_reconnect_without_missing_or_repeating(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    stream = dealer.Watch(pb.WatchRequest(table="Mesa 1"))
    first = [next(stream) for _ in range(4)]  # opened and three players seated
    stream.cancel()
    assert [c.event for c in first] == ["Table.Opened", "Table.PlayerSeated", "Table.PlayerSeated",
                                        "Table.PlayerSeated"]
    dealer.StartHand(pb.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1"))
    deal(dealer, "As Kd")
    resumed = dealer.Watch(pb.WatchRequest(table="Mesa 1", after_position=first[-1].position))
    rest = [next(resumed) for _ in range(5)]
    resumed.cancel()
    assert [c.event for c in rest] == ["Table.HandStarted", "Hand.Started", "Hand.ForcedBetsPosted",
                                       "Hand.CardDealt", "Hand.CardDealt"]
    positions = [c.position for c in first + rest]
    assert positions == sorted(set(positions))


def test_a_table_stream_does_not_stall_behind_a_page_of_another_tables_events(port: int) -> None:
    """A busy casino: the store holds more than a page of another table's events before this table's first one."""
    pit, dealer, other = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"]), Client(port, TOKENS["other"])
    settings = pb.Settings(variant="holdem", structure="no-limit", blinds=[1, 2])
    pit.OpenTable(pb.OpenTableRequest(command_id=pit.next_id(), table="Mesa 2", settings=settings))
    for number in range(WATCH_PAGE + 10):
        other.RecordDeviceReport(pb.DeviceReportRequest(
            command_id=other.next_id(), table="Mesa 2", device="SHUFFLER-SIM", serial="S-1", kind="deck-check",
            colour="red" if number % 2 else "blue", result="52 counted, complete"))
    open_table(pit, dealer)
    stream = dealer.Watch(pb.WatchRequest(table="Mesa 1"))
    first = [next(stream) for _ in range(4)]
    stream.cancel()
    assert [c.event for c in first] == ["Table.Opened"] + ["Table.PlayerSeated"] * 3


def test_health_checking_and_reflection_answer(port: int) -> None:
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    health = health_pb2_grpc.HealthStub(channel)
    reply = health.Check(  # type: ignore[attr-defined]
        health_pb2.HealthCheckRequest(service="pokertable.v1.TableService"), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    requests = iter([reflection_pb2.ServerReflectionRequest(list_services="")])
    responses = stub.ServerReflectionInfo(requests, timeout=5)  # type: ignore[operator]
    names = {s.name for r in responses for s in r.list_services_response.service}
    assert "pokertable.v1.TableService" in names


def test_two_instances_on_one_postgres_never_both_apply_conflicting_commands() -> None:
    """Both instances race to seat a player in the same seat, many times: exactly one applies each time; the loser
    gets ABORTED (retryable) or FAILED_PRECONDITION (it saw the winner's change), and nothing else changes."""
    env = postgres_store()
    loops, servers, ports = [], [], []
    for _ in range(2):
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, daemon=True).start()
        server, bound = asyncio.run_coroutine_threadsafe(create_server(PokerTables(env=env), STATIONS), loop).result()
        loops.append(loop)
        servers.append(server)
        ports.append(bound)
    try:
        pit, first, second = Client(ports[0], TOKENS["pit"]), Client(ports[0], TOKENS["dealer"]), \
            Client(ports[1], TOKENS["dealer"])
        settings = pb.Settings(variant="holdem", structure="no-limit", blinds=[1, 2])
        pit.OpenTable(pb.OpenTableRequest(command_id="open-race", table="Mesa 1", settings=settings))
        codes: list[grpc.StatusCode] = []
        for seat in range(1, 11):
            barrier = threading.Barrier(2)
            outcomes: list[grpc.StatusCode] = []

            def race(client: Client, tag: str, seat: int = seat, barrier: threading.Barrier = barrier,
                     outcomes: list[grpc.StatusCode] = outcomes) -> None:
                barrier.wait()
                try:
                    client.SeatPlayer(pb.SeatPlayerRequest(command_id=f"{tag}-{seat}", table="Mesa 1", seat=seat,
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
        view = first.GetTable(pb.TableRequest(table="Mesa 1"))
        assert sorted(view.stacks) == list(range(1, 11))
    finally:
        for loop, server in zip(loops, servers, strict=True):
            asyncio.run_coroutine_threadsafe(server.stop(0), loop).result()
            loop.call_soon_threadsafe(loop.stop)


def thb_command(client: Client, action: str, **fields: Any) -> pb.CommandReply:
    reply: pb.CommandReply = client.BankedCommand(
        pb.BankedCommandRequest(command_id=client.next_id(), table="THB 1", action=action, **fields))
    return reply


def test_a_texas_holdem_bonus_hand_over_the_api_with_the_directors_approval(port: int) -> None:
    pit, dealer, director = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"]), Client(port, TOKENS["director"])
    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id="open-thb", table="THB 1", game="holdem-bonus",
                                                  ante_min=5))
    dealer.StartBankedHand(pb.StartHandRequest(command_id="thb-hand-1", table="THB 1", deck_colour="red"))
    thb_command(dealer, "ante", box=1, amount=10)
    thb_command(dealer, "bonus", box=1, amount=2)
    thb_command(dealer, "ante", box=3, amount=20)
    thb_command(dealer, "close-bets")
    for card in ["As", "9c", "Ac", "Ad", "2d", "Ah"]:  # boxes 1 and 3, dealer left, boxes 1 and 3, dealer right
        thb_command(dealer, "deal", card=card)
    view = dealer.GetBankedTable(pb.TableRequest(table="THB 1"))
    assert list(view.dealer) == ["??", "??"]  # the dealer's cards stay hidden from the croupier's screen
    assert [list(b.cards) for b in view.boxes] == [["As", "Ad"], ["9c", "2d"]]
    thb_command(dealer, "flop-bet", box=1, amount=20)
    thb_command(dealer, "fold", box=3)
    for card in ["3s", "Kh", "7h", "8s"]:
        thb_command(dealer, "deal", card=card)
    thb_command(dealer, "check", box=1)
    for card in ["4s", "5c"]:
        thb_command(dealer, "deal", card=card)
    thb_command(dealer, "check", box=1)
    for card in ["6d", "Jc"]:
        reply = thb_command(dealer, "deal", card=card)
    assert not reply.hand_complete  # the 1000:1 waits for the games director (R-THB-10)
    with pytest.raises(grpc.RpcError) as error:
        thb_command(dealer, "approve", box=1)
    assert error.value.code() == grpc.StatusCode.PERMISSION_DENIED
    reply = director.BankedCommand(pb.BankedCommandRequest(command_id="approve-1", table="THB 1", action="approve",
                                                           box=1))
    assert reply.hand_complete
    view = dealer.GetBankedTable(pb.TableRequest(table="THB 1"))
    assert view.hands_started == 1 and not view.hand_in_progress
    assert view.bank_result == -(2000 + 0 + 0) + 20  # bonus 1000:1 on 2; box 1 ties the dealer's aces; box 3 folded


def test_a_casino_draw_hand_over_the_api(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"])
    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id="open-cdp", table="THB 1", game="casino-draw",
                                                  ante_min=5, ante_max=100))
    dealer.StartBankedHand(pb.StartHandRequest(command_id="cdp-hand-1", table="THB 1"))
    thb_command(dealer, "ante", box=2, amount=10)
    thb_command(dealer, "close-bets")
    for card in ["Ac", "Ad", "As", "3s", "9c", "8c", "8d", "Kh", "9s", "2s"]:
        thb_command(dealer, "deal", card=card)
    thb_command(dealer, "exchange", box=2, cards=["3s", "9c"])
    thb_command(dealer, "deal", card="Ah")
    thb_command(dealer, "deal", card="2c")
    reply = thb_command(dealer, "play", box=2, amount=20)
    assert reply.hand_complete
    assert dealer.GetBankedTable(pb.TableRequest(table="THB 1")).bank_result == -(10 + 20 * 20)  # four aces 20:1


def test_the_pit_configures_corrects_and_closes_a_table_between_hands(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    bigger = pb.Settings(variant="holdem", structure="no-limit", blinds=[5, 10], no_burns=True)
    with pytest.raises(grpc.RpcError) as error:
        dealer.ConfigureTable(pb.ConfigureTableRequest(command_id=dealer.next_id(), table="Mesa 1", settings=bigger))
    assert error.value.code() == grpc.StatusCode.PERMISSION_DENIED
    other_game = pb.Settings(variant="omaha", structure="pot-limit", blinds=[5, 10])
    with pytest.raises(grpc.RpcError) as error:
        pit.ConfigureTable(pb.ConfigureTableRequest(command_id=pit.next_id(), table="Mesa 1", settings=other_game))
    assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION and rule_of(error.value) == "R-CIRC-5"
    pit.ConfigureTable(pb.ConfigureTableRequest(command_id=pit.next_id(), table="Mesa 1", settings=bigger))
    pit.CorrectStack(pb.CorrectStackRequest(command_id=pit.next_id(), table="Mesa 1", seat=2, chips=150,
                                            reason="chips miscounted at the buy-in"))
    dealer.StartHand(pb.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1"))
    view = dealer.GetTable(pb.TableRequest(table="Mesa 1"))
    assert view.pot == 15 and {p.seat: p.stack + p.put_in for p in view.players}[2] == 150  # new blinds 5/10
    with pytest.raises(grpc.RpcError) as error:
        pit.CloseTable(pb.CloseTableRequest(command_id=pit.next_id(), table="Mesa 1"))
    assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # not during a hand
    pit.HandCommand(pb.HandCommandRequest(command_id=pit.next_id(), table="Mesa 1", action="void", rule="R-DECK-1",
                                          reason="a card missing from the deck"))
    pit.CloseTable(pb.CloseTableRequest(command_id=pit.next_id(), table="Mesa 1"))
    with pytest.raises(grpc.RpcError) as error:
        dealer.StartHand(pb.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1"))
    assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION
