"""The accounts RPCs of the servicer (accounts.proto; issue 19, item 3; R-ACC-1 … R-ACC-6, docs/accounts.md): each
checks its request's shape (INVALID_ARGUMENT naming the field), runs the application's command or query for the
calling station, and replies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from domain.accounts import MAX_AMOUNT
from service.api import accounts_pb2 as acc
from service.app.access import authorize
from service.app.accounts import ShiftReport
from service.app.application import Viewer
from service.app.commands import CloseShift, OpenShift, RecordDrop, RequestTransfer, SignTransfer, WithdrawTransfer
from service.grpc.base import ServicerBase
from service.grpc.errors import _guarded, invalid
from service.grpc.event_messages import timestamp
from service.grpc.replies import command_result
from service.grpc.requests import _command_id, _table, _text

KINDS = {acc.TRANSFER_KIND_FILL: "fill", acc.TRANSFER_KIND_CREDIT: "credit"}


def chip_counts(counts: Sequence[acc.ChipCount], field: str) -> dict[int, int]:
    """A count by denomination (R-ACC-2): whole positive denominations, each once, whole non-negative chips."""
    found: dict[int, int] = {}
    for index, count in enumerate(counts):
        if not 0 < count.denomination <= MAX_AMOUNT:
            raise invalid(f"a denomination is a whole positive value, not {count.denomination}",
                          f"{field}[{index}].denomination", "R-ACC-2")
        if not 0 <= count.chips <= MAX_AMOUNT:
            raise invalid(f"a number of chips is whole and not negative, not {count.chips}",
                          f"{field}[{index}].chips", "R-ACC-2")
        if count.denomination in found:
            raise invalid(f"the denomination {count.denomination} is counted twice", f"{field}[{index}]", "R-ACC-2")
        found[count.denomination] = count.chips
    return found


def _counts(chips: Mapping[str, int] | None) -> list[acc.ChipCount]:
    return [acc.ChipCount(denomination=int(d), chips=n) for d, n in (chips or {}).items()]


def shift_accounts(report: ShiftReport) -> acc.ShiftAccounts:
    """The application's shift report as a message."""
    theory = report.theoretical
    message = acc.ShiftAccounts(
        table=report.table, game=report.game, shift=report.shift, open=report.open,
        opened_at=timestamp(datetime.fromisoformat(report.opened_at)), opened_by=report.opened_by,
        closed_by=report.closed_by, first_hand=report.first_hand, last_hand=report.last_hand,
        opener=_counts(report.opener), opener_value=report.opener_value, closer=_counts(report.closer),
        fills=report.fills, credits=report.credits, drop=report.drop, outside_band=report.outside_band,
        flagged=report.flag is not None, result=report.result, outside_band_now=report.outside_band_now,
        transfers=[acc.TransferSlip(slip=t.slip, kind=acc.TRANSFER_KIND_FILL if t.kind == "fill"
                                    else acc.TRANSFER_KIND_CREDIT, value=t.value, requested_by=t.requested_by,
                                    side=t.side, signed_by=t.signed_by, withdrawn=t.withdrawn)
                   for t in report.transfers],
        theoretical=acc.TheoreticalHold(expected=theory.expected, low=theory.low, high=theory.high, sd=theory.sd,
                                        confidence=theory.confidence, box_hands=theory.box_hands,
                                        wagered=dict(theory.wagered), note=theory.note))
    for name, value in (("closer_value", report.closer_value), ("win", report.win), ("hold", report.hold)):
        if value is not None:
            setattr(message, name, value)
    if theory.hold is not None:
        message.theoretical.hold = theory.hold
    return message


