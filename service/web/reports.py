"""The shift report (issue 16, item 6): per table and game, for a time range — hands, hands per hour, the rake of a
circle table, the bank's result of each hand of a banked table and its running total (drawn as a chart), voids and
irregularities — on a page and as CSV.

Everything comes from the service's ``GetShiftReport`` (issue 34, item 6), one question for the whole floor that
the service answers from the floor's projection (the hands index summed by table, the alerts counted by table):
the page costs the range's rows, never the log's length. A circle table's rake is its pots' (a blank five-card draw
hand's pot, carried over, is none: R-DRAW-3); a banked hand's bank result is the opposite of its boxes' nets; chips
are integers throughout.

Beside them, each table's accounts (issue 19, item 3; docs/accounts.md): its open or last shift's win and hold
against the theoretical win and its band, and an open banked shift whose hands' result is already outside it
flagged live (the pit's and the table's croupier's to read: an observer's report leaves them out).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.api import accounts_pb2 as acc
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.spreadsheet import safe_cell
from service.web.api import timestamp
from service.web.app import Dashboard
from service.web.sessions import Session


def irregular(kind: str) -> bool:
    """An alert that is an irregularity of the shift: a device's fault, a report that held play (a deck check that
    counted wrong, the shuffler monitor's alarm: R-HOLD-1), an alert the service raised; a void is counted apart
    (the report's voids), tampering is the casino log's, no table's.

    >>> [irregular(kind) for kind in ("device", "deck-count", "shuffler-integrity", "void")]
    [True, True, True, False]
    """
    return kind != "void"


@dataclass
class TableShift:
    """One table's shift."""

    table: str
    game: str
    banked: bool
    hands: int = 0
    voids: int = 0
    rake: int = 0
    irregularities: int = 0
    results: list[tuple[int, int]] = field(default_factory=list)
    """Banked: (hand number, the bank's result) in order."""
    accounts: acc.ShiftAccounts | None = None
    """The table's open or last shift's accounts, if it has any and the station may read them."""

    def per_hour(self, hours: float) -> float:
        return round(self.hands / hours, 1) if hours > 0 else 0.0

    @property
    def bank_total(self) -> int:
        return sum(result for _, result in self.results)


def shift_of(line: svc.TableShiftFigures) -> TableShift:
    """A table's line of the report from the service's figures.

    >>> line = svc.TableShiftFigures(table="THB 1", game=pb.GAME_HOLDEM_BONUS, family=pb.GAME_FAMILY_BANKED, hands=2,
    ...                              voids=1, results=[svc.HandResult(number=1, result=-10)])
    >>> shift = shift_of(line)
    >>> shift.banked, shift.hands, shift.voids, shift.results, shift.bank_total, shift.accounts is None
    (True, 2, 1, [(1, -10)], -10, True)
    """
    return TableShift(line.table, pb.Game.Name(line.game).removeprefix("GAME_").lower().replace("_", "-"),
                      line.family == pb.GAME_FAMILY_BANKED, hands=line.hands, voids=line.voids, rake=line.rake,
                      irregularities=line.irregularities,
                      results=[(result.number, result.result) for result in line.results],
                      accounts=line.accounts if line.HasField("accounts") else None)


def running_chart(results: list[tuple[int, int]], *, width: int = 480, height: int = 120) -> Markup:
    """The bank's running total over the shift's hands, as an SVG line (with the zero line)."""
    totals, total = [0], 0
    for _, result in results:
        total += result
        totals.append(total)
    low, high = min(totals), max(totals)
    span = (high - low) or 1
    step = width / max(len(totals) - 1, 1)
    points = " ".join(f"{i * step:.1f},{height - (value - low) / span * height:.1f}" for i, value in enumerate(totals))
    zero = height - (0 - low) / span * height
    return Markup(
        f'<svg class="chart" role="img" aria-label="running bank result: {total}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">'
        f'<line x1="0" y1="{zero:.1f}" x2="{width}" y2="{zero:.1f}" stroke="#999" stroke-dasharray="4 3"/>'
        f'<polyline fill="none" stroke="#1f4e99" stroke-width="2" points="{points}"/></svg>')


def routes(dashboard: Dashboard) -> list[Route]:
    """The shift report's page and its CSV."""

    async def report(request: Request, session: Session) -> Response:
        """The range asked for, in the casino's time; by default the casino's current shift, from its start
        (00:00, 08:00 or 16:00) to now."""
        clock = dashboard.clock
        now = datetime.now(UTC)
        try:
            since = clock.typed(request.query_params.get("from", "")) or clock.shift_start(now)
            until = clock.typed(request.query_params.get("to", "")) or now
        except ValueError:
            return Response("from and to are ISO 8601 times in the casino's time (2026-11-25T21:00)",
                            status_code=400)
        # one question for the whole floor, answered from the floor's projection (issue 34, item 6)
        request_ = svc.GetShiftReportRequest(since=timestamp(since), until=timestamp(until))
        reply: svc.GetShiftReportResponse = await dashboard.api.call("GetShiftReport", request_, session.token)
        shifts = [shift_of(line) for line in reply.tables]
        hours = (min(until, now) - since).total_seconds() / 3600  # hands per hour: of the time gone by, not to come
        if request.query_params.get("format") == "csv":
            start, end = clock.moment(since), clock.moment(until)
            return Response(csv_of(shifts, hours, (clock.iso(since), clock.iso(until))), media_type="text/csv",
                            headers={"Content-Disposition": f'attachment; filename="shift-{start:%Y%m%dT%H%M}-'
                                                            f'{end:%Y%m%dT%H%M}.csv"'})
        return dashboard.page("report.html", session, shifts=shifts, hours=hours, since=since, until=until,
                              chart=running_chart, hold=hold_percent)

    return [Route("/reports/shift", dashboard.signed_in(report))]


def hold_percent(accounts: acc.ShiftAccounts, theoretical: bool = False) -> str:
    """The hold (or the theoretical hold) as a percentage with two decimals; "" without a drop or a close.

    >>> hold_percent(acc.ShiftAccounts(hold=0.125))
    '12.50'
    """
    if theoretical:
        return f"{100 * accounts.theoretical.hold:.2f}" if accounts.theoretical.HasField("hold") else ""
    return f"{100 * accounts.hold:.2f}" if accounts.HasField("hold") else ""


def csv_of(shifts: list[TableShift], hours: float, span: tuple[str, str] = ("", "")) -> str:
    """The report as CSV: the range (ISO 8601 in the casino's time, with its offset), a line per table, then a line
    per banked hand's result.  Every text a person chose (a table's name) is written so that a spreadsheet reads it
    as text, never as a formula (:func:`safe_cell`)."""
    out = io.StringIO()
    writer = csv.writer(out)
    if any(span):
        writer.writerow(["from", span[0], "to", span[1]])
        writer.writerow([])
    writer.writerow(["table", "game", "hands", "hands_per_hour", "rake", "bank_result", "voids", "irregularities"])
    for shift in shifts:
        writer.writerow([safe_cell(shift.table), shift.game, shift.hands, shift.per_hour(hours),
                         shift.rake if not shift.banked else "", shift.bank_total if shift.banked else "",
                         shift.voids, shift.irregularities])
    writer.writerow([])
    writer.writerow(["table", "hand", "bank_result", "running_total"])
    for shift in shifts:
        running = 0
        for number, result in shift.results:
            running += result
            writer.writerow([safe_cell(shift.table), number, result, running])
    writer.writerow([])
    writer.writerow(["table", "shift", "state", "opener", "closer", "fills", "credits", "drop", "result_so_far", "win",
                     "hold_pct", "expected", "low", "high", "theoretical_hold_pct", "flagged"])
    for shift in shifts:
        a = shift.accounts
        if a is not None:
            writer.writerow([safe_cell(shift.table), a.shift, "open" if a.open else "closed", a.opener_value,
                             a.closer_value if a.HasField("closer_value") else "", a.fills, a.credits, a.drop,
                             a.result, a.win if a.HasField("win") else "", hold_percent(a),
                             round(a.theoretical.expected), a.theoretical.low, a.theoretical.high,
                             hold_percent(a, theoretical=True), "outside band" if a.flagged or a.outside_band
                             else "outside band now" if a.outside_band_now else ""])
    return out.getvalue()
