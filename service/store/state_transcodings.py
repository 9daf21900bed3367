"""What a table's state holds besides plain JSON, as its snapshots store it (issue 30, item 2;
:mod:`service.store.snapshots`). Events carry plain data only; an aggregate's whole state is stored only in its
snapshots, and must come back exactly as it was: its sets, tuples and dicts with keys other than text (a circle
table's stacks by seat number) are written as tagged lists (:func:`plain` and :func:`restored`); a circle table's
settings and the alerts holding it (R-HOLD-1) as their dicts (transcodings of the application's transcoder: events never
hold them).

>>> state = {"stacks": {1: 100, 2: 0}, "acknowledged_alerts": {7, 3}, "seats": (1, 2), "nested": [{(1, 2): {"a"}}]}
>>> restored(plain(state)) == state and type(restored(plain(state))["seats"]) is tuple
True
>>> plain({"stacks": {1: 100}})
{'stacks': {'__pairs__': [[1, 100]]}}
"""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import JSONTranscoder, Transcoding

from domain.circle.settings import TableSettings
from domain.holds import Hold

_PAIRS, _TUPLE, _SET = "__pairs__", "__tuple__", "__set__"


def plain(value: Any) -> Any:
    """``value`` with its sets, tuples and dicts keyed by anything but text written as tagged lists."""
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            return {key: plain(item) for key, item in value.items()}
        return {_PAIRS: [[plain(key), plain(item)] for key, item in value.items()]}
    if isinstance(value, tuple):
        return {_TUPLE: [plain(item) for item in value]}
    if isinstance(value, set | frozenset):
        return {_SET: sorted((plain(item) for item in value), key=repr)}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def restored(value: Any) -> Any:
    """What :func:`plain` wrote, as it was."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((tag, items),) = value.items()
            if tag == _PAIRS:
                return {_hashable(restored(key)): restored(item) for key, item in items}
            if tag == _TUPLE:
                return tuple(restored(item) for item in items)
            if tag == _SET:
                return {_hashable(restored(item)) for item in items}
        return {key: restored(item) for key, item in value.items()}
    if isinstance(value, list):
        return [restored(item) for item in value]
    return value


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


class TableSettingsAsDict(Transcoding):
    """A circle table's settings, as they are recorded in its events (``TableSettings.to_dict``)."""

    type = TableSettings
    name = "circle_table_settings"

    def encode(self, obj: TableSettings) -> dict[str, Any]:
        return obj.to_dict()

    def decode(self, data: dict[str, Any]) -> TableSettings:
        return TableSettings.from_dict(data)


class HoldAsDict(Transcoding):
    """An alert that holds a table (R-HOLD-1): a table held when its snapshot is taken keeps its holds."""

    type = Hold
    name = "table_hold"

    def encode(self, obj: Hold) -> dict[str, Any]:
        return {"version": obj.version, "kind": obj.kind, "detail": obj.detail, "position": obj.position}

    def decode(self, data: dict[str, Any]) -> Hold:
        return Hold(int(data["version"]), str(data["kind"]), str(data["detail"]), int(data["position"]))


def register_state_transcodings(transcoder: JSONTranscoder) -> None:
    """Register what a table's state holds that the transcoder cannot write by itself."""
    transcoder.register(TableSettingsAsDict())
    transcoder.register(HoldAsDict())
