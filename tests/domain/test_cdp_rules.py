"""Casino Draw Poker as the regulation states it (R-CDP-1 … R-CDP-6), with exact chip amounts."""

from __future__ import annotations

import random

import pytest

from domain.banked.cdp import CdpHand, CdpRuleError, CdpSettings, CdpStage, house_way, qualifies
from domain.banked.paytables import STANDARD_CASINO_DRAW, CasinoDrawPayTable, InvalidPayTableError
from domain.cards.cards import Card, parse_cards
from domain.cards.decks import BackColour, DeckIdentity, composition
from domain.circle.hand import TABLES_NAMESPACE
from domain.errors import RuleError
from tests.support.banked_support import cdp_hand


def deal_hands(hand: CdpHand, player: str, bank: str) -> None:
    """One box: its five cards one at a time, then the bank's five."""
    for card in [*parse_cards(player), *parse_cards(bank)]:
        hand.deal(card)


def test_r_cdp_1_up_to_six_players_antes_within_limits_five_cards_each_then_five_to_the_bank() -> None:
    hand = CdpHand.start(TABLES_NAMESPACE, 1, CdpSettings(5, 100), DeckIdentity(52, BackColour.RED))
    for box in range(1, 7):
        hand.place_ante(box, 5)
    with pytest.raises(CdpRuleError) as error:
        hand.place_ante(7, 5)
    assert error.value.rule == "R-CDP-1"
    two = cdp_hand({1: 10, 2: 10})
    with pytest.raises(CdpRuleError) as error:
        CdpHand.start(TABLES_NAMESPACE, 3, CdpSettings(5, 100), DeckIdentity(52, BackColour.RED)).place_ante(1, 101)
    assert error.value.rule == "R-CDP-1"
    order = []
    for card in parse_cards("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc 2d 3d 4d 5d 6d"):
        order.append(two.next_card)
        two.deal(card)
    assert order == [1, 2] * 5 + [0] * 5
    assert two.cards[1] == parse_cards("2c 4c 6c 8c Tc") and two.bank == parse_cards("2d 3d 4d 5d 6d")


def test_r_cdp_2_a_player_exchanges_zero_one_or_two_cards_and_is_served() -> None:
    hand = cdp_hand({1: 10})
    deal_hands(hand, "2c 7d 9h Js Kc", "3c 4d 6h 8s Tc")
    with pytest.raises(CdpRuleError) as error:
        hand.exchange(1, parse_cards("2c 7d 9h"))
    assert error.value.rule == "R-CDP-2"
    hand.exchange(1, parse_cards("2c 7d"))
    hand.deal(parse_cards("Kd")[0])
    hand.deal(parse_cards("Ks")[0])
    assert sorted(map(str, hand.cards[1])) == sorted(["9h", "Js", "Kc", "Kd", "Ks"])
    assert hand.stage is CdpStage.DECISION


def test_r_cdp_3_the_play_bet_is_twice_the_ante_folding_loses_the_ante() -> None:
    hand = cdp_hand({1: 10, 2: 10})
    for card in parse_cards("2c 2d 3c 3d 4c 4d 5h 5s 7h 7s 8c 8d Ac Kd Qh"):
        hand.deal(card)
    hand.exchange(1, [])
    hand.exchange(2, [])
    with pytest.raises(CdpRuleError) as error:
        hand.play(1, 10)
    assert error.value.rule == "R-CDP-3"
    hand.fold(1)
    hand.play(2, 20)
    assert hand.results[1] == {"ante": -10}


def test_r_cdp_4_the_bank_qualifies_with_eights_or_better_else_exchanges_by_the_house_way() -> None:
    assert qualifies(parse_cards("8c 8d 2h 3s 4c")) and not qualifies(parse_cards("7c 7d Ah Ks Qc"))
    assert qualifies(parse_cards("2c 2d 3h 3s 4c"))  # any two pair is better than a pair of eights
    assert house_way(parse_cards("5c 5d Kh 9s 2c")) == parse_cards("9s 2c")
    assert house_way(parse_cards("5h 6h 7h 8h Kc")) == parse_cards("Kc")
    assert house_way(parse_cards("5c 6d 7h 8s Kc")) == parse_cards("Kc")  # open-ended: change one
    assert house_way(parse_cards("Ac 2d 3h 4s 9c")) == parse_cards("3h 2d")  # not open-ended: keep the three highest
    hand = cdp_hand({1: 10})
    deal_hands(hand, "Ac Ad 3h 3s 9c", "5c 5d Kh 9s 2c")
    hand.exchange(1, [])
    hand.play(1, 20)
    assert list(hand.due) == [0, 0]  # the bank keeps 5 5 K and is served two cards
    hand.deal(parse_cards("5h")[0])
    hand.deal(parse_cards("Td")[0])
    assert hand.bank_qualified is True
    assert hand.results[1] == {"ante": -10, "play": -20}  # three fives beat aces up


def test_r_cdp_5_a_bank_still_not_qualifying_pays_the_ante_and_returns_the_play_bet() -> None:
    hand = cdp_hand({1: 10})
    deal_hands(hand, "2c 7d 9h Js Kc", "3c 4d 6h 8s Tc")
    hand.exchange(1, [])
    hand.play(1, 20)
    hand.deal(parse_cards("2h")[0])  # the house way keeps T 8 6 and changes 4 and 3
    hand.deal(parse_cards("5s")[0])
    assert hand.bank_qualified is False
    assert hand.results[1] == {"ante": 10, "play": 0}


