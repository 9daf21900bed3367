"""Issue 19, item 2 — alerts that hold play, in the domain (R-HOLD-1, R-DECK-3, R-DECK-4, R-DECK-2).

Whatever the sequence of device reports, alerts raised and acknowledgements, a table (circle or banked) is held iff an
alert that affects play was raised there and not acknowledged, and it refuses to start a hand then; a colour is out of
play iff its last deck check counted wrong; replaying the table's events gives the same holds.  Which reports hold is
the decision of :mod:`domain.holds`: a device's own fault and a wrong count do; a read the service refused, a read the
game's rule handles and a deck refused for not alternating do not."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.banked.table import BankedTable
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.table import Table
from domain.device_reports import DeviceReport
from domain.errors import RuleError
from domain.holds import HOLD_RULE, Hold, report_hold

FAULTS = {  # what a device said → whether it holds play
    "card jam at the reader": True,
    "shuffler jammed; deck not ready": True,
    "the shuffler delivered no deck": True,
    "shuffler not connected at socket://127.0.0.1:7001: refused; waiting for it": False,  # out of reach
    "shoe connection lost: [Errno 5] Input/output error": False,
    "shoe link: 1 corrupt frame(s) discarded (CRC, length or end byte); the device resends": False,
    "shoe silent: nothing heard for 3.0 s (no heartbeat)": False,
    "read 3 As refused by the service: not in the deck in play": False,  # R-DECK-4: the hand refused it
    "read 5 Kd: card read twice (R-DECK-4)": False,  # the game's rule handles it
    "read 2 7h: a face-up card in the deck (R-THB-11)": False,
    "deck refused: the red deck was in play in hand 3": False,  # R-DECK-2: the table refused it
}
CHECKS = {"52 counted, complete": False, "51 counted, INCOMPLETE: missing 1, duplicated 0, foreign 0": True,
          "53 counted, INCOMPLETE: missing 0, duplicated 0, foreign 1": True, "51 counted: a card is missing": True}


def _circle() -> Table:
    table = Table.open("Mesa 1", TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2)))
    table.sit(1, 100)
    table.sit(2, 100)
    return table


def _banked() -> BankedTable:
    return BankedTable.open("THB 1", "holdem-bonus", ThbSettings(STANDARD_LIMITS[10]))


@pytest.mark.parametrize(("result", "holds"), FAULTS.items())
def test_r_hold_1_a_device_s_own_fault_holds_play_and_a_refused_or_ruled_read_does_not(result: str,
                                                                                      holds: bool) -> None:
    assert (report_hold("fault", result) == "device-fault") is holds
    for kind in ("shuffle", "delivery"):
        assert report_hold(kind, result) is None


@pytest.mark.parametrize(("result", "wrong"), CHECKS.items())
def test_r_deck_3_a_deck_check_that_counts_wrong_holds_play(result: str, wrong: bool) -> None:
    assert (report_hold("deck-check", result) == "deck-count") is wrong


def test_r_hold_1_a_hand_in_progress_may_finish_the_next_start_is_refused() -> None:
    table = _circle()
    table.start_hand(DeckIdentity(52, BackColour.RED))
    table.record_device_report(DeviceReport("PT-SHOE", "S-1", "fault", "red", "card jam"))  # mid-hand: recorded
    assert table.is_held and table.hand_in_progress is not None
    with pytest.raises(RuleError) as refused:
        table.verify_not_held()
    assert refused.value.rule == HOLD_RULE


def test_r_hold_1_the_casino_s_alerts_hold_a_table_and_are_named_first_by_its_own() -> None:
    table = _circle()
    tampering = Hold(0, "audit", "altered at log position 41", 57)
    with pytest.raises(RuleError) as refused:
        table.start_hand(DeckIdentity(52, BackColour.RED), [tampering])
    assert refused.value.rule == HOLD_RULE and "tampering found by the audit" in refused.value.message
    assert table.hands_started == 0 and tampering.rule == "R-AUD-1"


@pytest.mark.parametrize("table", [_circle, _banked])
def test_r_hold_1_reports_stored_before_holds_hold_nothing_on_replay(table: Any) -> None:
    record = table()
    record.record_device_report(DeviceReport("PT-SHUF", "S-1", "fault", "red", "jam"))
    record.record_device_report(DeviceReport("PT-SHUF", "S-1", "deck-check", "blue",
                                             "51 counted, INCOMPLETE: missing 1, duplicated 0, foreign 0"))
    assert record.is_held and record.decks_out == {"blue": "51 counted"}
    events = record.collect_events()
    for stored in events:  # as stored before issue 19: no ``hold``
        stored.__dict__.pop("hold", None)
    replayed: Any = None
    for stored in events:
        replayed = stored.mutate(replayed)
    assert not replayed.is_held and replayed.decks_out == {}
    replayed.start_hand(DeckIdentity(52, BackColour.BLUE))


def test_r_hold_1_the_service_raises_only_the_alerts_it_knows() -> None:
    table = _banked()
    for kind, detail in (("coffee", "spilt"), ("shuffler-integrity", ""), ("shuffler-integrity", "x" * 201)):
        with pytest.raises(RuleError):
            table.raise_alert(kind, detail, "service")
    assert not table.is_held and table.version == 1


OPERATIONS = st.lists(st.one_of(
    st.tuples(st.just("fault"), st.sampled_from(sorted(FAULTS)), st.sampled_from(["red", "blue"])),
    st.tuples(st.just("deck-check"), st.sampled_from(sorted(CHECKS)), st.sampled_from(["red", "blue"])),
    st.tuples(st.just("shuffle"), st.just("deck ready"), st.sampled_from(["red", "blue"])),
    st.tuples(st.just("raise"), st.just("adjacent pairs kept"), st.just("")),
    st.tuples(st.just("acknowledge"), st.integers(0, 40), st.just("")),
), max_size=25)


@settings(max_examples=60, deadline=None)
@given(operations=OPERATIONS, banked=st.booleans())
def test_r_hold_1_a_table_is_held_iff_a_holding_alert_is_not_acknowledged_whatever_the_sequence(
    operations: list[tuple[str, Any, str]], banked: bool,
) -> None:
    table: Table | BankedTable = _banked() if banked else _circle()
    holding: set[int] = set()  # the model: the versions of the holding events not acknowledged
    raised: list[int] = []  # the versions of every event an alert could be named by
    out: dict[str, bool] = {}
    position = 0
    for operation, text, colour in operations:
        if operation == "raise":
            table.raise_alert("shuffler-integrity", text, "service")
            holding.add(table.version)
        elif operation == "acknowledge":
            if not raised:
                continue
            version = raised[text % len(raised)]
            position += 1
            table.acknowledge_alert(position, "cleared", "pit", version)
            holding.discard(version)
            continue
        else:
            table.record_device_report(DeviceReport("PT-SHUF", "S-1", operation, colour, text))
            if (operation == "fault" and FAULTS[text]) or (operation == "deck-check" and CHECKS[text]):
                holding.add(table.version)
            if operation == "deck-check":
                out[colour] = CHECKS[text]
        raised.append(table.version)
        assert table.is_held is bool(holding)
    assert sorted(table.holds) == sorted(holding)
    assert sorted(table.decks_out) == sorted(colour for colour, wrong in out.items() if wrong)
    replayed: Any = None
    for event in table.collect_events():  # the record rebuilt from its events holds alike
        replayed = event.mutate(replayed)
    assert replayed.holds == table.holds and replayed.decks_out == table.decks_out
    started = table.hands_started
    deck = next((c for c in (BackColour.RED, BackColour.BLUE) if c.value not in table.decks_out), None)
    if deck is None:
        return
    if holding:
        with pytest.raises(RuleError) as refused:
            table.start_hand(DeckIdentity(52, deck))
        assert refused.value.rule == HOLD_RULE and table.hands_started == started
    else:
        table.start_hand(DeckIdentity(52, deck))
        assert table.hands_started == started + 1
