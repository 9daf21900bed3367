"""The one visibility policy (issue 13): who may see which card, for every game, in every output.

Table views, the ``Watch`` stream, reconstructions and exports all pass what they show through this module, so a
face-down card is hidden in one place.  A station either *sees down cards* (the pit boss, the games director: the
pit and surveillance) or not (every croupier's station, its own table's too — he deals the cards, he does not read
them —, observers, devices: :meth:`Viewer.sees_down_cards`).  For a
station that does not, every card that is face down when it is recorded shows as ``??``:

- circle hands: hole cards dealt face down, burns, discards (the opener's kept ones too), reshuffled discards, and a
  down card exposed by mistake (covered again at once, R-CIRC-9); board cards, up cards, a penalty card dealt face up
  and shown hands are public;
- Texas Hold'em Bonus: the boxes' cards and the croupier's, and burns; board cards and a face-up card found in the deck
  (R-THB-11 b) are public, and the croupier's cards once the boxes are settled;
- Casino Draw Poker: every card of the boxes and the boxes' exchanges; the bank's five until it shows them, once every
  box has decided (R-CDP-4: "la banca muestra su juego"); the cards it then changes by the house way and draws are
  public.

The casino may delay the pit's view (``hole_cards_live`` false, :func:`shows_down_cards`): the face-down cards of a
hand in progress are then hidden from the pit too, and shown once the hand has ended (issue 29, item 7).

>>> event_payload("Hand.CardDealt", {"kind": "hole", "card": "As", "face_up": False}, sees_down_cards=False)
{'kind': 'hole', 'card': '??', 'face_up': False}
>>> event_payload("Hand.CardDealt", {"kind": "board", "card": "As", "face_up": True}, sees_down_cards=False)
{'kind': 'board', 'card': 'As', 'face_up': True}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from domain.reconstruction import Step

HIDDEN = "??"
"""How a face-down card is shown to a station that may not see it."""


def _hide_card(data: dict[str, Any]) -> None:
    data["card"] = HIDDEN


def _hide_cards(data: dict[str, Any]) -> None:
    data["cards"] = [HIDDEN for _ in data.get("cards", [])]


def _circle_dealt(data: dict[str, Any]) -> None:
    if data.get("kind") in ("hole", "burn") and not data.get("face_up"):
        _hide_card(data)


def _cdp_dealt(data: dict[str, Any]) -> None:
    if not data.get("face_up"):  # every card but those the bank draws to its shown hand (R-CDP-4)
        _hide_card(data)


def _thb_dealt(data: dict[str, Any]) -> None:
    if data.get("kind") != "board":  # a box's card, the croupier's, or a burn
        _hide_card(data)


FACE_DOWN: Mapping[str, Callable[[dict[str, Any]], None]] = {
    "Hand.CardDealt": _circle_dealt,
    "Hand.Discarded": _hide_cards,
    "Hand.DiscardsReshuffled": _hide_cards,
    "Hand.CardExposed": _hide_card,
    "ThbHand.CardDealt": _thb_dealt,
    "CdpHand.CardDealt": _cdp_dealt,
    "CdpHand.Exchanged": _hide_cards,
}
"""Events (by class qualname) that carry cards face down when recorded, and how to hide them.  Every other event
carries no card or only public ones (``Hand.Shown``, ``ThbHand.FaceUpCardDiscarded``; ``CdpHand.BankShown`` and
``CdpHand.BankExchanged``: the bank's cards once it has shown them, R-CDP-4)."""


HOLE_CARDS_LIVE = True
"""The casino's default for ``hole_cards_live``: the pit sees face-down cards as they are dealt, as it always has
(docs/audit.md, "Who watched the hole cards")."""


def shows_down_cards(sees_down_cards: bool, *, hand_live: bool, hole_cards_live: bool = HOLE_CARDS_LIVE) -> bool:
    """The delay policy (issue 29, item 7): whether a station that may see face-down cards (``sees_down_cards``,
    :meth:`service.app.access.Viewer.sees_down_cards`: the pit) is shown those of a hand now.  With
    ``hole_cards_live`` (the default) they are shown as they are dealt; without it, only once the hand has ended
    (``hand_live`` False): while it is in progress (or about to start) the pit sees what an observer sees.  A station
    that may not see them never does.

    >>> shows_down_cards(True, hand_live=True), shows_down_cards(True, hand_live=True, hole_cards_live=False)
    (True, False)
    >>> shows_down_cards(True, hand_live=False, hole_cards_live=False), shows_down_cards(False, hand_live=False)
    (True, False)
    """
    return sees_down_cards and (hole_cards_live or not hand_live)


def carries_down_cards(event: str, data: dict[str, Any]) -> bool:
    """Whether an event (by class qualname) carries a card that was face down when recorded: what the policy would
    hide from a station that may not see it (a view of it by the pit is a view of face-down cards, R-AUD-1).

    >>> carries_down_cards("Hand.CardDealt", {"kind": "hole", "card": "As", "face_up": False})
    True
    >>> carries_down_cards("Hand.CardDealt", {"kind": "board", "card": "As", "face_up": True})
    False
    """
    return FACE_DOWN.get(event) is not None and event_payload(event, data, sees_down_cards=False) != data


def event_payload(event: str, data: dict[str, Any], *, sees_down_cards: bool) -> dict[str, Any]:
    """An event's data as a station may see it (a copy; the stored event is never changed)."""
    shown = dict(data)
    hide = FACE_DOWN.get(event)
    if hide is not None and not sees_down_cards:
        hide(shown)
    return shown


def circle_snapshot(snapshot: dict[str, Any], *, sees_down_cards: bool) -> dict[str, Any]:
    """A circle hand's :meth:`domain.circle.hand.Hand.snapshot` as a station may see it."""
    if sees_down_cards:
        return snapshot
    shown = dict(snapshot)
    shown["hole"] = [[(card if up else HIDDEN, up) for card, up in cards] for cards in snapshot["hole"]]
    for pile in ("discards", "opener_discards", "burned"):
        shown[pile] = [HIDDEN for _ in snapshot[pile]]
    return shown


def banked_cards(cards: Mapping[int, list[str]], *, sees_down_cards: bool) -> dict[int, list[str]]:
    """The boxes' cards of a banked hand: face down to the players' opponents, the house (R-THB-4, R-CDP-1)."""
    return {box: list(held) if sees_down_cards else [HIDDEN for _ in held] for box, held in cards.items()}


def banked_hand_state(state: dict[str, Any], *, sees_down_cards: bool) -> dict[str, Any]:
    """A banked hand's state (:meth:`domain.banked.box_hand.BankedHand.snapshot`) as a station may see it."""
    if sees_down_cards:
        return state
    shown = dict(state)
    shown["cards"] = banked_cards(state["cards"], sees_down_cards=False)
    settled = bool(state["results"])
    for house in ("dealer", "bank"):
        if house in state:
            shown[house] = house_cards(state[house], pit=False, settled=settled or bool(state.get("bank_shown")))
    for pile in ("burned", "discards"):  # THB burns; CDP exchanged cards (a THB card found face up is public)
        if pile in state:
            shown[pile] = [HIDDEN for _ in state[pile]]
    return shown


def reconstruction_step(step: Step, *, sees_down_cards: bool) -> Step:
    """A reconstruction step (the event and the state it left) as a station may see it."""
    if sees_down_cards:
        return step
    state = (banked_hand_state(step.state, sees_down_cards=False) if "stage" in step.state
             else circle_snapshot(step.state, sees_down_cards=False))
    return replace(step, data=event_payload(step.event, step.data, sees_down_cards=False), state=state)


def house_cards(cards: list[str], *, pit: bool, settled: bool) -> list[str]:
    """The croupier's (THB) or the bank's (CDP) cards: face down to everyone at the table, the croupier's screen
    included, until the boxes are settled (``settled``; the bank's too once it has shown them, R-CDP-4); the pit
    always sees them."""
    return list(cards) if pit or settled else [HIDDEN for _ in cards]
