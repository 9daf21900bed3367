"""The shift's accounts at the station (R-ACC-1 ... R-ACC-6, docs/accounts.md): the tray counted when the shift
opens and closes, fills and credits asked by one side and signed off by the other, the drop; one class each."""

from __future__ import annotations

from typing import ClassVar

from service.api import accounts_pb2 as acc
from service.station.tui.forms import Field
from service.station.tui.operation_base import PIT, Operation, Request, Situation, Values, chips


class OpenShift(Operation):
    """The shift opens with the tray's count by denomination, between hands (R-ACC-1, R-ACC-2)."""

    name = "op_open_shift"

    def offered(self, now: Situation) -> bool:
        return now.between_hands

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (Field("opener", "f_tray", "chips"),)

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "OpenShift", acc.OpenShiftRequest(command_id=command_id, table=table, opener=chips(values["opener"]))


class CloseShift(Operation):
    """The shift closes with the tray's count, between hands, no slip waiting (R-ACC-1, R-ACC-3)."""

    name = "op_close_shift"

    def offered(self, now: Situation) -> bool:
        return now.between_hands

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (Field("closer", "f_tray", "chips"),)

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "CloseShift", acc.CloseShiftRequest(command_id=command_id, table=table, closer=chips(values["closer"]))


class _Transfer(Operation):
    """A fill (chips from the cage to the tray) or a credit (back), asked by this side (R-ACC-3)."""

    kind: ClassVar[acc.TransferKind]

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (Field("slip", "f_slip", "text"), Field("chips", "f_transfer_chips", "chips"))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "RequestTransfer", acc.RequestTransferRequest(command_id=command_id, table=table, slip=values["slip"],
                                                             kind=self.kind, chips=chips(values["chips"]))


class RequestFill(_Transfer):
    name, kind = "op_fill", acc.TRANSFER_KIND_FILL


class RequestCredit(_Transfer):
    name, kind = "op_credit", acc.TRANSFER_KIND_CREDIT


class SignTransfer(Operation):
    """This side signs off a slip the other asked for: from then on it counts (R-ACC-3)."""

    name = "op_sign_slip"

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (Field("slip", "f_slip", "text"),)

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "SignTransfer", acc.SignTransferRequest(command_id=command_id, table=table, slip=values["slip"])


class WithdrawTransfer(Operation):
    """A slip not signed off is withdrawn, with the reason; it never counts (R-ACC-3)."""

    name = "op_withdraw_slip"

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (Field("slip", "f_slip", "text"), Field("reason", "f_reason", "text"))

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "WithdrawTransfer", acc.WithdrawTransferRequest(command_id=command_id, table=table,
                                                               slip=values["slip"], reason=values["reason"])


class RecordDrop(Operation):
    """The pit boss records a drop count of the table (R-ACC-4)."""

    name, roles = "op_drop", PIT

    def offered(self, now: Situation) -> bool:
        return bool(now.view.table)

    def fields(self, now: Situation, choice: str = "") -> tuple[Field, ...]:
        return (Field("amount", "f_amount", "int", low=1),)

    def request(self, table: str, command_id: str, values: Values, choice: str = "") -> Request:
        return "RecordDrop", acc.RecordDropRequest(command_id=command_id, table=table, amount=values["amount"])
