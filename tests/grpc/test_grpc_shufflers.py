"""ListShufflers (issue 19, items 1 and 5; docs/integrity.md): the shufflers' integrity for the pit over gRPC, on a
real server on SQLite and on PostgreSQL, from hands dealt by the shoe after each shuffle was reported.

A shuffler that passes the deck through fails on both of its decks at the first shuffle seen, named first, with
where it alarmed (table, hand, time); a fair one passes once ten shuffles of each deck are seen; the figures are
those the test computes from the cards it dealt.  Only the pit boss and the games director may ask (R-DECK-2): a
croupier's station, an observer and a device are refused with PERMISSION_DENIED; a range that ends before it
starts, or a floor of no deck, is INVALID_ARGUMENT naming the field.  The server's monitor settings (``pokertable
serve``'s ``shuffler_*``) are the ones it judges by."""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domain.integrity.monitor import MonitorSettings
from domain.integrity.observations import Gathering
from domain.shifts import shift_start
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.bootstrap import open_store
from service.cli.settings import settings
from tests.support import grpc_support
from tests.support.grpc_support import STATIONS, TOKENS, Client, rule_of, serving, violations
from tests.support.shoe_support import ShoeTable, pass_through, uniform

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

TESTS = [pb.SHUFFLER_TEST_ADJACENT_PAIRS, pb.SHUFFLER_TEST_POSITIONS, pb.SHUFFLER_TEST_RISING_SEQUENCES]


def _compared(table: ShoeTable, colour: int) -> tuple[int, int, int]:
    """The test's own figures of one deck: shuffles seen, cards whose place going in (read then stub: the order the
    previous hand of the deck read them) and coming out are both known, and the adjacent pairs kept among them."""
    reads = [cards for deck, cards in table.read if deck == colour]
    shuffles = compared = kept = 0
    for before, after in itertools.pairwise(reads):
        places = [before.index(card) for card in after if card in before]
        ranks = [sorted(places).index(place) for place in places]
        shuffles, compared = shuffles + 1, compared + len(places)
        kept += sum(1 for first, second in itertools.pairwise(ranks) if second == first + 1)
    return shuffles, compared, kept


