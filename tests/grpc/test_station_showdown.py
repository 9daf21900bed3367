"""Issue 15, item 1: the dealer station's showdown as the croupier calls it, against a real server on a free port
(the fixtures of tests/grpc/test_station_tui.py): each pot's winners with their hands' spoken names ("escalera al rey"),
a split pot's shares and its odd chip (R-CIRC-11), a side pot (R-CIRC-6), the payments to make; at Texas Hold'em
Bonus each box's result and payment with the box's and the croupier's hands named; never a mucked or folded hand."""

from __future__ import annotations

from textual.pilot import Pilot

from service.api import commands_pb2 as cmd
from service.api import events_pb2 as ev
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.tui import StationApp
from service.station.tui.hand_log import HandLog
from service.station.tui.i18n import Labels
from service.station.tui.showdown import result_text
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, open_circle, seat
from tests.support.station_tui_support import SQLITE, THB_CARDS, run, station, thb_decision, until

port = grpc_support.port
"""The server fixture of the gRPC suite (SQLite, the sole writer)."""

HOLES = "Kh Ac Kd 3c Ad 2c"
"""One at a time from the seat left of the button (1): seat 2 Kh, 3 Ac, 1 Kd, 2 3c, 3 Ad, 1 2c."""
BOARD = "5c Qs Jh Ts 2d 9d 6h 4c"
"""Burn, flop Qs Jh Ts, burn, turn 9d, burn, river 4c: seats 1 and 2 each make the straight, king high."""


def split_with_side_pot(port: int) -> None:
    """Mesa 1, Hold'em 1/2, seat 3 (the big blind) with 11 chips: seat 1 raises to 20, seat 2 calls, seat 3 is all
    in for 11 — a main pot of 33 and a side pot of 18 between seats 1 and 2; checks to the showdown, where seats 2 and
    1 show the same straight and seat 3 mucks his aces.  The main pot's odd chip goes to seat 2, the first winner
    clockwise from the button (R-CIRC-11)."""
    pit = Client(port, TOKENS["pit"])
    open_circle(pit, "Mesa 1", pb.GAME_HOLDEM, blinds=[1, 2])
    dealer = Client(port, TOKENS["dealer"])
    for number, chips in ((1, 100), (2, 100), (3, 11)):
        seat(dealer, "Mesa 1", number, chips)
    grpc_support.start(pit, "Mesa 1", pb.DECK_COLOUR_BLUE)
    grpc_support.deal(pit, "Mesa 1", HOLES)
    grpc_support.act(pit, "Mesa 1", bet=cmd.Bet(seat=1, amount=20))
    grpc_support.act(pit, "Mesa 1", call=cmd.Call(seat=2))
    grpc_support.act(pit, "Mesa 1", all_in=cmd.AllIn(seat=3))
    board = BOARD.split()
    while True:
        legal = pit.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1"))
        if legal.HasField("seat"):
            number = legal.seat
            if pb.ACTION_KIND_SHOW not in legal.allowed:
                grpc_support.act(pit, "Mesa 1", check=cmd.Check(seat=number))
            elif number == 3:
                grpc_support.act(pit, "Mesa 1", muck=cmd.Muck(seat=number))
            else:
                grpc_support.act(pit, "Mesa 1", show=cmd.Show(seat=number))
        elif board:
            grpc_support.deal(pit, "Mesa 1", board.pop(0))
        else:
            return


def finished(app: StationApp) -> bool:
    return app.hand.finished and len(app.hand.pots) == 2 and app.settled


