"""One line per domain event, for the terminal: what a pit boss reads when a hand is replayed."""

from __future__ import annotations

from typing import Any

_SKIP = {"originator_id", "originator_version", "timestamp", "originator_topic"}


def describe(event: Any) -> str:
    """``#7 CardDealt  kind=hole seat=3 card=As face_up=False source=shoe sequence=12``."""
    fields = {k: v for k, v in vars(event).items() if k not in _SKIP}
    if type(event).__name__ == "Started":
        settings = fields.pop("settings", {})
        fields = {"variant": settings.get("variant"), "structure": settings.get("structure"),
                  **{k: fields[k] for k in ("number", "seats", "stacks", "button_seat", "deck") if k in fields}}
    text = " ".join(f"{key}={_short(value)}" for key, value in fields.items())
    return f"#{event.originator_version:<3} {type(event).__name__:<18} {text}"


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}:{v}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + " ".join(_short(v) for v in value) + "]"
    return str(value)
