"""Hand reconstruction (R-THB-13, R-AUD-1): for random hands of every circle game, each reconstructed step equals the
state the live hand was in right after that event, and the last step equals the state the hand ended with."""

from __future__ import annotations

import json
import random
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit import HandHistory

from domain.actions import Action, Check, CloseBets, Deal, FlopBet, Fold, PlaceAnte
from domain.banked.cdp import CdpHand
from domain.banked.thb import STANDARD_LIMITS, ThbHand, ThbSettings
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.settings import BettingStructure, TableSettings
from domain.export import ExportError, hand_document, hand_phh
from domain.reconstruction import Step, reconstruct
from service.app.application import (
    AccessDeniedError,
    NotFoundError,
    PokerTables,
    Role,
    ServiceError,
    Viewer,
)
from service.app.commands import Act, OpenTable, ReconstructHand, Sit, StartHand
from service.app.table_views import BankedHandView
from service.cli.main import main
from service.cli.reconstruct import history_document
from service.formats.phh import ReplayFailure, replay
from service.formats.render import describe, render
from service.store.persistence import environment
from tests.support.app_play import _play_recording
from tests.support.banked_support import cdp_hand, play_cdp_randomly, play_thb_randomly, thb_hand
from tests.support.circle_support import play_randomly, shuffled
from tests.support.circle_tables import Table, start_table, tables
from tests.support.pokerkit_hands import hands
from tests.support.stores import postgres_store


def reconstructed(app: PokerTables, command: ReconstructHand, viewer: Viewer) -> list[Step]:
    """The pit's request recorded (R-THB-13, R-AUD-1), then the hand's steps as ``viewer`` may see them."""
    app.handle(command, viewer)
    return app.reconstruction(command.table, command.number, viewer)


