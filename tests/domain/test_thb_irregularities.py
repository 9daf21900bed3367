"""Texas Hold'em Bonus irregularities and settled decisions (R-THB-10, R-THB-11, R-THB-12) in the domain, with the
table's full reshuffle (R-THB-11 d) and the stored events of older versions."""

from __future__ import annotations

import pytest
from eventsourcing.persistence import StoredEvent

from domain.banked.table import BankedTable, BankedTableError
from domain.banked.thb import STANDARD_LIMITS, Stage, ThbHand, ThbLimits, ThbRuleError, ThbSettings
from domain.cards.cards import Card, parse_cards
from domain.cards.decks import BackColour, DeckIdentity
from domain.device_reports import DeviceReport
from tests.support.banked_support import thb_hand
from tests.support.circle_support import Hands

RED, BLUE = DeckIdentity(52, BackColour.RED), DeckIdentity(52, BackColour.BLUE)


def deal(hand: ThbHand, cards: str) -> None:
    for card in parse_cards(cards):
        hand.deal(card)


def events_of(hand: ThbHand, kind: type) -> list[object]:
    return [e for e in hand.pending_events if isinstance(e, kind)]


def to_the_river_decisions(hand: ThbHand) -> None:
    """Boxes 1 and 2 (antes 10): deal, both play, check the turn; the river decisions are open."""
    deal(hand, "As Kd 2c Ad Kc 3c")  # box 1 A A, box 2 K K, croupier 2c 3c
    hand.flop_bet(1, 20)
    hand.flop_bet(2, 20)
    deal(hand, "4h 7h 8s 9d")  # burn, flop
    hand.check(1)
    hand.check(2)
    deal(hand, "5h Jd")  # burn, turn
    assert hand.stage is Stage.RIVER


# -- R-THB-11 (a) ----------------------------------------------------------------------------------------------


def test_r_thb_11a_a_dealer_card_shown_before_every_box_has_decided_the_river_voids_the_hand() -> None:
    hand = thb_hand({1: 10, 2: 10}, {1: 5})
    to_the_river_decisions(hand)
    hand.street_bet(1, 10)  # box 2 has still to decide the river
    assert not hand.all_decisions_made
    hand.dealer_card_shown()
    assert hand.stage is Stage.VOID and hand.void_rule == "R-THB-11" and hand.is_complete
    assert hand.results == {} and hand.bank_result() == 0  # every bet returned, the bonus too
    assert not events_of(hand, ThbHand.DealerCardShown)


def test_r_thb_11a_a_dealer_card_shown_after_the_last_decision_counts_and_play_goes_on() -> None:
    hand = thb_hand({1: 10, 2: 10}, {1: 5})
    to_the_river_decisions(hand)
    hand.street_bet(1, 10)
    hand.check(2)  # the last decision: only the burn and the river card are to come
    assert hand.all_decisions_made and hand.can_dealer_card_shown()
    hand.dealer_card_shown()
    shown = events_of(hand, ThbHand.DealerCardShown)
    assert len(shown) == 1 and not events_of(hand, ThbHand.Voided)
    assert hand.stage is Stage.DEALING and hand.void_rule is None
    deal(hand, "6c Qs")  # burn, river: the hand settles as usual
    assert hand.is_complete and hand.void_rule is None
    # board 7h 8s 9d Jd Qs: the croupier (2c 3c) has queen high; both pairs win, the antes are returned (R-THB-8)
    assert hand.results[1] == {"ante": 0, "flop": 20, "river": 10, "bonus": 150}
    assert hand.results[2] == {"ante": 0, "flop": 20}


def test_r_thb_11a_nothing_is_shown_by_mistake_before_the_croupier_has_a_card_or_once_the_boxes_are_settled() -> None:
    hand = thb_hand({1: 10}, {1: 5})
    with pytest.raises(ThbRuleError) as error:
        hand.dealer_card_shown()
    assert error.value.rule == "R-THB-11" and not hand.can_dealer_card_shown()
    deal(hand, "As Ac Ad Ah")
    hand.fold(1)  # the 1000:1 waits for the games director: the boxes are settled, the cards turned
    assert hand.stage is Stage.APPROVAL
    with pytest.raises(ThbRuleError):
        hand.dealer_card_shown()


