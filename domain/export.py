"""A hand as a documented JSON document, from its events alone (issue 8, R-AUD-1): what a regulator or a dispute
file receives.  Format ``pokertable-hand/1``::

    {"format": "pokertable-hand/1", "hand_id": "…", "table_id": "…", "number": 7, "game": "holdem",
     "seats": [2, 3, 1], "button_seat": 1, "starting_stacks": [300, 300, 300], "finishing_stacks": [296, 308, 296],
     "deck": {"size": 52, "colour": "red", "label": ""}, "complete": true, "voided": null,
     "events": [{"version": 1, "event": "Hand.Started", "timestamp": "2026-…+00:00", "data": {…}}, …]}

``events`` holds every event of the hand in order with all its data (cards included: this is the pit's copy);
``finishing_stacks`` is ``null`` for a hand not finished, ``voided`` names the rule of a voided hand.

A banked hand (Texas Hold'em Bonus, Casino Draw Poker) has the same document with its game, and, instead of seats,
button and stacks, the boxes that bet, each box's bets, each box's net result against the house by spot (``{}``
until settled) and the house's result (``null`` until the hand is complete)::

    {"format": "pokertable-hand/1", "hand_id": "…", "table_id": "…", "number": 3, "game": "holdem-bonus",
     "boxes": [1, 4], "bets": {"1": {"ante": 10, "flop": 20}, …}, "results": {"1": {"ante": 10, "flop": 20}, …},
     "bank_result": -30, "deck": {…}, "complete": true, "voided": null, "events": […]}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, time, tzinfo
from typing import Any
from uuid import UUID, uuid5

from domain.attribution import Attribution
from domain.games import game_of_started
from domain.reconstruction import event_data

FORMAT = "pokertable-hand/1"


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    return str(value)


Shown = Callable[[str, dict[str, Any]], dict[str, Any]]
"""How an event's data is shown to the reader of a document: (event name, data) → data."""


def by_of(event: Any, names: Callable[[str], str] | None = None) -> dict[str, str] | None:
    """Who gave an event's command, and where (issue 32, R-AUD-1): his employee number, his name (``names``: the
    staff's, when known) and the station; None for an event stored before attribution."""
    found = Attribution.of(vars(event))
    if found is None:
        return None
    return {"person": found.person, "name": names(found.person) if names and found.person else "",
            "station": found.station}


def hand_document(events: Iterable[Any], shown: Shown | None = None,
                  names: Callable[[str], str] | None = None) -> dict[str, Any]:
    """The JSON document of a hand's events, of any game (the first must be its ``Started`` event).  ``shown``: each
    event's data as the reader may see it (the service's visibility policy; ``None``: the pit's copy, all cards);
    ``names``: a person's name by his employee number, for each event's ``by`` (who gave its command, where)."""
    listed = list(events)
    if not listed:
        raise ValueError("a hand's events, from its Started event")
    game = game_of_started(listed[0])
    started = vars(listed[0])
    kinds = [type(e).__qualname__ for e in listed]
    documented = [{"version": e.originator_version, "event": kind, "timestamp": str(e.timestamp),
                   "data": _plain(shown(kind, event_data(e)) if shown else event_data(e)), "by": by_of(e, names)}
                  for e, kind in zip(listed, kinds, strict=True)]
    if game.family == "banked":
        return _banked_document(game.code, listed, documented)
    completed = next((vars(e) for e in listed if type(e).__qualname__ == "Hand.Completed"), None)
    voided = next((vars(e) for e in listed if type(e).__qualname__ == "Hand.Voided"), None)
    return {
        "format": FORMAT,
        "hand_id": str(listed[0].originator_id),
        "table_id": str(started["table_id"]),
        "number": started["number"],
        "game": started["settings"]["variant"],
        "seats": list(started["seats"]),
        "button_seat": started["button_seat"],
        "starting_stacks": list(started["stacks"]),
        "finishing_stacks": list(completed["stacks"]) if completed else None,
        "deck": _plain(started["deck"]),
        "complete": "Hand.Completed" in kinds or voided is not None,
        "voided": voided["rule"] if voided else None,
        "events": documented,
    }


def _banked_document(game: str, listed: list[Any], documented: list[dict[str, Any]]) -> dict[str, Any]:
    """A banked hand's document: the hand rebuilt from its events gives its boxes, bets and results."""
    hand: Any = None
    for stored in listed:
        hand = stored.mutate(hand)
    return {
        "format": FORMAT,
        "hand_id": str(hand.id),
        "table_id": str(hand.table_id),
        "number": hand.number,
        "game": game,
        "boxes": sorted(hand.bets),
        "bets": _plain(dict(sorted(hand.bets.items()))),
        "results": _plain(dict(sorted(hand.results.items()))),
        "bank_result": hand.bank_result() if hand.is_complete else None,
        "deck": _plain(hand.deck),
        "complete": hand.is_complete,
        "voided": hand.void_rule,
        "events": documented,
    }


