"""pokertable.v1's events.proto, generated from the domain's event classes, and the one mapping of a domain event's
data to its protobuf message.

Every event of every aggregate a table's Watch stream carries (each game's table and hand aggregates,
:data:`domain.games.GAMES`) becomes ``message <Aggregate><Event>`` with the event's own fields, typed from its
annotations; ``message TableEvent`` holds one of them.  ``python -m service.grpc.event_messages --write`` writes
proto/pokertable/v1/events.proto; ``--check`` exits 1 when that file is not what the domain says now (a test and
``make lint`` run it).  :func:`to_message` maps an event's data (``domain.reconstruction.event_data``, after the
visibility policy of :mod:`service.app.visibility` hid face-down cards as ``??``) to a :class:`TableEvent`.

Field numbers are stable: a message or field already in events.proto keeps its number, a new one takes the next
number after the highest ever used there, and one that disappears is ``reserved`` (its number and name).  On an empty
file, TableEvent's cases are numbered in the order of their message names and each message's fields in the order the
event declares them.

>>> spec = EVENTS["Hand.BetOrRaised"]
>>> spec.message, [field.name for field in spec.fields]
('HandBetOrRaised', ['seat', 'to', 'added'])
>>> to_message("Hand.Folded", {"seat": 3}).hand_folded.seat
3
"""

from __future__ import annotations

import argparse
import re
import sys
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import ModuleType, NoneType, UnionType
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.domain import Aggregate
from google.protobuf.timestamp_pb2 import Timestamp

from domain.audit_findings import AuditFindings
from domain.games import GAMES
from service.grpc.event_records import (
    DECK,
    FIELD_NOTES,
    POT_SHARE,
    RECORDS,
    SETTINGS_RECORDS,
    STRUCT,
    EventSpec,
    Field,
)

__all__ = [  # the shapes live in service.grpc.event_records; named here as before the split
    "EVENTS", "EVENTS_PROTO", "RECORDS", "STRUCT", "EventSpec", "Field", "aggregates", "event_classes", "event_specs",
    "main", "render", "spec_of", "timestamp", "to_message",
]

if TYPE_CHECKING:
    from service.api.events_pb2 import TableEvent

ROOT = Path(__file__).resolve().parents[2]
EVENTS_PROTO = ROOT / "proto" / "pokertable" / "v1" / "events.proto"
_BOOKKEEPING = frozenset({"originator_id", "originator_version", "timestamp", "originator_id_type",
                          "originator_topic"})
"""What every event carries (the Watch stream's WatchResponse has the id, version and time): not in a message."""
_SCALARS: Mapping[type[Any], str] = {int: "int64", str: "string", bool: "bool", UUID: "string"}


def aggregates() -> list[type[Aggregate]]:
    """The aggregates a Watch stream carries: each game's table and hand classes, once each, and the casino's record
    of tampering found by the audit (a floor's stream)."""
    found: list[type[Aggregate]] = []
    for game in GAMES.values():
        for aggregate in (game.table_class, game.hand_class):
            if aggregate not in found:
                found.append(aggregate)
    return [*found, AuditFindings]  # the casino's log's own alerts, on a floor's stream (service.app.tampering)


def _data_hints(event_class: type[Any]) -> dict[str, Any]:
    return {name: hint for name, hint in typing.get_type_hints(event_class).items() if name not in _BOOKKEEPING}