# -- R-THB-11 (1.c): the whole play ----------------------------------------------------------------------------


@pytest.mark.parametrize("cards_dealt", [0, 3, 6, 10])
def test_r_thb_11_1c_the_pit_voids_the_whole_play_every_bet_returned_rule_and_reason_recorded(cards_dealt: int) -> None:
    hand = thb_hand({1: 10, 2: 20}, {2: 5})
    cards = iter(parse_cards("As Kd 2c Ad Kc 3c 4h 7h 8s 9d"))
    for _ in range(cards_dealt):
        if hand.next_card is None:
            hand.flop_bet(hand.to_decide or 0, 2 * hand.bets[hand.to_decide or 0]["ante"])
        else:
            hand.deal(next(cards))
    assert hand.can_void("R-THB-11", "box 2's second card was turned face up")
    hand.void("R-THB-11", "box 2's second card was turned face up")
    voided = events_of(hand, ThbHand.Voided)
    assert len(voided) == 1
    assert (voided[0].rule, voided[0].reason) == ("R-THB-11", "box 2's second card was turned face up")  # type: ignore[attr-defined]
    assert hand.is_complete and hand.results == {} and hand.bank_result() == 0
    with pytest.raises(ThbRuleError) as error:
        hand.void("R-THB-11", "twice")
    assert error.value.rule == "R-AUD-1"


def test_r_thb_11_1c_a_void_names_a_rule_and_a_reason_and_comes_before_the_settlement() -> None:
    hand = thb_hand({1: 10}, {1: 5})
    recorded = len(hand.pending_events)
    for rule, reason in (("", "reason"), ("THB-11", "reason"), ("R-THB-11", "  ")):
        with pytest.raises(ThbRuleError) as error:
            hand.void(rule, reason)
        assert error.value.rule == "R-AUD-1" and not hand.can_void(rule, reason)
    assert hand.stage is Stage.DEALING and len(hand.pending_events) == recorded  # a refused void records nothing
    deal(hand, "As Ac Ad Ah")
    hand.fold(1)
    with pytest.raises(ThbRuleError) as error:  # settled: the 1000:1 is the director's to approve or refuse
        hand.void("R-THB-11", "too late")
    assert error.value.rule == "R-THB-10"


# -- R-THB-11 (d): wrong numbers of cards, and the table's full reshuffle --------------------------------------


def finish_with_a_box_void(table: BankedTable, deck: DeckIdentity = RED) -> ThbHand:
    hand = table.start_hand(deck)
    assert isinstance(hand, ThbHand)
    hand.place_ante(1, 10)
    hand.place_ante(2, 10)
    hand.place_bonus(2, 5)
    hand.close_bets()
    deal(hand, "As Ks 2c")
    hand.wrong_card_count(2)  # box 2 got a card too many (or too few): his hand is void
    deal(hand, "Ad 3c")
    hand.fold(1)
    table.finish_hand(hand)
    return hand


def test_r_thb_11d_a_box_dealt_the_wrong_number_is_void_its_bets_returned_the_others_play_on() -> None:
    hand = thb_hand({1: 10, 2: 10, 3: 10}, {2: 5})
    deal(hand, "As Ks 2c")
    hand.wrong_card_count(2)
    assert hand.reshuffle_required and hand.voided_boxes == {2: "R-THB-11"}
    deal(hand, "Kd Ad 3c Qd")  # dealer left, box 1, box 3 (box 2 is dealt no more), dealer right
    assert hand.cards == {1: parse_cards("As Ad"), 2: parse_cards("Ks"), 3: parse_cards("2c 3c")}
    assert hand.to_decide == 1
    hand.flop_bet(1, 20)
    hand.fold(3)
    assert 2 not in hand.live_boxes
    with pytest.raises(ThbRuleError) as error:
        hand.wrong_card_count(1, correctable=True)  # only the croupier's own count may be corrected
    assert error.value.rule == "R-THB-11"