PHH_VARIANTS = {("holdem", "no-limit"): "NT", ("holdem", "fixed-limit"): "FT", ("omaha", "pot-limit"): "PO",
                ("stud7", "fixed-limit"): "F7S"}


class ExportError(ValueError):
    """A hand the PHH format cannot describe."""


@dataclass(frozen=True)
class PhhContext:
    """What the table knows about a hand beyond its events, for PHH's optional fields."""

    venue: str | None = None
    """The casino (PHH ``venue``)."""
    table: str | None = None
    """The table's name (PHH ``table``)."""
    seat_count: int | None = None
    """The seats the table has (PHH ``seat_count``)."""
    players: Mapping[int, str] = field(default_factory=dict)
    """Pseudonymous player ids by seat (PHH ``players``): never a real name (see :func:`player_ids`)."""
    zone: tzinfo = UTC
    """The casino's time zone: the hand's start is written in its local time (PHH ``time``, ``day``, ``month``,
    ``year``), with the zone's IANA name (``time_zone``) and the offset then in force (``_utc_offset``)."""


def hand_phh(events: Iterable[Any], context: PhhContext | None = None) -> str:
    """A finished Hold'em, Omaha or seven-card stud hand as a PHH history (TOML), readable by pokerkit.  PHH records no
    burn cards (pokerkit burns by itself); a hand with an exposed or forfeited card, or a voided one, has none.

    Besides the fields the hand needs, it writes the hand number (``hand``), the seats in PHH's player order
    (``seats``), the start time, the finishing stacks and the ante reading (``ante_trimming_status``: true for the
    decision ``ante_pot = matched``, docs/circle.md), and with a :class:`PhhContext` the casino, the table, its seat
    count, pseudonymous players and the casino's time zone; ``_hand_id`` and ``_table_id`` name the hand here."""
    listed = list(events)
    document = hand_document(listed)
    settings = document["events"][0]["data"]["settings"]
    if "structure" not in settings:  # a banked game: PHH describes poker between players, not against a house
        raise ExportError(f"PHH has no form for {document['game']}: export it as JSON")
    code = PHH_VARIANTS.get((settings["variant"], settings["structure"]))
    if code is None:
        raise ExportError(f"PHH has no form for {settings['structure']} {settings['variant']}: export it as JSON")
    if document["finishing_stacks"] is None or document["voided"]:
        raise ExportError("only a finished, not voided hand has a PHH form")
    context = context or PhhContext()
    seats: list[int] = document["seats"]
    stakes = settings["stakes"]
    fields: dict[str, Any] = {
        "variant": code,
        "ante_trimming_status": settings.get("ante_pot", "matched") == "matched",
        "antes": _per_player(stakes["antes"], len(seats)),
        "blinds_or_straddles": _per_player(stakes["blinds"], len(seats)),
    }
    if code == "F7S":
        del fields["blinds_or_straddles"]
        fields |= {"bring_in": stakes["bring_in"], "small_bet": stakes["small_bet"], "big_bet": stakes["big_bet"]}
    elif code == "FT":
        fields |= {"small_bet": stakes["small_bet"], "big_bet": stakes["big_bet"]}
    else:
        fields["min_bet"] = stakes["min_bet"] or max(fields["blinds_or_straddles"])
    fields["starting_stacks"] = document["starting_stacks"]
    fields["actions"] = _phh_actions(document["events"], seats, code == "F7S")
    start = listed[0].timestamp.astimezone(context.zone)
    offset = start.strftime("%z")
    fields |= {
        "venue": context.venue,
        "table": context.table,
        "hand": document["number"],
        "seats": seats,
        "seat_count": context.seat_count,
        "players": [context.players[seat] for seat in seats] if context.players else None,
        "year": start.year, "month": start.month, "day": start.day,
        "time": start.time().replace(tzinfo=None, microsecond=0),
        "time_zone": getattr(context.zone, "key", None) or start.tzname(),
        "finishing_stacks": document["finishing_stacks"],
        "_utc_offset": f"{offset[:3]}:{offset[3:]}",
        "_hand_id": document["hand_id"],
        "_table_id": document["table_id"],
    }
    lines = [f"{key} = {_toml(value)}" for key, value in fields.items() if value is not None and key != "actions"]
    actions = "actions = [\n" + "".join(f"  {_toml(action)},\n" for action in fields["actions"]) + "]"
    lines.insert(list(fields).index("actions"), actions)
    return "\n".join(lines) + "\n"


def shift_phhs(hands: Iterable[tuple[Iterable[Any], PhhContext | None]]) -> tuple[str, list[str]]:
    """Several hands as one PHHS file (a TOML table a hand, ``[1]``, ``[2]``, … as pokerkit writes them), and what
    was left out: a hand PHH cannot describe (voided, not finished, with an exposed card…) is named in a comment
    and in the list returned, so that a shift's file never leaves a hand out silently."""
    parts: list[str] = []
    left_out: list[str] = []
    for events, context in hands:
        listed = list(events)
        try:
            parts.append(f"[{len(parts) + 1}]\n{hand_phh(listed, context)}")
        except ExportError as error:
            note = f"hand {vars(listed[0])['number']} ({listed[0].originator_id}): {error}"
            left_out.append(note)
            parts.append(f"# left out: {note}\n")
    return "\n".join(parts), left_out


