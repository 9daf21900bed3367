"""The dealers' figures for the pit over gRPC (issue 19, items 4 and 5; docs/alerts.md): ``ListDealerFigures``.

Translation only: the request's range is checked, the pit's role is asked for (the pit boss or the games director,
R-AUD-1), and :func:`service.app.dealer_report.shift_dealers` does the work: by default the current shift in the
casino's time zone (the server's ``zone``, as ListShufflers counts shifts).  It reads the log's rotation, hand and
irregularity events, so it runs on the thread pool, never on the event loop.

>>> from datetime import UTC
>>> from domain.dealer_figures import DealerReport
>>> t0 = datetime(2026, 11, 25, 20, 0, tzinfo=UTC)
>>> reply = dealers_reply(DealersShift(t0, t0 + timedelta(hours=1), DealerReport(
...     [DealerFigures("D-7", ("Mesa 1",), 1800.0, 12, voids=1)],
...     [Rotation(t0 + timedelta(minutes=30), "Mesa 1", "D-9", "D-7", "sign-in")])))
>>> figures = reply.dealers[0]
>>> figures.dealer_id, figures.time_dealt.seconds, figures.hands, figures.hands_per_hour, figures.voids
('D-7', 1800, 12, 24.0, 1)
>>> rotation = reply.rotations[0]
>>> rotation.dealer_id, rotation.previous_dealer_id, rotation.kind == pb.DEALER_ROTATION_KIND_SIGN_IN
('D-9', 'D-7', True)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp

from domain.dealer_figures import DealerFigures, Rotation
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.access import authorize
from service.app.application import Viewer
from service.app.dealer_report import DealerRangeError, DealersShift, shift_dealers
from service.grpc.base import ServicerBase
from service.grpc.enums import name_of
from service.grpc.errors import _guarded, invalid
from service.grpc.requests import moment


def _stamp(moment_: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment_)
    return stamp


def dealer_figures(figures: DealerFigures) -> pb.DealerFigures:
    """One dealer's figures as the API says them."""
    dealt = Duration()
    dealt.FromTimedelta(timedelta(seconds=figures.seconds))
    return pb.DealerFigures(dealer_id=figures.dealer, tables=figures.tables, time_dealt=dealt, hands=figures.hands,
                            hands_per_hour=figures.hands_per_hour, voids=figures.voids,
                            corrections=figures.corrections, exposed_cards=figures.exposed)


def dealer_rotation(rotation: Rotation) -> pb.DealerRotation:
    """A sign-in or sign-out as the API says it (the domain's kind, ``sign-in`` or ``sign-out``, by the enum rule)."""
    return pb.DealerRotation(time=_stamp(rotation.time), table=rotation.table, dealer_id=rotation.dealer,
                             previous_dealer_id=rotation.previous,
                             kind=name_of(pb.DealerRotationKind, rotation.kind))


def dealers_reply(shift: DealersShift, names: Callable[[str], str] = lambda _: "") -> svc.ListDealerFiguresResponse:
    """ListDealerFigures' answer: the range reported on, each dealer's figures (by id, with his name on the staff:
    ``names``), the rotations in order."""
    dealers = [dealer_figures(figures) for figures in shift.report.figures]
    rotations = [dealer_rotation(rotation) for rotation in shift.report.rotations]
    for figures in dealers:
        figures.dealer_name = names(figures.dealer_id) if figures.dealer_id else ""
    for rotation in rotations:
        rotation.dealer_name = names(rotation.dealer_id) if rotation.dealer_id else ""
    return svc.ListDealerFiguresResponse(since=_stamp(shift.since), until=_stamp(shift.until), dealers=dealers,
                                         rotations=rotations)


class DealerRpcs(ServicerBase):
    """ListDealerFigures."""

    @_guarded
    async def ListDealerFigures(  # noqa: N802
        self, request: svc.ListDealerFiguresRequest, context: Any
    ) -> svc.ListDealerFiguresResponse:
        since, until = moment(request, "since"), moment(request, "until")
        if since is not None and until is not None and until < since:
            raise invalid("until is before since", "until", "R-AUD-1")

        def work(viewer: Viewer) -> svc.ListDealerFiguresResponse:
            authorize(viewer, "", "dealers")  # R-AUD-1: the pit's, not a croupier's or an observer's
            try:
                shift = shift_dealers(self.app, since=since, until=until, zone=self.zone)
            except DealerRangeError as error:  # a start after now, with no end given
                raise invalid(error.message, error.field, error.rule) from None
            return dealers_reply(shift, self.app.staff.name_of)

        return await self._run(context, work, offload=True)
