"""A shift played by people, not stations (issue 32, acceptance): two croupiers rotating at one table, a pit boss and
a games director, over gRPC against a real server on SQLite and on PostgreSQL.  Every event of every command in the
log names a person and a station; the export, the reconstruction and the Watch stream name them; and the attacks of
the issue are refused (R-AUD-1)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domain.attribution import BY_PERSON, BY_STATION
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.app.credentials import Credentials
from service.bootstrap import open_store
from service.grpc.server import Stations
from tests.support.grpc_support import (
    STATIONS,
    TOKENS,
    Client,
    act,
    deal,
    open_banked,
    open_circle,
    rule_of,
    seat,
    serving,
    start,
)
from tests.support.stores import postgres_store

ADMIN_TOKEN = "it-admin-station-token-0123456789"
STAFF_STATIONS = Stations.from_mapping({
    **{station.station: {"token_sha256": key, "role": station.kind or station.role.value,
                         **({"table": station.table} if station.table else {})}
       for key, station in STATIONS.by_token.digests().items()},
    "it": {"token": ADMIN_TOKEN, "role": "administrator"},
})
PINS = {"A1": "admin-pin-1", "C1": "croupier-1", "C2": "croupier-2", "P1": "pitboss-1", "D1": "director-1"}
NAMES = {"A1": "Ana Admin", "C1": "Carlos Croupier", "C2": "Clara Croupier", "P1": "Pedro Pit", "D1": "Dora Director"}
HOLE = "As Kd Qh Ac Kc Qs"


@pytest.fixture(params=["sqlite", "postgres"])
def served_app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[int, PokerTables]]:
    """A server for the staff's stations (the suite's, and the IT administrator's), on each kind of store."""
    store = None
    if request.param == "sqlite":
        store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
        app = store.app
    else:
        app = PokerTables(env=postgres_store())
    app.staff.credentials = Credentials(Credentials.FAST)  # the default profile is proved in tests/app
    try:
        with serving(app, STAFF_STATIONS) as port:
            yield port, app
    finally:
        if store is not None:
            store.close()
        else:
            app.close()


def _staff(port: int) -> Client:
    """The first administrator enrolled from the IT station (before the staff are in force), the others by him."""
    admin = Client(port, ADMIN_TOKEN)
    admin.EnrolPerson(svc.EnrolPersonRequest(command_id=admin.next_id(), person_id="A1", name=NAMES["A1"],
                                             roles=["administrator"], pin=PINS["A1"]))
    admin.sign_in("A1", PINS["A1"])
    for person, roles in (("C1", ["croupier"]), ("C2", ["croupier"]), ("P1", ["pit-boss"]),
                          ("D1", ["games-director"])):
        admin.EnrolPerson(svc.EnrolPersonRequest(command_id=admin.next_id(), person_id=person, name=NAMES[person],
                                                 roles=roles, pin=PINS[person]))
    return admin


def _refused(call: Any, code: grpc.StatusCode, rule: str = "R-AUD-1") -> str:
    with pytest.raises(grpc.RpcError) as error:
        call()
    assert error.value.code() == code, error.value.details()
    assert rule_of(error.value) == rule, error.value.details()
    return str(error.value.details())