@pytest.mark.parametrize(("setting", "play"), [("returned", 0), ("paid", 20)])
def test_r_cdp_5_decision_the_play_bets_of_a_bank_not_qualifying_are_returned_or_by_setting_paid(
    setting: str, play: int
) -> None:
    hand = cdp_hand({1: 10, 2: 10}, settings=CdpSettings(5, 100, unqualified_play_bet=setting))
    for card in parse_cards("2c Ac 7d Ad 9h 5h Js 5s Kc Qc 3c 4d 6h 8s Td"):  # boxes 1 and 2, then the bank
        hand.deal(card)
    hand.exchange(1, [])
    hand.exchange(2, [])
    hand.play(1, 20)
    hand.fold(2)
    hand.deal(parse_cards("2h")[0])  # the house way keeps T 8 6 and changes 4 and 3
    hand.deal(parse_cards("5d")[0])
    assert hand.bank_qualified is False
    assert hand.results == {1: {"ante": 10, "play": play}, 2: {"ante": -10}}  # a folded ante is lost all the same
    assert hand.bank_result() == -play


def test_r_cdp_5_decisions_are_settings_stored_with_the_table_and_older_settings_take_the_defaults() -> None:
    settings = CdpSettings(5, 100, unqualified_play_bet="paid")
    assert CdpSettings.from_dict(settings.to_dict()) == settings
    old = {k: v for k, v in settings.to_dict().items() if k != "unqualified_play_bet"}
    assert CdpSettings.from_dict(old) == CdpSettings(5, 100)
    for bad in ({"unqualified_play_bet": "lost"}, {"house_way": "mine"}):
        with pytest.raises(CdpRuleError) as error:
            CdpSettings(5, 100, **bad)  # type: ignore[arg-type]
        assert "decision" in error.value.message and error.value.rule in ("R-CDP-4", "R-CDP-5")


def test_a_casino_draw_hand_is_voided_by_the_pit_naming_the_rule_and_the_reason() -> None:
    hand = cdp_hand({1: 10})
    with pytest.raises(CdpRuleError) as error:
        hand.void("R-CDP-1", " ")
    assert error.value.rule == "R-AUD-1"
    hand.void("R-CDP-1", "the bank was dealt six cards")
    assert hand.is_complete and hand.void_rule == "R-CDP-1" and hand.results == {} and hand.bank_result() == 0
    assert not hand.can_void("R-CDP-1", "again")


@pytest.mark.parametrize(
    ("player", "bank", "expected"),
    [
        ("Ac Ad 3h 3s 9c", "8c 8d Kh 9s 2c", {"ante": 10, "play": 20}),  # two pair 1:1
        ("Ac Ad As 3s 9c", "8c 8d Kh 9s 2c", {"ante": 10, "play": 40}),  # three of a kind 2:1
        ("4c 5d 6h 7s 9c", "8c 8d Kh 9s 2c", {"ante": -10, "play": -20}),  # the bank wins
        ("9c 9d Kh 4s 3c", "9h 9s Kd 4c 3d", {"ante": 0, "play": 0}),  # a tie
        ("Tc Jc Qc Kc Ac", "8c 8d Kh 9s 2s", {"ante": 10, "play": 2000}),  # royal flush 100:1
        ("2h 3h 4h 5h 6h", "8c 8d Kh 9s 2s", {"ante": 10, "play": 400}),  # straight flush 20:1
    ],
)
def test_r_cdp_6_the_higher_hand_wins_and_the_play_bet_pays_by_the_table(
    player: str, bank: str, expected: dict[str, int]
) -> None:
    hand = cdp_hand({1: 10})
    deal_hands(hand, player, bank)
    hand.exchange(1, [])
    hand.play(1, 20)
    assert hand.is_complete and hand.results[1] == expected


def test_casino_draw_pay_tables_are_validated_data() -> None:
    assert STANDARD_CASINO_DRAW.pays["full_house"] == 7
    with pytest.raises(InvalidPayTableError):
        CasinoDrawPayTable({"pair": 1})
    assert CasinoDrawPayTable.from_dict(STANDARD_CASINO_DRAW.to_dict()) == STANDARD_CASINO_DRAW


@pytest.mark.parametrize("seed", range(20))
def test_can_x_says_exactly_whether_x_is_taken_at_every_step_of_a_casino_draw_hand(seed: int) -> None:
    """Issue 31: Casino Draw Poker answers ``can_x`` as the circle games do; each answer is what ``x`` then does
    (a refusal changes nothing; R-CDP-1 to R-CDP-3)."""
    rng = random.Random(seed)
    hand = CdpHand.start(TABLES_NAMESPACE, 1, CdpSettings(5, 100), DeckIdentity(52, BackColour.RED))
    stock = rng.sample(list(composition(52)), 52)
    offered = 0
    for _ in range(400):
        if hand.is_complete:
            break
        box = hand.to_decide or rng.randint(0, 7)
        card = stock[0] if rng.random() < 0.9 else Card.parse("As")  # "As": a card seen, or yet to come
        ante = rng.choice((1, 5, 50, 500))
        candidates: list[tuple[str, tuple[object, ...]]] = [
            ("place_ante", (rng.randint(0, 7), ante)), ("close_bets", ()), ("deal", (card,)),
            ("exchange", (box, rng.sample(hand.cards.get(box, []), min(len(hand.cards.get(box, [])),
                                                                       rng.randint(0, 3))))),
            ("play", (box, 2 * hand.bets.get(box, {}).get("ante", 0) + rng.choice((0, 0, 1)))), ("fold", (box,))]
        name, args = rng.choice(candidates)
        allowed = getattr(hand, f"can_{name}")(*args)
        version = hand.version
        if allowed:
            getattr(hand, name)(*args)
            offered += 1
            if name == "deal":
                stock.remove(card)
            assert hand.version > version
        else:
            with pytest.raises(RuleError):
                getattr(hand, name)(*args)
            assert hand.version == version
    assert offered > 0
