"""What a table records of its devices: shuffles and deck checks, with the device's identity (R-DECK-2, R-DECK-3)."""

from __future__ import annotations

from dataclasses import dataclass

from domain.errors import RuleError

DEVICE_REPORTS = ("shuffle", "deck-check", "delivery", "fault")


class DeviceReportError(RuleError):
    """A device report that says nothing usable."""


@dataclass(frozen=True)
class DeviceReport:
    """A device's report as the table records it: which device, what it did with which deck, and the outcome."""

    device: str
    serial: str
    kind: str
    colour: str
    result: str

    def __post_init__(self) -> None:
        if self.kind not in DEVICE_REPORTS:
            raise DeviceReportError(f"unknown device report {self.kind!r}", rule="R-DECK-3")
        if self.colour not in ("red", "blue"):
            raise DeviceReportError("a deck is red or blue", rule="R-DECK-2")
        for text in (self.device, self.serial, self.result):
            if not text.strip() or len(text) > 200:
                raise DeviceReportError("device, serial number and result are 1–200 characters", rule="R-AUD-1")
