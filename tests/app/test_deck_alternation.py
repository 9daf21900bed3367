"""R-DECK-2 at the table (issue 13, item 10): "the automatic shuffler works with two decks of different back colour,
red and blue, used alternately".  The table, not the station, refuses a hand dealt from the deck the last hand was
dealt from, once an automatic shuffler works there; the refusal records no hand, and the service records it at the
table as the shuffler's fault."""

from __future__ import annotations

import random

import pytest

from domain.actions import Void
from domain.banked.table import BankedTable
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.cards import parse_cards
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.state import HandRuleError
from domain.circle.table import Table
from domain.device_reports import HAND_SHUFFLE, DeckAlternationError, DeviceReport
from service.app.application import PokerTables, Role, Viewer
from service.app.commands import Act, OpenTable, RecordDeviceReport, Sit, StartHand
from tests.support.circle_support import play_randomly, shuffled

RED, BLUE = DeckIdentity(52, BackColour.RED), DeckIdentity(52, BackColour.BLUE)
SHUFFLER = DeviceReport("PT-SHUF", "SN-77", "delivery", "red", "the red deck delivered to the shoe")
SETTINGS = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)


def _table(*, shuffler: bool = True) -> Table:
    table = Table.open("Mesa D", SETTINGS)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    if shuffler:
        table.record_device_report(SHUFFLER)
    return table


def _play(table: Table, deck: DeckIdentity, rng: random.Random) -> None:
    """A hand played to its end: dealt and played at random, or voided if that would bust a player."""
    hand = table.start_hand(deck)
    play_randomly(hand, rng, shuffled(52, rng))
    table.finish_hand(hand)
    for seat in [seat for seat, stack in table.stacks.items() if stack < 50]:
        table.add_chips(seat, 100)


def test_r_deck_2_the_decks_alternate_red_blue_red_at_a_table_with_a_shuffler() -> None:
    table, rng = _table(), random.Random(3)
    for deck in (RED, BLUE, RED, BLUE):
        _play(table, deck, rng)
    version, _ = table.version, table.collect_events()
    with pytest.raises(DeckAlternationError, match="the blue deck was in play in hand 4") as refused:
        table.start_hand(BLUE)
    assert refused.value.rule == "R-DECK-2"
    assert table.version == version and table.hands_started == 4 and not table.collect_events()  # nothing recorded
    _play(table, RED, rng)


def test_r_deck_2_a_voided_hand_counts_its_deck_was_in_play() -> None:
    table = _table()
    hand = table.start_hand(RED)
    hand.void("R-CIRC-14", "two cards exposed in the deal")
    table.finish_hand(hand)
    with pytest.raises(DeckAlternationError):
        table.start_hand(RED)  # the redeal takes the other deck, shuffled meanwhile
    table.start_hand(BLUE)


def test_r_deck_2_a_refused_start_and_a_reshuffle_do_not_change_which_deck_is_next() -> None:
    table, rng = _table(), random.Random(5)
    _play(table, RED, rng)
    table.record_cut_exposure(parse_cards("7h")[0], "blue", "croupier")
    with pytest.raises(HandRuleError, match="R-CIRC-2"):
        table.start_hand(BLUE)  # refused: the blue deck must be shuffled again first (R-CIRC-2)
    table.record_device_report(DeviceReport("PT-SHUF", "SN-77", "shuffle", "blue", "deck ready"))
    with pytest.raises(DeckAlternationError):
        table.start_hand(RED)
    table.start_hand(BLUE)  # still the blue deck's turn


def test_r_deck_2_a_table_without_a_shuffler_is_not_held_to_the_alternation() -> None:
    table, rng = _table(shuffler=False), random.Random(7)
    _play(table, RED, rng)
    table.record_device_report(DeviceReport(HAND_SHUFFLE, "station-1", "shuffle", "red", "shuffled by the croupier"))
    _play(table, RED, rng)  # one deck shuffled by hand: R-DECK-2 is the automatic shuffler's rule
    assert table.shuffler is None


def test_r_deck_2_a_banked_table_refuses_the_same_deck_twice_with_a_shuffler() -> None:
    table = BankedTable.open("THB D", "holdem-bonus", ThbSettings(STANDARD_LIMITS[10]))
    table.record_device_report(SHUFFLER)
    hand = table.start_hand(RED)
    hand.void("R-THB-11", "the dealer dealt a box twice")
    table.finish_hand(hand)
    with pytest.raises(DeckAlternationError, match="R-DECK-2"):
        table.start_hand(RED)
    table.start_hand(BLUE)


PIT = Viewer("pit", Role.PIT_BOSS)


def _device_faults(app: PokerTables, table_id: object) -> list[dict[str, str]]:
    return [vars(e) for e in app.events.get(table_id)  # type: ignore[arg-type]
            if type(e).__name__ == "DeviceReported" and vars(e)["kind"] == "fault"]


def test_r_deck_2_the_service_refuses_the_wrong_deck_and_records_the_refusal_as_the_shufflers_fault() -> None:
    app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    app.handle(OpenTable("o", "Mesa D", SETTINGS))
    for seat in (1, 2):
        app.handle(Sit(f"s{seat}", "Mesa D", seat, 100))
    app.handle(RecordDeviceReport("d1", "Mesa D", SHUFFLER), PIT)
    app.handle(StartHand("h1", "Mesa D", RED))
    app.handle(Act("v1", "Mesa D", Void(rule="R-CIRC-14", reason="a misdeal")), PIT)
    for _ in range(2):  # a retry of the refused command is refused again, and recorded once
        with pytest.raises(DeckAlternationError, match="R-DECK-2"):
            app.handle(StartHand("h2", "Mesa D", RED))
    record = app.table("Mesa D")
    assert record.hands_started == 1
    (fault,) = _device_faults(app, record.id)
    assert (fault["device"], fault["serial"], fault["colour"]) == ("PT-SHUF", "SN-77", "red")
    assert fault["result"].startswith("deck refused: the red deck was in play in hand 1") and "R-DECK-2" in \
        fault["result"]
    assert app.handle(StartHand("h3", "Mesa D", BLUE)).number == 2
