"""Texas Hold'em Bonus as the manual states it (R-THB-1 … R-THB-13), with exact chip amounts."""

from __future__ import annotations

import pytest

from domain.banked.paytables import STANDARD_BONUS, BonusPayTable, InvalidPayTableError
from domain.banked.thb import STANDARD_LIMITS, Stage, ThbHand, ThbLimits, ThbRuleError, ThbSettings
from domain.cards.cards import Card, parse_cards
from domain.cards.decks import BackColour, DeckIdentity
from domain.cards.hand_classes import Category
from domain.circle.hand import TABLES_NAMESPACE
from tests.support.banked_support import thb_hand

FIVE = ThbSettings(STANDARD_LIMITS[5])


def deal(hand: ThbHand, cards: str) -> None:
    for card in parse_cards(cards):
        hand.deal(card)


def play_out(hand: ThbHand, flop: str, turn: str, river: str, *, bets: dict[int, tuple[bool, bool]]) -> None:
    """Burn and flop; turn and river decisions as given by ``bets[box] = (turn bet, river bet)``; burns included."""
    deal(hand, flop)
    for street, cards in ((0, turn), (1, river)):
        while (box := hand.to_decide) is not None:
            if bets.get(box, (False, False))[street]:
                hand.street_bet(box, hand.bets[box]["ante"])
            else:
                hand.check(box)
        deal(hand, cards)


def test_r_thb_1_up_to_seven_boxes_and_a_52_card_deck() -> None:
    hand = ThbHand.start(TABLES_NAMESPACE, 1, FIVE, DeckIdentity(52, BackColour.RED))
    for box in range(1, 8):
        hand.place_ante(box, 5)
    with pytest.raises(ThbRuleError) as error:
        hand.place_ante(8, 5)
    assert error.value.rule == "R-THB-1"
    with pytest.raises(ThbRuleError) as error:
        ThbHand.start(TABLES_NAMESPACE, 2, FIVE, DeckIdentity(32, BackColour.RED))
    assert error.value.rule == "R-THB-1"


def test_r_thb_2_the_table_maximum_is_twenty_times_the_minimum_and_the_standard_tables() -> None:
    assert [(t.ante_min, t.ante_max, t.flop_max, t.turn_river_max) for t in STANDARD_LIMITS.values()] == [
        (5, 100, 200, 100), (10, 200, 400, 200), (20, 400, 800, 400)]
    with pytest.raises(ThbRuleError) as error:
        ThbLimits(5, 150, 300, 150)
    assert error.value.rule == "R-THB-2"
    hand = ThbHand.start(TABLES_NAMESPACE, 1, FIVE, DeckIdentity(52, BackColour.RED))
    for amount in (4, 101):
        with pytest.raises(ThbRuleError) as error:
            hand.place_ante(1, amount)
        assert error.value.rule == "R-THB-2"
    hand.place_ante(1, 100)
    hand.place_bonus(1, 1)  # the bonus may be below the table minimum


def test_r_thb_3_the_bonus_only_with_an_ante_and_only_before_the_deal() -> None:
    hand = ThbHand.start(TABLES_NAMESPACE, 1, FIVE, DeckIdentity(52, BackColour.RED))
    with pytest.raises(ThbRuleError) as error:
        hand.place_bonus(1, 5)
    assert error.value.rule == "R-THB-3"
    hand.place_ante(1, 10)
    hand.close_bets()  # "no va más"
    with pytest.raises(ThbRuleError) as error:
        hand.place_bonus(1, 5)
    assert error.value.rule == "R-THB-3"


def test_r_thb_4_one_card_to_each_box_from_the_left_then_the_dealer_left_spot_then_again_and_the_right_spot() -> None:
    hand = thb_hand({1: 5, 3: 5, 7: 5})
    order = []
    for card in parse_cards("2c 3c 4c 5c 6c 7c 8c 9c"):
        due = hand.next_card
        assert due is not None
        order.append((due.kind, due.box))
        hand.deal(card)
    assert order == [("box", 1), ("box", 3), ("box", 7), ("dealer-left", 0), ("box", 1), ("box", 3), ("box", 7),
                     ("dealer-right", 0)]
    assert hand.cards[3] == parse_cards("3c 7c") and hand.dealer == parse_cards("5c 9c")


def test_r_thb_5_fold_loses_the_ante_but_the_bonus_stays_in_action_or_play_exactly_twice_the_ante() -> None:
    hand = thb_hand({1: 10, 2: 10}, {1: 5})
    deal(hand, "Ks 2c 5d Kd 3h 9s")  # box 1: K K (bonus 10:1), box 2: 2 3, dealer 5 9
    with pytest.raises(ThbRuleError) as error:
        hand.flop_bet(1, 10)
    assert error.value.rule == "R-THB-5"
    hand.fold(1)
    hand.fold(2)
    assert hand.is_complete
    assert hand.results[1] == {"ante": -10, "bonus": 50}
    assert hand.results[2] == {"ante": -10}