class AccountsRpcs(ServicerBase):
    """OpenShift, RequestTransfer, SignTransfer, WithdrawTransfer, RecordDrop, CloseShift, GetShiftAccounts."""

    @_guarded
    async def OpenShift(self, request: acc.OpenShiftRequest, context: Any) -> acc.OpenShiftResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        opener = chip_counts(request.opener, "opener")

        def work(viewer: Viewer) -> acc.OpenShiftResponse:
            result = self.app.handle(OpenShift(command_id, table, opener), viewer)
            return acc.OpenShiftResponse(result=command_result(result), shift=result.shift)

        return await self._run(context, work)

    @_guarded
    async def RequestTransfer(  # noqa: N802
        self, request: acc.RequestTransferRequest, context: Any
    ) -> acc.RequestTransferResponse:
        command_id, table = _command_id(request.command_id), _table(request.table)
        slip = _text(request.slip, "slip")
        if request.kind not in KINDS:
            raise invalid("a transfer is a fill or a credit", "kind", "R-ACC-3")
        kind, chips = KINDS[request.kind], chip_counts(request.chips, "chips")

        def work(viewer: Viewer) -> acc.RequestTransferResponse:
            result = self.app.handle(RequestTransfer(command_id, table, slip, kind, chips), viewer)
            return acc.RequestTransferResponse(result=command_result(result), shift=result.shift)

        return await self._run(context, work)

    @_guarded
    async def SignTransfer(self, request: acc.SignTransferRequest, context: Any) -> acc.SignTransferResponse:  # noqa: N802
        command_id, table, slip = _command_id(request.command_id), _table(request.table), _text(request.slip, "slip")

        def work(viewer: Viewer) -> acc.SignTransferResponse:
            result = self.app.handle(SignTransfer(command_id, table, slip), viewer)
            return acc.SignTransferResponse(result=command_result(result), shift=result.shift)

        return await self._run(context, work)

    @_guarded
    async def WithdrawTransfer(  # noqa: N802
        self, request: acc.WithdrawTransferRequest, context: Any
    ) -> acc.WithdrawTransferResponse:
        command_id, table, slip = _command_id(request.command_id), _table(request.table), _text(request.slip, "slip")
        reason = _text(request.reason, "reason")

        def work(viewer: Viewer) -> acc.WithdrawTransferResponse:
            result = self.app.handle(WithdrawTransfer(command_id, table, slip, reason), viewer)
            return acc.WithdrawTransferResponse(result=command_result(result), shift=result.shift)

        return await self._run(context, work)

    @_guarded
    async def RecordDrop(self, request: acc.RecordDropRequest, context: Any) -> acc.RecordDropResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        if not 0 < request.amount <= MAX_AMOUNT:
            raise invalid(f"a drop is a whole, positive amount, not {request.amount}", "amount", "R-ACC-4")
        if request.shift < 0:
            raise invalid("shifts are numbered from 1 (0: the open or last one)", "shift", "R-ACC-1")
        amount, shift = request.amount, request.shift or None

        def work(viewer: Viewer) -> acc.RecordDropResponse:
            result = self.app.handle(RecordDrop(command_id, table, amount, shift), viewer)
            return acc.RecordDropResponse(result=command_result(result), shift=result.shift)

        return await self._run(context, work)

    @_guarded
    async def CloseShift(self, request: acc.CloseShiftRequest, context: Any) -> acc.CloseShiftResponse:  # noqa: N802
        command_id, table = _command_id(request.command_id), _table(request.table)
        closer = chip_counts(request.closer, "closer")

        def work(viewer: Viewer) -> acc.CloseShiftResponse:
            result = self.app.handle(CloseShift(command_id, table, closer), viewer)
            return acc.CloseShiftResponse(result=command_result(result), shift=result.shift, win=result.win,
                                          flagged=result.flagged)

        return await self._run(context, work)

    @_guarded
    async def GetShiftAccounts(  # noqa: N802
        self, request: acc.GetShiftAccountsRequest, context: Any
    ) -> acc.GetShiftAccountsResponse:
        table = _table(request.table)
        if request.shift < 0:
            raise invalid("shifts are numbered from 1 (0: the open or last one)", "shift", "R-ACC-1")
        shift = request.shift or None

        def work(viewer: Viewer) -> acc.GetShiftAccountsResponse:
            authorize(viewer, table, "accounts-read")
            return acc.GetShiftAccountsResponse(accounts=shift_accounts(self.app.accounts.shift_accounts(table, shift)))

        return await self._run(context, work, offload=True)