@settings(max_examples=150, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_every_step_of_a_reconstruction_is_the_live_state_at_that_event(table: Table, rng: random.Random) -> None:
    hand = start_table(table)
    live: dict[int, dict[str, Any]] = {hand.version: hand.snapshot()}
    trigger = hand.trigger_event

    def recording(*args: Any, **kwargs: Any) -> None:
        trigger(*args, **kwargs)
        live[hand.version] = hand.snapshot()

    hand.trigger_event = recording  # type: ignore[method-assign]
    play_randomly(hand, rng, shuffled(hand.state.deck_size, rng))
    del hand.trigger_event
    events = hand.collect_events()
    steps = reconstruct(events)
    assert [step.version for step in steps] == list(range(1, len(events) + 1))
    assert sorted(live) == list(range(min(live), len(events) + 1))  # from the opening (start posts forced bets)
    for step in steps[min(live) - 1:]:
        assert step.state == live[step.version], step.event
    assert steps[-1].state == hand.snapshot()
    assert render(steps[-1])  # the terminal view renders every state


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    return environment(f"sqlite:///{tmp_path / 'r.db'}") if request.param == "sqlite" else postgres_store()


def test_the_pit_boss_reconstructs_a_hand_step_by_step_as_the_service_reported_it(store: dict[str, str]) -> None:
    app = PokerTables(env=store)
    hand_id, seen = _play_recording(app)
    before = app.table("Mesa R").version
    with pytest.raises(AccessDeniedError) as refused:
        reconstructed(app, ReconstructHand("rc-0", "Mesa R", 1, "curious"), Viewer("mesa-r", Role.DEALER, "Mesa R"))
    assert refused.value.rule == "R-THB-13" and app.table("Mesa R").version == before  # nothing recorded
    steps = reconstructed(app, ReconstructHand("rc-1", "Mesa R", 1, "seat 2 disputes the pot"), Viewer("pit-7",
                                                                                                       Role.PIT_BOSS))
    for step in steps:
        if step.version in seen:
            assert step.state == seen[step.version], step.event
    assert steps[-1].state == app.hand(hand_id).snapshot() and steps[-1].state["awards"]
    requests = [vars(e) for e in app.events.get(app.table("Mesa R").id)
                if type(e).__name__ == "ReconstructionRequested"]
    assert [(r["pit_boss"], r["reason"], r["number"]) for r in requests] == [("pit-7", "seat 2 disputes the pot", 1)]


def test_the_reconstruct_command_lists_the_events_and_draws_the_table_at_a_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    hand_id, _ = _play_recording(PokerTables(env=environment(url)))
    assert main(["reconstruct", str(hand_id), "--db", url]) == 0  # read-only: nothing recorded (R-AUD-1)
    out = capsys.readouterr().out
    assert "read from the store, not recorded" in out and "As to seat 2 (shoe read 1)" in out
    assert "pot of 6 (rake 0) paid: seat 2 2, seat 3 2, seat 1 2" in out
    assert main(["reconstruct", str(hand_id), "--db", url, "--at", "4"]) == 0
    out = capsys.readouterr().out
    assert "after event 4 (Hand.CardDealt" in out and "seat  1" in out
    # R-THB-13: a recorded reconstruction is the running service's (--record --server; test_read_only_inspection.py)
    assert main(["reconstruct", str(hand_id), "--db", url, "--reason", "dispute at seat 1", "--by", "pit-3"]) == 2
    assert "--record" in capsys.readouterr().err


@settings(max_examples=60, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_the_json_export_carries_every_event_and_the_outcome(table: Table, rng: random.Random) -> None:
    hand = start_table(table)
    play_randomly(hand, rng, shuffled(hand.state.deck_size, rng))
    events = hand.collect_events()
    document = json.loads(json.dumps(hand_document(events)))
    assert document["format"] == "pokertable-hand/1" and document["hand_id"] == str(hand.id)
    assert [e["version"] for e in document["events"]] == list(range(1, len(events) + 1))
    assert [e["event"] for e in document["events"]] == [type(e).__qualname__ for e in events]
    assert document["starting_stacks"] == table.stacks and document["seats"] == hand.seats
    if hand.state.void_rule is None:
        assert document["finishing_stacks"] == list(hand.state.stacks)
    dealt = [e["data"]["card"] for e in document["events"] if e["event"] == "Hand.CardDealt"]
    if not any(e["event"] == "Hand.DiscardsReshuffled" for e in document["events"]):
        assert len(dealt) == len(set(dealt))  # each card once, as dealt (draw may redeal reshuffled discards)


def test_the_export_command_prints_a_hand_and_a_whole_table(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'export.db'}"
    hand_id, _ = _play_recording(PokerTables(env=environment(url)))
    assert main(["export", str(hand_id), "--db", url]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["hand_id"] == str(hand_id) and document["finishing_stacks"] == [300, 300, 300]
    assert main(["export", "--table", "Mesa R", "--db", url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["number"] for line in lines] == [1]
    assert main(["export", "--table", "Mesa R", "--from", "2000-01-01T00:00:00+00:00", "--db", url]) == 0
    assert [json.loads(line)["number"] for line in capsys.readouterr().out.splitlines()] == [1]
    assert main(["export", "--table", "Mesa R", "--to", "2000-01-01T00:00:00+00:00", "--db", url]) == 0
    assert capsys.readouterr().out == ""
    assert main(["export", "--table", "Mesa Z", "--db", url]) == 1
    assert "Mesa Z" in capsys.readouterr().err


@pytest.mark.parametrize("variant", ["NT", "FT", "PO", "F7S"])
def test_exported_phh_replays_in_pokerkit_to_the_same_finishing_stacks(variant: str) -> None:
    """pokerkit plays random hands; our engine replays them; our PHH export of our events goes back to pokerkit.
    (Fixed-limit hands that raise past our cap, which counts the big blind, are refused by our engine: R-CIRC-4.)"""
    exported = 0
    for oracle in hands(variant, 40, first_seed=500):
        try:
            ours = replay(tomllib.loads(oracle.phh))
        except ReplayFailure as failure:
            assert variant == "FT" and failure.error.rule == "R-CIRC-4"
            continue
        exported += 1
        history = HandHistory.loads(hand_phh(ours.collect_events()))
        state = None
        for state in history:  # noqa: B007 (the last state is the hand's end)
            pass
        assert state is not None
        assert tuple(state.stacks) == tuple(ours.state.stacks) == oracle.final_stacks
    assert exported >= 20


def test_a_game_phh_cannot_describe_is_refused_with_a_clear_error(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(3)
    draw = start_table(Table(TableSettings.create("draw", BettingStructure.POT_LIMIT, antes=1, small_bet=2,
                                                  big_bet=4, min_bet=2), [100, 100, 100]))
    play_randomly(draw, rng, shuffled(draw.state.deck_size, rng))
    with pytest.raises(ExportError, match="export it as JSON"):
        hand_phh(draw.collect_events())
    url = f"sqlite:///{tmp_path / 'phh.db'}"
    hand_id, _ = _play_recording(PokerTables(env=environment(url)))
    assert main(["export", str(hand_id), "--db", url, "--format", "phh"]) == 0
    text = capsys.readouterr().out
    assert text.startswith('variant = "NT"') and '"d db 7d8d9d"' in text and '"d db Td"' in text
    assert tomllib.loads(text)["starting_stacks"] == [300, 300, 300]


def test_the_table_as_it_stood_at_any_past_position_or_time(store: dict[str, str]) -> None:
    app = PokerTables(env=store)
    pit = Viewer("pit", Role.PIT_BOSS)
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
    app.handle(OpenTable("h-0", "Mesa H", settings))
    app.handle(OpenTable("h-x", "Mesa X", settings))  # another table's events in between are skipped
    moments: list[tuple[int, datetime, dict[int, int], dict[str, Any] | None]] = []

    def remember() -> None:
        record = app.table("Mesa H")
        hand = app.hand(record.hand_in_progress).snapshot() if record.hand_in_progress else None
        moments.append((app.recorder.max_notification_id() or 0, datetime.now(UTC), dict(record.stacks), hand))

    for seat in (1, 2, 3):
        app.handle(Sit(f"h-{seat}", "Mesa H", seat, 100))
        app.handle(Sit(f"x-{seat}", "Mesa X", seat, 100))
        remember()
    app.handle(StartHand("h-4", "Mesa H", DeckIdentity(52, BackColour.BLUE)))
    remember()
    for number, card in enumerate(["As", "Kd", "Qh", "Ac", "Kc", "Qs"]):
        app.handle(Act(f"h-d{number}", "Mesa H", Deal(card=Card.parse(card))), pit)
        remember()
    for seat in (1, 2):
        app.handle(Act(f"h-f{seat}", "Mesa H", Fold(seat=seat)), pit)
        remember()
    for position, moment, stacks, hand in moments:
        for at in (app.views.table_at("Mesa H", position=position), app.views.table_at("Mesa H", moment=moment)):
            assert at.state["stacks"] == stacks and at.hand == hand
    then = app.views.table_at("Mesa H", position=moments[3][0]).hand
    assert then is not None and then["next_card"] == ("hole", 0)
    with pytest.raises(NotFoundError):
        app.views.table_at("Mesa H", position=0)


def test_the_history_command_prints_the_table_at_a_position(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    app = PokerTables(env=environment(url))
    _play_recording(app)
    for position in (5, 20):
        assert main(["history", "Mesa R", "--position", str(position), "--tz", "America/New_York", "--db", url]) == 0
        state = json.loads(capsys.readouterr().out)
        expected = json.loads(json.dumps(history_document(app.views.table_at("Mesa R", position=position)),
                                         default=str))
        shown = datetime.fromisoformat(state.pop("time"))  # in the casino's time zone (--tz), with its offset
        assert shown == datetime.fromisoformat(expected.pop("time")) and shown.utcoffset() != UTC.utcoffset(None)
        assert state == expected
        assert state["position"] <= position and len(state["stacks"]) >= 1
    assert main(["history", "Mesa R", "--time", "2000-01-01 00:00", "--db", url]) == 1  # the casino's time then
    assert "did not exist yet then" in capsys.readouterr().err
    assert main(["history", "Mesa R", "--time", "new year's eve", "--db", url]) == 2
    assert "is not a time" in capsys.readouterr().err


def test_hands_are_found_by_time_seat_and_outcome(store: dict[str, str]) -> None:
    app = PokerTables(env=store)
    pit = Viewer("pit", Role.PIT_BOSS)
    settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=False)
    app.handle(OpenTable("s-0", "Mesa S", settings))
    for seat in (1, 2, 3):
        app.handle(Sit(f"s-{seat}", "Mesa S", seat, 100))
    times = []
    for number in (1, 2, 3):
        times.append(datetime.now(UTC))
        app.handle(StartHand(f"s-h{number}", "Mesa S", DeckIdentity(52, BackColour.RED)))
        for index, card in enumerate(["As", "Kd", "Qh", "Ac", "Kc", "Qs"]):
            app.handle(Act(f"s-{number}-{index}", "Mesa S", Deal(card=Card.parse(card))), pit)
        if number == 3:
            break  # the third hand stays in progress
        button = (number - 1) % 3 + 1
        for seat in (button, button % 3 + 1):
            app.handle(Act(f"s-{number}-f{seat}", "Mesa S", Fold(seat=seat)), pit)
    everything = app.views.search_hands("Mesa S")
    assert [h.number for h in everything] == [1, 2, 3]
    assert [h.outcome for h in everything] == ["uncontested", "uncontested", "in-progress"]
    assert (everything[0].winners == (3,) and everything[0].net == {1: -1, 2: -2, 3: 3}) or \
        sum(everything[0].net.values()) == 0
    assert [h.number for h in app.views.search_hands("Mesa S", since=times[1])] == [2, 3]
    assert [h.number for h in app.views.search_hands("Mesa S", until=times[1])] == [1]
    assert [h.number for h in app.views.search_hands("Mesa S", outcome="in-progress")] == [3]
    assert app.views.search_hands("Mesa S", seat=7) == [] and len(app.views.search_hands("Mesa S", seat=2)) == 3
    assert app.views.search_hands("Mesa S", game="omaha") == [] and len(app.views.search_hands("Mesa S",
                                                                                               game="holdem")) == 3
    with pytest.raises(ServiceError):
        app.views.search_hands("Mesa S", outcome="won")


def test_the_hands_command_lists_what_it_finds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'search.db'}"
    hand_id, _ = _play_recording(PokerTables(env=environment(url)))
    assert main(["hands", "Mesa R", "--outcome", "showdown", "--db", url]) == 0
    found = capsys.readouterr()
    assert str(hand_id) in found.out and "showdown" in found.out and "hand(s)" not in found.out
    assert found.err == "1 hand(s) found\n"  # the count on stderr: the hands alone on stdout
    assert main(["hands", "Mesa R", "--outcome", "voided", "--db", url]) == 0
    found = capsys.readouterr()
    assert found.out == "" and found.err == "0 hand(s) found\n"
    assert main(["hands", "Mesa R", "--from", "yesterday", "--db", url]) == 2  # usage: not a time
    assert "is not a time" in capsys.readouterr().err
    assert main(["hands", "Mesa Nowhere", "--db", url]) == 1


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["holdem-bonus", "casino-draw"]),
       st.dictionaries(st.integers(1, 6), st.integers(5, 50), min_size=1, max_size=6),
       st.randoms(use_true_random=False))
def test_every_step_of_a_banked_reconstruction_is_the_live_state(game: str, antes: dict[int, int],
                                                                  rng: random.Random) -> None:
    hand: ThbHand | CdpHand = thb_hand(antes) if game == "holdem-bonus" else cdp_hand(antes)
    live: dict[int, dict[str, Any]] = {hand.version: hand.snapshot()}
    trigger = hand.trigger_event

    def recording(*args: Any, **kwargs: Any) -> None:
        trigger(*args, **kwargs)
        live[hand.version] = hand.snapshot()

    hand.trigger_event = recording  # type: ignore[method-assign]
    if isinstance(hand, ThbHand):
        play_thb_randomly(hand, rng)
    else:
        play_cdp_randomly(hand, rng)
    del hand.trigger_event
    steps = reconstruct(hand.collect_events())
    for step in steps[min(live) - 1:]:
        assert step.state == live[step.version], step.event
    assert steps[-1].state == hand.snapshot() and steps[-1].state["results"]
    assert "box" in render(steps[-1])


def test_the_pit_boss_reconstructs_a_texas_holdem_bonus_hand(tmp_path: Path) -> None:
    app = PokerTables(env=environment(f"sqlite:///{tmp_path / 'thb.db'}"))
    pit, dealer = Viewer("pit-2", Role.PIT_BOSS), Viewer("thb-dealer", Role.DEALER, "THB R")
    app.handle(OpenTable("b-0", "THB R", ThbSettings(STANDARD_LIMITS[5])))
    app.handle(StartHand("b-1", "THB R", DeckIdentity(52, BackColour.RED)))
    app.handle(Act("b-2", "THB R", PlaceAnte(seat=1, amount=10)), dealer)
    app.handle(Act("b-3", "THB R", CloseBets()), dealer)
    cards = iter(["As", "Kd", "Ah", "Kc", "2c", "9h", "Qs", "Jd", "3d", "4s", "7h", "8c", "5d"])
    counter = iter(range(4, 1000))
    while app.any_table("THB R").hand_in_progress is not None:
        view = app.views.view("THB R", pit).hand
        assert isinstance(view, BankedHandView)
        if view.next_card:
            command: Action = Deal(card=Card.parse(next(cards)))
        elif view.stage == "preflop":
            command = FlopBet(seat=view.to_decide or 0, amount=20)
        else:
            command = Check(seat=view.to_decide or 0)
        app.handle(Act(f"b-{next(counter)}", "THB R", command), dealer)
    with pytest.raises(AccessDeniedError):
        reconstructed(app, ReconstructHand("b-r0", "THB R", 1, "curious"), dealer)
    steps = reconstructed(app, ReconstructHand("b-r1", "THB R", 1, "box 1 disputes the payment"), pit)
    hand = app.any_hand(app.any_table("THB R").hand_id(1))
    assert steps[-1].state == hand.snapshot() and steps[-1].state["results"][1]
    assert any(s.event == "ThbHand.CardDealt" and describe(s).startswith("As to box 1") for s in steps)
    requests = [vars(e) for e in app.events.get(app.any_table("THB R").id)
                if type(e).__name__ == "ReconstructionRequested"]
    assert [(r["pit_boss"], r["reason"]) for r in requests] == [("pit-2", "box 1 disputes the payment")]
    url = f"sqlite:///{tmp_path / 'thb.db'}"
    assert main(["reconstruct", str(hand.id), "--db", url, "--at", "5"]) == 0
