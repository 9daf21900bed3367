"""Pineapple (house game, not in the regulation; R-PINE-1, docs/circle.md): the draw as a discard rule given as data.

Crazy Pineapple as casinos deal it: three down cards, blinds, preflop betting, the flop, its betting; then every player
still in throws exactly one down card, face down, all at once (in any order), and gets none back; then the turn and the
river.  The hand is the best five of the two kept cards and the board, as in Hold'em.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards.cards import Card, parse_cards
from domain.cards.hand_classes import Category
from domain.circle.hand import Hand
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.state import HandRuleError, Phase, SlotKind
from domain.circle.variants import DRAW, PINEAPPLE, VARIANTS
from service.api import types_pb2 as pb
from service.app.visibility import HIDDEN, event_payload
from service.cli.service_demo import CIRCLE_TABLES
from tests.support.circle_support import Hands, Stock, _random_action, deal, shuffled, start
from tests.support.circle_tables import Table, chips_in_play, dealt_cards, tables

HOLE = "Ah Qc 7d Ad Qd 6d 5c 3h 3c"  # seat 1: Ah Ad 5c; seat 2: Qc Qd 3h; seat 3: 7d 6d 3c
FLOP = "Kd 8h 2c"


def pineapple(structure: BettingStructure = BettingStructure.NO_LIMIT) -> TableSettings:
    """Pineapple with blinds 1 and 2, no burns, so a test deals only the cards it names."""
    return TableSettings.create("pineapple", structure, blinds=(1, 2), small_bet=2, big_bet=4, burn_cards=False)


def to_the_discard(hand: Hand) -> None:
    """Seat 3 folds before the flop; seats 1 and 2 see the flop and check it: the discard is due."""
    deal(hand, HOLE)
    hand.fold(3)
    hand.call(1)
    hand.check(2)
    deal(hand, FLOP)
    hand.check(1)
    hand.check(2)


def test_r_pine_1_pineapple_is_a_ninth_circle_variant_given_as_data() -> None:
    variant = VARIANTS["pineapple"]
    assert [street.name for street in variant.streets] == ["preflop", "flop", "turn", "river"]
    assert variant.streets[0].hole == (False, False, False) and variant.hand_rule == "holdem"
    assert [street.discard for street in variant.streets] == [None, None, PINEAPPLE, None]
    assert (PINEAPPLE.min_cards, PINEAPPLE.max_cards, PINEAPPLE.replacement, PINEAPPLE.in_turn) == (1, 1, False, False)
    assert (DRAW.min_cards, DRAW.max_cards, DRAW.replacement, DRAW.in_turn, DRAW.keep_for_openers) == \
        (0, 4, True, True, True)
    assert VARIANTS["draw"].streets[1].discard is DRAW, "five-card draw is the same seam with its own rule"


def test_r_pine_1_three_hole_cards_are_dealt_face_down_to_each_player() -> None:
    hand = start(pineapple(), [50, 50, 50])
    deal(hand, HOLE)
    assert [hand.state.cards_of(p) for p in range(3)] == [parse_cards("Ah Ad 5c"), parse_cards("Qc Qd 3h"),
                                                          parse_cards("7d 6d 3c")]
    assert not any(up for cards in hand.state.hole for _, up in cards)
    assert hand.actor_seat == 3, "blinds, then preflop betting from the left of the big blind"


def test_r_pine_1_no_discard_before_the_flop_betting_is_over() -> None:
    hand = start(pineapple(), [50, 50, 50])
    deal(hand, HOLE)
    with pytest.raises(HandRuleError, match="after the flop betting") as preflop:
        hand.discard(1, [Card.parse("Ad")])
    assert preflop.value.rule == "R-PINE-1"
    hand.fold(3)
    hand.call(1)
    hand.check(2)
    deal(hand, FLOP)
    hand.check(1)
    assert not hand.can_discard(1, [Card.parse("Ad")]), "the flop betting is still open"
    assert not hand.can_discard(2, [Card.parse("3h")])
    hand.check(2)
    assert hand.state.phase is Phase.DRAWING and hand.can_discard(1, [Card.parse("Ad")])


def test_r_pine_1_each_player_still_in_discards_exactly_one_card() -> None:
    hand = start(pineapple(), [50, 50, 50])
    to_the_discard(hand)
    assert sorted(hand.state.drawers) == [0, 1], "the folded player has nothing to discard"
    assert hand.state.min_discard(0) == hand.state.max_discard(0) == 1
    for cards in ([], parse_cards("Ad 5c")):
        with pytest.raises(HandRuleError, match="exactly 1 card") as wrong:
            hand.discard(1, cards)
        assert wrong.value.rule == "R-PINE-1"
    with pytest.raises(HandRuleError, match="his own cards") as foreign:
        hand.discard(1, [Card.parse("Qc")])
    assert foreign.value.rule == "R-PINE-1"
    assert not hand.can_discard(3, [Card.parse("7d")]), "a folded player does not discard"


def test_r_pine_1_players_discard_in_any_order_and_none_twice() -> None:
    hand = start(pineapple(), [50, 50, 50])
    to_the_discard(hand)
    version = hand.version
    hand.discard(2, [Card.parse("3h")])  # the big blind before the small blind: all at once, in any order
    with pytest.raises(HandRuleError, match="already discarded") as twice:
        hand.discard(2, [Card.parse("Qd")])
    assert twice.value.rule == "R-PINE-1"
    assert hand.version == version + 1, "the refused discard recorded nothing"
    assert hand.state.phase is Phase.DRAWING and hand.drawer_seat == 1
    hand.discard(1, [Card.parse("Ad")])
    assert not hand.can_discard(1, [Card.parse("5c")]), "the discard is over"


def test_r_pine_1_no_card_replaces_the_discard_and_the_turn_follows() -> None:
    hand = start(pineapple(), [50, 50, 50])
    to_the_discard(hand)
    hand.discard(1, [Card.parse("Ad")])
    assert hand.state.next_slot is None, "no replacement card is due after a discard"
    hand.discard(2, [Card.parse("3h")])
    assert hand.state.cards_of(0) == parse_cards("Ah 5c") and hand.state.cards_of(1) == parse_cards("Qc Qd")
    assert hand.state.discards == parse_cards("Ad 3h") and hand.state.opener_discards == []
    slot = hand.state.next_slot
    assert slot is not None and slot.kind is SlotKind.BOARD and hand.state.street.name == "turn"


def test_r_pine_1_the_turn_is_burned_after_the_discard_when_burns_are_on() -> None:
    settings_ = TableSettings.create("pineapple", BettingStructure.NO_LIMIT, blinds=(1, 2))
    hand = start(settings_, [50, 50, 50])
    deal(hand, HOLE)
    hand.fold(3)
    hand.call(1)
    hand.check(2)
    deal(hand, "Js " + FLOP)  # R-FLOP-2: a burn before the flop
    hand.check(1)
    hand.check(2)
    hand.discard(1, [Card.parse("Ad")])
    hand.discard(2, [Card.parse("3h")])
    slot = hand.state.next_slot
    assert slot is not None and slot.kind is SlotKind.BURN, "the turn's burn comes after the discard"


def test_r_pine_1_the_showdown_uses_the_two_kept_cards_and_the_board() -> None:
    """Seat 1 threw the ace that would have paired his: his ace high loses to seat 2's queens."""
    hand = start(pineapple(), [50, 50, 50])
    to_the_discard(hand)
    hand.discard(2, [Card.parse("3h")])
    hand.discard(1, [Card.parse("Ad")])
    deal(hand, "9s")
    hand.check(1)
    hand.check(2)
    deal(hand, "4s")
    hand.check(1)
    hand.check(2)
    assert hand.state.value_of(0).category is Category.HIGH_CARD
    assert hand.state.value_of(1).category is Category.PAIR
    hand.show(1)
    hand.show(2)
    assert hand.is_complete
    assert hand.state.stacks == [48, 52, 50]