@SQLITE
def test_a_split_pot_with_its_odd_chip_a_side_pot_and_the_hands_as_the_croupier_calls_them(port: int) -> None:
    split_with_side_pot(port)

    async def english(pilot: Pilot[None], app: StationApp) -> None:
        await until(pilot, lambda: finished(app), "the pots paid")
        text = app.screen_text()
        assert "seat 1 shows Kd 2c: straight, king high" in text, text
        assert "seat 2 shows Kh 3c: straight, king high" in text, text
        assert ("main pot 33 — seats 1 and 2 split it (straight, king high): 16 each\n"
                "     the odd chip to seat 2 (R-CIRC-11)\n") in text, text
        assert "side pot 1: 18 — seats 1 and 2 split it (straight, king high): 9 each" in text, text
        assert "pay 25 to seat 1: 16 from the main pot + 9 from side pot 1" in text, text
        assert "pay 26 to seat 2: 17 from the main pot + 9 from side pot 1" in text, text
        assert "seat 3 mucks" in text and "aces" not in text and "Ac" not in text, text  # a mucked hand: never named

    run(station(port, TOKENS["dealer"], "Mesa 1", lang="en"), english)

    async def spanish(pilot: Pilot[None], app: StationApp) -> None:
        await until(pilot, lambda: finished(app), "the pots paid")
        text = app.screen_text()
        assert "asiento 1 enseña Kd 2t: escalera al rey" in text, text  # Spanish suit letters (2 de tréboles)
        assert ("bote principal 33 — reparten los asientos 1 y 2 con escalera al rey: 16 cada uno\n"
                "     la ficha impar al asiento 2 (R-CIRC-11)\n") in text, text
        assert "bote lateral 1: 18 — reparten los asientos 1 y 2 con escalera al rey: 9 cada uno" in text, text
        assert "pagar 26 al asiento 2: 17 del bote principal + 9 del bote lateral 1" in text, text
        assert "asiento 3 tira sus cartas" in text and "ases" not in text, text

    run(station(port, TOKENS["dealer"], "Mesa 1", lang="es"), spanish)


def thb_to_settlement(port: int, pit: Client) -> None:
    """THB 1 (tests/grpc/test_station_tui.py's deal): box 1 (Qs Qh, a bonus of 5) plays and checks to the end, box 2
    (7c 2d) folds; the croupier's 9h 4c make the straight, queen high on Qd 8c 2s Jc Th, box 1 three of a kind,
    queens."""
    thb_decision(port, pit)
    grpc_support.act(pit, "THB 1", flop_bet=cmd.FlopBet(seat=1, amount=20))
    grpc_support.act(pit, "THB 1", fold=cmd.Fold(seat=2))
    cards = THB_CARDS.split()[6:]
    while cards:
        legal = pit.GetLegalActions(svc.GetLegalActionsRequest(table="THB 1"))
        if legal.HasField("seat"):
            grpc_support.act(pit, "THB 1", check=cmd.Check(seat=legal.seat))
        else:
            grpc_support.deal(pit, "THB 1", cards.pop(0))


@SQLITE
def test_thb_settlement_names_the_box_and_the_croupier_and_lists_the_payments(port: int) -> None:
    """R-THB-7, R-THB-8, R-THB-9: box 1's three queens lose to the croupier's straight (ante and flop bet taken) and
    win the bonus 10:1 (paid); box 2 folded: its ante taken and its cards never named.  The pit's station, which sees
    every card, names both hands; the croupier's names only what his station received face up."""
    pit = Client(port, TOKENS["pit"])
    thb_to_settlement(port, pit)

    def settled(app: StationApp) -> bool:
        return app.hand.bank_result is not None and app.settled

    async def pit_boss(pilot: Pilot[None], app: StationApp) -> None:
        await until(pilot, lambda: settled(app), "the boxes settled")
        text = app.screen_text()
        assert "Dealer shows 9h 4c: straight, queen high" in text, text
        assert "box 1 shows Qs Qh: three of a kind, queens" in text, text
        assert "pay 50 to box 1 (bonus 50); take 30 from box 1 (ante 10, flop 20)" in text, text
        assert "take 10 from box 2 (ante 10)" in text, text
        assert "box 2 shows" not in text and "7c 2d" not in text, text  # folded: never opened

    run(StationApp(f"127.0.0.1:{port}", TOKENS["pit"], "THB 1", lang="en", sees_down_cards=True), pit_boss)

    async def croupier(pilot: Pilot[None], app: StationApp) -> None:
        await until(pilot, lambda: settled(app), "the boxes settled")
        text = app.screen_text()
        assert "retirar 10 de la caja 2 (ante 10)" in text, text
        assert "caja 2 enseña" not in text and "7c" not in text and "2d" not in text, text
        for line in text.splitlines():
            if "enseña" in line:  # a hand named only from cards this station received face up
                assert "??" not in line, line

    run(station(port, TOKENS["thb"], "THB 1", lang="es"), croupier)


