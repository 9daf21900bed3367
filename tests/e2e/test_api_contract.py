"""The pokertable.v1 contract (issue 14): buf lint (STANDARD) is clean, events.proto is what the domain's event
classes say, every event has its TableEvent case, and the one mapping (service.grpc.event_messages.to_message)
carries every field of real events of a Hold'em, a five-card draw, a Texas Hold'em Bonus and a Casino Draw Poker
hand and their tables — cards, seats, boxes, chips, ids, settings — with the hidden cards of the visibility policy."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import typing
from collections.abc import Iterator, Mapping
from datetime import UTC
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.domain import Aggregate
from google.protobuf.message import Message

from domain.audit_findings import AuditFindings
from domain.banked.cdp import CdpSettings
from domain.banked.table import BankedTable
from domain.banked.thb import STANDARD_LIMITS, ThbHand, ThbSettings
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from domain.circle.table import Table
from domain.device_reports import DeviceReport
from domain.games import GAMES
from domain.reconstruction import event_data
from service.api import events_pb2
from service.app.visibility import HIDDEN, event_payload
from service.grpc import event_messages
from service.grpc.event_messages import EVENTS, STRUCT, timestamp, to_message
from tests.support.banked_support import play_cdp_randomly, play_thb_randomly
from tests.support.circle_support import holdem, play_randomly, shuffled

ROOT = Path(__file__).resolve().parents[2]
BUF = ROOT / "tools" / "node" / "node_modules" / ".bin" / "buf"
_BOOKKEEPING = {"originator_id", "originator_version", "timestamp", "originator_id_type", "originator_topic"}


def _buf() -> Path:
    """The pinned buf of tools/node, installed from its lock file if npm is here (else the test is skipped)."""
    if not BUF.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed: buf (tools/node) cannot be installed to lint the API")
        subprocess.run([npm, "install", "--prefix", str(BUF.parents[2]), "--no-audit", "--no-fund"], check=True,
                       capture_output=True, timeout=300)
    return BUF


def test_buf_lint_standard_is_clean() -> None:
    """buf lint (STANDARD, buf.yaml) finds nothing in proto/."""
    lint = subprocess.run([str(_buf()), "lint"], check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert lint.stdout == ""


def test_events_proto_is_current() -> None:
    """proto/pokertable/v1/events.proto is what `python -m service.grpc.event_messages --write` writes now."""
    check = subprocess.run([sys.executable, "-m", "service.grpc.event_messages", "--check"], check=False, cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr


def test_a_stale_events_proto_is_rewritten_with_its_numbers_kept() -> None:
    """A file that differs from the domain is rewritten (what --check finds stale); every number stays, and a field
    the domain no longer has is reserved, number and name, so it is never reused."""
    current = event_messages.EVENTS_PROTO.read_text(encoding="utf-8")
    assert event_messages.render(current) == current
    folded = "message HandFolded {\n  int64 seat = 1; // the seat (1-based)\n"
    edited = current.replace(folded, folded + "  string gone = 2;\n", 1)
    assert edited != current
    again = event_messages.render(edited)
    assert again != edited
    assert "reserved 2;" in again and 'reserved "gone";' in again
    assert again.replace('  reserved 2;\n  reserved "gone";\n', "", 1) == current
    renumbered = current.replace("HandFolded hand_folded = 27;", "HandFolded hand_folded = 99;", 1)
    assert "hand_folded = 99;" in event_messages.render(renumbered)


def _all_event_classes() -> Iterator[type[Any]]:
    """Every event class there is, found from the library's base class (not the way the generator finds them)."""
    seen: list[type[Any]] = [Aggregate.Event]
    while seen:
        cls = seen.pop()
        seen.extend(cls.__subclasses__())
        yield cls