def test_a_pass_through_shuffler_fails_first_with_where_it_alarmed_and_a_fair_one_passes(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    fair = ShoeTable(pit, Client(port, TOKENS["dealer"]), "Mesa 1")
    broken = ShoeTable(pit, Client(port, TOKENS["other"]), "Mesa 2")
    for _ in range(22):  # 11 hands of each deck: 10 shuffles seen of each
        fair.hand(uniform, serial="SN-FAIR")
    for _ in range(4):
        broken.hand(pass_through, serial="SN-BROKEN", device="PT-SHUF-2")
    shift = pit.ListShufflers(svc.ListShufflersRequest())  # the current shift: from 00:00, 08:00 or 16:00 (UTC here)
    until = shift.until.ToDatetime(tzinfo=UTC)
    assert shift.since.ToDatetime(tzinfo=UTC) == shift_start(until, ZoneInfo("UTC")) and until <= datetime.now(UTC)
    hour_ago = Timestamp(seconds=shift.until.seconds - 3600)  # the last hour: a shift's start may fall in the test
    reply: svc.ListShufflersResponse = pit.ListShufflers(svc.ListShufflersRequest(since=hour_ago))
    assert [(deck.serial, deck.colour, deck.verdict) for deck in reply.shufflers] == [
        ("SN-BROKEN", pb.DECK_COLOUR_BLUE, pb.SHUFFLER_VERDICT_FAIL),
        ("SN-BROKEN", pb.DECK_COLOUR_RED, pb.SHUFFLER_VERDICT_FAIL),
        ("SN-FAIR", pb.DECK_COLOUR_BLUE, pb.SHUFFLER_VERDICT_PASS),
        ("SN-FAIR", pb.DECK_COLOUR_RED, pb.SHUFFLER_VERDICT_PASS)]
    settings = reply.settings
    assert (settings.level, settings.looks, settings.gathering, settings.decks) == (
        0.01, 160, pb.SHUFFLER_GATHERING_READ_THEN_STUB, 4)
    assert settings.test_level == pytest.approx(0.01 / (3 * 160 * 4))
    for deck in reply.shufflers:
        table = broken if deck.serial == "SN-BROKEN" else fair
        shuffles, compared, kept = _compared(table, deck.colour)
        assert (deck.shuffles, deck.cards_compared, deck.deck_size, list(deck.tables)) == (
            shuffles, compared, 52, [table.table])
        figures = {test.test: test for test in deck.tests}
        assert list(figures) == TESTS
        assert figures[pb.SHUFFLER_TEST_ADJACENT_PAIRS].statistic == kept
        assert all(test.HasField("p_value") for test in deck.tests if test.test != pb.SHUFFLER_TEST_POSITIONS)
        if deck.serial == "SN-FAIR":
            assert not deck.HasField("alarm") and shuffles == 10
            assert all(test.p_value >= settings.test_level for test in deck.tests if test.HasField("p_value"))
            continue
        # every card the shoe read came out where it went in: 12 cards, 11 pairs kept, at the first shuffle seen
        assert (shuffles, compared, kept) == (1, 12, 11) and deck.device == "PT-SHUF-2"
        alarm = deck.alarm
        hand = 3 if deck.colour == pb.DECK_COLOUR_RED else 4  # the deck's second hand: its first shuffle seen
        assert (alarm.shuffle, alarm.test, alarm.table, alarm.hand_number) == (
            1, pb.SHUFFLER_TEST_ADJACENT_PAIRS, "Mesa 2", hand)
        assert reply.since.ToDatetime() <= alarm.time.ToDatetime() <= reply.until.ToDatetime()
        assert figures[pb.SHUFFLER_TEST_ADJACENT_PAIRS].p_value < settings.test_level
    director = Client(port, TOKENS["director"]).ListShufflers(svc.ListShufflersRequest(
        since=hour_ago, until=reply.until, decks=20))  # the games director; 20 decks share the level
    assert [deck.verdict for deck in director.shufflers] == [deck.verdict for deck in reply.shufflers]
    assert director.settings.test_level == pytest.approx(0.01 / (3 * 160 * 20))
    earlier = Timestamp(seconds=reply.since.seconds - 3600)
    assert not pit.ListShufflers(svc.ListShufflersRequest(since=earlier, until=reply.since)).shufflers


@pytest.mark.parametrize("who", ["dealer", "tv", "shoe"])
def test_only_the_pit_boss_and_the_games_director_see_the_shufflers(port: int, who: str) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        Client(port, TOKENS[who]).ListShufflers(svc.ListShufflersRequest())
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(refused.value) == "R-DECK-2"


def test_a_range_that_ends_before_it_starts_or_a_floor_of_no_deck_is_refused(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    bad = [(svc.ListShufflersRequest(since=Timestamp(seconds=2_000_000_000), until=Timestamp(seconds=1_900_000_000)),
            "until"), (svc.ListShufflersRequest(decks=0), "decks")]
    for request, field in bad:
        with pytest.raises(grpc.RpcError) as refused:
            pit.ListShufflers(request)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert (rule_of(refused.value), violations(refused.value)) == ("R-DECK-2", [field])
    assert not pit.ListShufflers(svc.ListShufflersRequest()).shufflers  # nothing dealt: no shuffler seen


def test_the_server_judges_by_its_own_monitor_settings(tmp_path: Path) -> None:
    """``pokertable serve`` passes its ``shuffler_*`` settings and the casino's time zone to the server: with an
    unknown gathering only the per-position test applies, at the level and looks configured; the default range is
    the casino's current shift."""
    store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
    chosen, madrid = MonitorSettings(level=0.05, looks=80, gathering=Gathering.UNKNOWN), ZoneInfo("Europe/Madrid")
    try:
        with serving(store.app, STATIONS, shufflers=chosen, zone=madrid) as bound:
            pit = Client(bound, TOKENS["pit"])
            table = ShoeTable(pit, Client(bound, TOKENS["dealer"]), "Mesa 1")
            for _ in range(4):
                table.hand(pass_through, serial="SN-1")
            reply = pit.ListShufflers(svc.ListShufflersRequest(since=Timestamp(seconds=int(time.time()) - 3600)))
            shift = pit.ListShufflers(svc.ListShufflersRequest())  # the casino's shift: from its 00:00, 08:00, 16:00
    finally:
        store.close()
    assert (reply.settings.level, reply.settings.looks, reply.settings.gathering) == (
        0.05, 80, pb.SHUFFLER_GATHERING_UNKNOWN)
    assert reply.settings.test_level == pytest.approx(0.05 / (1 * 80 * 2))
    assert shift.since.ToDatetime(tzinfo=UTC) == shift_start(shift.until.ToDatetime(tzinfo=UTC), madrid)
    for deck in reply.shufflers:
        assert [test.test for test in deck.tests] == [pb.SHUFFLER_TEST_POSITIONS]
        assert deck.cards_compared == 12  # every card read, placed by its own place in the deck's order
        assert deck.verdict == pb.SHUFFLER_VERDICT_NOT_ENOUGH_DATA  # one shuffle of each deck: too few to judge


def test_serve_s_shuffler_settings_come_from_its_flags_environment_and_file() -> None:
    """What ``pokertable serve`` passes to the server (:meth:`Settings.shuffler_monitor`): the ``shuffler_*`` keys of
    the configuration file's ``[service]`` table, overridden by ``POKERTABLE_SHUFFLER_*``, else the defaults."""
    chosen = settings(environ={"POKERTABLE_SHUFFLER_LOOKS": "80"},
                      file={"service": {"shuffler_level": 0.05, "shuffler_gathering": "stub-then-read"}})
    assert chosen.shuffler_monitor() == MonitorSettings(level=0.05, looks=80, gathering=Gathering.STUB_THEN_READ)
    assert settings(environ={}, file={}).shuffler_monitor() == MonitorSettings()


@pytest.mark.parametrize("rpc", ["ListShufflers", "ListDealerFigures"])
def test_a_range_at_the_ends_of_the_calendar_is_refused_by_its_field_never_internal(tmp_path: Path, rpc: str) -> None:
    """Attack (issue 34, "also found"): ``until`` at 9999-12-31 or ``since`` at 0001-01-01 answered INTERNAL (an
    OverflowError reading them in the casino's zone, Europe/Madrid, and finding their shift); each is now refused as
    INVALID_ARGUMENT naming its field, and a time two days inside the calendar is answered."""
    request = getattr(svc, f"{rpc}Request")
    last, first = 253_402_300_799, -62_135_596_800  # 9999-12-31T23:59:59Z, 0001-01-01T00:00:00Z
    store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
    try:
        with serving(store.app, STATIONS, zone=ZoneInfo("Europe/Madrid")) as bound:
            pit = Client(bound, TOKENS["pit"])
            for field, seconds in (("until", last), ("until", last - 86_400), ("since", first),
                                   ("since", first + 86_400)):
                with pytest.raises(grpc.RpcError) as refused:
                    getattr(pit, rpc)(request(**{field: Timestamp(seconds=seconds)}))
                assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (field, seconds)
                assert violations(refused.value) == [field]
            answered = getattr(pit, rpc)(request(until=Timestamp(seconds=last - 3 * 86_400)))
            assert answered.until.seconds == last - 3 * 86_400
    finally:
        store.close()