def test_r_thb_6_burn_and_flop_then_turn_and_river_bets_of_exactly_the_ante_the_river_after_checking_the_turn() -> None:
    hand = thb_hand({1: 10})
    deal(hand, "As 2c Ad 3c")
    hand.flop_bet(1, 20)
    assert hand.next_card is not None and hand.next_card.kind == "burn"
    deal(hand, "4h Kh Qh Jd")
    with pytest.raises(ThbRuleError) as error:
        hand.street_bet(1, 20)
    assert error.value.rule == "R-THB-6"
    hand.check(1)  # no turn bet
    deal(hand, "5h 8s")
    hand.street_bet(1, 10)  # the river bet after checking the turn
    deal(hand, "6h 9c")
    assert hand.burned == parse_cards("4h 5h 6h")
    assert hand.bets[1] == {"ante": 10, "flop": 20, "river": 10}


def test_r_thb_7_the_dealer_shows_then_boxes_are_opened_from_seven_down_to_one() -> None:
    hand = thb_hand({1: 5, 4: 5, 7: 5})
    deal(hand, "2c 3c 4c 5c 2d 3d 4d 5d")
    for box in (1, 4, 7):
        hand.flop_bet(box, 10)
    play_out(hand, "Ah 6s Ts Js", "7s Qh", "8s Kh", bets={})
    settled = [e.box for e in hand.pending_events if isinstance(e, ThbHand.BoxSettled)]
    assert settled == [7, 4, 1]


@pytest.mark.parametrize(
    ("cards", "flop", "turn", "river", "expected"),
    [
        # board 6s 7d 9h 4h 5h (burns Th, Qs, Jc); cards in dealing order: box, dealer, box, dealer
        # dealer higher (kings against ace high): ante, flop, turn and river are lost
        ("Ac Ks Qd Kd", "Th 6s 7d 9h", "Qs 4h", "Jc 5h", {"ante": -10, "flop": -20, "turn": -10, "river": -10}),
        # a tie (ace-king high both): everything comes back
        ("Ac Ad Kc Kh", "Th 6s 7d 9h", "Qs 4h", "Jc 5h", {"ante": 0, "flop": 0, "turn": 0, "river": 0}),
        # player higher with less than a straight (aces): flop, turn, river 1:1, the ante is returned
        ("As Kc Ah Qc", "Th 6s 7d 9h", "Qs 4h", "Jc 5h", {"ante": 0, "flop": 20, "turn": 10, "river": 10}),
        # player higher with a straight (five to nine): the ante also wins 1:1
        ("8c Ad Kh 2d", "Th 6s 7d 9h", "Qs 4h", "Jc 5h", {"ante": 10, "flop": 20, "turn": 10, "river": 10}),
    ],
)
def test_r_thb_8_settlement(cards: str, flop: str, turn: str, river: str, expected: dict[str, int]) -> None:
    hand = thb_hand({1: 10})
    deal(hand, cards)
    hand.flop_bet(1, 20)
    play_out(hand, flop, turn, river, bets={1: (True, True)})
    assert hand.results[1] == expected
    assert hand.bank_result() == -sum(expected.values())


def test_r_thb_8_setting_the_ante_pays_only_from_a_flush() -> None:
    settings = ThbSettings(STANDARD_LIMITS[5], ante_pays_from=Category.FLUSH)
    hand = thb_hand({1: 10}, settings=settings)
    deal(hand, "8c Ks Tc 2d")
    hand.flop_bet(1, 20)
    play_out(hand, "Th 6s 7d 9h", "Qs 4h", "Jc 5h", bets={})
    assert hand.results[1] == {"ante": 0, "flop": 20}  # a straight: the ante is returned here


@pytest.mark.parametrize(
    ("player", "dealer", "expected"),
    [
        ("As Ad", "Ac Ah", 5000), ("As Ad", "Kc Kh", 150), ("As Ks", "2c 3h", 125), ("As Qs", "2c 3h", 100),
        ("As Js", "2c 3h", 100), ("As Kd", "2c 3h", 75), ("Ks Kd", "2c 3h", 50), ("Js Jd", "2c 3h", 50),
        ("As Qd", "2c 3h", 25), ("Ts Td", "2c 3h", 15), ("2s 2d", "Ac Ah", 15), ("As Td", "2c 3h", -5),
        ("Ks Qs", "2c 3h", -5),
    ],
)
def test_r_thb_9_the_bonus_pays_on_the_players_two_cards_whatever_happens_to_the_main_bets(
    player: str, dealer: str, expected: int
) -> None:
    hand = thb_hand({1: 5}, {1: 5})
    p, d = parse_cards(player), parse_cards(dealer)
    for card in (p[0], d[0], p[1], d[1]):
        hand.deal(card)
    hand.fold(1)
    assert hand.results[1]["bonus"] == expected
    if expected == 5000:
        assert hand.stage is Stage.APPROVAL and not hand.is_complete
        hand.approve_bonus(1, "Director de Juegos", "cámara revisada")
    assert hand.is_complete


