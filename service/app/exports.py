"""One hand of a table as a document, as a station may see it (issue 14: the ExportHand RPC): the
``pokertable-hand/1`` JSON of :mod:`domain.export` (every game), or a PHH history where PHH has the variant.

Cards pass through the one visibility policy (:mod:`service.app.visibility`): a station that may not see face-down
cards (an observer, a device, another table's croupier) gets every card face down when it was recorded as ``??`` —
in the JSON's events, and in a PHH history's hole-card deals (``d dh p1 ????``; cards shown at the showdown are
public)."""

from __future__ import annotations

import json
import re
from datetime import UTC, tzinfo
from typing import TYPE_CHECKING, Any

from domain.export import ExportError, PhhContext, hand_document, hand_phh, player_ids
from service.app.access import NotFoundError, PreconditionError, Viewer
from service.app.visibility import HIDDEN, event_payload, shows_down_cards

if TYPE_CHECKING:
    from service.app.application import PokerTables

FORMATS = ("json", "phh")
MEDIA_TYPES = {"json": "application/json", "phh": "application/toml"}
_HOLE_DEAL = re.compile(r'("d dh p\d+ )([^"]+)(")')


def _public(event: str, data: dict[str, Any]) -> dict[str, Any]:
    return event_payload(event, data, sees_down_cards=False)


def _down_cards(events: list[Any]) -> set[str]:
    """The cards of a circle hand dealt face down to players."""
    down = set()
    for event in events:
        data = vars(event)
        if type(event).__qualname__ == "Hand.CardDealt" and data.get("kind") == "hole" and not data.get("face_up"):
            down.add(str(data["card"]))
    return down


def _public_phh(text: str, events: list[Any]) -> str:
    """A PHH history with the hole cards dealt face down shown as ``??``."""
    down = _down_cards(events)

    def hide(match: re.Match[str]) -> str:
        cards = match.group(2)
        shown = "".join(HIDDEN if cards[i:i + 2] in down else cards[i:i + 2] for i in range(0, len(cards), 2))
        return f"{match.group(1)}{shown}{match.group(3)}"

    return _HOLE_DEAL.sub(hide, text)


def export_hand(app: PokerTables, table: str, number: int, fmt: str, viewer: Viewer, *,
                zone: tzinfo = UTC) -> tuple[str, str]:
    """Hand ``number`` (1 = the first) of a table of any game as ``(content, media type)`` in ``fmt`` (``json`` or
    ``phh``), as ``viewer`` may see it; a PHH file's times in the casino's ``zone`` (its ``time_zone``).
    :class:`NotFoundError` for no such hand; :class:`PreconditionError` for a
    hand PHH cannot describe (a variant PHH lacks, a banked game, a voided or unfinished hand)."""
    if fmt not in FORMATS:
        raise ValueError(f"a format is one of {', '.join(FORMATS)}")
    record = app.any_table(table)
    if not 1 <= number <= record.hands_started:
        raise NotFoundError(f"{table!r} has no hand {number} (hands 1 to {record.hands_started})")
    events = list(app.events.get(record.hand_id(number)))
    # a hand still in progress: its face-down cards for the pit only if the casino shows them live (issue 29, item 7)
    sees = shows_down_cards(viewer.sees_down_cards(table), hand_live=record.hand_in_progress == record.hand_id(number),
                            hole_cards_live=app.hole_cards_live)
    if fmt == "json":
        document = hand_document(events, None if sees else _public, app.staff.name_of)
        return json.dumps(document, ensure_ascii=False, indent=2), MEDIA_TYPES[fmt]
    table_events = list(app.events.get(record.id))
    context = PhhContext(table=table, seat_count=vars(table_events[0]).get("seat_count"),
                         players=player_ids(record.id, table_events).get(number, {}), zone=zone)
    try:
        text = hand_phh(events, context)
    except ExportError as error:
        raise PreconditionError(str(error), rule="R-AUD-1") from None
    return (text if sees else _public_phh(text, events)), MEDIA_TYPES[fmt]