def test_every_domain_event_class_has_a_table_event_case() -> None:
    """Each event a table's aggregates record (each game's table and hand, domain.games.GAMES), and the casino's
    record of tampering found by the audit, is a TableEvent case whose message has exactly the event's fields."""
    aggregates = {cls.__name__ for game in GAMES.values() for cls in (game.table_class, game.hand_class)}
    aggregates.add(AuditFindings.__name__)  # the casino's log's own alerts, on a floor's stream
    cases = {field.message_type.name: field.message_type for field in events_pb2.TableEvent.DESCRIPTOR.fields
             if field.message_type is not None}
    expected = set()
    for cls in _all_event_classes():
        aggregate, _, name = cls.__qualname__.partition(".")
        if aggregate not in aggregates or "." in name or not cls.__module__.startswith("domain."):
            continue
        fields = set(typing.get_type_hints(cls)) - _BOOKKEEPING
        if name in ("Event", "Created") and not fields:
            continue  # the library's own base classes of the aggregate: never recorded
        expected.add(f"{aggregate}{name}")
        assert f"{aggregate}{name}" in cases, f"{cls.__qualname__} has no TableEvent case"
        message = cases[f"{aggregate}{name}"]
        assert {field.name for field in message.fields} == fields, cls.__qualname__
    assert expected == set(cases)
    assert len(cases) == len(EVENTS)


# -- the round trip: real events, mapped and compared field by field ---------------------------------------------


def _assert_field(message: Message, name: str, value: Any, where: str) -> None:
    field = message.DESCRIPTOR.fields_by_name[name]
    got = getattr(message, name)
    if value is None:
        assert not message.HasField(name), where
    elif field.message_type is not None and field.message_type.full_name == STRUCT:
        assert dict(got) and _plain(got) == value, where
    elif field.message_type is not None and field.message_type.GetOptions().map_entry:
        key_is_int = field.message_type.fields_by_name["key"].type == field.TYPE_INT32
        assert dict(got) == {int(k) if key_is_int else k: v for k, v in value.items()}, where
    elif field.message_type is not None and field.is_repeated:  # a pot's shares: [seat, chips]
        assert [[share.seat, share.amount] for share in got] == [list(share) for share in value], where
    elif field.message_type is not None:
        assert message.HasField(name), where
        for key, item in value.items():
            _assert_field(got, key, item, f"{where}.{key}")
    elif field.is_repeated:
        assert list(got) == list(value), where
    else:
        assert got == (str(value) if isinstance(value, UUID) else value), where
        assert type(got) is type(str(value) if isinstance(value, UUID) else value), where


def _plain(struct: Any) -> Any:
    """A Struct's values as Python data (its numbers are floats: 5.0 == 5 compares equal)."""
    from google.protobuf.json_format import MessageToDict

    return MessageToDict(struct)


def _assert_maps(event: Any, *, sees_down_cards: bool = True) -> events_pb2.TableEvent:
    qualname = type(event).__qualname__
    payload = event_payload(qualname, event_data(event), sees_down_cards=sees_down_cards)
    mapped = to_message(type(event), payload)
    case = mapped.WhichOneof("event")
    assert case == EVENTS[qualname].oneof
    message = getattr(mapped, case)
    for name, value in payload.items():
        _assert_field(message, name, value, f"{qualname}.{name}")
    assert timestamp(event.timestamp).ToDatetime(tzinfo=UTC) == event.timestamp
    return mapped


def _circle_events(settings: TableSettings, seed: int) -> list[Any]:
    """A circle table's life: open, seats, chips, a device report, one hand played out, a correction, closing."""
    rng = random.Random(seed)
    table = Table.open(f"contract {settings.variant}", settings, seat_count=6)
    for seat in (1, 3, 4):
        table.sit(seat, 200)
    table.add_chips(3, 50)
    table.record_device_report(DeviceReport("ShuffleStar", "SN-7", "shuffle", "red", "deck ready"))
    deck = DeckIdentity(table.deck_size_for_next_hand(), BackColour.RED, "lot 12")
    hand = table.start_hand(deck)
    play_randomly(hand, rng, shuffled(deck.size, rng))
    table.finish_hand(hand)
    table.correct_stack(1, 190, "miscounted", "pit")
    table.record_reconstruction(1, "pit", "dispute")
    table.close("pit")
    return [*table.collect_events(), *hand.collect_events()]


