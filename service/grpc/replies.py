"""Replies of the gRPC service: application results, views and summaries as pokertable.v1 messages (enums through
:mod:`service.grpc.enums`; the view's detail by the table's family, never by its game)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from domain.games import Game
from domain.reconstruction import event_data
from service.api import types_pb2 as pb
from service.app.results import Result
from service.app.visibility import event_payload
from service.grpc.enums import value_of
from service.grpc.event_messages import timestamp


def _payload(event: Any, sees_down_cards: bool) -> dict[str, Any]:
    """An event's data as the station may see it: through the one visibility policy (service/app/visibility.py)."""
    return event_payload(type(event).__qualname__, event_data(event), sees_down_cards=sees_down_cards)


def command_result(result: Result, number: int = 0) -> pb.CommandResult:
    """An application command's result (``number``: the hand's, when the result does not say)."""
    return pb.CommandResult(table=result.table, hand_id=result.hand_id or "",
                            hand_number=result.number if result.number is not None else number,
                            version=result.version or 0, hand_complete=bool(result.complete))


def _colour(text: str) -> pb.DeckColour | None:
    return cast(pb.DeckColour, value_of(pb.DeckColour, text)) if text else None


def circle_pot(hand: dict[str, Any]) -> int:
    """Every chip in the middle of a circle hand (its snapshot): the bets and pots of this hand, and a pot carried
    from blank hands (R-DRAW-3)."""
    return int(sum(hand["contributed"])) + int(hand["carried_in"])


def circle_detail(table: dict[str, Any], hand: dict[str, Any] | None) -> pb.CircleTableView:
    """A circle table: ``table`` its stacks, button, closed flag and required reshuffle; ``hand`` the hand in
    progress's snapshot (:meth:`Hand.snapshot`, after the visibility policy) or ``None``."""
    out = pb.CircleTableView(stacks={int(seat): stack for seat, stack in table["stacks"].items()},
                             closed=bool(table.get("closed", False)),
                             reshuffle_required=_colour(table.get("reshuffle_required") or ""))
    if table.get("button_seat"):
        out.button_seat = table["button_seat"]
    if hand is None:
        return out
    seats = hand["seats"]
    out.phase = value_of(pb.HandPhase, hand["phase"])  # type: ignore[assignment]
    out.street = str(hand["street"]).lower()
    out.board.extend(hand["board"])
    out.pot = circle_pot(hand)
    for name, key in (("actor_seat", "actor"), ("drawer_seat", "drawer"), ("next_to_show_seat", "next_to_show")):
        if hand[key]:
            setattr(out, name, hand[key])
    if hand["next_card"]:
        kind, position = hand["next_card"]
        out.next_card.target = value_of(pb.CardTarget, kind)  # type: ignore[assignment]
        if kind == "hole" and 0 <= position < len(seats):
            out.next_card.seat = seats[position]
    for i, seat in enumerate(seats):
        cards = hand["hole"][i]
        out.players.append(pb.Player(seat=seat, stack=hand["stacks"][i], bet=hand["bets"][i],
                                     put_in=hand["contributed"][i], folded=hand["folded"][i],
                                     cards=[c for c, _ in cards], face_up=[u for _, u in cards]))
    return out


def _next_banked_card(text: str) -> pb.NextCard | None:
    """The application's "box 3", "bank", "burn", "board", "dealer-left"… as a NextCard."""
    if not text:
        return None
    if text.startswith("box "):
        return pb.NextCard(target=pb.CARD_TARGET_BOX, seat=int(text[4:]))
    return pb.NextCard(target=value_of(pb.CardTarget, text))  # type: ignore[arg-type]


def _bets(spots: dict[str, int]) -> pb.BoxBets:
    return pb.BoxBets(**{spot: chips for spot, chips in spots.items() if spot in pb.BoxBets.DESCRIPTOR.fields_by_name})


