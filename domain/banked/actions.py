"""The actions Texas Hold'em Bonus and Casino Draw Poker hands take (:mod:`domain.actions`), each by the hand method
it calls, and what each takes now (:func:`thb_legal`, :func:`cdp_legal`): the banked games' part of
:data:`domain.games.GAMES`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from domain.actions import (
    Action,
    ApproveBonus,
    Check,
    CloseBets,
    Deal,
    DealerCardShown,
    Exchange,
    FaceUpCard,
    FlopBet,
    Fold,
    Legal,
    PlaceAnte,
    PlaceBonus,
    Play,
    Reconstruction,
    RefuseBonus,
    Reshuffle,
    StreetBet,
    Void,
    WrongCount,
)
from domain.banked.cdp import CdpHand, CdpStage
from domain.banked.table import BankedTable
from domain.banked.thb import ThbHand
from domain.banked.thb_state import Stage

A = TypeVar("A", bound=Action)
Taken = Callable[[Any, Any, str], None]
"""A hand (or, between hands, the table) method applied with an action and who gives it (the station's name,
recorded where the rule asks: the games director's approval, the pit boss's reconstruction)."""


def _thb(kind: type[A], do: Callable[[ThbHand, A, str], None]) -> tuple[type[Action], Taken]:
    return kind, do


def _cdp(kind: type[A], do: Callable[[CdpHand, A, str], None]) -> tuple[type[Action], Taken]:
    return kind, do


def _reshuffle(table: BankedTable, action: Reshuffle, by: str) -> None:
    del action
    table.record_reshuffle(by)


THB_ACTIONS: Mapping[type[Action], Taken] = dict([
    _thb(PlaceAnte, lambda h, a, by: h.place_ante(a.seat, a.amount)),
    _thb(PlaceBonus, lambda h, a, by: h.place_bonus(a.seat, a.amount)),
    _thb(CloseBets, lambda h, a, by: h.close_bets()),
    _thb(Deal, lambda h, a, by: h.deal(a.card, a.source, a.sequence)),
    _thb(Fold, lambda h, a, by: h.fold(a.seat)),
    _thb(FlopBet, lambda h, a, by: h.flop_bet(a.seat, a.amount)),
    _thb(StreetBet, lambda h, a, by: h.street_bet(a.seat, a.amount)),
    _thb(Check, lambda h, a, by: h.check(a.seat)),
    _thb(ApproveBonus, lambda h, a, by: h.approve_bonus(a.seat, by, a.reason)),
    _thb(RefuseBonus, lambda h, a, by: h.refuse_bonus(a.seat, by, a.reason)),
    _thb(DealerCardShown, lambda h, a, by: h.dealer_card_shown()),
    _thb(FaceUpCard, lambda h, a, by: h.face_up_card_found(a.card)),
    _thb(WrongCount, lambda h, a, by: h.wrong_card_count(a.seat, correctable=a.correctable)),
    _thb(Reconstruction, lambda h, a, by: h.request_reconstruction(by, a.director, a.reason)),
    _thb(Void, lambda h, a, by: h.void(a.rule, a.reason)),
    (Reshuffle, _reshuffle),
])
"""Texas Hold'em Bonus: the hand method each action calls (:class:`Reshuffle`: the table's, between hands)."""

CDP_ACTIONS: Mapping[type[Action], Taken] = dict([
    _cdp(PlaceAnte, lambda h, a, by: h.place_ante(a.seat, a.amount)),
    _cdp(CloseBets, lambda h, a, by: h.close_bets()),
    _cdp(Deal, lambda h, a, by: h.deal(a.card, a.source, a.sequence)),
    _cdp(Exchange, lambda h, a, by: h.exchange(a.seat, list(a.cards))),
    _cdp(Play, lambda h, a, by: h.play(a.seat, a.amount)),
    _cdp(Fold, lambda h, a, by: h.fold(a.seat)),
    _cdp(Void, lambda h, a, by: h.void(a.rule, a.reason)),
    (Reshuffle, _reshuffle),
])
"""Casino Draw Poker: the hand method each action calls (:class:`Reshuffle`: the table's, between hands)."""


THB_DECISIONS: Mapping[Stage, tuple[tuple[type[Action], ...], int]] = {
    Stage.PREFLOP: ((Fold, FlopBet), 2),
    Stage.TURN: ((Check, StreetBet), 1),
    Stage.RIVER: ((Check, StreetBet), 1),
}
"""A Texas Hold'em Bonus stage with a box deciding: what it may do, and its bet in antes (R-THB-5, R-THB-6)."""
CDP_DECISIONS: Mapping[CdpStage, tuple[tuple[type[Action], ...], int]] = {
    CdpStage.EXCHANGE: ((Exchange,), 0),
    CdpStage.DECISION: ((Play, Fold), 2),
}
"""A Casino Draw Poker stage with a box deciding: what it may do, and its bet in antes (R-CDP-2, R-CDP-3)."""


def _deciding(hand: ThbHand | CdpHand, decisions: tuple[tuple[type[Action], ...], int] | None) -> Legal:
    box = hand.to_decide
    if box is None or decisions is None:
        return Legal()
    allowed, antes = decisions
    return Legal(box, allowed, bet=antes * hand.bets.get(box, {}).get("ante", 0) if antes else None)


def thb_legal(hand: ThbHand) -> Legal:
    """The games director's decision on the first box whose 1000:1 bonus waits (R-THB-10), else the deciding box's
    choice and the bet it takes."""
    if hand.stage is Stage.APPROVAL and hand.pending_approval:
        return Legal(min(hand.pending_approval), (ApproveBonus, RefuseBonus))
    return _deciding(hand, THB_DECISIONS.get(hand.stage))


def cdp_legal(hand: CdpHand) -> Legal:
    """The deciding box's exchange, or its play or fold and the bet it takes."""
    return _deciding(hand, CDP_DECISIONS.get(hand.stage))
