"""The casino's shifts: eight hours from 00:00, 08:00 and 16:00 of the casino's day, in its time zone.

Every figure the pit reads by shift counts the same shifts: the shuffler monitor's looks and false-alarm level
(:mod:`service.app.shufflers`), the dealers' figures, the dashboard's shift report and its pages.  A shift is
local: the day the clocks change it is seven or nine hours long, as the casino's own rota is.

>>> from datetime import UTC, datetime
>>> from zoneinfo import ZoneInfo
>>> madrid = ZoneInfo("Europe/Madrid")
>>> shift_start(datetime(2026, 11, 25, 21, 30, tzinfo=UTC), madrid).isoformat()
'2026-11-25T16:00:00+01:00'
>>> shift_start(datetime(2026, 11, 25, 23, 30, tzinfo=UTC), madrid).isoformat()  # past the casino's midnight
'2026-11-26T00:00:00+01:00'
>>> shift_start(datetime(2026, 3, 29, 7, 30, tzinfo=UTC), madrid).isoformat()  # the night the clocks go forward
'2026-03-29T08:00:00+02:00'
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo

SHIFT = timedelta(hours=8)
"""A shift on the casino's clock (the default ``looks`` of the shuffler monitor, 160 shuffles of a deck, is eight
hours at up to 40 hands an hour, the red and blue decks alternating)."""
SHIFT_HOURS = (0, 8, 16)
"""The hours of the casino's day its shifts start at."""


def shift_start(now: datetime, zone: tzinfo) -> datetime:
    """The start of the shift ``now`` falls in: 00:00, 08:00 or 16:00 of the casino's day (its time zone)."""
    local = now.astimezone(zone)
    hour = max(start for start in SHIFT_HOURS if start <= local.hour)
    return local.replace(hour=hour, minute=0, second=0, microsecond=0)
