"""Five-card draw with discard, as the regulation states it (R-DRAW-1 … R-DRAW-8)."""

from __future__ import annotations

import random

import pytest

from domain.cards.cards import Card, Rank, parse_cards
from domain.cards.decks import BackColour, DeckIdentity, composition
from domain.cards.ranking import hand_ranking
from domain.circle.hand import TABLES_NAMESPACE, Hand
from domain.circle.seating import button_of
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.state import HandRuleError, Phase
from domain.circle.table import Table
from domain.circle.variants import draw_deck_size
from tests.support.circle_support import Stock, deal, play_randomly

DRAW = TableSettings.create("draw", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4)

# Three players, a 32-card deck: seat 1 Jc Jd 7c 8c 9c (jacks), seat 2 Ac Kd Qh Ts 8s (nothing),
# seat 3 Th Td 9s 9d 7h (two pair). Dealt one card at a time.
THREE_HANDS = "Jc Ac Th Jd Kd Td 7c Qh 9s 8c Ts 9d 9c 8s 7h"


def draw_hand(stacks: list[int], cards: str = THREE_HANDS, openers: Rank = Rank.JACK, carried: int = 0) -> Hand:
    seats = list(range(1, len(stacks) + 1))
    hand = Hand.start(TABLES_NAMESPACE, 1, DRAW, seats=seats, stacks=stacks, button_seat=button_of(DRAW, seats),
                      deck=DeckIdentity(draw_deck_size(len(stacks)), BackColour.RED), openers=openers,
                      carried_pot=carried)
    deal(hand, cards)
    return hand


def test_r_draw_1_everyone_antes_gets_five_cards_down_and_the_player_left_of_the_button_starts() -> None:
    hand = draw_hand([50, 50, 50])
    assert hand.state.contributed == [1, 1, 1]
    assert all(len(cards) == 5 and not any(up for _, up in cards) for cards in hand.state.hole)
    assert hand.actor_seat == 1


def test_r_draw_2_opening_needs_jacks_or_better_and_checking_is_allowed_either_way() -> None:
    hand = draw_hand([50, 50, 50])
    hand.check(1)  # seat 1 has jacks and checks: allowed
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 2 and legal.raise_min is None and not legal.fold
    with pytest.raises(HandRuleError) as error:
        hand.bet_or_raise_to(2, 2)  # ace high: no openers
    assert error.value.rule == "R-DRAW-2"
    with pytest.raises(HandRuleError) as error:
        hand.fold(2)  # nobody has opened: one passes by checking
    assert error.value.rule == "R-DRAW-2"
    hand.check(2)
    hand.bet_or_raise_to(3, 2)  # two pair opens
    assert hand.opener_seat == 3


def test_r_draw_3_when_everybody_checks_the_hand_is_blank_and_the_pot_stays() -> None:
    hand = draw_hand([50, 50, 50])
    for seat in (1, 2, 3):
        hand.check(seat)
    assert hand.is_complete and hand.carried_out == 3
    assert hand.stacks == [49, 49, 49]
    assert hand.state.passed_rule == "R-DRAW-3"


def test_r_draw_3_after_a_blank_hand_queens_are_needed_to_open() -> None:
    hand = draw_hand([50, 50, 50], openers=Rank.QUEEN, carried=3)
    with pytest.raises(HandRuleError) as error:
        hand.bet_or_raise_to(1, 2)  # jacks no longer open
    assert error.value.rule == "R-DRAW-3"
    assert hand.state.pot_total + hand.state.dead_money == 6  # the old pot and the new antes


def test_r_draw_3_openers_rise_to_queens_kings_aces_and_return_to_jacks_after_an_opened_hand() -> None:
    table = Table.open("Draw 1", DRAW)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    seen = []
    rng = random.Random(1)
    for checks_through in (True, True, True, True, False, True):
        seen.append(table.openers)
        hand = table.start_hand(DeckIdentity(table.deck_size_for_next_hand(), BackColour.RED))
        stock = Stock(_ordered(hand, rng), rng)
        while hand.state.next_slot is not None:
            hand.deal(next(stock))
        if checks_through:
            while not hand.is_complete:
                actor = hand.actor_seat
                assert actor is not None
                hand.check(actor)
        else:
            _open_the_pot(hand)
            play_randomly(hand, rng, stock)
        table.finish_hand(hand)
    assert seen == [Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE, Rank.ACE, Rank.JACK]