def test_holdem_and_draw_events_map_field_by_field() -> None:
    """Every event of a Hold'em and a five-card draw table and hand maps with every value in its typed field."""
    draw = TableSettings.create("draw", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4)
    kinds = set()
    for settings, seed in ((holdem(burn=True), 3), (draw, 11)):
        for event in _circle_events(settings, seed):
            _assert_maps(event)
            kinds.add(type(event).__qualname__)
    assert {"Table.Opened", "Hand.Started", "Hand.CardDealt", "Hand.PotAwarded", "Table.HandFinished",
            "Hand.Discarded", "Table.Closed"} <= kinds


def test_a_hole_card_hidden_by_the_visibility_policy_maps_as_hidden() -> None:
    """After the policy hid a face-down card, the message says "??" (and a board card stays public)."""
    hands = ([e for e in _circle_events(holdem(burn=True), seed) if type(e).__qualname__ == "Hand.CardDealt"]
             for seed in range(40))
    events = next(dealt for dealt in hands if any(e.kind == "board" for e in dealt))  # a hand that saw the flop
    hole = next(e for e in events if e.kind == "hole")
    board = next(e for e in events if e.kind == "board")
    assert _assert_maps(hole, sees_down_cards=False).hand_card_dealt.card == HIDDEN
    assert _assert_maps(hole).hand_card_dealt.card == hole.card != HIDDEN
    shown = _assert_maps(board, sees_down_cards=False).hand_card_dealt
    assert (shown.card, shown.seat, shown.HasField("seat")) == (board.card, 0, False)


def test_banked_events_map_field_by_field() -> None:
    """Every event of a Texas Hold'em Bonus and a Casino Draw Poker table and hand maps field by field."""
    rng = random.Random(7)
    kinds = set()
    for game, settings in (("holdem-bonus", ThbSettings(STANDARD_LIMITS[5])), ("casino-draw", CdpSettings(5, 100))):
        table = BankedTable.open(f"contract {game}", game, settings)
        hand = table.start_hand(DeckIdentity(52, BackColour.BLUE, ""))
        hand.place_ante(2, 10)
        hand.place_ante(5, 20)
        if isinstance(hand, ThbHand):
            hand.place_bonus(2, 5)
        hand.close_bets()
        if isinstance(hand, ThbHand):
            play_thb_randomly(hand, rng)
        else:
            play_cdp_randomly(hand, rng)
        table.finish_hand(hand)
        for event in [*table.collect_events(), *hand.collect_events()]:
            mapped = _assert_maps(event)
            kinds.add(type(event).__qualname__)
            if type(event).__qualname__ == "CdpHand.CardDealt":
                hidden = _assert_maps(event, sees_down_cards=False).cdp_hand_card_dealt
                assert (hidden.card, hidden.box) == (HIDDEN, vars(event)["box"])
            if type(event).__qualname__ == "ThbHand.BoxSettled":
                assert dict(mapped.thb_hand_box_settled.result) == vars(event)["result"]
    assert {"BankedTable.Opened", "ThbHand.Started", "ThbHand.CardDealt", "ThbHand.BoxSettled", "CdpHand.Started",
            "CdpHand.Exchanged", "CdpHand.Completed", "BankedTable.HandFinished"} <= kinds


def test_the_mapping_takes_a_class_a_qualname_or_a_topic_and_refuses_what_it_does_not_know() -> None:
    """One mapping: the event named three ways; an unknown event or field is an error, not a silent drop."""
    data: Mapping[str, Any] = {"seat": 4, "amount": 30}
    topic = "domain.circle.hand:Hand.Called"
    assert to_message(topic, data) == to_message("Hand.Called", data)
    with pytest.raises(KeyError):
        to_message("Hand.Teleported", {})
    with pytest.raises(ValueError, match="no field"):
        to_message("Hand.Called", {**data, "extra": 1})
    with pytest.raises(TypeError):
        to_message("Hand.Called", {"seat": "four", "amount": 30})
