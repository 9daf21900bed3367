"""The shuffler monitor at work in the service (issue 19, items 1 and 2; docs/integrity.md, docs/alerts.md): every
few minutes the service judges each shuffler deck over the current shift (:func:`service.app.shufflers.
shuffler_report`) and, for each deck that fails, raises a shuffler-integrity alert at every table the deck served
that shift — an event of the table that holds it (R-HOLD-1: no hand starts) until the pit boss or the games director
acknowledges it.

Shifts are eight hours long from the casino's midnight (00:00, 08:00 and 16:00, in the casino's time zone;
:func:`domain.shifts.shift_start`, the pit's view's too): the monitor's false-alarm level holds per shift
(``shuffler_level``), and a deck that failed is alerted once per shift and table (the alert's command id is made of
the table, its kind and its words, which name the shift): another check, or another instance of the service, records
nothing more.

>>> from zoneinfo import ZoneInfo
>>> shift_start(datetime(2026, 11, 25, 21, 30, tzinfo=UTC), ZoneInfo("Europe/Madrid")).isoformat()
'2026-11-25T16:00:00+01:00'
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from domain.errors import RuleError
from domain.integrity.monitor import FAIL, MonitorSettings
from domain.shifts import shift_start
from service.app.access import ServiceError
from service.app.holds import RaisedAlert
from service.app.shufflers import ShufflerVerdict, shuffler_report

if TYPE_CHECKING:
    from service.app.application import PokerTables

__all__ = ["KIND", "alert_words", "raise_shuffler_alerts", "shift_start", "watch_shufflers"]
"""shift_start lives in domain.shifts (every shift figure counts the same shifts): named here as before."""
KIND = "shuffler-integrity"
_log = logging.getLogger(__name__)


def alert_words(verdict: ShufflerVerdict, since: datetime) -> str:
    """What the alert says (at most 200 characters): the shuffler, its deck, the test that failed, when; the shift."""
    result = verdict.result
    words = (f"shuffler {verdict.device} {verdict.serial}, {verdict.colour} deck: {result.alarm_test} failed at "
             f"shuffle {result.alarm_at} of the shift from {since:%Y-%m-%d %H:%M}")
    return words if len(words) <= 200 else words[:199] + "…"


def raise_shuffler_alerts(app: PokerTables, settings: MonitorSettings, zone: ZoneInfo,
                          now: datetime | None = None) -> list[RaisedAlert]:
    """Judge every shuffler deck over the current shift and raise an alert at each table a failed deck served (once
    per shift and table): what was raised (each result names the table and the alert's log position)."""
    since = shift_start(now or datetime.now(UTC), zone)
    raised = []
    for verdict in shuffler_report(app, since=since, settings=settings):
        if verdict.result.verdict != FAIL:
            continue
        words = alert_words(verdict, since)
        for table in verdict.tables:
            try:
                raised.append(app.holds.raise_alert(table, KIND, words))
            except (RuleError, ServiceError) as error:  # e.g. a table closed since: the report still names it
                _log.warning("shuffler %s: the alert could not be raised at %s: %s", verdict.serial, table, error)
    return raised


async def watch_shufflers(app: PokerTables, settings: MonitorSettings, zone: ZoneInfo, every: float) -> None:
    """Check the shufflers every ``every`` seconds until cancelled, each check on a thread of its own; a check that
    fails (the store does not answer) is logged and made again at the next interval."""
    while True:
        await asyncio.sleep(every)
        try:
            raised = await asyncio.to_thread(raise_shuffler_alerts, app, settings, zone)
        except Exception as error:
            _log.error("shuffler monitor: the shufflers could not be checked: %s", error)
            continue
        for alert in raised:
            _log.warning("shuffler monitor: a shuffler deck failed its tests: table %s held (alert at log position "
                         "%s)", alert.table, alert.position)
