"""Replies of the gRPC service: application results and views as protobuf messages."""

from __future__ import annotations

from typing import Any

from domain.reconstruction import event_data
from service.api import pokertable_pb2 as pb
from service.app.visibility import event_payload


def _payload(event: Any, sees_down_cards: bool) -> dict[str, Any]:
    """An event as the station may see it: through the one visibility policy (service/app/visibility.py)."""
    data = event_payload(type(event).__qualname__, event_data(event), sees_down_cards=sees_down_cards)
    data["timestamp"] = str(event.timestamp)
    return data


def _banked_view(view: dict[str, Any]) -> pb.BankedTableView:
    out = pb.BankedTableView(table=view["table"], game=view["game"], hands_started=view["hands_started"],
                             bank_result=view["bank_result"], hand_in_progress=view["hand"] is not None,
                             reshuffle_required=view["reshuffle_required"])
    hand = view["hand"]
    if hand is not None:
        out.stage = hand["stage"]
        out.dealer.extend(hand["dealer"])
        out.board.extend(hand["board"])
        out.to_decide = hand["to_decide"] or 0
        out.next_card = hand["next_card"]
        for box, bets in sorted(hand["bets"].items()):
            out.boxes.append(pb.BankedBox(box=box, bets=bets, cards=hand["cards"].get(box, []),
                                          result=hand["results"].get(box, {})))
    return out


def _reply(result: dict[str, Any]) -> pb.CommandReply:
    return pb.CommandReply(table=result.get("table", ""), hand_id=result.get("hand_id", ""),
                           hand_number=result.get("number", 0), version=result.get("version", 0),
                           hand_complete=result.get("complete", False))


def _table_view(view: dict[str, Any]) -> pb.TableView:
    out = pb.TableView(table=view["table"], variant=view["variant"], button_seat=view["button_seat"] or 0,
                       hands_started=view["hands_started"], hand_in_progress=view["hand"] is not None,
                       reshuffle_required=view["reshuffle_required"])
    for seat, stack in view["stacks"].items():
        out.stacks[int(seat)] = stack
    hand = view["hand"]
    if hand is not None:
        out.hand_id = str(hand["number"])
        out.phase, out.street = hand["phase"], hand["street"]
        out.board.extend(hand["board"])
        out.actor_seat = hand["actor"] or 0
        out.next_card = hand["next_card"][0] if hand["next_card"] else ""
        out.pot = sum(hand["contributed"]) + hand["carried_in"]  # a pot carried from blank hands is in the middle
        out.drawer_seat = hand["drawer"] or 0
        out.next_to_show_seat = hand["next_to_show"] or 0
        for i, seat in enumerate(hand["seats"]):
            cards = hand["hole"][i]
            out.players.append(pb.Player(seat=seat, stack=hand["stacks"][i], bet=hand["bets"][i],
                                         put_in=hand["contributed"][i], folded=hand["folded"][i],
                                         cards=[c for c, _ in cards], face_up=[u for _, u in cards]))
    return out


