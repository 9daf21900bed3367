"""A hand's actions in words, for the table page's "last actions" (issue 34, item 4): each event of the table's Watch
stream that a person at the table did or saw done — a bet, a call, a check, a fold, a card dealt, a discard, a hand
shown or mucked, a pot awarded, a box's bet and its settlement, a void — said in English and in Spanish. A card the
caller may not see is ``??`` in the event itself (the service's visibility policy), and is said as such.

>>> from service.api import events_pb2 as ev
>>> said(ev.TableEvent(hand_bet_or_raised=ev.HandBetOrRaised(seat=3, to=40, added=30)))
('seat 3 bets or raises to 40', 'el asiento 3 apuesta o sube a 40')
>>> said(ev.TableEvent(hand_card_dealt=ev.HandCardDealt(kind="hole", seat=2, card="??")))
('seat 2 is dealt ??', 'al asiento 2 le sale ??')
>>> said(ev.TableEvent(table_opened=ev.TableOpened())) is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.api import events_pb2 as ev

Said = tuple[str, str]


def _cards(cards: Any) -> str:
    return " ".join(cards) or "—"


def _spots(result: Any) -> str:
    return ", ".join(f"{spot} {amount:+d}" for spot, amount in sorted(result.items()))


def _forced(e: Any) -> Said:
    """The antes and blinds posted, those of nobody left out.

    >>> _forced(ev.HandForcedBetsPosted(antes=[0, 0, 0], blinds=[1, 2, 0]))
    ('blinds 1, 2', 'ciegas 1, 2')
    """
    antes = ", ".join(str(amount) for amount in e.antes if amount)
    blinds = ", ".join(str(amount) for amount in e.blinds if amount)
    english = "; ".join(part for part in (f"antes {antes}" if antes else "", f"blinds {blinds}" if blinds else "")
                        if part)
    spanish = "; ".join(part for part in (f"antes {antes}" if antes else "", f"ciegas {blinds}" if blinds else "")
                        if part)
    return english or "forced bets", spanish or "apuestas obligadas"


def _dealt(e: Any, who: str, quien: str) -> Said:
    return f"{who} is dealt {e.card}", f"{quien} le sale {e.card}"


def _board(e: Any) -> Said | None:
    if e.HasField("seat"):
        return _dealt(e, f"seat {e.seat}", f"al asiento {e.seat}")
    if e.kind == "burn":
        return "a card burnt", "se quema una carta"
    return f"the board: {e.card}", f"en la mesa: {e.card}"


def _bet(e: Any) -> Said:
    return f"box {e.box}: {e.spot} {e.amount}", f"casilla {e.box}: {e.spot} {e.amount}"


def _box_folded(e: Any) -> Said:
    return f"box {e.box} folds", f"la casilla {e.box} se retira"


def _settled(e: Any) -> Said:
    return f"box {e.box} settled: {_spots(e.result)}", f"casilla {e.box} liquidada: {_spots(e.result)}"


def _voided(e: Any) -> Said:
    return f"the hand is voided ({e.rule}): {e.reason}", f"la mano se anula ({e.rule}): {e.reason}"


def _box_dealt(e: Any) -> Said:
    if e.box == 0:
        return f"the house is dealt {e.card}", f"a la banca le sale {e.card}"
    return _dealt(e, f"box {e.box}", f"a la casilla {e.box}")


SAYINGS: dict[str, Callable[[Any], Said | None]] = {
    "hand_forced_bets_posted": _forced,
    "hand_bring_in_posted": lambda e: (
        f"seat {e.seat} brings in {e.amount}", f"el asiento {e.seat} abre obligado con {e.amount}"),
    "hand_bet_or_raised": lambda e: (
        f"seat {e.seat} bets or raises to {e.to}", f"el asiento {e.seat} apuesta o sube a {e.to}"),
    "hand_called": lambda e: (f"seat {e.seat} calls {e.amount}", f"el asiento {e.seat} iguala {e.amount}"),
    "hand_checked": lambda e: (f"seat {e.seat} checks", f"el asiento {e.seat} pasa"),
    "hand_folded": lambda e: (f"seat {e.seat} folds", f"el asiento {e.seat} se retira"),
    "hand_card_dealt": _board,
    "hand_card_exposed": lambda e: (
        f"seat {e.seat}'s card {e.card} exposed", f"carta {e.card} del asiento {e.seat} expuesta"),
    "hand_discarded": lambda e: (
        f"seat {e.seat} discards {_cards(e.cards)}", f"el asiento {e.seat} descarta {_cards(e.cards)}"),
    "hand_shown": lambda e: (
        f"seat {e.seat} shows {_cards(e.cards)}", f"el asiento {e.seat} muestra {_cards(e.cards)}"),
    "hand_mucked": lambda e: (f"seat {e.seat} mucks", f"el asiento {e.seat} tira sus cartas"),
    "hand_pot_awarded": lambda e: (
        f"pot {e.index} of {e.amount} awarded (rake {e.rake})", f"bote {e.index} de {e.amount} adjudicado "
                                                                f"(comisión {e.rake})"),
    "hand_passed_out": lambda e: (
        f"nobody opens: {e.amount} carried ({e.rule})", f"nadie abre: {e.amount} pasan a la siguiente ({e.rule})"),
    "hand_voided": _voided,
    "thb_hand_bet_placed": _bet, "cdp_hand_bet_placed": _bet,
    "thb_hand_bets_closed": lambda e: ("no more bets", "no va más"), "cdp_hand_bets_closed": lambda e: (
        "no more bets", "no va más"),
    "thb_hand_card_dealt": _box_dealt,
    "cdp_hand_card_dealt": _box_dealt,
    "thb_hand_checked": lambda e: (f"box {e.box} checks ({e.street})", f"la casilla {e.box} pasa ({e.street})"),
    "thb_hand_folded": _box_folded, "cdp_hand_folded": _box_folded,
    "cdp_hand_exchanged": lambda e: (
        f"box {e.box} changes {_cards(e.cards)}", f"la casilla {e.box} cambia {_cards(e.cards)}"),
    "thb_hand_box_settled": _settled, "cdp_hand_box_settled": _settled,
    "thb_hand_bonus_approved": lambda e: (
        f"box {e.box}: the 1000:1 approved ({e.reason})", f"casilla {e.box}: el 1000:1 aprobado ({e.reason})"),
    "thb_hand_bonus_refused": lambda e: (
        f"box {e.box}: the 1000:1 refused ({e.reason})", f"casilla {e.box}: el 1000:1 rechazado ({e.reason})"),
    "thb_hand_voided": _voided, "cdp_hand_voided": _voided,
}
"""What each action of a hand says, by its case on the Watch stream (events.proto)."""
STARTS = frozenset({"hand_started", "thb_hand_started", "cdp_hand_started"})
"""The cases that begin a hand: the list of its actions starts again."""


def said(event: ev.TableEvent) -> Said | None:
    """An event in words (English, Spanish); None for what is not an action of a hand."""
    case = event.WhichOneof("event")
    saying = SAYINGS.get(case or "")
    return saying(getattr(event, case or "")) if saying is not None else None


def starts_a_hand(event: ev.TableEvent) -> bool:
    return event.WhichOneof("event") in STARTS