def test_r_thb_10_the_1000_to_1_waits_for_the_games_director_who_may_approve_or_refuse() -> None:
    for approve in (True, False):
        hand = thb_hand({1: 5}, {1: 2})
        deal(hand, "As Ac Ad Ah")
        hand.fold(1)
        assert hand.pending_approval == {1} and not hand.is_complete
        with pytest.raises(ThbRuleError) as error:
            hand.approve_bonus(2, "DJ", "checked")
        assert error.value.rule == "R-THB-10"
        if approve:
            hand.approve_bonus(1, "DJ Pérez", "checked")
            assert hand.results[1]["bonus"] == 2000
        else:
            hand.refuse_bonus(1, "DJ Pérez", "cards under review")
            assert hand.results[1]["bonus"] == 0
        decision = next(e for e in hand.pending_events if isinstance(e, ThbHand.BonusApproved | ThbHand.BonusRefused))
        assert decision.director == "DJ Pérez" and decision.timestamp is not None
        assert hand.is_complete


def test_r_thb_11a_a_dealer_card_shown_before_the_preflop_decisions_voids_the_hand() -> None:
    hand = thb_hand({1: 10, 2: 10}, {1: 5})
    deal(hand, "As 2c Ad 3c Kd Kc")
    hand.flop_bet(1, 20)
    hand.dealer_card_shown()
    assert hand.stage is Stage.VOID and hand.void_rule == "R-THB-11" and hand.bank_result() == 0
    assert hand.results == {}  # every bet returned


def test_r_thb_11b_one_face_up_card_in_the_deck_is_discarded_a_second_voids_and_requires_a_reshuffle() -> None:
    hand = thb_hand({1: 10})
    hand.face_up_card_found(Card.parse("7h"))
    assert hand.stage is Stage.DEALING and hand.discarded == parse_cards("7h")
    with pytest.raises(ThbRuleError):
        hand.deal(Card.parse("7h"))  # never used in this hand
    hand.face_up_card_found(Card.parse("8h"))
    assert hand.void_rule == "R-THB-11" and hand.reshuffle_required and hand.is_complete


def test_r_thb_11c_a_card_taken_out_unseen_by_mistake_is_used_as_the_next_card() -> None:
    hand = thb_hand({1: 10})
    hand.deal(Card.parse("Qs"))  # the card drawn by mistake: simply the next card
    assert hand.cards[1] == parse_cards("Qs")


def test_r_thb_11d_a_player_with_the_wrong_number_of_cards_has_his_hand_void() -> None:
    hand = thb_hand({1: 10, 2: 10})
    deal(hand, "As Ks 2c")
    hand.wrong_card_count(2)
    deal(hand, "Ad 3c")  # box 2 is no longer dealt to
    assert hand.voided_boxes == {2: "R-THB-11"} and hand.to_decide == 1
    hand.fold(1)
    assert 2 not in hand.results and hand.results[1] == {"ante": -10}


def test_r_thb_12_if_no_player_plays_the_dealers_cards_go_to_the_discards() -> None:
    hand = thb_hand({1: 10, 2: 20})
    deal(hand, "2c 3d 4h 7c 8d 9h")
    hand.fold(1)
    hand.fold(2)
    assert hand.is_complete and hand.board == [] and hand.bank_result() == 30


def test_r_thb_13_a_reconstruction_is_recorded_with_the_pit_boss_and_the_games_director() -> None:
    hand = thb_hand({1: 10})
    deal(hand, "2c 3d 4h 7c")
    with pytest.raises(ThbRuleError) as error:
        hand.request_reconstruction("Jefe de Mesa", "DJ", "dispute")
    assert error.value.rule == "R-THB-13"
    hand.fold(1)
    hand.request_reconstruction("Jefe de Mesa García", "DJ Pérez", "box 1 disputes the dealer's hand")
    assert hand.reconstructions == 1


def test_bonus_pay_tables_are_validated_data() -> None:
    with pytest.raises(InvalidPayTableError):
        BonusPayTable({"aces": 30})
    with pytest.raises(InvalidPayTableError):
        BonusPayTable({**STANDARD_BONUS.pays, "aces": -1})
    cheaper = BonusPayTable({**STANDARD_BONUS.pays, "pair_2_to_10": 2})
    assert BonusPayTable.from_dict(cheaper.to_dict()) == cheaper
