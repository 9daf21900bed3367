"""People, not stations (issue 32) in the application: the staff register, sign-in at a station with badge and PIN,
every event of a command stamped with its person and station, and the refusals (R-AUD-1), on each kind of store."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from domain.attribution import BY_PERSON, BY_STATION
from domain.staff import StaffMember, StationSessions, person_record_id, station_record_id
from service.app.access import AccessDeniedError, Role, SessionError, SignInRefusedError, Viewer
from service.app.application import PokerTables
from service.app.commands import OpenTable, Sit
from service.app.credentials import Credentials
from service.app.staff_commands import EnrolPerson, ResetPin, SuspendPerson
from tests.support.app_tables import SETTINGS, ids
from tests.support.stores import store  # noqa: F401  (fixture)

PINS = {"A1": "admin-pin-1", "C1": "croupier-1", "C2": "croupier-2", "P1": "pitboss-1", "D1": "director-1"}
CROUPIER_STATION = Viewer("mesa-1", Role.DEALER, "Mesa 1")
PIT_STATION = Viewer("pit-1", Role.OBSERVER, None, kind="pit")
ADMIN_STATION = Viewer("it-1", Role.ADMINISTRATOR)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def app(store: dict[str, str]) -> Iterator[PokerTables]:  # noqa: F811
    tables = PokerTables(env=store)
    tables.staff.credentials = Credentials(Credentials.FAST)
    clock = Clock()
    tables.sessions.clock = clock
    try:
        yield tables
    finally:
        tables.close()


def _stored(app: PokerTables) -> list[Any]:
    return [app.mapper.to_domain_event(n) for n in app.recorder.select_notifications(start=1, limit=100_000)]


def _staffed(app: PokerTables, command: Iterator[str]) -> None:
    """The first administrator, enrolled by the administrator's station before the staff are in force, then the
    others by him."""
    app.handle(EnrolPerson(next(command), "", "A1", "Ana Admin", ("administrator",), PINS["A1"]), ADMIN_STATION)
    admin = app.sessions.resolve(ADMIN_STATION, app.sessions.sign_in(ADMIN_STATION, "A1", PINS["A1"]).session)
    for person, name, roles in (("C1", "Carlos Croupier", ("croupier",)), ("C2", "Clara Croupier", ("croupier",)),
                                ("P1", "Pedro Pit", ("pit-boss",)), ("D1", "Dora Director", ("games-director",))):
        app.handle(EnrolPerson(next(command), "", person, name, roles, PINS[person]), admin)


def test_before_the_staff_are_in_force_a_station_acts_alone_and_its_events_name_it(app: PokerTables) -> None:
    command = ids()
    app.handle(OpenTable(next(command), "Mesa 1", SETTINGS), Viewer("pit", Role.PIT_BOSS))
    app.handle(Sit(next(command), "Mesa 1", 1, 100), CROUPIER_STATION)
    assert not app.staff.in_force()
    assert app.sessions.resolve(CROUPIER_STATION, None) is CROUPIER_STATION
    sat = [e for e in _stored(app) if type(e).__name__ == "PlayerSeated"]
    assert [(vars(e)[BY_PERSON], vars(e)[BY_STATION]) for e in sat] == [("", "mesa-1")]


def test_the_first_person_enrolled_is_an_administrator(app: PokerTables) -> None:
    with pytest.raises(Exception, match="first person enrolled is an administrator"):
        app.handle(EnrolPerson(next(ids()), "", "C1", "Carlos", ("croupier",), PINS["C1"]), ADMIN_STATION)
    assert not app.staff.in_force()


def test_every_event_of_a_persons_command_names_him_and_his_station(app: PokerTables) -> None:
    command = ids()
    app.handle(OpenTable(next(command), "Mesa 1", SETTINGS))
    _staffed(app, command)
    signed = app.sessions.sign_in(CROUPIER_STATION, "C1", PINS["C1"])
    assert signed.role == "croupier" and signed.name == "Carlos Croupier" and PINS["C1"] not in repr(signed)
    assert app.any_table("Mesa 1").dealer_id == "C1"  # R-AUD-1: he deals here
    croupier = app.sessions.resolve(CROUPIER_STATION, signed.session)
    assert (croupier.person, croupier.role, croupier.table) == ("C1", Role.DEALER, "Mesa 1")
    before = app.recorder.max_notification_id() or 0
    app.handle(Sit(next(command), "Mesa 1", 2, 100), croupier)
    new = [e for e in _stored(app) if e.originator_version and _position(app, e) > before]
    assert new and all((vars(e)[BY_PERSON], vars(e)[BY_STATION]) == ("C1", "mesa-1") for e in new)
    stored_pins = [pin for pin in PINS.values() for n in app.recorder.select_notifications(start=1, limit=100_000)
                   if pin.encode() in n.state]
    assert stored_pins == []  # only the PINs' hashes are stored
    station: Any = app.repository.get(station_record_id("mesa-1"))
    assert isinstance(station, StationSessions) and station.people == ["C1"]
    assert signed.session not in repr(vars(station))


def _position(app: PokerTables, event: Any) -> int:
    for n in app.recorder.select_notifications(start=1, limit=100_000):
        if n.originator_id == event.originator_id and n.originator_version == event.originator_version:
            return int(n.id)
    return 0


def test_a_station_with_no_person_signed_in_is_refused_and_records_nothing(app: PokerTables) -> None:
    command = ids()
    app.handle(OpenTable(next(command), "Mesa 1", SETTINGS))
    _staffed(app, command)
    with pytest.raises(SessionError, match="no person is signed in at mesa-1") as refused:
        app.sessions.resolve(CROUPIER_STATION, None)
    assert refused.value.rule == "R-AUD-1"
    head = app.recorder.max_notification_id()
    with pytest.raises(SessionError, match="R-AUD-1"):  # even given straight to the application
        app.handle(Sit(next(command), "Mesa 1", 2, 100), CROUPIER_STATION)
    with pytest.raises(SessionError):  # a session made up
        app.sessions.resolve(CROUPIER_STATION, "a-guessed-session-token-0123456789")
    assert app.recorder.max_notification_id() == head


def test_a_person_whose_role_does_not_allow_the_command_is_refused_with_the_rule(app: PokerTables) -> None:
    command = ids()
    app.handle(OpenTable(next(command), "Mesa 1", SETTINGS))
    _staffed(app, command)
    pit_session = app.sessions.sign_in(PIT_STATION, "P1", PINS["P1"]).session
    pit = app.sessions.resolve(PIT_STATION, pit_session)
    with pytest.raises(AccessDeniedError, match=r"P1 at pit-1 \(pit-boss\) may not staff") as refused:
        app.handle(SuspendPerson(next(command), "", "C1", "no reason"), pit)
    assert refused.value.rule == "R-AUD-1"
    with pytest.raises(SignInRefusedError, match="may not sign in at mesa-1"):  # a pit boss is not a croupier
        app.sessions.sign_in(CROUPIER_STATION, "P1", PINS["P1"])
    with pytest.raises(SignInRefusedError, match="takes"):  # a croupier is not the pit's
        app.sessions.sign_in(PIT_STATION, "C1", PINS["C1"])
    director = app.sessions.sign_in(PIT_STATION, "D1", PINS["D1"])  # a shared station (the dashboard): both at once
    assert director.role == "games-director"
    assert app.sessions.resolve(PIT_STATION, pit_session).person == "P1"
    assert app.sessions.resolve(PIT_STATION, director.session).role is Role.GAMES_DIRECTOR
    terminal = Viewer("pit-2", Role.PIT_BOSS)  # a pit boss's own terminal: the next sign-in replaces the last
    first = app.sessions.sign_in(terminal, "P1", PINS["P1"]).session
    kept = app.sessions.resolve(terminal, first)
    app.sessions.sign_in(terminal, "P1", PINS["P1"])
    with pytest.raises(SessionError, match="ended"):  # the first session ended with it
        app.sessions.resolve(terminal, first)
    with pytest.raises(SessionError, match="no longer signed in"):  # and a viewer kept from it acts no more
        app.handle(Sit(next(command), "Mesa 1", 3, 100), kept)
    assert [vars(e)["why"] for e in _stored(app) if type(e).__name__ == "PersonSignedOut"] == ["replaced"]


def test_ten_wrong_pins_lock_the_badge_and_the_lockout_is_an_event(app: PokerTables) -> None:
    command = ids()
    app.handle(OpenTable(next(command), "Mesa 1", SETTINGS))
    _staffed(app, command)
    for _ in range(10):
        with pytest.raises(SignInRefusedError, match="wrong badge or PIN"):
            app.sessions.sign_in(CROUPIER_STATION, "C1", "wrong-pin-0")
    with pytest.raises(SignInRefusedError, match="locked after 10 wrong PINs"):
        app.sessions.sign_in(CROUPIER_STATION, "C1", PINS["C1"])  # the right PIN, too late
    member: Any = app.repository.get(person_record_id("C1"))
    assert isinstance(member, StaffMember) and member.locked and member.status == "locked"
    kinds = [type(e).__name__ for e in _stored(app) if e.originator_id == member.id]
    assert kinds.count("SignInFailed") == 10 and kinds.count("LockedOut") == 1
    refusals = [vars(e)["why"] for e in _stored(app) if type(e).__name__ == "SignInRefused"]
    assert refusals == ["locked"]
    admin = app.sessions.resolve(ADMIN_STATION, app.sessions.sign_in(ADMIN_STATION, "A1", PINS["A1"]).session)
    app.handle(ResetPin(next(command), "", "C1", "croupier-1-new"), admin)
    assert app.sessions.sign_in(CROUPIER_STATION, "C1", "croupier-1-new").person == "C1"


def test_a_suspended_persons_sign_in_is_refused_and_logged_and_his_session_ends(app: PokerTables) -> None:
    command = ids()
    app.handle(OpenTable(next(command), "Mesa 1", SETTINGS))
    _staffed(app, command)
    session = app.sessions.sign_in(CROUPIER_STATION, "C1", PINS["C1"]).session
    admin = app.sessions.resolve(ADMIN_STATION, app.sessions.sign_in(ADMIN_STATION, "A1", PINS["A1"]).session)
    app.handle(SuspendPerson(next(command), "", "C1", "under investigation"), admin)
    with pytest.raises(SessionError, match=r"may no longer act \(suspended\)"):
        app.sessions.resolve(CROUPIER_STATION, session)
    with pytest.raises(SignInRefusedError, match="suspended"):
        app.sessions.sign_in(CROUPIER_STATION, "C1", PINS["C1"])
    events = _stored(app)
    assert [vars(e)["why"] for e in events if type(e).__name__ == "SignInRefused"] == ["suspended"]
    assert [vars(e)["why"] for e in events if type(e).__name__ == "PersonSignedOut"][-1] == "suspended"
    suspended = [e for e in events if type(e).__name__ == "Suspended"]
    assert [(vars(e)[BY_PERSON], vars(e)[BY_STATION], e.reason) for e in suspended] == [
        ("A1", "it-1", "under investigation")]


def test_an_unknown_badge_is_refused_as_a_wrong_pin_and_recorded_without_the_pin(app: PokerTables) -> None:
    command = ids()
    app.handle(OpenTable(next(command), "Mesa 1", SETTINGS))
    _staffed(app, command)
    with pytest.raises(SignInRefusedError, match="wrong badge or PIN"):
        app.sessions.sign_in(CROUPIER_STATION, "Z9", "secret-guess-77")
    refused = [e for e in _stored(app) if type(e).__name__ == "SignInRefused"]
    assert [(e.person_id, e.why) for e in refused] == [("Z9", "unknown-badge")]
    assert not any(b"secret-guess-77" in n.state for n in app.recorder.select_notifications(start=1, limit=10**5))


def test_a_station_unused_for_its_idle_time_locks(app: PokerTables) -> None:
    command = ids()
    app.handle(OpenTable(next(command), "Mesa 1", SETTINGS))
    _staffed(app, command)
    session = app.sessions.sign_in(CROUPIER_STATION, "C1", PINS["C1"]).session
    clock: Any = app.sessions.clock
    clock.now += app.sessions.idle_seconds - 1
    assert app.sessions.resolve(CROUPIER_STATION, session).person == "C1"  # used: the idle time starts again
    clock.now += app.sessions.idle_seconds + 1
    with pytest.raises(SessionError, match="locked after 15 minutes unused"):
        app.sessions.resolve(CROUPIER_STATION, session)
    with pytest.raises(SessionError):
        app.sessions.resolve(CROUPIER_STATION, session)
    assert [vars(e)["why"] for e in _stored(app) if type(e).__name__ == "PersonSignedOut"] == ["idle"]
    assert app.any_table("Mesa 1").dealer_id == "C1"  # the station locked; he still deals here
