"""Replies of the gRPC service: application results, views and summaries as pokertable.v1 messages, by attribute
(enums through :mod:`service.grpc.enums`; a view's game part by its type, never by the game)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from domain.attribution import Attribution
from domain.games import Game
from domain.holds import Hold
from domain.reconstruction import event_data
from service.api import types_pb2 as pb
from service.app.results import Result
from service.app.table_views import BankedTableView, CircleTableView, HandSummary, NextCard, TableView
from service.app.visibility import event_payload
from service.grpc.enums import value_of
from service.grpc.event_messages import timestamp


def _payload(event: Any, sees_down_cards: bool) -> dict[str, Any]:
    """An event's data as the station may see it: through the one visibility policy (service/app/visibility.py)."""
    return event_payload(type(event).__qualname__, event_data(event), sees_down_cards=sees_down_cards)


def actor_of(by: Attribution | None, names: Callable[[str], str]) -> pb.Actor | None:
    """Who gave an event's command, and where, with the person's name (issue 32); None before attribution."""
    if by is None:
        return None
    return pb.Actor(person_id=by.person, name=names(by.person) if by.person else "", station=by.station)


def actor(event: Any, names: Callable[[str], str]) -> pb.Actor | None:
    """:func:`actor_of` an event as stored."""
    return actor_of(Attribution.of(vars(event)), names)


def command_result(result: Result, number: int = 0) -> pb.CommandResult:
    """An application command's result (``number``: the hand's, when the result does not say)."""
    return pb.CommandResult(table=result.table, hand_id=result.hand_id or "",
                            hand_number=result.number if result.number is not None else number,
                            version=result.version or 0, hand_complete=bool(result.complete))


def _colour(text: str) -> pb.DeckColour | None:
    return cast(pb.DeckColour, value_of(pb.DeckColour, text)) if text else None


def circle_detail(part: CircleTableView) -> pb.CircleTableView:
    """A circle table's own part, and its hand in progress as the station may see it."""
    out = pb.CircleTableView(stacks=dict(part.stacks), closed=part.closed,
                             reshuffle_required=_colour(part.reshuffle_required), button_is_mano=part.button_is_mano)
    if part.button_seat:
        out.button_seat = part.button_seat
    hand = part.hand
    if hand is None:
        return out
    out.phase = value_of(pb.HandPhase, hand.phase)  # type: ignore[assignment]
    out.street = hand.street
    out.board.extend(hand.board)
    out.pot = hand.pot
    for name in ("actor", "drawer", "next_to_show"):
        if getattr(hand, name):
            setattr(out, f"{name}_seat", getattr(hand, name))
    if hand.next_card is not None:
        out.next_card.CopyFrom(_next_card(hand.next_card))
    for player in hand.players:
        out.players.append(pb.Player(seat=player.seat, stack=player.stack, bet=player.bet, put_in=player.put_in,
                                     folded=player.folded, cards=player.cards, face_up=player.face_up))
    return out


def _next_card(next_card: NextCard) -> pb.NextCard:
    out = pb.NextCard(target=value_of(pb.CardTarget, next_card.target),  # type: ignore[arg-type]
                      face_up=next_card.face_up)
    if next_card.seat is not None:
        out.seat = next_card.seat
    return out


def _bets(spots: Mapping[str, int]) -> pb.BoxBets:
    return pb.BoxBets(**{spot: chips for spot, chips in spots.items() if spot in pb.BoxBets.DESCRIPTOR.fields_by_name})


def banked_detail(part: BankedTableView) -> pb.BankedTableView:
    """A banked table's own part, and its hand in progress as the station may see it."""
    out = pb.BankedTableView(bank_result=part.bank_result, reshuffle_required=_colour(part.reshuffle_required),
                             closed=part.closed)
    hand = part.hand
    if hand is None:
        return out
    out.stage = value_of(pb.BankedStage, hand.stage)  # type: ignore[assignment]
    out.dealer_cards.extend(hand.house)
    out.board.extend(hand.board)
    if hand.to_decide:
        out.to_decide = hand.to_decide
    if hand.next_card is not None:
        out.next_card.CopyFrom(_next_card(hand.next_card))
    for box in hand.boxes:
        box_view = pb.BankedBox(seat=box.seat, bets=_bets(box.bets), cards=box.cards, settled=box.result is not None)
        if box.result is not None:
            box_view.result.CopyFrom(_bets(box.result))
        out.boxes.append(box_view)
    return out


