"""Random legal play through the application (``service.app.application.PokerTables``), as the stations drive it: every
card, bet and decision is a command with its own command id.  Used to write the fixture database of
``tests/support/make_fixture_before_move.py`` and, by ``tests/app/test_fixture_before_move.py``, to play on at its
tables."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from domain.actions import (
    Action,
    ApproveBonus,
    BetTo,
    BringIn,
    Call,
    Check,
    CloseBets,
    Deal,
    Discard,
    Exchange,
    FlopBet,
    Fold,
    Muck,
    PlaceAnte,
    PlaceBonus,
    Play,
    RefuseBonus,
    ReshuffleDiscards,
    Show,
    StreetBet,
    Void,
)
from domain.banked.cdp import CdpHand, CdpStage
from domain.banked.thb import Stage, ThbHand
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity, composition
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.state import Phase
from domain.circle.table import Table
from service.app.application import (
    PokerTables,
    Role,
    Viewer,
)
from service.app.commands import Act, AddChips, OpenTable, Sit, StartHand

PIT = Viewer("pit-boss-1", Role.PIT_BOSS)
DIRECTOR = Viewer("games-director-1", Role.GAMES_DIRECTOR)


def dealer(table: str) -> Viewer:
    """The dealer station of ``table``."""
    return Viewer(f"dealer-{table}", Role.DEALER, table)


class Ids:
    """Command ids ``PREFIX-1``, ``PREFIX-2``, …: deterministic for a given prefix."""

    def __init__(self, prefix: str) -> None:
        self.prefix, self.count = prefix, 0

    def __call__(self) -> str:
        self.count += 1
        return f"{self.prefix}-{self.count}"


def colour_of_hand(number: int) -> BackColour:
    """R-DECK-2: the red deck for odd hands, the blue one for even hands (every started hand counts)."""
    return BackColour.RED if number % 2 else BackColour.BLUE


def next_deck(app: PokerTables, table: str) -> DeckIdentity:
    """The deck of the table's next hand: its size (R-CARD-2, R-DRAW-8) and the alternating colour (R-DECK-2)."""
    record = app.any_table(table)
    size = record.deck_size_for_next_hand() if isinstance(record, Table) else 52
    return DeckIdentity(size, colour_of_hand(record.hands_started + 1))


def start_circle_hand(app: PokerTables, table: str, ids: Ids, *, rebuy: int = 100) -> tuple[DeckIdentity, int]:
    """Start the next hand at a circle table, after a player out of chips buys ``rebuy`` more: its deck and
    number."""
    for seat, stack in sorted(app.table(table).stacks.items()):
        if stack == 0:
            app.handle(AddChips(ids(), table, seat, rebuy))
    deck = next_deck(app, table)
    started = app.handle(StartHand(ids(), table, deck)).number
    assert started is not None
    return deck, started


def _circle_hand(app: PokerTables, table: str) -> Hand | None:
    record = app.table(table)
    return None if record.hand_in_progress is None else app.hand(record.hand_in_progress)


def play_circle_hand(app: PokerTables, table: str, deck: DeckIdentity, rng: random.Random, ids: Ids, *,
                     passive: bool = False, void_after: int | None = None) -> Hand:
    """Play the hand in progress to its end with random legal commands, dealing from ``deck`` shuffled by ``rng``.
    ``passive``: everybody checks or calls (a draw hand nobody opens is blank, R-DRAW-3); ``void_after``: after that
    many commands the pit voids the hand (R-CIRC-14).  The finished hand is returned."""
    station = dealer(table)
    stock = list(composition(deck.size))
    rng.shuffle(stock)
    commands = 0
    for _ in range(2000):
        hand = _circle_hand(app, table)
        if hand is None:
            record = app.table(table)
            return app.hand(record.hand_id(record.hands_started))
        if void_after is not None and commands >= void_after:
            command = Void(rule="R-CIRC-14", reason="a card turned face up in the deal")
            app.handle(Act(ids(), table, command), PIT)
            continue
        app.handle(Act(ids(), table, _circle_command(hand, rng, stock, passive=passive)), station)
        commands += 1
    raise AssertionError(f"the hand at {table} did not end")