def _ordered(hand: Hand, rng: random.Random) -> list[Card]:
    cards = list(composition(hand.state.deck_size))
    rng.shuffle(cards)
    return cards


def _open_the_pot(hand: Hand) -> None:
    """The first player holding openers opens at the smallest bet."""
    while hand.actor_seat is not None and hand.opener_seat is None:
        seat = hand.actor_seat
        legal = hand.legal_actions()
        assert legal is not None
        if legal.raise_min is not None:
            hand.bet_or_raise_to(seat, legal.raise_min)
        else:
            hand.check(seat)
    if hand.opener_seat is None:
        pytest.skip("nobody held the openers in this deal")


def _open_and_call(hand: Hand) -> None:
    hand.bet_or_raise_to(1, 2)  # seat 1 opens with jacks
    hand.call(2)
    hand.call(3)


def test_r_draw_4_players_draw_in_turn_from_the_opener_each_served_before_the_next() -> None:
    hand = draw_hand([50, 50, 50])
    _open_and_call(hand)
    assert hand.state.phase is Phase.DRAWING and hand.drawer_seat == 1
    with pytest.raises(HandRuleError) as error:
        hand.discard(2, parse_cards("Ac"))
    assert error.value.rule == "R-DRAW-4"
    hand.discard(1, parse_cards("7c 8c 9c"))
    assert hand.drawer_seat is None  # seat 1 is being served
    with pytest.raises(HandRuleError):
        hand.discard(2, parse_cards("Ac"))
    deal(hand, "Ah As Ad")
    assert hand.drawer_seat == 2


def test_r_draw_4_a_player_draws_zero_to_four_of_his_own_cards() -> None:
    hand = draw_hand([50, 50, 50])
    _open_and_call(hand)
    with pytest.raises(HandRuleError) as error:
        hand.discard(1, parse_cards("Jc Jd 7c 8c 9c"))
    assert error.value.rule == "R-DRAW-4"
    with pytest.raises(HandRuleError):
        hand.discard(1, parse_cards("Ac"))  # not his card
    hand.discard(1, [])  # standing pat ("servido")
    assert hand.drawer_seat == 2


def test_r_draw_5_the_opener_may_break_his_openers_and_his_discards_prove_them() -> None:
    hand = draw_hand([50, 50, 50])
    _open_and_call(hand)
    hand.discard(1, parse_cards("Jd"))  # breaks the jacks for a straight-flush draw
    deal(hand, "Tc")
    assert hand.state.opener_discards == parse_cards("Jd") and hand.state.discards == []
    hand.discard(2, parse_cards("8s"))
    deal(hand, "Qd")
    hand.discard(3, parse_cards("7h"))
    deal(hand, "Ks")
    for seat in (1, 2, 3):
        hand.check(seat)
    for seat in (1, 2, 3):  # R-CIRC-13: no bet after the draw: the opener shows first
        hand.show(seat)
    assert hand.stacks == [56, 47, 47]  # seat 1's seven-to-jack straight flush takes the pot of 9


def test_r_draw_6_the_second_interval_starts_with_the_opener() -> None:
    hand = draw_hand([50, 50, 50])
    hand.check(1)
    hand.check(2)
    hand.bet_or_raise_to(3, 2)  # seat 3 opens
    hand.call(1)
    hand.call(2)
    assert hand.drawer_seat == 3
    hand.discard(3, [])
    hand.discard(1, [])
    hand.discard(2, [])
    assert hand.actor_seat == 3
    legal = hand.legal_actions()
    assert legal is not None and legal.raise_min == 4  # the big bet after the draw