def event_classes() -> list[tuple[type[Aggregate], str, type[Any]]]:
    """Every event class of every aggregate (nested classes and those ``@event("Name")`` made), by aggregate.

    The library gives each aggregate an ``Event`` base and a ``Created`` event; they are left out unless they are
    what the aggregate records (a ``Created`` with fields of its own)."""
    found = []
    for aggregate in aggregates():
        for name in sorted(dir(aggregate)):
            value = getattr(aggregate, name)
            if not (isinstance(value, type) and issubclass(value, Aggregate.Event)):
                continue
            if value.__qualname__ != f"{aggregate.__name__}.{name}":
                continue
            if name in ("Event", "Created") and not _data_hints(value):
                continue
            found.append((aggregate, name, value))
    return found


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _field(aggregate: type[Aggregate], name: str, hint: Any) -> Field:  # noqa: PLR0911  (one case a kind of type)
    """The protobuf field of an event field, by its annotation (and, for a plain dict or list, its fixed shape)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, UnionType) and NoneType in args:
        (inner,) = (arg for arg in args if arg is not NoneType)
        field = _field(aggregate, name, inner)
        return Field(field.name, field.type, "optional" if not field.label else field.label)
    if hint in _SCALARS:
        return Field(name, _SCALARS[hint])
    if origin is list and args and args[0] in _SCALARS:
        return Field(name, _SCALARS[args[0]], "repeated")
    if origin is list and name == "shares":
        return Field(name, POT_SHARE.message, "repeated", "[seat, chips] of each winner")
    if origin is dict and args == (str, int):
        if name == "stacks":
            return Field(name, "map<int32, int64>", comment="chips by seat")
        return Field(name, "map<string, int64>", comment="net chips by spot (ante, bonus, flop, turn, river, play)")
    if origin is dict and name == "deck":
        return Field(name, DECK.message)
    if origin is dict and name == "settings":
        kinds = {game.settings_class for game in GAMES.values() if aggregate in (game.table_class, game.hand_class)}
        if len(kinds) == 1:
            return Field(name, SETTINGS_RECORDS[kinds.pop()].message)
        shapes = ", ".join(f"{game.code} as {SETTINGS_RECORDS[game.settings_class].message}" for game in GAMES.values()
                           if game.settings_class in kinds)
        return Field(name, STRUCT, comment=f"the game's settings as recorded, in the game's shape: {shapes}")
    raise TypeError(f"{aggregate.__name__} event field {name}: no protobuf type for {hint!r}")


def _comment(event_class: type[Any]) -> str:
    """The event's docstring (the library copies each class and writes its signature as the copy's doc); for an
    event ``@event`` made from a method, what the class's name says."""
    for cls in event_class.__mro__:
        doc = cls.__dict__.get("__doc__") or ""
        if doc.strip() and not re.match(rf"{cls.__name__}\(self", doc):
            if cls.__module__.startswith("eventsourcing") or cls.__name__ in ("Event", "Created"):
                break
            return " ".join(doc.split())
    aggregate, _, name = event_class.__qualname__.partition(".")
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()
    return f"{aggregate}: {words} (recorded by {event_class.__module__}.{aggregate})."


def _noted(field: Field, message: str) -> Field:
    note = FIELD_NOTES.get(f"{message}.{field.name}") or FIELD_NOTES.get(field.name)
    if field.comment or note is None:
        return field
    return Field(field.name, field.type, field.label, note)


def event_specs() -> dict[str, EventSpec]:
    """Every event as a message, by its class's qualified name (``Hand.CardDealt``)."""
    specs: dict[str, EventSpec] = {}
    for aggregate, name, event_class in event_classes():
        message = f"{aggregate.__name__}{name}"
        fields = tuple(_noted(_field(aggregate, field, hint), message)
                       for field, hint in _data_hints(event_class).items())
        if any(spec.message == message for spec in specs.values()):
            raise ValueError(f"two events make the message {message}")
        specs[event_class.__qualname__] = EventSpec(event_class.__qualname__, event_class, message, _snake(message),
                                                    fields, _comment(event_class))
    return specs


EVENTS: Mapping[str, EventSpec] = event_specs()
"""Every event of every game's table and hand aggregates, by class qualname."""


# -- events.proto ---------------------------------------------------------------------------------------------------


@dataclass
class _Numbers:
    """The numbers a message's fields had in the file, and the ones it reserved."""

    fields: dict[str, int]
    reserved: set[int]
    reserved_names: set[str]


def _existing(text: str) -> dict[str, _Numbers]:
    """The field numbers of each message of an events.proto written before (TableEvent's cases too)."""
    found: dict[str, _Numbers] = {}
    current: _Numbers | None = None
    for line in text.splitlines():
        code = line.split("//", 1)[0].strip()
        if match := re.fullmatch(r"message (\w+) \{", code):
            current = found.setdefault(match[1], _Numbers({}, set(), set()))
        elif current is not None and (match := re.fullmatch(r"(?:optional |repeated )?[\w.<>, ]+ (\w+) = (\d+);",
                                                            code)):
            current.fields[match[1]] = int(match[2])
        elif current is not None and (match := re.fullmatch(r"reserved (.+);", code)):
            for item in (part.strip() for part in match[1].split(",")):
                if item.startswith('"'):
                    current.reserved_names.add(item.strip('"'))
                else:
                    current.reserved.add(int(item))
    return found


