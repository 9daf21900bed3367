"""The one mapping between pokertable.v1's enums and the domain's codes, for every enum, by one rule.

A value's domain code is its name without the enum's prefix, lower case, ``_`` read as ``-``: ``GAME_STUD7``
is ``stud7``, ``BETTING_STRUCTURE_NO_LIMIT`` is ``no-limit``, ``DEVICE_REPORT_KIND_DECK_CHECK`` is
``deck-check``; ``*_UNSPECIFIED`` (0) has no code.  No game, structure or outcome is named here: a new one in the
.proto and the domain maps without a change.

>>> from service.api import types_pb2 as pb
>>> code_of(pb.BettingStructure, pb.BETTING_STRUCTURE_POT_LIMIT), value_of(pb.Game, "stud7") == pb.GAME_STUD7
('pot-limit', True)
>>> code_of(pb.HandOutcome, pb.HAND_OUTCOME_UNSPECIFIED) is None
True
"""

from __future__ import annotations

import functools
import re
from typing import Any, Protocol


class EnumType(Protocol):
    """A generated protobuf enum wrapper (``types_pb2.Game`` …)."""

    DESCRIPTOR: Any


@functools.cache
def _prefix(enum: Any) -> str:
    """The value prefix of an enum: its name in upper snake case and ``_`` (``DeckColour`` → ``DECK_COLOUR_``)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", enum.name).upper() + "_"


@functools.cache
def _codes(descriptor: Any) -> tuple[dict[int, str], dict[str, int]]:
    prefix = _prefix(descriptor)
    by_number: dict[int, str] = {}
    for value in descriptor.values:
        if value.number == 0:
            continue
        assert value.name.startswith(prefix), (descriptor.name, value.name)
        by_number[value.number] = value.name[len(prefix):].lower().replace("_", "-")
    return by_number, {code: number for number, code in by_number.items()}


def code_of(enum: EnumType, number: int) -> str | None:
    """The domain code of an enum value; ``None`` for UNSPECIFIED; :class:`ValueError` for a number the enum does not
    have (a newer client's value)."""
    if number == 0:
        return None
    by_number, _ = _codes(enum.DESCRIPTOR)
    if number not in by_number:
        raise ValueError(f"{enum.DESCRIPTOR.name} has no value {number}")
    return by_number[number]


def value_of(enum: EnumType, code: str | None) -> int:
    """The enum value of a domain code (``None`` or "": UNSPECIFIED); :class:`ValueError` if the enum has none."""
    if not code:
        return 0
    _, by_code = _codes(enum.DESCRIPTOR)
    if code not in by_code:
        raise ValueError(f"{enum.DESCRIPTOR.name} has no value for {code!r}")
    return by_code[code]


def codes(enum: EnumType) -> list[str]:
    """Every domain code of an enum, in value order."""
    by_number, _ = _codes(enum.DESCRIPTOR)
    return [by_number[number] for number in sorted(by_number)]


def name_of(enum: EnumType, code: str) -> str:
    """The value name of a domain code, for messages (``in-progress`` → ``HAND_OUTCOME_IN_PROGRESS``)."""
    return _prefix(enum.DESCRIPTOR) + code.upper().replace("-", "_")