def player_ids(table_id: UUID, table_events: Iterable[Any]) -> dict[int, dict[int, str]]:
    """Pseudonymous player ids of a table's hands, from the table's events: hand number → seat → id.  A player is
    known only by his sitting (a seat, from the moment he sits until he leaves): the same id for every hand of that
    sitting, a new one for the next player in the seat; the id is a digest, so it tells neither seat nor name."""
    sittings: dict[int, int] = {}
    seated: dict[int, str] = {}
    out: dict[int, dict[int, str]] = {}
    for event in table_events:
        name = type(event).__qualname__.rsplit(".", 1)[-1]
        data = vars(event)
        if name == "PlayerSeated":
            seat = data["seat"]
            sittings[seat] = sittings.get(seat, 0) + 1
            seated[seat] = "p" + uuid5(table_id, f"seat {seat} sitting {sittings[seat]}").hex[:12]
        elif name == "PlayerLeft":
            seated.pop(data["seat"], None)
        elif name == "Closed":
            seated.clear()
        elif name == "HandStarted":
            out[data["number"]] = dict(seated)
    return out


def _per_player(values: list[int], players: int) -> list[int]:
    return (list(values) + [0] * players)[:players]


def _toml(value: Any) -> str:
    """A TOML value: booleans, integers, local times, strings (escaped) and arrays of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    text = str(value)
    escaped = "".join(_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in text)
    return f'"{escaped}"'


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


_PHH_ACTIONS = {"Folded": "f", "Checked": "cc", "Called": "cc", "BringInPosted": "pb"}
_STREET_ENDS = (3, 4, 5)  # the flop, the turn and the river: one "d db" each


_BETTING_EVENTS = ("Folded", "Checked", "Called", "BetOrRaised", "BringInPosted")


def _as_played(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A hand's events without the betting actions a correction replaced (R-AUD-1): each approved correction
    drops the betting event before it (the hand's last action when it was asked); its replacement follows it."""
    played: list[dict[str, Any]] = []
    for event in events:
        if event["event"].rsplit(".", 1)[-1] == "CorrectionApproved":
            wrong = max(i for i, e in enumerate(played) if e["event"].rsplit(".", 1)[-1] in _BETTING_EVENTS)
            del played[wrong]
        played.append(event)
    return played


def _phh_actions(events: list[dict[str, Any]], seats: list[int], stud: bool) -> list[str]:
    """PHH actions of a hand.  In stud, players all in may show before their last cards: PHH (and pokerkit) shows
    at the end, every card of the hand, so the shows are moved after the last deal with all the player's cards."""
    player = {seat: f"p{index + 1}" for index, seat in enumerate(seats)}
    actions: list[str] = []
    hole: dict[int, list[str]] = {}
    every: dict[int, list[str]] = {}
    shows: list[tuple[int, bool]] = []
    board: list[str] = []
    on_board = 0

    def flush_hole() -> None:
        actions.extend(f"d dh {player[seat]} {''.join(hole[seat])}" for seat in seats if hole.get(seat))
        hole.clear()

    for event in _as_played(events):
        name, data = event["event"].rsplit(".", 1)[-1], event["data"]
        if name == "CardDealt" and data["kind"] == "hole":
            if stud and hole.get(data["seat"]) and len(every.get(data["seat"], [])) >= 3:
                flush_hole()  # from fourth street on, one card a player a street
            hole.setdefault(data["seat"], []).append(data["card"])
            every.setdefault(data["seat"], []).append(data["card"])
        elif name == "CardDealt" and data["kind"] == "board":
            flush_hole()
            board.append(data["card"])
            on_board += 1
            if on_board in _STREET_ENDS:
                actions.append(f"d db {''.join(board)}")
                board.clear()
        elif name in ("CardExposed", "Forfeited", "Discarded"):
            raise ExportError(f"PHH cannot record {name}: export the hand as JSON")
        elif stud and name in ("Shown", "Mucked"):
            flush_hole()
            shows.append((data["seat"], name == "Shown"))
            if name == "Shown" and len(every[data["seat"]]) < 7:  # all in before seventh street: shown now
                actions.append(f"{player[data['seat']]} sm {''.join(every[data['seat']])}")
        elif name in _PHH_ACTIONS or name in ("BetOrRaised", "Shown", "Mucked"):
            flush_hole()
            seat = player[data["seat"]]
            if name == "BetOrRaised":
                actions.append(f"{seat} cbr {data['to']}")
            elif name == "Shown":
                actions.append(f"{seat} sm {''.join(data['cards'])}")
            else:
                actions.append(f"{seat} {_PHH_ACTIONS.get(name, 'sm')}")
    flush_hole()
    actions.extend(f"{player[seat]} sm{' ' + ''.join(every[seat]) if shown else ''}" for seat, shown in shows)
    return actions