def _circle_command(hand: Hand, rng: random.Random, stock: list[Card], *, passive: bool) -> Action:
    """The next command of a randomly played hand (cards are taken from ``stock``)."""
    state = hand.state
    if state.next_slot is not None:
        if hand.can_reshuffle_discards():  # R-DRAW-8: the discards, shuffled, become the stock
            back = state.reshufflable()
            rng.shuffle(back)
            stock.extend(back)
            return ReshuffleDiscards()
        return Deal(card=stock.pop(0))
    drawer = hand.drawer_seat
    if drawer is not None:
        position = hand.position_of(drawer)
        held = state.cards_of(position)
        count = 0 if passive else rng.randint(0, state.max_discard(position))
        return Discard(seat=drawer, cards=tuple(rng.sample(held, count)))
    legal = hand.legal_actions()
    if legal is not None:
        return _betting(hand, legal.seat, rng, passive=passive)
    if state.phase is Phase.SHOWDOWN or state.betting_closed:
        contenders = [hand.seat_of(p) for p in state.in_hand if p not in state.shown]
        turn = state.to_show  # R-CIRC-13: in order at the showdown; all-in before it, any order
        seat = rng.choice(contenders) if turn is None else hand.seat_of(turn)
        muck = not passive and rng.random() < 0.2 and hand.can_muck(seat)
        return Muck(seat) if muck else Show(seat)
    raise AssertionError(f"stuck: {hand.snapshot()}")


def _betting(hand: Hand, seat: int, rng: random.Random, *, passive: bool) -> Action:
    legal = hand.legal_actions()
    assert legal is not None
    roll = 1.0 if passive else rng.random()
    if legal.bring_in is not None and (roll < 0.6 or legal.raise_min is None):
        return BringIn(seat=seat)
    if legal.raise_min is not None and legal.raise_max is not None and (roll < 0.3 or legal.bring_in is not None):
        amounts = [legal.raise_min, legal.raise_max]
        if hand.state.settings.structure is not BettingStructure.FIXED_LIMIT:
            amounts.append(rng.randint(legal.raise_min, legal.raise_max))
        return BetTo(seat=seat, amount=rng.choice(amounts))
    if legal.call is not None and roll < 0.45 and legal.fold:
        return Fold(seat=seat)
    return Check(seat) if legal.check else Call(seat)


# -- banked tables ----------------------------------------------------------------------------------


def start_banked_hand(app: PokerTables, table: str, ids: Ids, antes: dict[int, int],
                      bonuses: dict[int, int] | None = None) -> int:
    """Start the next banked hand, place the antes (and Texas Hold'em Bonus bonuses), close the bets; its number."""
    station = dealer(table)
    number = app.handle(StartHand(ids(), table, next_deck(app, table))).number
    assert number is not None
    for box, amount in antes.items():
        app.handle(Act(ids(), table, PlaceAnte(seat=box, amount=amount)), station)
    for box, amount in (bonuses or {}).items():
        app.handle(Act(ids(), table, PlaceBonus(seat=box, amount=amount)), station)
    app.handle(Act(ids(), table, CloseBets()), station)
    return number


def banked_hand_in_progress(app: PokerTables, table: str) -> ThbHand | CdpHand | None:
    """The banked hand in progress at ``table``, if any."""
    record = app.any_table(table)
    return None if record.hand_in_progress is None else app.any_hand(record.hand_in_progress)


def play_banked_hand(app: PokerTables, table: str, rng: random.Random, ids: Ids, *, cards: list[Card] | None = None,
                     approve: bool | None = None, void_after: int | None = None) -> ThbHand | CdpHand:
    """Play the banked hand in progress to its end: cards from ``cards`` (then a shuffled rest of the deck), random
    legal decisions; a 1000:1 bonus approved or refused by the games director (``approve``, else at random);
    ``void_after``: after that many commands the pit voids the whole play (R-THB-11)."""
    station = dealer(table)
    stock = _stock(rng, cards)
    commands = 0
    for _ in range(500):
        hand = banked_hand_in_progress(app, table)
        if hand is None:
            record = app.any_table(table)
            last: ThbHand | CdpHand = app.any_hand(record.hand_id(record.hands_started))
            return last
        if void_after is not None and commands >= void_after:
            command = Void(rule="R-THB-11", reason="a card turned face up in the deal")
            app.handle(Act(ids(), table, command), PIT)
            continue
        if isinstance(hand, ThbHand) and hand.pending_approval:
            box = min(hand.pending_approval)
            yes = rng.random() < 0.5 if approve is None else approve
            decision = ApproveBonus(seat=box, reason="cards and camera checked") if yes else \
                RefuseBonus(seat=box, reason="the cards are under review")
            app.handle(Act(ids(), table, decision), DIRECTOR)
            continue
        app.handle(Act(ids(), table, _banked_command(hand, rng, stock)), station)
        commands += 1
    raise AssertionError(f"the hand at {table} did not end")


