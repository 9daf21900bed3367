"""The actions a circle hand takes (:mod:`domain.actions`), each by the :class:`Hand` method it calls, and what it
takes now (:func:`legal`): the circle games' part of :data:`domain.games.GAMES`.

While a correction waits for the pit (R-AUD-1) the hand takes only its decision: every other action is refused."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from domain.actions import (
    Absent,
    Action,
    AllIn,
    BetTo,
    BringIn,
    Call,
    Check,
    Deal,
    DecideCorrection,
    Discard,
    ExposeCard,
    ExposeHand,
    Fold,
    Legal,
    Muck,
    RequestCorrection,
    ReshuffleDiscards,
    Show,
    Void,
)
from domain.circle.hand import Hand

A = TypeVar("A", bound=Action)
Taken = Callable[[Hand, Any, str], None]
"""A hand method applied with an action and who gives it (the station's name, recorded where the rule asks)."""


def _play(kind: type[A], do: Callable[[Hand, A], None]) -> tuple[type[Action], Taken]:
    """An action of play: refused while a correction is pending (R-AUD-1)."""
    def taken(hand: Hand, action: A, by: str) -> None:
        del by
        hand.verify_no_pending_correction()
        do(hand, action)

    return kind, taken


def _request(hand: Hand, action: RequestCorrection, by: str) -> None:
    done = action.replacement
    hand.request_correction(done.name, done.seat, getattr(done, "amount", None), reason=action.reason, by=by)


def _decide(hand: Hand, action: DecideCorrection, by: str) -> None:
    hand.decide_correction(action.approve, reason=action.reason, by=by)


CIRCLE_ACTIONS: Mapping[type[Action], Taken] = dict([
    _play(Deal, lambda h, a: h.deal(a.card, a.source, a.sequence)),
    _play(Fold, lambda h, a: h.fold(a.seat)),
    _play(Check, lambda h, a: h.check(a.seat)),
    _play(Call, lambda h, a: h.call(a.seat)),
    _play(BetTo, lambda h, a: h.bet_or_raise_to(a.seat, a.amount)),
    _play(AllIn, lambda h, a: h.all_in(a.seat)),
    _play(BringIn, lambda h, a: h.post_bring_in(a.seat)),
    _play(Discard, lambda h, a: h.discard(a.seat, list(a.cards))),
    _play(ReshuffleDiscards, lambda h, a: h.reshuffle_discards()),
    _play(Show, lambda h, a: h.show(a.seat)),
    _play(Muck, lambda h, a: h.muck(a.seat)),
    _play(ExposeCard, lambda h, a: h.expose_card(a.seat, a.card)),
    _play(ExposeHand, lambda h, a: h.expose_hand(a.seat)),
    _play(Absent, lambda h, a: h.declare_absent(a.seat)),
    _play(Void, lambda h, a: h.void(a.rule, a.reason)),
    (RequestCorrection, _request),
    (DecideCorrection, _decide),
])
"""Every circle game's actions: the hand method each calls."""


def legal(hand: Hand) -> Legal:
    """What the hand takes now: the pit's decision while a correction is pending; the betting actions of the seat
    to act (and its absence, R-CIRC-10), the drawer's discard, the next to show's show or muck; a correction of the
    last betting action while one may be corrected (R-AUD-1)."""
    if hand.pending_correction is not None:
        return Legal(allowed=(DecideCorrection,))
    correction: tuple[type[Action], ...] = (RequestCorrection,) if hand.correctable() is not None else ()
    betting = hand.legal_actions(public=True)  # the legal actions are public: no face-down card tells them
    if betting is not None:
        total = hand.all_in_total()  # all-in: a call for less, or a bet within the structure's range (R-CIRC-5)
        all_in = (betting.call is not None and total <= hand.state.bet_to) or (
            betting.raise_min is not None and betting.raise_max is not None
            and betting.raise_min <= total <= betting.raise_max)
        allowed = [kind for kind, ok in ((Fold, betting.fold), (Check, betting.check), (Call, betting.call is not None),
                                         (BringIn, betting.bring_in is not None),
                                         (BetTo, betting.raise_min is not None), (AllIn, all_in)) if ok]
        return Legal(betting.seat, (*allowed, Absent, *correction), call=betting.call,
                     bring_in=betting.bring_in, raise_min=betting.raise_min, raise_max=betting.raise_max)
    if hand.drawer_seat is not None:  # his turn to draw is a turn: absent then, he is out (R-CIRC-10, decision)
        return Legal(hand.drawer_seat, (Discard, Absent, *correction))
    if (seat := hand.next_to_show_seat) is not None:  # the last claim on a pot shows: no muck offered (R-CIRC-7)
        return Legal(seat, (Show, *((Muck,) if hand.can_muck(seat) else ()), *correction))
    return Legal(allowed=correction)