def _numbered(names: Sequence[str], before: _Numbers | None) -> tuple[dict[str, int], list[int], list[str]]:
    """Stable numbers for ``names``: kept from ``before``, new ones after the highest used; gone ones reserved."""
    before = before or _Numbers({}, set(), set())
    numbers = {name: before.fields[name] for name in names if name in before.fields}
    gone = {name: number for name, number in before.fields.items() if name not in numbers}
    reserved = sorted(before.reserved | set(gone.values()))
    reserved_names = sorted(before.reserved_names | set(gone))
    top = max([0, *before.fields.values(), *before.reserved])
    for name in names:
        if name not in numbers:
            top += 1
            numbers[name] = top
    return numbers, reserved, reserved_names


def _reserved_lines(reserved: list[int], names: list[str], indent: str) -> list[str]:
    lines = []
    if reserved:
        lines.append(f"{indent}reserved {', '.join(map(str, reserved))};")
    if names:
        lines.append(f"{indent}reserved {', '.join(f'{chr(34)}{n}{chr(34)}' for n in names)};")
    return lines


def _message_lines(message: str, comment: str, fields: Sequence[Field], before: _Numbers | None) -> list[str]:
    numbers, reserved, reserved_names = _numbered([field.name for field in fields], before)
    lines = [f"// {comment}", f"message {message} {{"]
    lines += _reserved_lines(reserved, reserved_names, "  ")
    for field in fields:
        label = f"{field.label} " if field.label else ""
        note = f" // {field.comment}" if field.comment else ""
        lines.append(f"  {label}{field.type} {field.name} = {numbers[field.name]};{note}")
    lines.append("}")
    return lines


HEADER = """\
// pokertable.v1 — every event a table's Watch stream carries, one message per domain event class.
//
// GENERATED by `python -m service.grpc.event_messages --write` from the domain's event classes (domain/table.py,
// domain/hand.py, domain/banked_table.py, domain/thb.py, domain/cdp.py): do not edit by hand; a test fails when
// this file is not current.
// Messages are named <Aggregate><Event> (Hand.CardDealt -> HandCardDealt); TableEvent's case is its snake_case.
// Numbers are stable: a message or field keeps the number it has here; a new one takes the next number after the
// highest ever used in its message; one that disappears is reserved (number and name). The first numbering
// followed the message names' order (TableEvent) and the order each event declares its fields.
// Types: int -> int64, str and UUID -> string, bool -> bool, X | None -> optional, list -> repeated,
// a seat-keyed dict -> map<int32, int64>; cards are two-character codes ("As"), "??" when the caller may not see
// a face-down card (the visibility policy). The event's id, version and time are on WatchResponse.
// Event fields named `seat` are seats; `box` fields are the box of a banked table (a seat there).
syntax = "proto3";

package pokertable.v1;
"""


def render(previous: str = "") -> str:
    """The text of events.proto, numbered stably against ``previous`` (the file as it was; empty: a first one)."""
    before = _existing(previous)
    specs = sorted(EVENTS.values(), key=lambda spec: spec.message)
    imports = ['import "google/protobuf/struct.proto";'] if any(
        field.type == STRUCT for spec in specs for field in spec.fields) else []
    lines = [HEADER.rstrip("\n"), "", *imports, *([""] if imports else [])]
    cases = [spec.oneof for spec in specs]
    numbers, reserved, reserved_names = _numbered(cases, before.get("TableEvent"))
    lines += ["// One event of a table or of one of its hands.", "message TableEvent {"]
    lines += _reserved_lines(reserved, reserved_names, "  ")
    lines.append("  oneof event {")
    lines += [f"    {spec.message} {spec.oneof} = {numbers[spec.oneof]};" for spec in specs]
    lines += ["  }", "}"]
    for spec in specs:
        lines += ["", *_message_lines(spec.message, spec.comment, spec.fields, before.get(spec.message))]
    for record in RECORDS:
        lines += ["", *_message_lines(record.message, record.comment, record.fields, before.get(record.message))]
    return "\n".join(lines) + "\n"