def test_r_draw_7_an_opener_who_cannot_show_openers_has_a_dead_hand_and_the_others_contest_the_pot() -> None:
    hand = draw_hand([50, 50, 50])
    _open_and_call(hand)
    for seat in (1, 2, 3):
        hand.discard(seat, [])
    for seat in (1, 2, 3):
        hand.check(seat)
    hand.muck(1)  # the opener does not show
    hand.show(2)
    hand.show(3)
    assert hand.stacks == [47, 47, 56]  # seat 3's two pair takes the 9 chips


def test_r_draw_7_when_nobody_else_is_left_the_pot_carries_to_the_next_hand() -> None:
    hand2 = draw_hand([50, 50], cards="Jc Ac Jd Kd 7c Qh 8c Ts 9c 8s")  # two players: 32 cards
    hand2.bet_or_raise_to(1, 2)
    hand2.call(2)
    hand2.discard(1, [])
    hand2.discard(2, [])
    hand2.check(1)
    hand2.bet_or_raise_to(2, 4)
    hand2.call(1)
    hand2.muck(2)  # R-CIRC-13: the last to bet shows first; he gives up his claim
    hand2.muck(1)  # the opener mucks too: he cannot prove openers
    assert hand2.is_complete and hand2.carried_out == 14 and hand2.state.passed_rule == "R-DRAW-7"
    assert hand2.stacks == [43, 43]


@pytest.mark.parametrize(("players", "size"), [(2, 32), (4, 32), (5, 36), (6, 40), (7, 44), (8, 48), (9, 52)])
def test_r_draw_8_the_deck_follows_the_number_of_players(players: int, size: int) -> None:
    assert draw_deck_size(players) == size
    table = Table.open(f"Draw {players}", DRAW)
    for seat in range(1, players + 1):
        table.sit(seat, 100)
    assert table.deck_size_for_next_hand() == size
    with pytest.raises(HandRuleError) as error:
        table.start_hand(DeckIdentity(52 if size != 52 else 32, BackColour.RED))
    assert error.value.rule == "R-DRAW-8"
    table.start_hand(DeckIdentity(size, BackColour.BLUE))


def test_r_draw_8_the_deck_size_may_be_set_by_the_table() -> None:
    settings = TableSettings.create("draw", BettingStructure.POT_LIMIT, antes=1, min_bet=2, deck_size=40)
    assert settings.deck_for(3) == 40 and settings.deck_for(9) == 40


def test_r_draw_8_when_the_stock_runs_out_the_discards_but_never_the_openers_are_reshuffled_after_a_burn() -> None:
    stacks = [50] * 6  # 40 cards: 30 dealt, 10 left
    cards = [c for c in composition(40)]
    rng = random.Random(7)
    for _ in range(200):  # find a deal where seat 1 can open
        rng.shuffle(cards)
        first = cards[0:30:6]
        if hand_ranking(40).evaluate(first).category.value >= 3:  # trips or better: surely opens
            break
    hand = draw_hand(stacks, cards=" ".join(str(c) for c in cards[:30]))
    stock = Stock(cards[30:], rng)
    hand.bet_or_raise_to(1, 2)
    for seat in range(2, 7):
        hand.call(seat)
    for seat in range(1, 7):
        held = hand.state.cards_of(hand.position_of(seat))
        hand.discard(seat, held[:4] if seat > 1 else held[:1])
        while hand.state.next_slot is not None:
            if hand.can_reshuffle_discards():
                back = hand.state.reshufflable()
                assert not set(back) & set(hand.state.opener_discards)
                stock.reshuffle(hand)
                assert hand.state.next_slot is not None and hand.state.next_slot.kind.value == "burn"
            hand.deal(next(stock))
    assert hand.state.phase is Phase.BETTING
    live = [c for cards_ in hand.state.hole for c, _ in cards_] + hand.state.burned + hand.state.discards \
        + hand.state.opener_discards
    assert len(live) == len(set(live))
    assert any(type(e).__name__ == "DiscardsReshuffled" for e in hand.pending_events)


def test_reshuffling_is_refused_while_the_stock_can_serve_the_draw() -> None:
    hand = draw_hand([50, 50, 50])
    _open_and_call(hand)
    hand.discard(1, parse_cards("7c"))
    with pytest.raises(HandRuleError) as error:
        hand.reshuffle_discards()
    assert error.value.rule == "R-DRAW-8"
