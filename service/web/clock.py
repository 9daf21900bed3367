"""The casino's clock on the dashboard (issue 34, item 1): every time shown, typed or downloaded is the casino's,
in its time zone (the service's ``tz``, the one the command line prints in), with the zone named; a report's default
range is the casino's current shift (00:00, 08:00, 16:00 local: :mod:`domain.shifts`, the shifts the service's
shuffler monitor and dealers' figures count), never a rolling window.

>>> from zoneinfo import ZoneInfo
>>> clock = CasinoClock(ZoneInfo("Europe/Madrid"))
>>> clock.local(datetime(2026, 11, 25, 21, 0, 5, tzinfo=UTC))
'2026-11-25 22:00:05'
>>> clock.typed("2026-11-25T22:00").isoformat()  # typed without a zone: the casino's
'2026-11-25T22:00:00+01:00'
>>> clock.typed("2026-11-25T21:00Z").astimezone(UTC).isoformat()  # a zone typed is kept
'2026-11-25T21:00:00+00:00'
>>> clock.label, clock.local(datetime(2026, 7, 1, 10, 0, tzinfo=UTC), zone=True)
('Europe/Madrid', '2026-07-01 12:00:00 CEST')
>>> clock.local(datetime(2026, 10, 25, 0, 30, tzinfo=UTC), offset=True)  # 02:30, the first time that night
'2026-10-25 02:30:00+02:00'
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo

from google.protobuf.timestamp_pb2 import Timestamp

from domain.shifts import shift_start


class CasinoClock:
    """The casino's time zone, and the dashboard's ways of showing and reading times in it."""

    def __init__(self, zone: tzinfo = UTC) -> None:
        self.zone = zone
        self.label = str(getattr(zone, "key", None) or datetime.now(zone).tzname() or "UTC")
        """The zone's name as the pages show it beside their times (``Europe/Madrid``)."""

    def moment(self, value: datetime | Timestamp) -> datetime:
        """A time (a timezone-aware datetime, or a protobuf ``Timestamp``, which is UTC) in the casino's zone."""
        if isinstance(value, Timestamp):
            value = value.ToDatetime(tzinfo=UTC)
        if value.tzinfo is None:
            raise ValueError("a time without its zone")
        return value.astimezone(self.zone)

    def local(self, value: datetime | Timestamp | None, *, seconds: bool = True, zone: bool = False,
              offset: bool = False) -> str:
        """A time as a person on the floor reads it: ``2026-11-25 22:00:05`` (``zone``: with the zone's abbreviation
        then in force, ``CET``; ``offset``: with its offset, ``2026-11-25 22:00:05+01:00``, as the command line
        prints a hand's start: unambiguous in the hour the clocks go back); "" for none (a ``Timestamp`` left
        unset)."""
        if value is None or (isinstance(value, Timestamp) and not value.seconds and not value.nanos):
            return ""
        moment = self.moment(value)
        if offset:
            return moment.isoformat(sep=" ", timespec="seconds" if seconds else "minutes")
        text = moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
        return f"{text} {moment.tzname()}" if zone else text

    def field(self, value: datetime) -> str:
        """A time as a form's field shows it, in the casino's zone, to the minute (``2026-11-25T22:00``)."""
        return self.moment(value).strftime("%Y-%m-%dT%H:%M")

    def iso(self, value: datetime | Timestamp) -> str:
        """A time in a download (CSV): ISO 8601 in the casino's zone, with its offset."""
        return self.moment(value).isoformat(timespec="seconds")

    def typed(self, text: str) -> datetime | None:
        """A time typed on a page (ISO 8601); without a zone, the casino's; None when nothing was typed
        (``ValueError`` when it is not a time)."""
        if not text.strip():
            return None
        moment = datetime.fromisoformat(text.strip())
        if moment.tzinfo is None:
            moment = datetime.fromtimestamp(moment.replace(tzinfo=self.zone).timestamp(), self.zone)
        return moment

    def shift_start(self, now: datetime | None = None) -> datetime:
        """The start of the casino's current shift."""
        return shift_start(now or datetime.now(UTC), self.zone)


UTC_CLOCK = CasinoClock(UTC)
"""A clock on UTC (a page's pure helpers' default; the dashboard's own is the casino's)."""
