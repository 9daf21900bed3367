"""The shufflers' integrity for the pit over gRPC (issue 19, items 1 and 5; docs/integrity.md): ``ListShufflers``.

Translation only: the request's range and floor size are checked, the pit's role is asked for (the pit boss or the
games director, R-DECK-2), and :func:`service.app.shufflers.shift_report` does the work with the service's monitor
settings (``shuffler_level``, ``shuffler_looks``, ``shuffler_gathering``: ``pokertable serve`` passes them to the
server).  It reads every table's hands in the range, so it runs on the thread pool, never on the event loop.

>>> from datetime import UTC
>>> from domain.integrity.monitor import MonitorSettings
>>> reply = shift_reply(ShiftReport(datetime(2026, 11, 25, 14, tzinfo=UTC), datetime(2026, 11, 25, 22, tzinfo=UTC),
...                                 MonitorSettings(), 20, ()))
>>> reply.settings.gathering == pb.SHUFFLER_GATHERING_READ_THEN_STUB, f"{reply.settings.test_level:.3g}"
(True, '1.04e-06')
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from domain.integrity.monitor import MonitorSettings
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.access import authorize
from service.app.application import Viewer
from service.app.shufflers import ShiftReport, ShufflerVerdict, shift_report
from service.grpc.base import ServicerBase
from service.grpc.enums import name_of
from service.grpc.errors import _guarded, invalid
from service.grpc.requests import moment


def _stamp(moment_: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment_)
    return stamp


def monitor_settings(settings: MonitorSettings, decks: int) -> pb.ShufflerMonitorSettings:
    """The monitor's settings as the API says them, with the decks sharing the level and each test's level."""
    return pb.ShufflerMonitorSettings(
        level=settings.level, looks=settings.looks, gathering=name_of(pb.ShufflerGathering, settings.gathering),
        position_bins=settings.position_bins, min_shuffles=settings.min_shuffles, decks=decks,
        test_level=settings.test_level(decks))


def shuffler_deck(verdict: ShufflerVerdict) -> pb.ShufflerDeck:
    """One shuffler deck's verdict as the API says it."""
    result = verdict.result
    deck = pb.ShufflerDeck(
        serial=verdict.serial, device=verdict.device, colour=name_of(pb.DeckColour, verdict.colour),
        deck_size=verdict.deck_size, tables=verdict.tables, shuffles=result.shuffles,
        cards_compared=verdict.cards_compared, verdict=name_of(pb.ShufflerVerdict, result.verdict.replace(" ", "-")),
        tests=[pb.ShufflerTestResult(test=name_of(pb.ShufflerTest, test.test), statistic=test.statistic,
                                     expected=test.expected, p_value=test.p_value) for test in result.tests])
    where = verdict.alarmed_at
    if result.alarm_at is not None and result.alarm_test is not None and where is not None:
        deck.alarm.CopyFrom(pb.ShufflerAlarm(shuffle=result.alarm_at, test=name_of(pb.ShufflerTest, result.alarm_test),
                                             table=where.table, hand_number=where.hand, time=_stamp(where.started)))
    return deck


def shift_reply(report: ShiftReport) -> svc.ListShufflersResponse:
    """ListShufflers' answer: the range judged, the settings, each deck (the failed ones first)."""
    return svc.ListShufflersResponse(since=_stamp(report.since), until=_stamp(report.until),
                                     settings=monitor_settings(report.settings, report.decks),
                                     shufflers=[shuffler_deck(verdict) for verdict in report.verdicts])


class ShufflerRpcs(ServicerBase):
    """ListShufflers."""

    @_guarded
    async def ListShufflers(  # noqa: N802
        self, request: svc.ListShufflersRequest, context: Any
    ) -> svc.ListShufflersResponse:
        since, until = moment(request, "since"), moment(request, "until")
        if since is not None and until is not None and until < since:
            raise invalid("until is before since", "until", "R-DECK-2")
        decks = request.decks if request.HasField("decks") else None
        if decks is not None and decks < 1:
            raise invalid("the false-alarm level is shared by at least one shuffler deck", "decks", "R-DECK-2")

        def work(viewer: Viewer) -> svc.ListShufflersResponse:
            authorize(viewer, "", "shufflers")  # R-DECK-2: the pit's, not a croupier's or an observer's
            return shift_reply(shift_report(self.app, since=since, until=until, settings=self.shufflers,
                                            decks=decks, zone=self.zone))

        return await self._run(context, work, offload=True)