def test_a_shift_of_two_croupiers_a_pit_boss_and_a_director_names_a_person_and_a_station_on_every_event(
        served_app: tuple[int, PokerTables]) -> None:
    port, app = served_app
    _staff(port)
    head = app.recorder.max_notification_id() or 0
    pit, mesa, thb, director = (Client(port, TOKENS[t]) for t in ("pit", "dealer", "thb", "director"))
    pit.sign_in("P1", PINS["P1"])
    open_circle(pit, "Mesa 1", no_burns=True)
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS, ante_min=5)
    # Carlos deals Mesa 1's first hand; a bet keyed wrong is corrected with the pit boss's approval
    signed = mesa.sign_in("C1", PINS["C1"])
    assert (signed.person_id, signed.name, signed.role) == ("C1", NAMES["C1"], "croupier")
    for number in (1, 2, 3):
        seat(mesa, "Mesa 1", number)
    start(mesa, "Mesa 1")
    deal(mesa, "Mesa 1", HOLE)
    act(mesa, "Mesa 1", bet=cmd.Bet(seat=1, amount=60))
    act(mesa, "Mesa 1", request_correction=cmd.RequestCorrection(replacement=cmd.Command(bet=cmd.Bet(seat=1,
                                                                                                     amount=10)),
                                                                  reason="keyed 60 for 10"))
    act(pit, "Mesa 1", decide_correction=cmd.DecideCorrection(approve=True, reason="seen on camera"))
    act(mesa, "Mesa 1", fold=cmd.Fold(seat=2))
    assert act(mesa, "Mesa 1", fold=cmd.Fold(seat=3)).result.hand_complete
    # the rotation: Clara replaces Carlos at the table's station; her hand is voided by the pit boss
    mesa.sign_in("C2", PINS["C2"])
    start(mesa, "Mesa 1")
    deal(mesa, "Mesa 1", "2c 3d 4h 5s 6c 7d")
    act(pit, "Mesa 1", void=cmd.Void(rule="R-CIRC-14", reason="a card turned over in the deal"))
    # Carlos goes to THB 1; a 1000:1 waits for the games director, who approves it with his reason (R-THB-10)
    thb.sign_in("C1", PINS["C1"])
    start(thb, "THB 1", pb.DECK_COLOUR_RED)
    act(thb, "THB 1", ante=cmd.Ante(seat=1, amount=10))
    act(thb, "THB 1", bonus=cmd.Bonus(seat=1, amount=2))
    act(thb, "THB 1", close_bets=cmd.CloseBets())
    deal(thb, "THB 1", "As Ac Ad Ah")  # box 1 and the croupier: aces against aces, the 1000:1
    act(thb, "THB 1", flop_bet=cmd.FlopBet(seat=1, amount=20))
    deal(thb, "THB 1", "3s Kh 7h 8s")
    act(thb, "THB 1", check=cmd.Check(seat=1))
    deal(thb, "THB 1", "4s 5c")
    act(thb, "THB 1", check=cmd.Check(seat=1))
    deal(thb, "THB 1", "6d Jc")
    director.sign_in("D1", PINS["D1"])
    _refused(lambda: act(director, "THB 1", approve_bonus=cmd.ApproveBonus(seat=1)),
             grpc.StatusCode.FAILED_PRECONDITION, "R-THB-10")  # no reason, no approval
    assert act(director, "THB 1", approve_bonus=cmd.ApproveBonus(
        seat=1, reason="royal flush checked on camera")).result.hand_complete
    # every event stored since the staff came in force names a person and a station
    stored = list(app.recorder.select_notifications(start=head + 1, limit=100_000))
    events = [app.mapper.to_domain_event(n) for n in stored]
    unnamed = [(n.id, type(e).__qualname__) for n, e in zip(stored, events, strict=True)
               if not vars(e).get(BY_PERSON) or not vars(e).get(BY_STATION)]
    assert unnamed == []
    by = {(type(e).__qualname__, vars(e)[BY_PERSON], vars(e)[BY_STATION]) for e in events}
    assert ("Hand.Voided", "P1", "pit") in by and ("ThbHand.BonusApproved", "D1", "dj") in by
    assert ("Hand.CorrectionRequested", "C1", "mesa-1") in by and ("Hand.CorrectionApproved", "P1", "pit") in by
    assert {p for name, p, s in by if s == "mesa-1" and name.startswith("Hand.")} == {"C1", "C2"}
    approved = next(e for e in events if type(e).__qualname__ == "ThbHand.BonusApproved")
    assert vars(approved)["reason"] == "royal flush checked on camera"
    # the dealers' figures name the croupiers (the pit's Dealers page and report dealers show them so)
    since = Timestamp()
    since.FromDatetime(datetime.now(UTC) - timedelta(hours=1))
    figures = pit.ListDealerFigures(svc.ListDealerFiguresRequest(since=since))
    assert {(d.dealer_id, d.dealer_name) for d in figures.dealers} >= {("C1", NAMES["C1"]), ("C2", NAMES["C2"])}
    assert {(r.dealer_id, r.dealer_name) for r in figures.rotations} >= {("C2", NAMES["C2"])}
    # the JSON export, the reconstruction and the Watch stream name the person and the station
    exported = json.loads(pit.ExportHand(svc.ExportHandRequest(table="Mesa 1", hand_number=2,
                                                               format=pb.EXPORT_FORMAT_JSON)).content)
    voided = next(e for e in exported["events"] if e["event"] == "Hand.Voided")
    assert voided["by"] == {"person": "P1", "name": NAMES["P1"], "station": "pit"}
    assert {e["by"]["name"] for e in exported["events"] if e["by"]["station"] == "mesa-1"} == {NAMES["C2"]}
    steps = list(pit.ReconstructHand(svc.ReconstructHandRequest(command_id=pit.next_id(), table="Mesa 1",
                                                                hand_number=1, reason="seat 1 disputes")))
    assert {(s.by.name, s.by.station) for s in steps} >= {(NAMES["C1"], "mesa-1"), (NAMES["P1"], "pit")}
    stream = pit.Watch(svc.WatchRequest(table="THB 1"), timeout=2)
    try:
        names = set()
        for change in stream:
            names.add((change.by.name, change.by.station))
            if change.event.HasField("thb_hand_bonus_approved"):
                break
    finally:
        stream.cancel()
    assert (NAMES["D1"], "dj") in names and (NAMES["C1"], "thb-1") in names