DETAILS: Mapping[type[Any], Callable[[Any], pb.CircleTableView | pb.BankedTableView]] = {
    CircleTableView: circle_detail, BankedTableView: banked_detail}
"""A view's game part as its message, by the part's type."""


def detail(part: CircleTableView | BankedTableView) -> pb.CircleTableView | pb.BankedTableView:
    """A view's game part (:mod:`service.app.table_views`) as TableView's detail."""
    return DETAILS[type(part)](part)


def holds(held: Sequence[Hold], decks_out: Sequence[str]) -> dict[str, Any]:
    """The alerts holding a table and its decks out of play (R-HOLD-1, R-DECK-3), as TableView and TableSummary
    carry them."""
    return {"holds": [pb.Hold(position=hold.position, kind=hold.kind, rule=hold.rule, detail=hold.detail)
                      for hold in held],
            "decks_out_of_play": [_colour(colour) for colour in decks_out]}


def table_view(game: Game, name: str, *, hands_started: int, hand_id: str, hand_number: int, position: int,
               time: datetime | None, detail: pb.CircleTableView | pb.BankedTableView,
               dealer: str = "", language: str = "", held: dict[str, Any] | None = None,
               last_deck: str = "", next_deck_size: int = 0) -> pb.TableView:
    """The common part of a TableView and its detail by family (``held``: :func:`holds`; ``last_deck``: the colour
    of the last hand's deck, R-DECK-2)."""
    view = pb.TableView(table=name, game=value_of(pb.Game, game.code),  # type: ignore[arg-type]
                        family=value_of(pb.GameFamily, game.family),  # type: ignore[arg-type]
                        hands_started=hands_started, hand_in_progress=bool(hand_id), hand_id=hand_id,
                        hand_number=hand_number, position=position, dealer_id=dealer, language=language,
                        last_deck=_colour(last_deck) or pb.DECK_COLOUR_UNSPECIFIED, next_deck_size=next_deck_size,
                        **(held or {}))
    if time is not None:
        view.time.CopyFrom(timestamp(time))
    getattr(view, game.family).CopyFrom(detail)
    return view


def table_summary(game: Game, view: TableView, position: int, dealer_name: str = "") -> pb.TableSummary:
    """A table as the floor lists it (ListTables), from the application's view of it now, with its dealer (his name
    on the staff: ``dealer_name``): no card of it is copied."""
    hand = view.hand
    status = "closed" if view.closed else "hand-in-progress" if hand is not None else "between-hands"
    out = pb.TableSummary(table=view.table, game=value_of(pb.Game, game.code),  # type: ignore[arg-type]
                          family=value_of(pb.GameFamily, game.family),  # type: ignore[arg-type]
                          status=value_of(pb.TableStatus, status),  # type: ignore[arg-type]
                          hand_number=view.hands_started, hands_started=view.hands_started,
                          chips_in_play=view.detail.chips_in_play, seats=view.detail.seats,
                          deck_colour=_colour(view.deck_colour), position=position, language=view.language,
                          dealer_id=view.dealer, dealer_name=dealer_name if view.dealer else "",
                          seat_count=view.seat_count, **holds(view.holds, view.decks_out))
    out.opened.CopyFrom(timestamp(datetime.fromisoformat(view.opened)))
    return out


def hand_summary(summary: HandSummary) -> pb.HandSummary:
    """A search's summary of a hand."""
    out = pb.HandSummary(hand_id=summary.hand_id, number=summary.number, seats=summary.seats,
                         outcome=value_of(pb.HandOutcome, summary.outcome),  # type: ignore[arg-type]
                         pot=summary.pot, winners=summary.winners, net=dict(summary.net))
    if summary.rake is not None:
        out.rake = summary.rake
    out.started.CopyFrom(timestamp(summary.started))
    out.ended.CopyFrom(timestamp(summary.ended))
    return out
