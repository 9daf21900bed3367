"""The one table record both families share (issue 14, items 2 and 3): a circle table and a banked table keep the
same record (hands, decks, devices, reconstructions) through :class:`domain.tables.TableRecord`, and the table — not
the station — refuses a deck of the wrong colour (R-DECK-2) or size (R-CARD-2, R-THB-1, R-CDP-1), recording
nothing; both record the alerts the pit acknowledged (issue 16, item 4; R-AUD-1), and replay rebuilds them."""

from __future__ import annotations

import pytest

from domain.banked.cdp import CdpSettings
from domain.banked.table import BankedTable
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.table import Table
from domain.device_reports import DeckAlternationError, DeviceReport
from domain.errors import RuleError
from domain.tables import TableRecord
from tests.support.circle_support import Hands

SHUFFLER = DeviceReport("PT-SHUF", "SN-77", "delivery", "red", "the red deck delivered to the shoe")


def _tables() -> list[TableRecord]:
    circle = Table.open("Mesa R", TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2)))
    for seat in (1, 2):
        circle.sit(seat, 100)
    thb = BankedTable.open("THB R", "holdem-bonus", ThbSettings(STANDARD_LIMITS[10]))
    cdp = BankedTable.open("CDP R", "casino-draw", CdpSettings(ante_min=5, ante_max=100))
    return [circle, thb, cdp]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_r_deck_2_every_table_keeps_the_same_record_and_refuses_the_deck_just_in_play(index: int) -> None:
    table = _tables()[index]
    assert isinstance(table, TableRecord)
    table.record_device_report(SHUFFLER)
    assert table.device_reports == 1 and table.shuffler == {"device": "PT-SHUF", "serial": "SN-77"}
    hand = table.start_hand(DeckIdentity(52, BackColour.RED))  # type: ignore[attr-defined]
    assert (table.hands_started, table.last_deck_colour, table.hand_in_progress) == (1, "red", hand.id)
    assert table.hand_id(1) == hand.id


@pytest.mark.parametrize(("index", "rule"), [(0, "R-CARD-2"), (1, "R-THB-1"), (2, "R-CDP-1")])
def test_r_card_2_the_table_refuses_a_deck_of_the_wrong_size_and_records_nothing(index: int, rule: str) -> None:
    table = _tables()[index]
    version = table.version
    with pytest.raises(RuleError) as refused:
        table.start_hand(DeckIdentity(32, BackColour.BLUE))  # type: ignore[attr-defined]
    assert refused.value.rule == rule
    assert table.version == version and table.hands_started == 0 and table.hand_in_progress is None


@pytest.mark.parametrize("index", [0, 1, 2])
def test_r_deck_2_a_refused_deck_is_recorded_as_the_shufflers_fault_at_every_table(index: int) -> None:
    table = _tables()[index]
    table.record_device_report(SHUFFLER)
    table.start_hand(DeckIdentity(52, BackColour.RED))  # type: ignore[attr-defined]
    table.hand_in_progress = None  # between hands, as after the hand's end (its events are not the point here)
    with pytest.raises(DeckAlternationError):
        table.verify_deck_colour(DeckIdentity(52, BackColour.RED))
    table.record_refused_deck("red", "the red deck was in play in hand 1")
    assert table.device_reports == 2


@pytest.mark.parametrize("index", [0, 1, 2])
def test_r_thb_13_every_table_records_a_reconstruction_request_the_same_way(index: int) -> None:
    table = _tables()[index]
    with pytest.raises(RuleError) as refused:
        table.record_reconstruction(1, "Ana", "dispute")
    assert refused.value.rule == "R-AUD-1"  # no hand 1 yet
    table.start_hand(DeckIdentity(52, BackColour.RED))  # type: ignore[attr-defined]
    with pytest.raises(RuleError) as refused:
        table.record_reconstruction(1, "Ana", " ")
    assert refused.value.rule == "R-THB-13"
    table.record_reconstruction(1, "Ana", "dispute at seat 2")
    assert table.reconstructions == 1


@pytest.mark.parametrize("index", [0, 1, 2])
def test_r_aud_1_every_table_records_acknowledged_alerts_once_and_replay_rebuilds_them(index: int) -> None:
    """Issue 16, item 4: an alert (by the log position of its event) acknowledged with a reason and the station,
    once; the acknowledged positions are the table's state, rebuilt from its stored events."""
    table = _tables()[index]
    assert isinstance(table, Table | BankedTable)
    table.acknowledge_alert(7, "jam cleared, deck checked", "pit")
    table.acknowledge_alert(12, "void reviewed on camera", "dj")
    assert table.acknowledged_alerts == {7, 12}
    version = table.version
    with pytest.raises(RuleError) as again:
        table.acknowledge_alert(7, "once more", "dj")
    assert again.value.rule == "R-AUD-1" and "already acknowledged" in again.value.message
    assert table.version == version
    app = Hands()
    app.save(table)
    stored: object = app.repository.get(table.id)
    assert isinstance(stored, TableRecord) and type(stored) is type(table)
    assert stored.acknowledged_alerts == {7, 12}
    with pytest.raises(RuleError):
        stored.acknowledge_alert(12, "replayed: still acknowledged", "pit")
    names = [type(event).__qualname__ for event in app.events.get(table.id)]
    assert names[-2:] == [f"{type(table).__name__}.AlertAcknowledged"] * 2


@pytest.mark.parametrize(("position", "reason", "by"), [
    (0, "a reason", "pit"), (-3, "a reason", "pit"), (True, "a reason", "pit"),
    (5, "", "pit"), (5, "   ", "pit"), (5, "x" * 201, "pit"), (5, "a reason", " "),
])
def test_r_aud_1_an_acknowledgement_names_its_alert_its_reason_and_its_station(position: int, reason: str,
                                                                               by: str) -> None:
    for table in _tables():
        version = table.version
        with pytest.raises(RuleError) as refused:
            table.acknowledge_alert(position, reason, by)
        assert refused.value.rule == "R-AUD-1"
        assert table.version == version and table.acknowledged_alerts == set()
    _tables()[0].acknowledge_alert(5, "x" * 200, "pit")  # 200 characters is the most


def test_r_aud_1_a_closed_table_still_takes_acknowledgements() -> None:
    circle = _tables()[0]
    assert isinstance(circle, Table)
    circle.close("pit")
    circle.acknowledge_alert(3, "cleared after the close", "pit")
    assert circle.closed and circle.acknowledged_alerts == {3}
