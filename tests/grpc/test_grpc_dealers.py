"""ListDealerFigures (issue 19, items 4 and 5; docs/alerts.md): the dealers' figures for the pit over gRPC, on a real
server on SQLite and on PostgreSQL.

Two dealers rotate at Mesa 1: D-7 deals a hand to its end (a fold) and a hand the pit voids, and the pit corrects a
stack meanwhile; D-9 replaces him (a rotation), deals a hand, a card is exposed at the cut, and he signs out; a last
hand starts with nobody signed in.  Each dealer's figures — his table, his time at it (the difference of the rotation
events' own times, read back from the table's Watch stream), hands, hands per hour, voids, corrections, exposed cards
— and the rotations are the ones the test made; a range clips them (its end excluded).  A dealer still signed in
deals until now; the default range is the casino's current shift.  Only the pit boss and the games director may ask
(R-AUD-1): a croupier's station, an observer and a device are refused with PERMISSION_DENIED; a range that ends
before it starts is INVALID_ARGUMENT naming the field."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domain.shifts import shift_start
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app import dealer_report
from service.bootstrap import open_store
from service.grpc import dealers
from service.web import dealers as web_dealers
from tests.support import grpc_support
from tests.support.grpc_support import (
    STATIONS,
    TOKENS,
    Client,
    act,
    deal,
    open_circle,
    rule_of,
    seat,
    serving,
    start,
    violations,
)

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

SIGN_IN, SIGN_OUT = pb.DEALER_ROTATION_KIND_SIGN_IN, pb.DEALER_ROTATION_KIND_SIGN_OUT
ROTATIONS = ("table_dealer_signed_in", "table_dealer_signed_out")


def _stamp(moment: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def _sign_in(croupier: Client, dealer_id: str) -> None:
    croupier.SignIn(svc.SignInRequest(command_id=croupier.next_id(), table="Mesa 1", dealer_id=dealer_id))


def _hand_to_a_fold(croupier: Client, pit: Client, colour: pb.DeckColour) -> None:
    """A hand dealt heads-up and ended by the first player to speak folding (uncontested)."""
    start(croupier, "Mesa 1", colour)
    deal(croupier, "Mesa 1", "As Kd Qh Jc")
    legal = pit.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1"))
    act(croupier, "Mesa 1", fold=cmd.Fold(seat=legal.seat))
    assert not pit.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1")).HasField("seat")  # the hand is over


def _rotation_times(client: Client, count: int) -> list[tuple[str, datetime]]:
    """The table's first ``count`` sign-ins and sign-outs as its Watch stream tells them: (dealer, time)."""
    stream = client.Watch(svc.WatchRequest(table="Mesa 1"), timeout=10)
    found: list[tuple[str, datetime]] = []
    try:
        for change in stream:
            kind = change.event.WhichOneof("event")
            if kind in ROTATIONS:
                found.append((getattr(change.event, kind).dealer_id, change.timestamp.ToDatetime(tzinfo=UTC)))
                if len(found) == count:
                    break
    finally:
        stream.cancel()
    return found


def _figures(reply: svc.ListDealerFiguresResponse) -> dict[str, tuple[list[str], int, int, int, int]]:
    return {f.dealer_id: (list(f.tables), f.hands, f.voids, f.corrections, f.exposed_cards) for f in reply.dealers}