# -- the mapping ----------------------------------------------------------------------------------------------------


def _events_pb2() -> ModuleType:
    from service.api import events_pb2  # generated at install (hatch_build.py); not needed to write the .proto

    return events_pb2


_RECORD_FIELDS = {record.message: record.fields for record in RECORDS}


def spec_of(event: str | type[Any]) -> EventSpec:
    """An event's spec by its class, its qualname (``Hand.CardDealt``) or its topic
    (``domain.circle.hand:Hand.CardDealt``)."""
    name = event.__qualname__ if isinstance(event, type) else event.rpartition(":")[2]
    spec = EVENTS.get(name)
    if spec is None:
        raise KeyError(f"no pokertable.v1 message for the event {event!r}")
    return spec


def _scalar(kind: str, value: Any) -> Any:
    if kind == "string":
        return str(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"a bool, not {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"a whole number, not {value!r}")
    return value


def _fill(message: Any, fields: Sequence[Field], data: Mapping[str, Any]) -> None:
    unknown = set(data) - {field.name for field in fields}
    if unknown:
        raise ValueError(f"{type(message).__name__} has no field {', '.join(sorted(unknown))}")
    for field in fields:
        value = data.get(field.name)
        if value is None:  # unset: an optional field's None, or a field an older event did not have
            continue
        target = getattr(message, field.name)
        if field.type == STRUCT:
            target.update(value)
        elif field.is_map:
            key_type = field.type[4:].split(",")[0]
            for key, item in value.items():
                target[int(key) if key_type == "int32" else str(key)] = _scalar("int64", item)
        elif field.type in _RECORD_FIELDS:
            shape = _RECORD_FIELDS[field.type]
            for item in (value if field.label == "repeated" else [value]):
                sub = target.add() if field.label == "repeated" else target
                sub.SetInParent()
                _fill(sub, shape, item if isinstance(item, Mapping) else dict(zip((f.name for f in shape), item,
                                                                                   strict=True)))
        elif field.label == "repeated":
            target.extend(_scalar(field.type, item) for item in value)
        else:
            setattr(message, field.name, _scalar(field.type, value))


def to_message(event: str | type[Any], payload: Mapping[str, Any]) -> TableEvent:
    """A ``pokertable.v1.TableEvent`` holding the event's message, from the event's data (``event_data``, after the
    visibility policy hid what the caller may not see).  ``event``: the event's class, qualname or topic."""
    spec = spec_of(event)
    pb = _events_pb2()
    message = getattr(pb, spec.message)()
    _fill(message, spec.fields, payload)
    table_event: TableEvent = pb.TableEvent(**{spec.oneof: message})
    return table_event


def timestamp(moment: datetime) -> Timestamp:
    """An event's time (timezone-aware, as the domain records it) as a ``google.protobuf.Timestamp``, for
    WatchResponse.timestamp and ReconstructHandResponse.timestamp."""
    if moment.tzinfo is None:
        raise ValueError("an event's time has its timezone")
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def main(argv: Sequence[str] | None = None) -> int:
    """``--write`` events.proto, or ``--check`` that it is current (exit 1 if not)."""
    parser = argparse.ArgumentParser(prog="python -m service.grpc.event_messages", description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help=f"write {EVENTS_PROTO.relative_to(ROOT)}")
    group.add_argument("--check", action="store_true", help="exit 1 if that file is not current")
    args = parser.parse_args(argv)
    previous = EVENTS_PROTO.read_text(encoding="utf-8") if EVENTS_PROTO.exists() else ""
    text = render(previous)
    if args.write:
        EVENTS_PROTO.write_text(text, encoding="utf-8")
        print(f"wrote {EVENTS_PROTO.relative_to(ROOT)}: {len(EVENTS)} events")
        return 0
    if text != previous:
        print(f"{EVENTS_PROTO.relative_to(ROOT)} is stale: run python -m service.grpc.event_messages --write",
              file=sys.stderr)
        return 1
    print(f"{EVENTS_PROTO.relative_to(ROOT)} is current ({len(EVENTS)} events)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
