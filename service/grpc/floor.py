"""The pit's floor from the floor's projection (issue 30; :mod:`service.app.floor_log`): ``GetFloor`` (the open
alerts and each table's notes, as of a log position a dashboard watches from) and ``ListAlerts`` (a table's alerts
in a time range: a shift's irregularities). Each read first catches the projection up to the log's head, so it
answers as of the moment it is asked, at the cost of what was stored since the last catch-up."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.api import table_service_pb2 as svc
from service.app.access import authorize
from service.app.application import Viewer
from service.app.floor_log import AlertRow
from service.grpc.base import ServicerBase
from service.grpc.errors import _guarded, invalid
from service.grpc.event_messages import timestamp
from service.grpc.requests import moment


def floor_alert(alert: AlertRow) -> svc.FloorAlert:
    """An alert as the API carries it."""
    return svc.FloorAlert(table=alert.table, position=alert.position, at=timestamp(alert.at), kind=alert.kind,
                          text=alert.text, acknowledged=alert.acknowledged)


class FloorRpcs(ServicerBase):
    """GetFloor and ListAlerts."""

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

        def work(viewer: Viewer) -> svc.ListAlertsResponse:
            authorize(viewer, "", "floor")
            floor = self.app.floor_log
            floor.catch_up()
            found = floor.store.alerts_between(request.table, since or datetime.min.replace(tzinfo=UTC),
                                               until or datetime.now(UTC))
            return svc.ListAlertsResponse(alerts=[floor_alert(alert) for alert in found])

        return await self._run(context, work, offload=True)