def _stock(rng: random.Random, first: list[Card] | None) -> Iterator[Card]:
    rest = [card for card in composition(52) if card not in (first or [])]
    rng.shuffle(rest)
    return iter([*(first or []), *rest])


def _banked_command(hand: ThbHand | CdpHand, rng: random.Random, stock: Iterator[Card]) -> Action:
    if hand.next_card is not None:
        return Deal(card=next(stock))
    box = hand.to_decide
    assert box is not None, hand.stage
    ante = hand.bets[box]["ante"]
    roll = rng.random()
    if isinstance(hand, ThbHand):
        if hand.stage is Stage.PREFLOP:
            return Fold(seat=box) if roll < 0.25 else FlopBet(seat=box, amount=2 * ante)
        return StreetBet(seat=box, amount=ante) if roll < 0.5 else Check(seat=box)
    if hand.stage is CdpStage.EXCHANGE:
        return Exchange(seat=box, cards=tuple(rng.sample(hand.cards[box], rng.randint(0, 2))))
    return Play(seat=box, amount=2 * ante) if roll < 0.7 else Fold(seat=box)


def table_state(app: PokerTables, table: str) -> dict[str, Any]:
    """What the fixture records of a table between hands, from the application: for a circle table its stacks,
    button, carried pot and openers (R-DRAW-2, R-DRAW-3) and how each hand ended (as a search lists it); for a
    banked table the house's result and each hand's stage and results; for both, the counts of hands, device
    reports and reconstructions.  JSON-ready."""
    record = app.any_table(table)
    common = {"hands_started": record.hands_started, "in_progress": record.hand_in_progress is not None,
              "device_reports": record.device_reports, "reconstructions": record.reconstructions}
    if isinstance(record, Table):
        hands = [{"number": summary.number, "outcome": summary.outcome, "pot": summary.pot,
                  "winners": list(summary.winners), "seats": list(summary.seats),
                  "net": {str(seat): net for seat, net in summary.net.items()}}
                 for summary in app.views.search_hands(table)]
        return {**common, "kind": "circle", "variant": record.settings.variant, "hands": hands,
                "stacks": {str(seat): stack for seat, stack in sorted(record.stacks.items())},
                "button_seat": record.button_seat, "carried_pot": record.carried_pot,
                "openers": record.openers.name.lower(), "blank_hands": record.blank_hands,
                "reshuffle_required": record.reshuffle_required}
    played = [app.any_hand(record.hand_id(number)) for number in range(1, record.hands_started + 1)]
    hands = [{"number": hand.number, "stage": hand.stage.value, "bank_result": hand.bank_result(),
              "results": {str(box): dict(result) for box, result in sorted(hand.results.items())}}
             for hand in played]
    return {**common, "kind": "banked", "game": record.game, "bank_result": record.bank_result, "hands": hands,
            "reshuffle_pending": record.reshuffle_pending}


def _play_recording(app: PokerTables) -> tuple[UUID, dict[int, dict[str, Any]]]:
    """A hand through the service, with the state the service reported after each command."""
    counter = iter(range(10**6))
    pit = Viewer("pit", Role.PIT_BOSS)
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=True)
    app.handle(OpenTable(f"r-{next(counter)}", "Mesa R", settings))
    for seat in (1, 2, 3):
        app.handle(Sit(f"r-{next(counter)}", "Mesa R", seat, 300))
    app.handle(StartHand(f"r-{next(counter)}", "Mesa R", DeckIdentity(52, BackColour.RED)))
    (hand_id,) = app.hands_of("Mesa R")
    seen: dict[int, dict[str, Any]] = {}
    cards = iter(["As", "Kd", "Qh", "Ac", "Kc", "Qs", "2c", "7d", "8d", "9d", "3c", "Td", "4c", "Jd"])

    def command(action: Action) -> None:
        app.handle(Act(f"r-{next(counter)}", "Mesa R", action), pit)
        hand = app.hand(hand_id)
        seen[hand.version] = hand.snapshot()

    while not (hand := app.hand(hand_id)).is_complete:
        if hand.state.next_slot is not None:
            command(Deal(card=Card.parse(next(cards)), source="shoe", sequence=len(seen) + 1))
        elif (legal := hand.legal_actions()) is not None:
            command(Call(legal.seat) if legal.call else Check(legal.seat))
        else:
            seat = hand.next_to_show_seat or next(s for s in hand.seats if not hand.state.folded[hand.position_of(s)]
                                                  and hand.position_of(s) not in hand.state.shown)
            command(Show(seat=seat))
    return hand_id, seen
