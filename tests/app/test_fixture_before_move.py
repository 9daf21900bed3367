"""Stored events keep loading (issue 14): a database written by the service before the move — all eight games, voids,
a 1000:1 approved and one refused, device reports, a cut exposure, reconstructions, a stack correction, signed chain
heads (``tests/support/make_fixture_before_move.py``) — verifies clean, loads as it was recorded, and plays on.

The expected states are not typed here: the script that wrote the database recorded them from the application that
wrote it (``tests/data/before-the-move.json``).
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.banked.thb import ThbHand
from service.app.application import PokerTables
from service.cli.main import main
from service.store.persistence import claim_sole_writer, environment
from tests.support.app_play import (
    Ids,
    play_banked_hand,
    play_circle_hand,
    start_banked_hand,
    start_circle_hand,
    table_state,
)
from tests.support.app_tables import banked_table
from tests.support.before_move import DATA, DATABASE, RECORD

PUBLIC_KEY = DATA / "before-the-move.pub.pem"
GAMES = {"holdem", "omaha", "stud7", "draw", "stud5", "sintetico", "holdem-bonus", "casino-draw"}
REBUY = 100
STORED_KINDS = {
    "Table.Opened", "Table.PlayerSeated", "Table.ChipsAdded", "Table.StackCorrected", "Table.DeviceReported",
    "Table.CutCardExposed", "Table.HandStarted", "Table.HandFinished", "Table.HandVoided",
    "Table.ReconstructionRequested", "Hand.Started", "Hand.ForcedBetsPosted", "Hand.CardDealt", "Hand.BringInPosted",
    "Hand.Checked", "Hand.Called", "Hand.BetOrRaised", "Hand.Folded", "Hand.Discarded", "Hand.Shown", "Hand.Mucked",
    "Hand.PassedOut", "Hand.PotAwarded", "Hand.Voided", "Hand.Completed", "BankedTable.Opened",
    "BankedTable.DeviceReported", "BankedTable.HandStarted", "BankedTable.HandFinished",
    "BankedTable.ReconstructionRequested", "ThbHand.Started", "ThbHand.BetPlaced", "ThbHand.BetsClosed",
    "ThbHand.CardDealt", "ThbHand.Folded", "ThbHand.Checked", "ThbHand.BoxSettled", "ThbHand.BonusApproved",
    "ThbHand.BonusRefused", "ThbHand.ReconstructionRequested", "ThbHand.Voided", "ThbHand.Completed",
    "CdpHand.Started", "CdpHand.BetPlaced", "CdpHand.BetsClosed", "CdpHand.CardDealt", "CdpHand.Exchanged",
    "CdpHand.BankExchanged", "CdpHand.BoxSettled", "CdpHand.Voided", "CdpHand.Completed",
    "ProcessedCommand.Processed", "SignedHead.Signed",
}
"""The kinds of stored events the fixture holds (class names, as in their stored topics): the moved code keeps
loading each (topic aliases)."""


@pytest.fixture
def url(tmp_path: Path) -> str:
    """A copy of the fixture (the committed file is never written)."""
    copy = tmp_path / "before-the-move.db"
    shutil.copyfile(DATABASE, copy)
    return f"sqlite:///{copy}"


@pytest.fixture
def app(url: str) -> Iterator[PokerTables]:
    """The application on the copy, claimed as its sole writer, as ``pokertable serve`` runs it."""
    claim = claim_sole_writer(url)
    application = PokerTables(env=environment(url, sole_writer=claim is not None))
    yield application
    application.close()
    if claim is not None:
        claim.release()


def _verify(url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main(["audit", "verify", "--db", url, "--public-key", str(PUBLIC_KEY), *extra]) == 0
    return capsys.readouterr().out


def test_the_fixture_holds_every_game_what_befalls_them_and_is_small() -> None:
    games = {state.get("variant") or state.get("game") for state in RECORD["tables"].values()}
    assert games == GAMES
    assert DATABASE.stat().st_size < 1_000_000
    with contextlib.closing(sqlite3.connect(f"file:{DATABASE}?immutable=1", uri=True)) as db:
        kinds = {topic.rpartition(":")[2] for (topic,) in db.execute("select distinct topic from stored_events")}
    assert kinds >= STORED_KINDS, sorted(STORED_KINDS - kinds)
    tables = RECORD["tables"]
    assert "voided" in [hand["outcome"] for hand in tables["Holdem"]["hands"]]  # R-CIRC-14
    assert [hand["outcome"] for hand in tables["Draw"]["hands"]].count("blank") == 2  # R-DRAW-3
    assert tables["Draw"]["carried_pot"] > 0
    for name in ("Bonus", "CasinoDraw"):  # R-THB-11: the pit's void of the whole play
        assert "void" in [hand["stage"] for hand in tables[name]["hands"]]


def test_r_aud_1_the_database_of_before_the_move_verifies_clean_to_its_safekept_and_signed_heads(
        url: str, capsys: pytest.CaptureFixture[str]) -> None:
    head = RECORD["head"]
    out = _verify(url, capsys, "--head", f"{head['position']}:{head['hash']}")
    assert out.startswith(f"clean: {head['position']} events, chain head {head['position']}:{head['hash']}")
    assert "every one valid" in out and "unsigned tail: none" in out


def test_every_table_loads_as_the_service_of_before_the_move_left_it(app: PokerTables) -> None:
    for name, recorded in RECORD["tables"].items():
        assert json.loads(json.dumps(table_state(app, name))) == recorded, name
        assert app.any_table(name).language == "es"  # opened before tables had a language: Spanish (issue 15)


def test_r_thb_10_the_stored_1000_to_1_approval_and_refusal_load_with_the_games_directors_name(
        app: PokerTables) -> None:
    record = app.any_table("Bonus")
    approved, refused = (app.any_hand(record.hand_id(number)) for number in (1, 2))
    assert isinstance(approved, ThbHand) and isinstance(refused, ThbHand)
    assert approved.results[1]["bonus"] == 1000 * approved.bets[1]["bonus"]
    assert refused.results[1]["bonus"] == 0  # R-THB-10 (decision, default): the refused bonus's stake returned
    decided = [type(event).__name__ for number in (1, 2) for event in app.events.get(record.hand_id(number))
               if type(event).__name__ in ("BonusApproved", "BonusRefused")]
    assert decided == ["BonusApproved", "BonusRefused"]


def test_r_aud_1_every_table_of_before_the_move_plays_on_and_the_log_still_verifies(
        app: PokerTables, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(14)
    for name, recorded in RECORD["tables"].items():
        ids = Ids(f"after-the-move-{name}")
        if recorded["kind"] == "circle":
            stacks: dict[str, int] = recorded["stacks"]
            rebuys = REBUY * sum(1 for stack in stacks.values() if stack == 0)
            deck, number = start_circle_hand(app, name, ids, rebuy=REBUY)
            assert number == recorded["hands_started"] + 1
            play_circle_hand(app, name, deck, rng, ids)
            table = app.table(name)
            assert sum(table.stacks.values()) + table.carried_pot == \
                sum(stacks.values()) + recorded["carried_pot"] + rebuys  # R-CIRC-6: no chip made or lost
        else:
            antes = {1: 10, 2: 10}
            number = start_banked_hand(app, name, ids, antes, {1: 1} if recorded["game"] == "holdem-bonus" else None)
            assert number == recorded["hands_started"] + 1
            hand = play_banked_hand(app, name, rng, ids)
            assert hand.is_complete
            assert banked_table(app, name).bank_result == recorded["bank_result"] + hand.bank_result()
        after = table_state(app, name)
        assert after["hands_started"] == number and not after["in_progress"]
    position = RECORD["head"]["position"]
    out = _verify(url, capsys)
    events = int(out.split()[1])
    assert events > position and "unsigned tail:" in out  # the new events chain on from the stored ones


def test_issue_32_a_store_of_before_people_loads_shows_no_person_and_takes_the_staff(
        url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Compatibility (issue 32, item 6): a store written before people were recorded loads; its events show as
    "no person recorded" (the reconstruction's listing, the export's ``by``), its 1000:1 approval as one with no
    reason; enrolling the first administrator is the one step, after which the old tables play on in a person's
    name."""
    from domain.attribution import BY_PERSON, BY_STATION
    from domain.export import hand_document
    from service.app.access import Role, Viewer
    from service.app.commands import AddChips, StartHand
    from service.app.credentials import Credentials
    from service.app.staff_commands import EnrolPerson
    from tests.support.app_play import next_deck

    assert main(["reconstruct", "--table", "Holdem", "--hand", "1", "--db", url]) == 0
    listing = capsys.readouterr().out
    assert listing.count("— no person recorded") >= 5 and " — station " not in listing
    claim = claim_sole_writer(url)
    app = PokerTables(env=environment(url, sole_writer=claim is not None))
    try:
        record = app.any_table("Bonus")
        approved = next(e for e in app.events.get(record.hand_id(1)) if type(e).__name__ == "BonusApproved")
        assert vars(approved)["reason"] == "" and vars(approved)["director"]  # upcast: stored before a reason
        document = hand_document(app.events.get(app.any_table("Holdem").hand_id(1)), None, app.staff.name_of)
        assert {event["by"] is None for event in document["events"]} == {True}
        app.staff.credentials = Credentials(Credentials.FAST)
        it = Viewer("it", Role.ADMINISTRATOR)
        app.handle(EnrolPerson("enrol-1", "", "1001", "Ana Gómez", ("administrator", "croupier"), "first-pin-1"), it)
        assert app.staff.in_force()
        croupier = Viewer("mesa", Role.DEALER, "Holdem")
        session = app.sessions.sign_in(croupier, "1001", "first-pin-1").session
        dealer = app.sessions.resolve(croupier, session)
        ids = Ids("after-people")
        for seat, stack in sorted(app.table("Holdem").stacks.items()):
            if stack == 0:
                app.handle(AddChips(ids(), "Holdem", seat, REBUY))  # the house's own tool: stamped "house"
        head = app.recorder.max_notification_id() or 0
        app.handle(StartHand(ids(), "Holdem", next_deck(app, "Holdem")), dealer)
        new = [app.mapper.to_domain_event(n) for n in app.recorder.select_notifications(head + 1, 1000)]
        assert new and {(vars(e)[BY_PERSON], vars(e)[BY_STATION]) for e in new} == {("1001", "mesa")}
    finally:
        app.close()
        if claim is not None:
            claim.release()