@pytest.mark.parametrize("when", ["deal", "turn"])
def test_r_thb_11d_when_the_last_box_in_play_is_void_nobody_plays_and_no_more_cards_are_dealt(when: str) -> None:
    """R-THB-11 (d) with R-THB-12: once no box plays against the croupier the hand ends; folded bonuses are paid."""
    hand = thb_hand({1: 10, 2: 10}, {1: 5})
    if when == "deal":
        deal(hand, "As Ks")
        hand.wrong_card_count(1)
        hand.wrong_card_count(2)
        assert hand.results == {} and hand.bank_result() == 0
    else:
        deal(hand, "Qs Ks 2c Qd Kd 3c")  # box 1 Q Q with a bonus, box 2 K K
        hand.fold(1)
        hand.flop_bet(2, 20)
        deal(hand, "4h 7h 8s 9d")
        hand.wrong_card_count(2)
        assert hand.results == {1: {"ante": -10, "bonus": 50}} and hand.bank_result() == -40
    assert hand.is_complete and hand.next_card is None and hand.void_rule is None and hand.reshuffle_required


def test_r_thb_11d_the_table_refuses_the_next_hand_until_the_full_reshuffle_is_recorded() -> None:
    table = BankedTable.open("THB R", "holdem-bonus", ThbSettings(STANDARD_LIMITS[5]))
    hand = finish_with_a_box_void(table)
    assert 2 not in hand.results and hand.bank_result() == 10  # box 1 folded; box 2's ante and bonus came back
    assert table.reshuffle_pending == "red"
    with pytest.raises(BankedTableError) as error:
        table.start_hand(BLUE)
    assert error.value.rule == "R-THB-11" and "reshuffle" in str(error.value)
    table.record_device_report(DeviceReport("shuffler", "SN1", "shuffle", "blue", "deck ready"))
    assert table.reshuffle_pending == "red"  # the other deck's shuffle is not the reshuffle of this one
    table.record_device_report(DeviceReport("shuffler", "SN1", "shuffle", "red", "deck ready"))
    assert table.reshuffle_pending is None
    table.start_hand(BLUE)


def test_r_thb_11d_without_a_shuffler_the_croupiers_reshuffle_is_recorded_with_who_did_it() -> None:
    table = BankedTable.open("THB M", "holdem-bonus", ThbSettings(STANDARD_LIMITS[5]))
    with pytest.raises(BankedTableError):
        table.record_reshuffle("croupier Ana")  # nothing to reshuffle
    finish_with_a_box_void(table)
    with pytest.raises(BankedTableError) as error:
        table.record_reshuffle(" ")
    assert error.value.rule == "R-AUD-1"
    table.record_reshuffle("croupier Ana")
    reshuffled = [e for e in table.pending_events if type(e).__name__ == "Reshuffled"]
    assert [(e.colour, e.by) for e in reshuffled] == [("red", "croupier Ana")]  # type: ignore[attr-defined]
    assert table.start_hand(RED).number == 2


def test_r_thb_11b_two_face_up_cards_void_the_hand_and_the_table_requires_the_reshuffle() -> None:
    table = BankedTable.open("THB F", "holdem-bonus", ThbSettings(STANDARD_LIMITS[5]))
    hand = table.start_hand(RED)
    assert isinstance(hand, ThbHand)
    hand.place_ante(1, 10)
    hand.close_bets()
    hand.face_up_card_found(Card.parse("7h"))
    hand.face_up_card_found(Card.parse("8h"))
    table.finish_hand(hand)
    assert table.reshuffle_pending == "red" and table.bank_result == 0


def test_r_thb_11d_the_dealer_dealt_the_wrong_number_voids_unless_correctable_and_no_reshuffle_is_required() -> None:
    hand = thb_hand({1: 10})
    deal(hand, "As 2c")
    hand.wrong_card_count(None, correctable=True)  # the right number dealt without changing the sequence
    assert hand.stage is Stage.DEALING and events_of(hand, ThbHand.DealerCountCorrected)
    hand.wrong_card_count(None)
    assert hand.void_rule == "R-THB-11" and hand.is_complete and not hand.reshuffle_required


