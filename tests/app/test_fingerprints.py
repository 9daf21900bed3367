"""A command's fingerprint is the same before and after issue 31 (item 6): a command stored by an earlier version and
retried after the upgrade is answered with its first result, never refused as another command (R-AUD-1).

``tests/data/fingerprints-before-issue-31.json`` holds the digests the code of before issue 31 (its ``HandCommand``
and ``BankedCommand`` union records, each digested by its ``repr``) computed for a command of every kind; each is
rebuilt here from the typed command that replaces it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from domain.actions import (
    Absent,
    AllIn,
    ApproveBonus,
    BetTo,
    BringIn,
    Call,
    Check,
    CloseBets,
    Deal,
    DealerCardShown,
    DecideCorrection,
    Discard,
    Exchange,
    ExposeCard,
    ExposeHand,
    FaceUpCard,
    FlopBet,
    Fold,
    Muck,
    PlaceAnte,
    PlaceBonus,
    Play,
    Reconstruction,
    RefuseBonus,
    RequestCorrection,
    Reshuffle,
    ReshuffleDiscards,
    Show,
    StreetBet,
    Void,
    WrongCount,
)
from domain.banked.cdp import CdpSettings
from domain.banked.table import BankedTable
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.table import Table
from domain.device_reports import DeviceReport
from domain.tables import NextDeck, TableRecord
from service.app.access import DuplicateCommandError
from service.app.application import PokerTables, ProcessedCommand
from service.app.commands import (
    AcknowledgeAlert,
    Act,
    AddChips,
    CloseTable,
    Command,
    ConfigureTable,
    CorrectStack,
    Leave,
    OpenTable,
    ReconstructHand,
    RecordCutExposure,
    RecordDeviceReport,
    SignIn,
    SignOut,
    Sit,
    StartHand,
    fingerprint,
)
from service.app.results import Result

GOLDEN: dict[str, str] = json.loads((Path(__file__).parents[1] / "data" / "fingerprints-before-issue-31.json")
                                    .read_text())
T = "Mesa 1"
KEY = "0" * 32
c = Card.parse
HOLDEM = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2))
STUD = TableSettings.create("stud7", BettingStructure.FIXED_LIMIT, antes=1, bring_in=2, small_bet=4, big_bet=8)
THB = ThbSettings(STANDARD_LIMITS[5])
CDP = CdpSettings(5, 100)
DECK = DeckIdentity(52, BackColour.RED)
CIRCLE_TABLE = Table.open(T, HOLDEM, hands_key=KEY)
BANKED_TABLE = BankedTable.open(T, "holdem-bonus", THB, hands_key=KEY)


def _commands() -> dict[str, tuple[Command, TableRecord | None]]:
    table: dict[str, tuple[Command, TableRecord | None]] = {
        "open circle": (OpenTable("x", T, HOLDEM, 10, "es"), None),
        "open stud": (OpenTable("x", T, STUD, 8, "en"), None),
        "open thb": (OpenTable("x", T, THB, language="es"), None),
        "open cdp": (OpenTable("x", T, CDP), None),
        "sit": (Sit("x", T, 1, 100), None), "leave": (Leave("x", T, 2), None),
        "add chips": (AddChips("x", T, 3, 50), None), "configure": (ConfigureTable("x", T, HOLDEM), None),
        "correct": (CorrectStack("x", T, 1, 90, "miscount"), None), "close": (CloseTable("x", T), None),
        "device report": (RecordDeviceReport("x", T, DeviceReport("shuffler", "SHF-1", "shuffle", "red", "ok")),
                          None),
        "cut exposure": (RecordCutExposure("x", T, c("As"), "blue"), None),
        "reconstruction": (ReconstructHand("x", T, 3, "dispute"), None),
        "start deck": (StartHand("x", T, DECK), CIRCLE_TABLE),
        "start next": (StartHand("x", T, NextDeck(BackColour.BLUE, "B-7")), CIRCLE_TABLE),
        "start banked": (StartHand("x", T, DeckIdentity(52, BackColour.BLUE, "L")), BANKED_TABLE),
        "sign in": (SignIn("x", T, "D-100"), None), "sign out": (SignOut("x", T), None),
        "acknowledge": (AcknowledgeAlert("x", T, 17, "seen"), None),
    }
    circle = {
        "deal croupier": Deal(c("Kd")), "deal shoe": Deal(c("2c"), "shoe", 41), "fold": Fold(3), "check": Check(3),
        "call": Call(4), "bet": BetTo(5, 40), "all-in": AllIn(6), "bring-in": BringIn(2),
        "discard": Discard(1, (c("2h"), c("3s"))), "discard none": Discard(1),
        "reshuffle-discards": ReshuffleDiscards(),
        "show": Show(1), "muck": Muck(2), "expose-card": ExposeCard(2, c("Th")), "expose-hand": ExposeHand(2),
        "absent": Absent(7), "void": Void("R-CIRC-14", "misdeal"),
        "request-correction": RequestCorrection(BetTo(5, 60), "keyed wrong"),
        "request-correction fold": RequestCorrection(Fold(2), "x"),
        "decide-correction yes": DecideCorrection(True, "ok"), "decide-correction no": DecideCorrection(False, "no"),
    }
    banked = {
        "ante": PlaceAnte(1, 10), "bonus": PlaceBonus(2, 5), "close-bets": CloseBets(), "deal": Deal(c("Ah")),
        "deal shoe": Deal(c("Ah"), "shoe", 3), "fold": Fold(1), "flop-bet": FlopBet(1, 20), "bet": StreetBet(1, 10),
        "check": Check(1), "approve": ApproveBonus(4), "refuse": RefuseBonus(4, "no"),
        "dealer-card-shown": DealerCardShown(), "face-up-card": FaceUpCard(c("9c")),
        "wrong-count": WrongCount(3, correctable=True), "wrong-count dealer": WrongCount(),
        "reconstruction": Reconstruction("dispute", "DJ-1"), "void": Void("R-THB-11", "x"),
        "exchange": Exchange(2, (c("4d"),)), "play": Play(2, 20), "reshuffle": Reshuffle(),
    }
    table.update({f"hand {name}": (Act("x", T, action), CIRCLE_TABLE) for name, action in circle.items()})
    table.update({f"banked {name}": (Act("x", T, action), BANKED_TABLE) for name, action in banked.items()})
    return table


COMMANDS = _commands()


def test_every_kind_of_command_of_before_issue_31_has_its_typed_command_here() -> None:
    assert set(COMMANDS) == set(GOLDEN) - {"refused deck"}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_r_aud_1_a_typed_command_digests_as_the_record_of_before_issue_31(name: str) -> None:
    command, table = COMMANDS[name]
    assert fingerprint(command.table, command.what(table)) == GOLDEN[name]


def _stored_before(app: PokerTables, command_id: str, digest: str, result: dict[str, Any]) -> None:
    """The record of a command as the service of before issue 31 stored it (its result, its fingerprint)."""
    app.save(ProcessedCommand(command_id, result, digest))


def test_r_aud_1_a_command_stored_before_the_upgrade_and_retried_after_it_gets_its_first_result() -> None:
    """A station's Bet sent to the old service, stored, and retried (the same command id) once the new one runs:
    answered with the first result; nothing is applied twice; another command under that id is refused."""
    app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    app.handle(OpenTable("open", T, HOLDEM))
    for seat in (3, 4, 5):
        app.handle(Sit(f"sit-{seat}", T, seat, 100))
    first = {"table": T, "hand_id": "5e2a9d7e-0000-0000-0000-000000000000", "version": 9, "complete": False}
    _stored_before(app, "bet-from-before", GOLDEN["hand bet"], first)
    before = app.recorder.max_notification_id()
    assert app.handle(Act("bet-from-before", T, BetTo(5, 40))) == Result.from_stored(first)
    assert app.recorder.max_notification_id() == before  # nothing applied, nothing stored
    with pytest.raises(DuplicateCommandError):
        app.handle(Act("bet-from-before", T, BetTo(5, 60)))


def test_r_aud_1_a_start_stored_before_the_upgrade_at_a_banked_table_is_still_the_same_start() -> None:
    app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    app.handle(OpenTable("open", T, THB))
    first = {"table": T, "hand_id": "5e2a9d7e-0000-0000-0000-000000000001", "number": 1}
    _stored_before(app, "start-from-before", GOLDEN["start banked"], first)
    assert app.handle(StartHand("start-from-before", T, DeckIdentity(52, BackColour.BLUE, "L"))).number == 1
    assert app.any_table(T).hands_started == 0  # answered from the record: no second hand started
