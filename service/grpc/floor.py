"""The pit's floor from the floor's projection (issue 30; :mod:`service.app.floor_log`): ``GetFloor`` (the open
alerts and each table's notes, as of a log position a dashboard watches from) and ``ListAlerts`` (a table's alerts
in a time range: a shift's irregularities). Each read first catches the projection up to the log's head, so it
answers as of the moment it is asked, at the cost of what was stored since the last catch-up."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.access import AccessDeniedError, authorize
from service.app.application import Viewer
from service.app.floor_log import AlertRow
from service.app.shift_report import TableFigures, shift_report
from service.grpc.accounts import shift_accounts
from service.grpc.base import ServicerBase
from service.grpc.enums import value_of
from service.grpc.errors import _guarded, invalid
from service.grpc.event_messages import timestamp
from service.grpc.requests import moment

HISTORY, MAX_HISTORY = 500, 5_000
"""The alerts' history's length by default, and at most (ListAlerts with ``every_table``)."""


def floor_alert(alert: AlertRow) -> svc.FloorAlert:
    """An alert as the API carries it."""
    return svc.FloorAlert(table=alert.table, position=alert.position, at=timestamp(alert.at), kind=alert.kind,
                          text=alert.text, acknowledged=alert.acknowledged)


def table_figures(line: TableFigures) -> svc.TableShiftFigures:
    """A table's line of the shift report as the API carries it."""
    figures = line.hands
    message = svc.TableShiftFigures(
        table=line.table, game=value_of(pb.Game, line.game.code),  # type: ignore[arg-type]
        family=value_of(pb.GameFamily, line.game.family),  # type: ignore[arg-type]
        hands=figures.hands, voids=figures.voids, rake=figures.rake, irregularities=line.irregularities,
        results=[svc.HandResult(number=number, result=result) for number, result in figures.results])
    if line.accounts is not None:
        message.accounts.CopyFrom(shift_accounts(line.accounts))
    return message


class FloorRpcs(ServicerBase):
    """GetFloor, ListAlerts and GetShiftReport."""

    @_guarded
    async def GetFloor(self, request: svc.GetFloorRequest, context: Any) -> svc.GetFloorResponse:  # noqa: N802
        def work(viewer: Viewer) -> svc.GetFloorResponse:
            authorize(viewer, "", "floor")
            floor = self.app.floor_log
            floor.catch_up()
            position, alerts, tables = floor.store.floor()  # as of one moment: the position and its rows
            return svc.GetFloorResponse(
                position=position, alerts=[floor_alert(alert) for alert in alerts],
                tables=[svc.FloorTable(table=row.name, shuffler=row.shuffler, correction=row.correction)
                        for row in tables])

        return await self._run(context, work, offload=True)

    @_guarded
    async def ListAlerts(self, request: svc.ListAlertsRequest, context: Any) -> svc.ListAlertsResponse:  # noqa: N802
        since, until = moment(request, "since"), moment(request, "until")
        if since is not None and until is not None and until < since:
            raise invalid("until is before since", "until", "R-AUD-1")
        if not 0 <= request.limit <= MAX_HISTORY:
            raise invalid(f"limit is 0 (500) to {MAX_HISTORY}", "limit", "R-AUD-1")

        def work(viewer: Viewer) -> svc.ListAlertsResponse:
            authorize(viewer, "", "floor")
            floor = self.app.floor_log
            floor.catch_up()
            low, high = since or datetime.min.replace(tzinfo=UTC), until or datetime.now(UTC)
            if request.every_table:
                found = floor.store.alerts_of_every_table(low, high, request.limit or HISTORY)
            else:
                found = floor.store.alerts_between(request.table, low, high)
            return svc.ListAlertsResponse(alerts=[floor_alert(alert) for alert in found])

        return await self._run(context, work, offload=True)

    @_guarded
    async def GetShiftReport(  # noqa: N802
        self, request: svc.GetShiftReportRequest, context: Any
    ) -> svc.GetShiftReportResponse:
        since, until = moment(request, "since"), moment(request, "until")
        if since is None:
            raise invalid("since is required: the report's range starts there", "since", "R-AUD-1")
        if until is not None and until < since:
            raise invalid("until is before since", "until", "R-AUD-1")

        def work(viewer: Viewer) -> svc.GetShiftReportResponse:
            authorize(viewer, "", "floor")

            def reads_accounts(table: str) -> bool:
                try:
                    authorize(viewer, table, "accounts-read")
                except AccessDeniedError:
                    return False
                return True

            position, lines = shift_report(self.app, since, until or datetime.now(UTC), reads_accounts)
            return svc.GetShiftReportResponse(position=position, tables=[table_figures(line) for line in lines])

        return await self._run(context, work, offload=True)