def test_r_thb_11d_box_voids_stored_before_the_reshuffle_was_recorded_still_load() -> None:
    """Version-1 ``BoxVoided`` events (no ``reshuffle`` field) are upcast on loading: no reshuffle was required."""
    hand = thb_hand({1: 10, 2: 10})
    deal(hand, "As Ks 2c")
    hand.wrong_card_count(2)
    app = Hands()
    mapper = app.mapper
    stored = []
    for event in hand.collect_events():
        record = mapper.to_stored_event(event)
        if isinstance(event, ThbHand.BoxVoided):
            state = mapper.transcoder.decode(record.state)
            assert state.pop("class_version") == 2
            del state["reshuffle"]
            record = StoredEvent(record.originator_id, record.originator_version, record.topic,
                                 mapper.transcoder.encode(state))
        stored.append(record)
    app.recorder.insert_events(stored)
    loaded: object = app.repository.get(hand.id)
    assert isinstance(loaded, ThbHand)
    assert loaded.voided_boxes == {2: "R-THB-11"} and not loaded.reshuffle_required
    assert loaded.cards == hand.cards and loaded.due == hand.due


# -- R-THB-10, R-THB-12, R-THB-2: decisions as settings ------------------------------------------------------------


@pytest.mark.parametrize(("setting", "bonus"), [("returned", 0), ("aces", 2 * 30)])
def test_r_thb_10_a_refusal_is_recorded_with_who_and_why_and_changes_nothing_else_of_the_box(
    setting: str, bonus: int
) -> None:
    hand = thb_hand({1: 10}, {1: 2}, settings=ThbSettings(STANDARD_LIMITS[5], refused_bonus=setting))
    deal(hand, "As Ac Ad Ah")  # box 1 A A, the croupier A A
    hand.flop_bet(1, 20)
    deal(hand, "2s 3h 7d 9c")
    hand.check(1)
    deal(hand, "4s Kd")
    hand.check(1)
    deal(hand, "5c Qh")
    settled = dict(hand.results[1])
    assert settled["bonus"] == 2000 and hand.pending_approval == {1}
    for director, reason in (("", "why"), ("DJ Pérez", "")):
        with pytest.raises(ThbRuleError) as error:
            hand.refuse_bonus(1, director, reason)
        assert error.value.rule == "R-THB-10"
    hand.refuse_bonus(1, "DJ Pérez", "the croupier's aces were seen before the deal ended")
    refused = events_of(hand, ThbHand.BonusRefused)
    assert [(e.box, e.director, e.reason) for e in refused] == [  # type: ignore[attr-defined]
        (1, "DJ Pérez", "the croupier's aces were seen before the deal ended")]
    assert hand.results[1] == {**settled, "bonus": bonus}  # ante, flop: as settled (a tie, returned)
    assert hand.is_complete and hand.bank_result() == -bonus


def test_r_thb_12_nobody_plays_the_croupiers_cards_are_turned_for_an_aces_bonus_still_in_action() -> None:
    hand = thb_hand({1: 10, 2: 10}, {1: 2, 2: 2})
    deal(hand, "As 2h Ac Ad 3h Ah")  # box 1 A A, box 2 2 3, the croupier A A
    hand.fold(1)
    hand.fold(2)  # nobody plays against the croupier
    turned = events_of(hand, ThbHand.DealerCardsTurnedForBonus)
    assert [e.boxes for e in turned] == [[1]]  # type: ignore[attr-defined]
    assert hand.results[1] == {"ante": -10, "bonus": 2000} and hand.pending_approval == {1}
    hand.approve_bonus(1, "DJ Pérez", "checked")
    assert hand.is_complete and hand.board == []


