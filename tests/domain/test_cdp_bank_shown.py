"""Issue 33, item 3 — Casino Draw Poker's bank as the croupier turns it: once every box has decided, "la banca
muestra su juego" (seed 002, R-CDP-4).  The showing is an event (``CdpHand.BankShown``) naming the five cards; from
then on the bank's cards, those it changes by the house way and those it draws are face up, so the croupier's
station — which never sees a face-down card (D-SEE-1) — is given them and calls the exchange card by card.

Everything here goes through the real pipeline a croupier's station is given: the domain's events, the one
visibility policy (service/app/visibility.py), the Watch stream's message (``to_message``), the station's hand log and
its showdown panel."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import StoredEvent

from domain.banked.cdp import CdpHand
from domain.cards.cards import parse_cards
from service.api import events_pb2 as ev
from service.app.visibility import banked_hand_state
from service.grpc.event_messages import to_message
from service.grpc.replies import _payload
from service.station.tui.hand_log import HandLog
from service.station.tui.i18n import Labels
from service.station.tui.showdown import result_text
from tests.support.banked_support import cdp_hand


def croupier_log(hand: CdpHand, events: list[Any]) -> HandLog:
    """The croupier's station's log of these events, as the Watch stream gives them to a station that may not see
    face-down cards."""
    log = HandLog()
    log.apply(ev.TableEvent(banked_table_hand_started=ev.BankedTableHandStarted(number=hand.number,
                                                                                  deck_colour="red")))
    for event in events:
        log.apply(to_message(type(event), _payload(event, sees_down_cards=False)))
    return log


def deal(hand: CdpHand, cards: str) -> None:
    for card in parse_cards(cards):
        hand.deal(card)


def kinds(events: list[Any]) -> list[str]:
    return [type(event).__qualname__ for event in events]


def test_r_cdp_4_the_bank_shows_its_five_cards_then_changes_by_the_house_way_and_draws_face_up() -> None:
    hand = cdp_hand({1: 10})
    deal(hand, "2c 7d 9h Js Kc 3c 4d 6h 8s Tc")  # box 1, then the bank: ten high, no pair
    hand.exchange(1, [])
    bank_hidden = banked_hand_state(hand.snapshot(), sees_down_cards=False)["bank"]
    assert bank_hidden == ["??"] * 5  # every box has not decided yet: the bank's cards are face down
    hand.play(1, 20)
    assert hand.bank_shown and hand.next_card == 0 and hand.next_card_face_up
    shown = banked_hand_state(hand.snapshot(), sees_down_cards=False)
    assert shown["bank"] == ["6h", "8s", "Tc"] and shown["bank_changed"] == ["4d", "3c"]
    deal(hand, "2h 5s")
    events = list(hand.collect_events())
    assert kinds(events)[-7:] == ["CdpHand.BetPlaced", "CdpHand.BankShown", "CdpHand.BankExchanged",
                                  "CdpHand.CardDealt", "CdpHand.CardDealt", "CdpHand.BoxSettled", "CdpHand.Completed"]
    shown_event = next(e for e in events if isinstance(e, CdpHand.BankShown))
    assert shown_event.cards == ["3c", "4d", "6h", "8s", "Tc"]
    dealt = [(e.box, e.card, e.face_up) for e in events if isinstance(e, CdpHand.CardDealt)]
    assert dealt[-2:] == [(0, "2h", True), (0, "5s", True)]  # drawn to the shown hand
    assert all(not up for _, _, up in dealt[:-2])  # the deal: every card face down
    log = croupier_log(hand, events)
    assert log.box_cards[1] == ["??"] * 5  # box 1's cards stay face down: the bank did not qualify (R-CDP-5)
    assert result_text(log, Labels("en"), banked=True).plain.splitlines()[:7] == [
        "Result of hand 1",
        "  Bank shows 3c 4d 6h 8s Tc: high card, ten",
        "  house way (R-CDP-4): the bank keeps 6h 8s Tc and changes 4d 3c",
        "    the bank draws 2h",
        "    the bank draws 5s",
        "  the bank now holds 6h 8s Tc 2h 5s: high card, ten",
        "  the bank does not qualify (R-CDP-5)",
    ]
    spanish = result_text(log, Labels("es"), banked=True).plain.splitlines()
    assert spanish[1:4] == ["  Banca enseña 3t 4d 6c 8p Tt: carta alta, diez",
                            "  forma de la casa (R-CDP-4): la banca guarda 6c 8p Tt y cambia 4d 3t",
                            "    la banca recibe 2c"]


def test_r_cdp_4_the_croupier_calls_the_exchange_card_by_card_as_the_cards_come() -> None:
    """Before the last card the panel says what the bank keeps and changes and the cards drawn so far; it names
    no final hand yet."""
    hand = cdp_hand({2: 10})
    deal(hand, "Ac Ad 3h 3s 9c 5c 5d Kh 9s 2c")
    hand.exchange(2, [])
    hand.play(2, 20)
    deal(hand, "5h")
    log = croupier_log(hand, list(hand.collect_events()))
    assert result_text(log, Labels("en"), banked=True).plain.splitlines() == [
        "Result of hand 1",
        "  Bank shows 5c 5d Kh 9s 2c: pair of fives",
        "  house way (R-CDP-4): the bank keeps 5c 5d Kh and changes 9s 2c",
        "    the bank draws 5h",
    ]


def test_r_cdp_4_a_bank_that_qualifies_shows_and_says_so_and_the_boxes_are_named() -> None:
    hand = cdp_hand({1: 10})
    deal(hand, "Ac Ad 3h 3s 9c 8c 8d Kh 9s 2c")
    hand.exchange(1, [])
    hand.play(1, 20)
    events = list(hand.collect_events())
    assert "CdpHand.BankExchanged" not in kinds(events) and hand.bank_qualified is True
    lines = result_text(croupier_log(hand, events), Labels("en"), banked=True).plain.splitlines()
    assert lines[1:3] == ["  Bank shows 8c 8d Kh 9s 2c: pair of eights",
                          "  the bank qualifies: a pair of eights or better (R-CDP-4)"]


def test_a_bank_whose_boxes_all_folded_never_shows() -> None:
    """Nobody plays: the bank does not show its hand (no ``BankShown``), and its cards stay face down on the
    croupier's stream."""
    hand = cdp_hand({1: 10})
    deal(hand, "2c 7d 9h Js Kc 3c 4d 6h 8s Tc")
    hand.exchange(1, [])
    hand.fold(1)
    events = list(hand.collect_events())
    assert "CdpHand.BankShown" not in kinds(events) and hand.is_complete and not hand.bank_shown
    log = croupier_log(hand, events)
    assert log.house_cards == ["??"] * 5 and not log.bank_shown


def test_a_card_stored_before_face_up_existed_reads_face_down() -> None:
    """Stores written by earlier versions hold ``CdpHand.CardDealt`` of version 1, without ``face_up``: each loads
    as dealt face down (every card was), and the hand replays to the same state."""
    hand = cdp_hand({1: 10})
    deal(hand, "2c 7d")
    app: Application[UUID] = Application()
    app.save(hand)
    stored = app.recorder.select_events(hand.id)
    dealt = [event for event in stored if event.topic.endswith("CdpHand.CardDealt")]
    for event in dealt:
        state = json.loads(event.state)
        assert state.pop("face_up") is False and state.pop("class_version") == 2
        old = StoredEvent(event.originator_id, event.originator_version, event.topic, json.dumps(state).encode())
        loaded = app.mapper.to_domain_event(old)
        assert isinstance(loaded, CdpHand.CardDealt) and loaded.face_up is False
    replayed: CdpHand = app.repository.get(hand.id)
    assert isinstance(replayed, CdpHand) and replayed.cards == hand.cards and not replayed.bank_shown