def test_the_attacks_of_issue_32_are_refused_and_leave_no_secret_behind(
        served_app: tuple[int, PokerTables], caplog: pytest.LogCaptureFixture) -> None:
    port, app = served_app
    caplog.set_level(logging.DEBUG)
    admin = _staff(port)
    pit = Client(port, TOKENS["pit"])
    pit.sign_in("P1", PINS["P1"])
    open_circle(pit, "Mesa 1")
    # a stolen station token alone can do nothing: no command, no read
    thief = Client(port, TOKENS["dealer"])
    head = app.recorder.max_notification_id()
    for call in (lambda: seat(thief, "Mesa 1", 1), lambda: thief.GetTable(svc.GetTableRequest(table="Mesa 1")),
                 lambda: thief.ListTables(svc.ListTablesRequest()),
                 lambda: list(thief.Watch(svc.WatchRequest(table="Mesa 1"), timeout=2))):
        assert "no person is signed in at mesa-1" in _refused(call, grpc.StatusCode.UNAUTHENTICATED)
    thief.metadata.append(("pokertable-session", "a-guessed-session-0123456789abcdef"))
    _refused(lambda: seat(thief, "Mesa 1", 1), grpc.StatusCode.UNAUTHENTICATED)
    stolen = Client(port, TOKENS["tv"])  # another station's token with the pit boss's session
    stolen.metadata += [m for m in pit.metadata if m[0] == "pokertable-session"]
    _refused(lambda: seat(stolen, "Mesa 1", 1), grpc.StatusCode.UNAUTHENTICATED)
    assert app.recorder.max_notification_id() == head  # nothing recorded
    # a person whose role does not allow the command is refused with the rule
    director = Client(port, TOKENS["director"])
    director.sign_in("D1", PINS["D1"])
    assert "D1 at dj (games-director) may not void" in _refused(
        lambda: act(director, "Mesa 1", void=cmd.Void(rule="R-CIRC-14", reason="not his")),
        grpc.StatusCode.PERMISSION_DENIED, "NONE")  # the role matrix's void names no rule of its own
    _refused(lambda: director.EnrolPerson(svc.EnrolPersonRequest(
        command_id=director.next_id(), person_id="X9", name="Mallory", roles=["administrator"], pin="take-over-9")),
        grpc.StatusCode.PERMISSION_DENIED)
    _refused(lambda: Client(port, TOKENS["pit"]).sign_in("C1", PINS["C1"]), grpc.StatusCode.UNAUTHENTICATED)
    # a suspended person's sign-in is refused and logged
    admin.ChangePerson(svc.ChangePersonRequest(command_id=admin.next_id(), person_id="C2", suspend="investigation"))
    assert "suspended" in _refused(lambda: Client(port, TOKENS["other"]).sign_in("C2", PINS["C2"]),
                                   grpc.StatusCode.UNAUTHENTICATED)
    # ten wrong PINs lock the badge; the lockout is an event
    mesa = Client(port, TOKENS["dealer"])
    for attempt in range(10):
        _refused(lambda attempt=attempt: mesa.sign_in("C1", f"wrong-pin-{attempt}"), grpc.StatusCode.UNAUTHENTICATED)
    assert "locked" in _refused(lambda: mesa.sign_in("C1", PINS["C1"]), grpc.StatusCode.UNAUTHENTICATED)
    people = {p.person_id: p for p in admin.ListStaff(svc.ListStaffRequest()).people}
    assert (people["C1"].status, people["C1"].failures, people["C2"].status) == ("locked", 10, "suspended")
    kinds = [type(app.mapper.to_domain_event(n)).__qualname__
             for n in app.recorder.select_notifications(start=1, limit=100_000)]
    assert kinds.count("StaffMember.LockedOut") == 1 and kinds.count("StaffMember.SignInFailed") == 10
    assert kinds.count("StationSessions.SignInRefused") >= 3  # the suspended one, the locked one, the wrong station
    # the authentication log, as the administrator (or an auditor) reads it
    log = [(e.kind, e.person_id, e.station, e.detail) for e in admin.ListAccess(svc.ListAccessRequest()).entries]
    assert ("enrolled", "C1", "it", "Carlos Croupier (croupier)") in log
    assert ("suspended", "C2", "it", "investigation") in log, log
    assert ("refused", "C2", "mesa-2", "suspended") in log, log
    assert [entry for entry in log if entry[0] == "wrong-pin" and entry[1] == "C1"][-1][3] == "10 in a row"
    assert ("locked-out", "C1", "mesa-1", "after 10 wrong PINs in a row") in log
    assert ("sign-in", "P1", "pit", "as pit-boss") in log
    entries = admin.ListAccess(svc.ListAccessRequest()).entries
    assert {e.by_person_id for e in entries if e.kind == "suspended"} == {"A1"}
    # no PIN, hash or session in any log line or error
    secrets = [*PINS.values(), *(f"wrong-pin-{n}" for n in range(10)), "$argon2",
               *(value for client in (admin, pit, director) for key, value in client.metadata
                 if key == "pokertable-session")]
    logged = "\n".join(record.getMessage() + repr(getattr(record, "fields", "")) for record in caplog.records)
    assert [secret for secret in secrets if secret in logged] == []