def test_r_thb_12_setting_the_croupiers_cards_go_to_the_discards_unseen_and_the_aces_pay_as_aces() -> None:
    settings = ThbSettings(STANDARD_LIMITS[5], turn_dealer_cards_for_aces=False)
    hand = thb_hand({1: 10}, {1: 2}, settings=settings)
    deal(hand, "As Ac Ad Ah")
    hand.fold(1)
    assert not events_of(hand, ThbHand.DealerCardsTurnedForBonus)
    assert hand.results[1] == {"ante": -10, "bonus": 60} and hand.is_complete


def test_r_thb_12_without_an_aces_bonus_the_croupiers_cards_are_not_turned() -> None:
    hand = thb_hand({1: 10}, {1: 2})
    deal(hand, "Ks Ac Kd Ah")
    hand.fold(1)
    assert not events_of(hand, ThbHand.DealerCardsTurnedForBonus)
    assert hand.results[1] == {"ante": -10, "bonus": 20} and hand.is_complete


def test_r_thb_2_decision_the_flop_maximum_is_twice_the_ante_maximum() -> None:
    assert all(t.flop_max == 2 * t.ante_max and t.turn_river_max == t.ante_max for t in STANDARD_LIMITS.values())
    with pytest.raises(ThbRuleError) as error:
        ThbLimits(5, 100, 150, 100)  # a flop maximum of 150 could not follow an ante of 100
    assert error.value.rule == "R-THB-2" and "decision" in error.value.message


def test_decisions_are_settings_stored_with_the_table_and_older_settings_take_the_defaults() -> None:
    settings = ThbSettings(STANDARD_LIMITS[10], refused_bonus="aces", turn_dealer_cards_for_aces=False)
    assert ThbSettings.from_dict(settings.to_dict()) == settings
    old = {key: value for key, value in settings.to_dict().items()
           if key not in ("refused_bonus", "turn_dealer_cards_for_aces")}
    assert ThbSettings.from_dict(old) == ThbSettings(STANDARD_LIMITS[10])
    for bad in ({"refused_bonus": "lost"}, {"turn_dealer_cards_for_aces": "yes"}):
        with pytest.raises(ThbRuleError) as error:
            ThbSettings(STANDARD_LIMITS[5], **bad)  # type: ignore[arg-type]
        assert "decision" in error.value.message


def test_r_thb_11d_a_box_fanned_at_its_fold_with_the_wrong_count_is_void_its_bonus_returned() -> None:
    """Issue 33 (R-THB-11 d, decision): the count is checked as a folded box's cards are fanned; a wrong count
    found then voids that box, its bonus included, where a folded box had been refused as "not in play"."""
    hand = thb_hand({1: 10, 2: 10}, {2: 5})
    deal(hand, "As Kd 2c Ad Kc 3c")  # box 1 A A, box 2 K K, croupier 2c 3c
    hand.flop_bet(1, 20)
    hand.fold(2)  # his cards fanned: three cards, not two
    hand.wrong_card_count(2)
    assert hand.voided_boxes == {2: "R-THB-11"} and hand.reshuffle_required
    with pytest.raises(ThbRuleError) as twice:
        hand.wrong_card_count(2)  # voided already: nothing more to void
    assert twice.value.rule == "R-THB-11"
    deal(hand, "4h 7h 8s 9d")
    hand.check(1)
    deal(hand, "5h Jd")
    hand.check(1)
    deal(hand, "6c Qs")
    assert hand.is_complete and 2 not in hand.results  # box 2's ante and bonus returned: no result, no loss


def test_r_thb_11d_the_croupier_s_count_is_never_correctable_once_his_cards_are_turned_up() -> None:
    """Issue 33: a card of the croupier shown after the last decision counts (R-THB-11 a) and is face up: his wrong
    count is then the hand's void, not a correction."""
    hand = thb_hand({1: 10, 2: 10}, {1: 5})
    to_the_river_decisions(hand)
    hand.street_bet(1, 10)
    hand.check(2)
    hand.dealer_card_shown()
    with pytest.raises(ThbRuleError) as turned:
        hand.wrong_card_count(None, correctable=True)
    assert turned.value.rule == "R-THB-11" and "turned up" in str(turned.value)
    hand.wrong_card_count(None)
    assert hand.stage is Stage.VOID