def log_of(*events: ev.TableEvent) -> HandLog:
    """The hand's log as the station keeps it from these typed events of the Watch stream."""
    log = HandLog()
    for event in events:
        log.apply(event)
    return log


def test_a_pot_won_without_showing_an_uncalled_bet_and_the_rake() -> None:
    """R-CIRC-7: everybody else folded, so seat 2 wins unnamed; the bet nobody called comes back (never raked);
    R-CIRC-12: the house's commission is one of the payments."""
    log = log_of(
        ev.TableEvent(table_hand_started=ev.TableHandStarted(number=3, deck_colour="red")),
        ev.TableEvent(hand_started=ev.HandStarted(settings=ev.CircleSettingsRecord(variant="holdem"),
                                                  deck=ev.DeckRecord(size=52, colour="red"))),
        ev.TableEvent(hand_pot_awarded=ev.HandPotAwarded(index=0, amount=10, rake=1, eligible=[2],
                                                         contributors=[1, 2, 3],
                                                         shares=[ev.PotShareRecord(seat=2, amount=9)])),
        ev.TableEvent(hand_pot_awarded=ev.HandPotAwarded(index=1, amount=40, eligible=[2], contributors=[2],
                                                         shares=[ev.PotShareRecord(seat=2, amount=40)])),
    )
    assert result_text(log, Labels("en"), banked=False).plain.splitlines() == [
        "Result of hand 3",
        "  main pot 10 (rake 1) — seat 2 wins without showing",
        "  uncalled bet: 40 back to seat 2",
        "Payments",
        "  pay 49 to seat 2: 9 from the main pot + 40 (his uncalled bet)",
        "  rake to the house: 1",
    ]


def test_casino_draw_bank_that_does_not_qualify_is_named_and_the_boxes_are_not_opened() -> None:
    """R-CDP-4, R-CDP-5: the bank (Kd 7c 5h 3s 2d) changes 3s 2d by the house way, draws 4c 8h and still has king
    high: it pays the ante and returns the play bet; box 1's cards are not opened, so not named."""
    dealt = [ev.TableEvent(cdp_hand_card_dealt=ev.CdpHandCardDealt(box=box, card=card))
             for box, cards in ((1, "As Ks 9d 9c 2h"), (0, "Kd 7c 5h 3s 2d")) for card in cards.split()]
    log = log_of(
        ev.TableEvent(banked_table_hand_started=ev.BankedTableHandStarted(number=1, deck_colour="blue")),
        ev.TableEvent(cdp_hand_started=ev.CdpHandStarted(deck=ev.DeckRecord(size=52, colour="blue"))),
        *dealt,
        ev.TableEvent(cdp_hand_bet_placed=ev.CdpHandBetPlaced(box=1, spot="play", amount=20)),
        ev.TableEvent(cdp_hand_bank_exchanged=ev.CdpHandBankExchanged(cards=["3s", "2d"])),
        ev.TableEvent(cdp_hand_card_dealt=ev.CdpHandCardDealt(box=0, card="4c")),
        ev.TableEvent(cdp_hand_card_dealt=ev.CdpHandCardDealt(box=0, card="8h")),
        ev.TableEvent(cdp_hand_box_settled=ev.CdpHandBoxSettled(box=1, result={"ante": 10, "play": 0})),
        ev.TableEvent(cdp_hand_completed=ev.CdpHandCompleted(bank_qualified=False, bank_result=-10)),
    )
    assert result_text(log, Labels("es"), banked=True).plain.splitlines() == [
        "Resultado de la mano 1",
        "  Banca enseña Kd 7t 5c 4t 8c: carta alta, rey",  # picas, corazones, diamantes, tréboles
        "  la banca no califica (R-CDP-5)",
        "  caja 1: ante +10, play +0 → total +10",
        "  resultado de la casa -10",
        "Pagos",
        "  pagar 10 a la caja 1 (ante 10); devolver a la caja 1: play",
    ]