def test_r_pine_1_discards_are_face_down_for_a_station_that_may_not_see_them() -> None:
    hand = start(pineapple(), [50, 50, 50])
    to_the_discard(hand)
    hand.discard(1, [Card.parse("Ad")])
    event = list(hand.collect_events())[-1]
    assert isinstance(event, Hand.Discarded)
    data = {"seat": event.seat, "cards": list(event.cards), "kept_for_openers": event.kept_for_openers}
    assert data["cards"] == ["Ad"] and not data["kept_for_openers"]
    assert event_payload("Hand.Discarded", data, sees_down_cards=False)["cards"] == [HIDDEN]
    assert event_payload("Hand.Discarded", data, sees_down_cards=True)["cards"] == ["Ad"]


def test_r_pine_1_the_demo_does_not_deal_pineapple() -> None:
    """A casino's own choice, not in the regulation: the demo deals only the regulation's games."""
    assert pb.GAME_PINEAPPLE not in {game for _, game, _, _ in CIRCLE_TABLES}
    assert len(CIRCLE_TABLES) == 6  # the six circle games of the regulation


def _play(hand: Hand, rng: random.Random, stock: Stock) -> None:
    """Random legal play, each discarder picked at random among those still to discard (any order)."""
    for _ in range(500):
        state = hand.state
        if hand.is_complete:
            return
        if state.next_slot is not None:
            hand.deal(next(stock), source="test")
        elif state.phase is Phase.DRAWING:
            position = rng.choice(list(state.drawers))
            assert len(state.cards_of(position)) == 3, "a player discards once, from his three cards"
            hand.discard(hand.seat_of(position), [rng.choice(state.cards_of(position))])
        elif (legal := hand.legal_actions()) is not None:
            _random_action(hand, legal.seat, rng)
        else:
            waiting = [p for p in state.in_hand if p not in state.shown]
            hand.show(hand.next_to_show_seat or hand.seat_of(rng.choice(waiting)))
    raise AssertionError("the hand did not end in 500 steps")


@settings(max_examples=150)
@given(tables(("pineapple",)), st.randoms(use_true_random=False))
def test_r_pine_1_random_hands_conserve_chips_keep_two_cards_and_replay_identically(
    table: Table, rng: random.Random
) -> None:
    hand = start(table.settings, table.stacks)
    total = sum(table.stacks)
    _play(hand, rng, Stock(shuffled(52, rng), rng))
    state = hand.state
    rake = sum(award.rake for award in state.awards)
    assert chips_in_play(hand) == total and sum(state.stacks) + rake == total, "chips appeared or vanished"
    assert len(dealt_cards(hand)) == len(set(dealt_cards(hand))), "a card is in two places"
    if len(state.board) == 5:  # the hand reached the showdown: every player still in kept two cards
        assert all(len(state.cards_of(p)) == 2 for p in state.in_hand)
        assert len(state.discards) >= len(state.in_hand) and state.opener_discards == []
    app = Hands()
    app.save(hand)
    stored: object = app.repository.get(hand.id)
    assert isinstance(stored, Hand) and stored.snapshot() == hand.snapshot()
