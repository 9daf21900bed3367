"""Issue 13, the "low" findings — each attack as it was made, through the API of a real server on SQLite.

Look-alike cards, positions past any log, table names that hide what they say, settings no table can play, chips
past the cap, forged card sources, one name for two tables, the status of "no hand in progress", the message of a
box that acts out of turn. Every refusal changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from domain.banked.cdp import CdpHand, CdpRuleError, CdpSettings
from domain.banked.table import BankedTable
from domain.cards.cards import Card, parse_cards
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, InvalidSettingsError, TableSettings
from domain.circle.table import Table
from domain.errors import InvalidCardError, RuleError
from service.api import pokertable_pb2 as pb
from service.app.application import MAX_CHIPS
from tests.attack_server import error_reason, running_server
from tests.test_grpc_service import TOKENS, Client, open_table

HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no-limit"}
LOOK_ALIKES = ["\u212as", "A\u017f", "\u212a\u017f", "\uff21s", "A\u0455", "\u0410s"]  # Kelvin K, long s, fullwidth A,
# Cyrillic dze and A: each is "K"/"s"/"A" to a reader (and to Unicode case folding) and no card
NAMES = ["Mesa\x00 1", "Mesa\x07", "Mesa\n1", "Mesa\x7f", "Mesa \u202e1 aseM", "Mesa \u2066x\u2069", "Mesa\u200b1",
         "\ufeffMesa 1", "Mesa 1\u2028", " Mesa 1", "Mesa 1 "]


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    with running_server(tmp_path) as bound:
        yield bound


def _refused(call: Any, request: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        call(request)
    return refused.value


def _started(port: int) -> tuple[Client, Client]:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    dealer.StartHand(pb.StartHandRequest(command_id=dealer.next_id(), table="Mesa 1"))
    return pit, dealer


# -- cards ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_r_card_1_a_look_alike_card_is_no_card(text: str) -> None:
    with pytest.raises(InvalidCardError):
        Card.parse(text)
    with pytest.raises(InvalidCardError):
        parse_cards(f"2c {text}")


def test_r_card_1_look_alike_cards_through_the_api_are_invalid_argument_not_unknown(port: int) -> None:
    pit, dealer = _started(port)
    before = pit.GetTable(pb.TableRequest(table="Mesa 1"))
    for text in LOOK_ALIKES:
        for request in (pb.HandCommandRequest(command_id=dealer.next_id(), table="Mesa 1", action="deal", card=text),
                        pb.HandCommandRequest(command_id=dealer.next_id(), table="Mesa 1", action="discard", seat=1,
                                              cards=["2c", text])):
            error = _refused(dealer.HandCommand, request)
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(error) == "R-CARD-1", text
        error = _refused(pit.RecordCutExposure, pb.CutExposureRequest(command_id=pit.next_id(), table="Mesa 1",
                                                                      card=text, colour="red"))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, text
        error = _refused(pit.BankedCommand, pb.BankedCommandRequest(command_id=pit.next_id(), table="THB 1",
                                                                    action="deal", card=text))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, text
    assert pit.GetTable(pb.TableRequest(table="Mesa 1")) == before


# -- Watch positions -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("position", [2**63 - 1, 2**63 - 2])
def test_r_aud_1_a_watch_position_past_any_log_is_invalid_argument(port: int, position: int) -> None:
    pit, _ = _started(port)
    stream = pit.stub.Watch(pb.WatchRequest(table="Mesa 1", after_position=position), metadata=pit.metadata,
                            timeout=2)
    with pytest.raises(grpc.RpcError) as refused:
        next(iter(stream))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_reason(refused.value) == "R-AUD-1"


# -- table names ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_r_aud_1_a_table_name_with_control_format_or_bidi_characters_is_refused_by_the_domain(name: str) -> None:
    with pytest.raises(RuleError) as circle:
        Table.open(name, TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2)))
    assert circle.value.rule == "R-AUD-1"
    with pytest.raises(RuleError) as banked:
        BankedTable.open(name, "casino-draw", CdpSettings(5, 100))
    assert banked.value.rule == "R-AUD-1"


def test_r_aud_1_a_table_name_with_control_format_or_bidi_characters_is_refused_by_the_api(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    for name in NAMES:
        error = _refused(pit.OpenTable, pb.OpenTableRequest(command_id=pit.next_id(), table=name,
                                                            settings=pb.Settings(blinds=[1, 2], **HOLDEM)))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(error) == "R-AUD-1", repr(name)
        error = _refused(pit.OpenBankedTable, pb.OpenBankedTableRequest(command_id=pit.next_id(), table=name,
                                                                        game="casino-draw", ante_min=5, ante_max=9))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, repr(name)
        error = _refused(pit.GetTable, pb.TableRequest(table=name))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, repr(name)
    pit.OpenTable(pb.OpenTableRequest(command_id=pit.next_id(), table="Mesa ñ 1 — salón", settings=pb.Settings(
        blinds=[1, 2], **HOLDEM)))  # letters, accents and punctuation of any script are names


def test_r_aud_1_one_name_space_for_circle_and_banked_tables(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    pit.OpenTable(pb.OpenTableRequest(command_id=pit.next_id(), table="Mesa 1",
                                      settings=pb.Settings(blinds=[1, 2], **HOLDEM)))
    error = _refused(pit.OpenBankedTable, pb.OpenBankedTableRequest(command_id=pit.next_id(), table="Mesa 1",
                                                                    game="casino-draw", ante_min=5, ante_max=100))
    assert "already" in (error.details() or "") and error_reason(error) == "R-AUD-1"
    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id=pit.next_id(), table="THB 1", game="holdem-bonus",
                                                  ante_min=5))
    error = _refused(pit.OpenTable, pb.OpenTableRequest(command_id=pit.next_id(), table="THB 1",
                                                        settings=pb.Settings(blinds=[1, 2], **HOLDEM)))
    assert "already" in (error.details() or "") and error_reason(error) == "R-AUD-1"
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # as for a circle table opened twice
    with pytest.raises(grpc.RpcError) as missing:
        pit.GetTable(pb.TableRequest(table="THB 1"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


# -- settings ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("settings", "rule"), [
    ({"blinds": [1, 2], "deck_size": 53}, "R-CARD-2"),
    ({"blinds": [1, 2], "deck_size": -1}, "R-CARD-2"),
    ({"blinds": [1, 2], "deck_size": 51}, "R-CARD-2"),
    ({"blinds": [10, 5]}, "R-CIRC-5"),
    ({"blinds": [1, 2, 1]}, "R-CIRC-5"),
    ({"blinds": [1] * 11}, "R-CIRC-5"),
    ({"blinds": [1] * 60_000}, "R-CIRC-5"),  # ≈ 60 KB: every later command of the table paid for 60,000 blinds
    ({"blinds": [1, MAX_CHIPS + 1]}, "R-CIRC-5"),
    ({"blinds": [1, 2], "ante": -1}, "R-CIRC-5"),
])
def test_r_circ_5_settings_no_table_can_play_are_refused_when_opened_and_configured(
    port: int, settings: dict[str, Any], rule: str,
) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    error = _refused(pit.OpenTable, pb.OpenTableRequest(command_id=pit.next_id(), table="Mesa 9",
                                                        settings=pb.Settings(**HOLDEM, **settings)))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(error) == rule, error.details()
    open_table(pit, dealer)
    before = pit.GetTable(pb.TableRequest(table="Mesa 1"))
    error = _refused(pit.ConfigureTable, pb.ConfigureTableRequest(command_id=pit.next_id(), table="Mesa 1",
                                                                  settings=pb.Settings(**HOLDEM, **settings)))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(error) == rule
    assert pit.GetTable(pb.TableRequest(table="Mesa 1")) == before


def test_r_circ_5_the_domain_refuses_decreasing_or_too_many_blinds_and_decks_r_card_2_does_not_have() -> None:
    for blinds in ((10, 5), (1, 2, 1), (1,) * 11):
        with pytest.raises(InvalidSettingsError) as refused:
            TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=blinds)
        assert refused.value.rule == "R-CIRC-5"
    for size in (53, -1, 0, 51, 56):
        with pytest.raises(InvalidSettingsError) as refused:
            TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), deck_size=size or 1)
        assert refused.value.rule == "R-CARD-2"
    with pytest.raises(InvalidSettingsError):
        TableSettings.create("holdem", BettingStructure.NO_LIMIT, antes=(1,) * 11, blinds=(1, 2))
    assert TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(0, 2, 4)).stakes.blinds == (0, 2, 4)
    assert TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), deck_size=36).deck_size == 36


# -- chips ---------------------------------------------------------------------------------------------------------


def test_r_circ_6_add_chips_may_not_take_a_stack_past_the_chip_cap(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    dealer.AddChips(pb.SeatPlayerRequest(command_id=dealer.next_id(), table="Mesa 1", seat=1, chips=MAX_CHIPS - 100))
    for _ in range(2):
        error = _refused(dealer.AddChips, pb.SeatPlayerRequest(command_id=dealer.next_id(), table="Mesa 1", seat=1,
                                                               chips=MAX_CHIPS))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and error_reason(error) == "R-CIRC-6"
    error = _refused(dealer.AddChips, pb.SeatPlayerRequest(command_id=dealer.next_id(), table="Mesa 1", seat=1,
                                                           chips=1))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert pit.GetTable(pb.TableRequest(table="Mesa 1")).stacks[1] == MAX_CHIPS
    assert "cap" in (error.details() or "")


# -- card sources --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["forged", "replay", "test", "SHOE", "shoe\x00"])
def test_r_aud_1_a_deal_names_a_source_a_station_deals_from(port: int, source: str) -> None:
    pit, dealer = _started(port)
    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id=pit.next_id(), table="CDP 1", game="casino-draw",
                                                  ante_min=5, ante_max=100))
    pit.StartBankedHand(pb.StartHandRequest(command_id=pit.next_id(), table="CDP 1"))
    for action, box in (("ante", 1), ("close-bets", None)):
        pit.BankedCommand(pb.BankedCommandRequest(command_id=pit.next_id(), table="CDP 1", action=action, box=box,
                                                  amount=10 if box else None))
    banked_before = pit.GetBankedTable(pb.TableRequest(table="CDP 1"))
    error = _refused(pit.BankedCommand, pb.BankedCommandRequest(command_id=pit.next_id(), table="CDP 1",
                                                                action="deal", card="As", source=source,
                                                                sequence=7))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(error) == "R-AUD-1"
    error = _refused(dealer.HandCommand, pb.HandCommandRequest(command_id=dealer.next_id(), table="Mesa 1",
                                                               action="deal", card="As", source=source, sequence=7))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(error) == "R-AUD-1"
    assert pit.GetBankedTable(pb.TableRequest(table="CDP 1")) == banked_before


def test_r_aud_1_the_banked_domain_refuses_an_unknown_card_source() -> None:
    hand = CdpHand.start(BankedTable.create_id("CDP 1"), 1, CdpSettings(5, 100), DeckIdentity(52, BackColour.RED))
    hand.place_ante(1, 10)
    hand.close_bets()
    with pytest.raises(CdpRuleError) as refused:
        hand.deal(Card.parse("As"), "forged")
    assert refused.value.rule == "R-AUD-1" and hand.version == 3


# -- statuses and messages -----------------------------------------------------------------------------------------


def test_r_circ_2_a_hand_command_with_no_hand_in_progress_is_failed_precondition(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["dealer"])
    open_table(pit, dealer)
    error = _refused(dealer.HandCommand, pb.HandCommandRequest(command_id=dealer.next_id(), table="Mesa 1",
                                                               action="fold", seat=1))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and error_reason(error) == "R-CIRC-2"
    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id=pit.next_id(), table="CDP 1", game="casino-draw",
                                                  ante_min=5, ante_max=100))
    error = _refused(pit.BankedCommand, pb.BankedCommandRequest(command_id=pit.next_id(), table="CDP 1",
                                                                action="fold", box=1))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "no hand" in (error.details() or "")


def _cdp_at_the_exchange() -> CdpHand:
    hand = CdpHand.start(BankedTable.create_id("CDP 1"), 1, CdpSettings(5, 100), DeckIdentity(52, BackColour.RED))
    for box in (1, 2):
        hand.place_ante(box, 10)
    hand.close_bets()
    for card in parse_cards("2c Ac 7d Ad 9h 5h Js 5s Kc Qc 3c 4d 6h 8s Td"):
        hand.deal(card)
    return hand


def test_r_cdp_2_a_box_that_plays_or_folds_before_exchanging_is_told_to_exchange_first() -> None:
    """Box 1, whose turn it is to exchange, plays: the refusal said "box 1 decides now, not box 1" — the box named
    was the box that acted, because the check asked for the decision stage and blamed the turn."""
    hand = _cdp_at_the_exchange()
    attempts: list[Callable[[], None]] = [lambda: hand.play(1, 20), lambda: hand.fold(1)]
    for attempt in attempts:
        with pytest.raises(CdpRuleError) as refused:
            attempt()
        assert refused.value.rule == "R-CDP-2"
        assert "box 1 exchanges" in refused.value.message and "not box 1" not in refused.value.message
    with pytest.raises(CdpRuleError) as refused:
        hand.play(2, 20)
    assert "box 1 exchanges" in refused.value.message
    hand.exchange(1, [Card.parse("2c")])
    with pytest.raises(CdpRuleError) as refused:
        hand.exchange(2, [])
    assert "None" not in refused.value.message and "box 1" in refused.value.message  # its card is due first
    hand.deal(Card.parse("2d"))
    hand.exchange(2, [])
    with pytest.raises(CdpRuleError) as refused:
        hand.play(2, 20)
    assert refused.value.rule == "R-CDP-3" and "box 1 decides now, not box 2" in refused.value.message
    hand.play(1, 20)
    hand.fold(2)
    assert hand.is_complete or hand.next_card == 0


def test_r_cdp_3_a_decision_before_the_deal_names_no_box() -> None:
    hand = CdpHand.start(BankedTable.create_id("CDP 1"), 1, CdpSettings(5, 100), DeckIdentity(52, BackColour.RED))
    hand.place_ante(1, 10)
    with pytest.raises(CdpRuleError) as refused:
        hand.fold(1)
    assert "None" not in refused.value.message