def test_r_aud_1_two_dealers_rotating_each_have_their_time_hands_and_irregularities(port: int) -> None:
    pit, croupier = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    before = datetime.now(UTC) - timedelta(seconds=1)
    open_circle(pit, "Mesa 1", blinds=[1, 2])
    seat(croupier, "Mesa 1", 1), seat(croupier, "Mesa 1", 2)
    _sign_in(croupier, "D-7")
    _hand_to_a_fold(croupier, pit, pb.DECK_COLOUR_RED)
    start(croupier, "Mesa 1", pb.DECK_COLOUR_BLUE)
    act(pit, "Mesa 1", void=cmd.Void(rule="R-CIRC-14", reason="misdeal recognised by the croupier"))
    pit.CorrectStack(svc.CorrectStackRequest(command_id=pit.next_id(), table="Mesa 1", seat=1, chips=90,
                                             reason="ten chips paid by mistake"))
    _sign_in(croupier, "D-9")  # the rotation: D-9 replaces D-7
    _hand_to_a_fold(croupier, pit, pb.DECK_COLOUR_RED)
    croupier.RecordCutExposure(svc.RecordCutExposureRequest(command_id=croupier.next_id(), table="Mesa 1",
                                                            card="Qh", colour=pb.DECK_COLOUR_BLUE))
    croupier.SignOut(svc.SignOutRequest(command_id=croupier.next_id(), table="Mesa 1"))
    croupier.RecordDeviceReport(svc.RecordDeviceReportRequest(
        command_id=croupier.next_id(), table="Mesa 1", device="hand shuffle", serial="croupier",
        kind=pb.DEVICE_REPORT_KIND_SHUFFLE, colour=pb.DECK_COLOUR_BLUE, result="shuffled again"))
    start(croupier, "Mesa 1", pb.DECK_COLOUR_BLUE)  # nobody signed in: the hand is nobody's
    after = datetime.now(UTC) + timedelta(seconds=1)
    (_, seven_in), (_, nine_in), (_, nine_out) = _rotation_times(pit, 3)

    reply = pit.ListDealerFigures(svc.ListDealerFiguresRequest(since=_stamp(before), until=_stamp(after)))
    assert (reply.since.ToDatetime(tzinfo=UTC), reply.until.ToDatetime(tzinfo=UTC)) == (before, after)
    assert [f.dealer_id for f in reply.dealers] == ["", "D-7", "D-9"]
    assert _figures(reply) == {"": (["Mesa 1"], 1, 0, 0, 0), "D-7": (["Mesa 1"], 2, 1, 1, 0),
                               "D-9": (["Mesa 1"], 1, 0, 0, 1)}
    nobody, seven, nine = reply.dealers
    assert seven.time_dealt.ToTimedelta() == nine_in - seven_in
    assert nine.time_dealt.ToTimedelta() == nine_out - nine_in
    assert seven.hands_per_hour == round(2 / ((nine_in - seven_in).total_seconds() / 3600), 2)
    assert nine.hands_per_hour == round(1 / ((nine_out - nine_in).total_seconds() / 3600), 2)
    assert (nobody.time_dealt.ToTimedelta(), nobody.hands_per_hour) == (timedelta(0), 0.0)
    assert [(r.table, r.dealer_id, r.previous_dealer_id, r.kind, r.time.ToDatetime(tzinfo=UTC))
            for r in reply.rotations] == [("Mesa 1", "D-7", "", SIGN_IN, seven_in),
                                          ("Mesa 1", "D-9", "D-7", SIGN_IN, nine_in),
                                          ("Mesa 1", "D-9", "", SIGN_OUT, nine_out)]

    # a range clips: from D-9's sign-in, D-7 dealt nothing in it; up to it (excluded), D-9 had not come
    since_nine = pit.ListDealerFigures(svc.ListDealerFiguresRequest(since=_stamp(nine_in), until=_stamp(after)))
    assert _figures(since_nine) == {"": (["Mesa 1"], 1, 0, 0, 0), "D-9": (["Mesa 1"], 1, 0, 0, 1)}
    assert [r.kind for r in since_nine.rotations] == [SIGN_IN, SIGN_OUT]
    until_nine = pit.ListDealerFigures(svc.ListDealerFiguresRequest(since=_stamp(before), until=_stamp(nine_in)))
    assert _figures(until_nine) == {"D-7": (["Mesa 1"], 2, 1, 1, 0)}
    assert until_nine.dealers[0].time_dealt.ToTimedelta() == nine_in - seven_in
    assert [(r.dealer_id, r.kind) for r in until_nine.rotations] == [("D-7", SIGN_IN)]

    # the games director too; the default range is the current shift (the server's zone: UTC here), up to now
    shift = Client(port, TOKENS["director"]).ListDealerFigures(svc.ListDealerFiguresRequest())
    until = shift.until.ToDatetime(tzinfo=UTC)
    assert shift.since.ToDatetime(tzinfo=UTC) == shift_start(until, ZoneInfo("UTC")) and after - timedelta(
        seconds=1) <= until <= datetime.now(UTC)
    if shift.since.ToDatetime(tzinfo=UTC) <= before:  # the shift did not begin while the test ran
        assert _figures(shift) == _figures(reply) and list(shift.rotations) == list(reply.rotations)