def test_a_large_request_of_a_call_its_station_may_never_make_is_refused_unread(
        served_app: tuple[int, PokerTables]) -> None:
    """Four observers sending 16,000-card discards once took the service to 78 % of its CPU: an observer's station
    may never act, so a large Act of its is refused before it is parsed; a small one is still refused with the rule
    of its command (an approval: R-THB-10)."""
    port, _ = served_app
    pit, observer = Client(port, TOKENS["pit"]), Client(port, TOKENS["tv"])
    open_circle(pit, "Mesa 1")
    open_banked(pit, "THB 1", pb.GAME_HOLDEM_BONUS)
    flood = svc.ActRequest(command_id="flood-1", table="Mesa 1",
                           command=cmd.Command(discard=cmd.Discard(seat=1, cards=["2c"] * 14_000)))
    assert 50_000 < flood.ByteSize() < 64 * 1024
    assert "refused unread" in _refused(lambda: observer.Act(flood), grpc.StatusCode.PERMISSION_DENIED)
    _refused(lambda: act(observer, "THB 1", approve_bonus=cmd.ApproveBonus(seat=1, reason="not his")),
             grpc.StatusCode.PERMISSION_DENIED, "R-THB-10")
    dealer = Client(port, TOKENS["dealer"])  # a croupier's station may act: its large request is parsed and judged
    _refused(lambda: dealer.Act(flood), grpc.StatusCode.FAILED_PRECONDITION, "R-CIRC-2")  # no hand here


def test_a_device_deals_for_the_croupier_signed_in_at_its_table_and_for_no_one_else(
        served_app: tuple[int, PokerTables]) -> None:
    """The shoe signs no one in: it acts for the croupier signed in at its table, and its events name him and the
    shoe's station; with no croupier there, its reads are refused (R-AUD-1)."""
    port, app = served_app
    _staff(port)
    pit = Client(port, TOKENS["pit"])
    pit.sign_in("P1", PINS["P1"])
    open_circle(pit, "Mesa 1", no_burns=True)
    shoe = Client(port, TOKENS["shoe"])
    def read() -> object:
        return shoe.GetTable(svc.GetTableRequest(table="Mesa 1"))

    assert "no croupier is signed in at 'Mesa 1'" in _refused(read, grpc.StatusCode.UNAUTHENTICATED)
    mesa = Client(port, TOKENS["dealer"])
    mesa.sign_in("C1", PINS["C1"])
    for number in (1, 2):
        seat(mesa, "Mesa 1", number)
    start(mesa, "Mesa 1")
    head = app.recorder.max_notification_id() or 0
    act(shoe, "Mesa 1", deal=cmd.Deal(card="As", source=pb.CARD_SOURCE_SHOE, sequence=1))
    dealt = [app.mapper.to_domain_event(n) for n in app.recorder.select_notifications(head + 1, 100)]
    assert dealt and {(vars(e)[BY_PERSON], vars(e)[BY_STATION]) for e in dealt} == {("C1", "shoe-1")}
    mesa.SignOut(svc.SignOutRequest(command_id=mesa.next_id(), table="Mesa 1"))  # he leaves the table
    assert app.any_table("Mesa 1").dealer_id == ""
    assert "no croupier is signed in" in _refused(
        lambda: act(shoe, "Mesa 1", deal=cmd.Deal(card="Kd", source=pb.CARD_SOURCE_SHOE, sequence=2)),
        grpc.StatusCode.UNAUTHENTICATED)
    _refused(lambda: seat(mesa, "Mesa 1", 3), grpc.StatusCode.UNAUTHENTICATED)  # his session ended too