def banked_detail(table: dict[str, Any], hand: dict[str, Any] | None) -> pb.BankedTableView:
    """A banked table: ``table`` its house result and required reshuffle; ``hand`` the hand in progress as the
    station may see it (the application's banked view's hand, or a banked state after the visibility policy)."""
    out = pb.BankedTableView(bank_result=table["bank_result"],
                             reshuffle_required=_colour(table.get("reshuffle_required") or ""))
    if hand is None:
        return out
    out.stage = value_of(pb.BankedStage, hand["stage"])  # type: ignore[assignment]
    house = hand.get("dealer", hand.get("bank", []))
    out.dealer_cards.extend(house)
    out.board.extend(hand.get("board", []))
    if hand.get("to_decide"):
        out.to_decide = hand["to_decide"]
    next_card = _next_banked_card(hand.get("next_card", ""))
    if next_card is not None:
        out.next_card.CopyFrom(next_card)
    results = hand.get("results", {})
    for box, bets in sorted(hand["bets"].items()):
        box_view = pb.BankedBox(seat=int(box), bets=_bets(bets), cards=hand["cards"].get(box, []),
                                settled=box in results)
        if box in results:
            box_view.result.CopyFrom(_bets(results[box]))
        out.boxes.append(box_view)
    return out


def holds(view: dict[str, Any]) -> dict[str, Any]:
    """The alerts holding a table and its decks out of play (R-HOLD-1, R-DECK-3), as TableView and TableSummary
    carry them, from the application's view of it (none in a view without them: a past moment's)."""
    return {"holds": [pb.Hold(**hold) for hold in view.get("holds", [])],
            "decks_out_of_play": [_colour(colour) for colour in view.get("decks_out", [])]}


def table_view(game: Game, name: str, *, hands_started: int, hand_id: str, hand_number: int, position: int,
               time: datetime | None, detail: pb.CircleTableView | pb.BankedTableView,
               dealer: str = "", language: str = "", held: dict[str, Any] | None = None) -> pb.TableView:
    """The common part of a TableView and its detail by family (``held``: :func:`holds`)."""
    view = pb.TableView(table=name, game=value_of(pb.Game, game.code),  # type: ignore[arg-type]
                        family=value_of(pb.GameFamily, game.family),  # type: ignore[arg-type]
                        hands_started=hands_started, hand_in_progress=bool(hand_id), hand_id=hand_id,
                        hand_number=hand_number, position=position, dealer_id=dealer, language=language,
                        **(held or {}))
    if time is not None:
        view.time.CopyFrom(timestamp(time))
    getattr(view, game.family).CopyFrom(detail)
    return view


def table_summary(game: Game, name: str, view: dict[str, Any], hand: dict[str, Any] | None,
                  position: int) -> pb.TableSummary:
    """A table as the floor lists it (ListTables), from the application's view of it now (``view``, the view a
    TableView is built from, and ``hand``, its hand in progress or ``None``): no card of it is copied."""
    chips, seats = view["chips_in_play"], view["seats"]
    status = "closed" if view.get("closed") else "hand-in-progress" if hand is not None else "between-hands"
    out = pb.TableSummary(table=name, game=value_of(pb.Game, game.code),  # type: ignore[arg-type]
                          family=value_of(pb.GameFamily, game.family),  # type: ignore[arg-type]
                          status=value_of(pb.TableStatus, status),  # type: ignore[arg-type]
                          hand_number=view["hands_started"], hands_started=view["hands_started"],
                          chips_in_play=chips, seats=seats, deck_colour=_colour(view["deck_colour"]),
                          position=position, language=view["language"], **holds(view))
    out.opened.CopyFrom(timestamp(datetime.fromisoformat(view["opened"])))
    return out


def hand_summary(summary: dict[str, Any]) -> pb.HandSummary:
    """A search's summary of a hand."""
    out = pb.HandSummary(hand_id=summary["hand_id"], number=summary["number"], seats=summary["seats"],
                         outcome=value_of(pb.HandOutcome, summary["outcome"]),  # type: ignore[arg-type]
                         pot=summary["pot"], winners=summary["winners"],
                         net={int(seat): chips for seat, chips in summary["net"].items()})
    out.started.CopyFrom(timestamp(datetime.fromisoformat(summary["started"])))
    out.ended.CopyFrom(timestamp(datetime.fromisoformat(summary["ended"])))
    return out