def test_r_aud_1_only_the_pit_boss_and_the_games_director_see_the_dealers_and_a_range_must_not_end_first(
    port: int,
) -> None:
    for who in ("dealer", "tv", "shoe"):  # a croupier's station, an observer, a device
        with pytest.raises(grpc.RpcError) as refused:
            Client(port, TOKENS[who]).ListDealerFigures(svc.ListDealerFiguresRequest())
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(refused.value) == "R-AUD-1", who
    pit = Client(port, TOKENS["pit"])
    later, earlier = Timestamp(seconds=2_000_000_000), Timestamp(seconds=1_900_000_000)
    bad = [(svc.ListDealerFiguresRequest(since=later, until=earlier), "until"),
           (svc.ListDealerFiguresRequest(since=Timestamp(seconds=4_000_000_000)), "since"),  # after now, no end
           (svc.ListDealerFiguresRequest(until=Timestamp(seconds=253_402_300_800)), "until")]  # past the year 9999
    for request, field in bad:
        with pytest.raises(grpc.RpcError) as refused:
            pit.ListDealerFigures(request)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, field
        assert (rule_of(refused.value), violations(refused.value)) == ("R-AUD-1", [field])
    empty = pit.ListDealerFigures(svc.ListDealerFiguresRequest(since=earlier, until=earlier))
    assert not empty.dealers and not empty.rotations  # a range that ends as it starts holds nothing
    assert not pit.ListDealerFigures(svc.ListDealerFiguresRequest()).dealers  # nothing dealt: no dealer


def test_a_dealer_still_signed_in_deals_until_now_and_the_shift_is_the_casino_s(tmp_path: Path) -> None:
    """``pokertable serve`` passes the casino's time zone to the server: the default range starts at its shift's
    start (00:00, 08:00 or 16:00 in Madrid); a dealer signed in and not yet replaced deals up to the answer's end."""
    store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
    madrid = ZoneInfo("Europe/Madrid")
    try:
        with serving(store.app, STATIONS, zone=madrid) as bound:
            pit, croupier = Client(bound, TOKENS["pit"]), Client(bound, TOKENS["dealer"])
            before = datetime.now(UTC) - timedelta(seconds=1)
            open_circle(pit, "Mesa 1")
            seat(croupier, "Mesa 1", 1), seat(croupier, "Mesa 1", 2)
            _sign_in(croupier, "D-3")
            start(croupier, "Mesa 1", pb.DECK_COLOUR_RED)
            [(_, signed_in)] = _rotation_times(pit, 1)
            reply = pit.ListDealerFigures(svc.ListDealerFiguresRequest(since=_stamp(before)))
            shift = pit.ListDealerFigures(svc.ListDealerFiguresRequest())
    finally:
        store.close()
    [three] = reply.dealers
    assert (three.dealer_id, three.hands) == ("D-3", 1)
    assert three.time_dealt.ToTimedelta() == reply.until.ToDatetime(tzinfo=UTC) - signed_in
    assert shift.since.ToDatetime(tzinfo=UTC) == shift_start(shift.until.ToDatetime(tzinfo=UTC), madrid)


def test_the_modules_examples_hold() -> None:
    for module in (dealer_report, dealers, web_dealers):
        failed, tried = doctest.testmod(module)
        assert tried and not failed, module.__name__
