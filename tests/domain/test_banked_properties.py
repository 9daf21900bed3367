"""Invariants of the banked games over random legal play (hypothesis), and the exact bonus edge by brute force."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest
from eventsourcing.utils import get_topic
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.banked.box_hand import BankedHand
from domain.banked.cdp import CdpHand
from domain.banked.paytables import STANDARD_BONUS
from domain.banked.thb import ThbHand
from domain.cards.cards import ALL_CARDS, Card, Rank
from service.cli.odds import bonus_exact
from tests.support.banked_support import cdp_hand, play_cdp_randomly, play_thb_randomly, thb_hand
from tests.support.circle_support import Hands

boxes_thb = st.lists(st.integers(1, 7), min_size=1, max_size=7, unique=True)
boxes_cdp = st.lists(st.integers(1, 6), min_size=1, max_size=6, unique=True)


@settings(max_examples=300)
@given(boxes_thb, st.randoms(use_true_random=False), st.data())
def test_thb_chips_are_conserved_every_box_is_settled_once_and_replay_rebuilds_the_hand(
    boxes: list[int], rng: random.Random, data: st.DataObject
) -> None:
    antes = {b: data.draw(st.integers(5, 100)) for b in boxes}
    bonuses = {b: data.draw(st.integers(1, 100)) for b in boxes if data.draw(st.booleans())}
    hand = thb_hand(antes, bonuses)
    play_thb_randomly(hand, rng, irregular=data.draw(st.booleans()))
    app = Hands()
    app.save(hand)
    rebuilt: object = app.repository.get(hand.id)
    assert isinstance(rebuilt, ThbHand) and rebuilt.__dict__.keys() == hand.__dict__.keys()
    assert rebuilt.results == hand.results and rebuilt.stage == hand.stage and rebuilt.board == hand.board
    assert rebuilt.bets == hand.bets and rebuilt.cards == hand.cards and rebuilt.dealer == hand.dealer
    assert rebuilt.pending_events == []  # nothing pending after loading
    settled = [e.box for e in app.events.get(hand.id) if isinstance(e, ThbHand.BoxSettled)]
    if hand.void_rule is None:
        assert sorted(settled) == sorted(b for b in boxes if b not in hand.voided_boxes)
        assert all(times == 1 for times in Counter(settled).values())
        for box, result in hand.results.items():  # every bet on the layout is settled, nothing else
            assert set(result) == set(hand.bets[box])
            for spot, net in result.items():
                assert net >= -hand.bets[box][spot]
    # chips: what the boxes win the bank loses, to the chip
    assert hand.bank_result() + sum(sum(r.values()) for r in hand.results.values()) == 0


@settings(max_examples=300)
@given(boxes_cdp, st.randoms(use_true_random=False), st.data())
def test_cdp_chips_are_conserved_every_box_is_settled_once_and_replay_rebuilds_the_hand(
    boxes: list[int], rng: random.Random, data: st.DataObject
) -> None:
    hand = cdp_hand({b: data.draw(st.integers(5, 100)) for b in boxes})
    play_cdp_randomly(hand, rng)
    app = Hands()
    app.save(hand)
    rebuilt: object = app.repository.get(hand.id)
    assert isinstance(rebuilt, CdpHand)
    assert rebuilt.results == hand.results and rebuilt.bank == hand.bank and rebuilt.cards == hand.cards
    settled = [e.box for e in app.events.get(hand.id) if isinstance(e, CdpHand.BoxSettled)]
    assert sorted(settled) == sorted(boxes)
    assert hand.bank_result() == -sum(sum(r.values()) for r in hand.results.values())
    cards = [*hand.bank, *hand.discards, *(c for cs in hand.cards.values() for c in cs)]
    assert len(cards) == len(set(cards))


@settings(max_examples=100)
@given(boxes_thb, st.randoms(use_true_random=False), st.integers(0, 12), st.booleans())
def test_r_thb_11_a_void_returns_every_bet(boxes: list[int], rng: random.Random, cards_before: int,
                                          shown: bool) -> None:
    """R-THB-11 (a) and (1.c): a dealer card shown before the decisions, or the pit's void, at any point of the
    deal: every bet comes back, nothing is settled."""
    hand = thb_hand({b: 10 for b in boxes}, {b: 5 for b in boxes})
    deck = iter(rng.sample(list(ALL_CARDS), 52))
    for _ in range(cards_before):
        if hand.next_card is None:
            break
        hand.deal(next(deck))
    if shown and hand.can_dealer_card_shown():
        assert not hand.all_decisions_made
        hand.dealer_card_shown()
    else:
        hand.void("R-THB-11", "a box's card turned face up while dealing")
    assert hand.results == {} and hand.bank_result() == 0 and hand.is_complete and hand.void_rule == "R-THB-11"


def test_the_exact_bonus_edge_matches_a_brute_force_count_over_every_player_and_dealer_holding() -> None:
    """R-THB-9: count all 1,326 × 1,225 player and dealer two-card holdings with an independent classifier."""

    def pays(player: tuple[Card, Card], dealer: tuple[Card, Card]) -> int:
        a, b = sorted(player, key=lambda c: c.rank)
        table = STANDARD_BONUS.pays
        if a.rank == b.rank:
            if a.rank is Rank.ACE:
                return table["aces_vs_dealer_aces"] if dealer[0].rank == dealer[1].rank == Rank.ACE else table["aces"]
            return table["kk_qq_jj"] if a.rank >= Rank.JACK else table["pair_2_to_10"]
        if b.rank is Rank.ACE and a.rank is Rank.KING:
            return table["ak_suited"] if a.suit == b.suit else table["ak_offsuit"]
        if b.rank is Rank.ACE and a.rank in (Rank.QUEEN, Rank.JACK):
            return table["aq_aj_suited"] if a.suit == b.suit else table["aq_aj_offsuit"]
        return -1

    total, count, hits = 0, 0, 0
    holdings = list(combinations(ALL_CARDS, 2))
    for player in holdings:
        rest = [c for c in ALL_CARDS if c not in player]
        for dealer in combinations(rest, 2):
            value = pays(player, dealer)
            total += value
            hits += value > 0
            count += 1
    exact = bonus_exact()
    assert count == 1326 * 1225
    assert exact.expected_return == Fraction(total, count)
    assert exact.hit_frequency == Fraction(hits, count)
    assert round(float(exact.house_edge) * 100, 4) == 8.5406


@pytest.mark.parametrize("name", ["BetPlaced", "BetsClosed", "Folded"])
def test_the_events_both_banked_games_record_alike_are_declared_once_and_stored_under_each_game_s_topic(
        name: str) -> None:
    """Issue 31, item 5: a bet, the bets closed and a fold are declared once (domain.banked.box_hand) and each game
    records them under its own topic, as it always has (events stored before still load, R-AUD-1)."""
    shared = getattr(BankedHand, name)
    for hand, module in ((ThbHand, "domain.banked.thb"), (CdpHand, "domain.banked.cdp")):
        event = getattr(hand, name)
        assert issubclass(event, shared) and event.__dict__.get("apply") is None  # no body of its own
        assert get_topic(event) == f"{module}:{hand.__name__}.{name}"
