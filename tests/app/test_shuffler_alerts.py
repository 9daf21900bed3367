"""Issue 19, items 1 and 2: the shuffler monitor at work in the service. A shuffler deck that fails its tests over the
shift raises a shuffler-integrity alert at each table it served, which holds the table (R-HOLD-1: no hand starts)
until the pit acknowledges it; the same failure is alerted once per shift and table, however often the service
checks; a shuffler that shuffles raises nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from domain.errors import RuleError
from domain.integrity.monitor import MonitorSettings
from service.app.access import ServiceError
from service.app.application import PokerTables
from service.app.commands import AcknowledgeAlert, StartHand
from service.app.shuffler_watch import KIND, raise_shuffler_alerts, shift_start
from tests.support.app_play import PIT, next_deck
from tests.support.shuffler_floor import _app, _Floor, _pass_through, _uniform

MADRID = ZoneInfo("Europe/Madrid")


def _held(app: PokerTables, table: str) -> str:
    """The rule a hand's start is refused by at ``table`` ("" if it starts: the hand is then voided by the pit)."""
    try:
        app.handle(StartHand("probe-" + table, table, next_deck(app, table)))
    except (RuleError, ServiceError) as refused:
        return str(getattr(refused, "rule", ""))
    return ""


def test_a_failing_shuffler_holds_its_tables_once_a_shift_until_the_pit_acknowledges() -> None:
    app = _app()
    began = datetime.now(UTC)  # the shift the hands are played in starts before this
    good, bad = _Floor(app, "Mesa A"), _Floor(app, "Mesa B")
    for _ in range(8):
        good.hand(_uniform, serial="SN-GOOD")
        bad.hand(_pass_through, serial="SN-BAD")
    raised = raise_shuffler_alerts(app, MonitorSettings(), MADRID, now=began)
    assert {alert.table for alert in raised} == {"Mesa B"}  # both colours of SN-BAD failed: two alerts
    assert len(raised) == 2
    assert _held(app, "Mesa B") == "R-HOLD-1" and _held(app, "Mesa A") == ""
    events = app.recorder.max_notification_id()
    again = raise_shuffler_alerts(app, MonitorSettings(), MADRID, now=began)  # the next check: nothing new
    assert [alert.position for alert in again] == [alert.position for alert in raised]
    assert app.recorder.max_notification_id() == events
    since = shift_start(began, MADRID)
    assert since <= began and (began - since).total_seconds() < 8 * 3600
    for number, alert in enumerate(raised):
        app.handle(AcknowledgeAlert(f"ack-{number}", "Mesa B", alert.position, "shuffler replaced by the technician"),
                   PIT)
    assert _held(app, "Mesa B") == ""
    events = app.recorder.max_notification_id()
    assert raise_shuffler_alerts(app, MonitorSettings(), MADRID, now=began) == again  # still once a shift
    assert app.recorder.max_notification_id() == events  # acknowledged, not raised again: the table plays on


def test_the_alert_is_a_table_event_naming_the_shuffler_the_test_and_the_shift() -> None:
    app = _app()
    began = datetime.now(UTC)
    floor = _Floor(app, "Mesa C")
    for _ in range(6):
        floor.hand(_pass_through, serial="SN-STUCK")
    raised = raise_shuffler_alerts(app, MonitorSettings(), MADRID, now=began)
    assert raised
    holds = app.holds.holds_of(app.any_table("Mesa C"))
    assert {hold.kind for hold in holds} == {KIND} and len(holds) == len(raised) == 2  # red and blue
    assert sorted(hold.position for hold in holds) == sorted(alert.position for alert in raised)
    for hold in holds:
        assert "SN-STUCK" in hold.detail and "failed at shuffle 1" in hold.detail
        assert f"shift from {shift_start(began, MADRID):%Y-%m-%d %H:%M}" in hold.detail


@pytest.mark.parametrize(("hour", "start"), [(0, 0), (7, 0), (8, 8), (15, 8), (16, 16), (23, 16)])
def test_shifts_start_at_00_08_and_16_casino_time(hour: int, start: int) -> None:
    moment = datetime(2026, 11, 25, hour, 30, tzinfo=MADRID)
    assert shift_start(moment, MADRID) == datetime(2026, 11, 25, start, 0, tzinfo=MADRID)
