"""Commands on cached aggregates, checked by the store (issue 18, item 4; R-AUD-1).

On PostgreSQL several service instances write one log, so an instance's cached copy of a table or a hand may be
behind the store. A command no longer reads the store before it runs: it runs on the cached copies and names what it
read (each aggregate and the version read); the store's insert refuses the whole command if any of them has changed
since, and the instance then runs it once more on fresh copies. A refusal by the rules is also decided again on
fresh copies, so that no command is refused for what another instance already changed.

Each test runs two application instances on one PostgreSQL schema, as two ``pokertable serve`` processes do, and
makes one of them stale on purpose.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.actions import Deal
from domain.cards.cards import Card
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.table import Table
from domain.errors import RuleError
from service.app.application import PokerTables, ProcessedCommand, Role, Viewer
from service.app.commands import Act, AddChips, OpenTable, SignIn, Sit, StartHand
from service.app.results import Result
from service.app.table_views import CircleTableView
from service.bootstrap import open_store
from service.store.audit import Finding
from tests.support.app_tables import counting_reads
from tests.support.circle_support import holdem
from tests.support.stores import postgres_store

PIT = Viewer("pit-boss-1", Role.PIT_BOSS)
DEALER = Viewer("dealer-Mesa", Role.DEALER, "Mesa")


@pytest.fixture
def instances() -> Iterator[tuple[PokerTables, PokerTables]]:
    """Two instances on one fresh schema, with a Hold'em table of three players opened at the first and read by
    the second (so that the second holds it in its cache)."""
    env = postgres_store()
    first, second = PokerTables(env=env), PokerTables(env=env)
    try:
        first.handle(OpenTable("open", "Mesa", holdem()))
        for seat in (1, 2, 3):
            first.handle(Sit(f"sit-{seat}", "Mesa", seat, 1000))
        assert second.table("Mesa").stacks == {1: 1000, 2: 1000, 3: 1000}
        second.handle(AddChips("warm-second", "Mesa", 1, 1))  # a command at the second: the table is in its cache
        yield first, second
    finally:
        first.close()
        second.close()


def _record(app: PokerTables, command_id: str) -> ProcessedCommand:
    record: object = app.repository.get(ProcessedCommand.create_id(command_id))
    assert isinstance(record, ProcessedCommand)
    return record


def _events(app: PokerTables) -> int:
    return app.recorder.max_notification_id() or 0


def test_a_command_needs_no_read_of_the_store_when_its_cache_is_current(
        instances: tuple[PokerTables, PokerTables]) -> None:
    """The cheap path: the instance that last wrote a table runs its next command without reading the store."""
    first, _ = instances
    first.handle(AddChips("before", "Mesa", 2, 5))
    with counting_reads(first) as reads:
        first.handle(AddChips("cheap", "Mesa", 2, 5))
    assert reads == []
    assert first.table("Mesa").stacks[2] == 1010


def test_a_command_on_a_stale_copy_is_run_again_on_a_fresh_one_and_applied_once(
        instances: tuple[PokerTables, PokerTables]) -> None:
    """The second instance's copy of the table is behind (the first added chips); its command is refused by the
    store, run again on a fresh copy, and applied once: both additions count."""
    first, second = instances
    first.handle(AddChips("at-first", "Mesa", 1, 100))
    before = _events(first)
    result = second.handle(AddChips("at-second", "Mesa", 1, 10))
    assert result == Result(table="Mesa", version=first.table("Mesa").version)
    assert first.table("Mesa").stacks[1] == second.table("Mesa").stacks[1] == 1111
    assert _events(first) == before + 2  # the chips added and the command's record: once
    assert second.handle(AddChips("at-second", "Mesa", 1, 10)) == result  # a retry: the first result, nothing written
    assert _events(first) == before + 2


def test_a_refusal_on_a_stale_copy_is_decided_again_on_a_fresh_one(
        instances: tuple[PokerTables, PokerTables]) -> None:
    """The first instance started a hand; the second's cached table says no hand is in progress, which would refuse
    a deal (R-CIRC-2). The refusal is decided again on the store's table: the deal is applied."""
    first, second = instances
    first.handle(StartHand("start", "Mesa", DeckIdentity(52, BackColour.RED)))
    second.handle(Act("deal", "Mesa", Deal(card=Card.parse("As"))), PIT)
    hole = first.reads.current_hand(first.table("Mesa")).snapshot()["hole"]
    assert [card for cards in hole for card, _ in cards] == ["As"]


def test_a_command_that_only_read_a_stale_table_is_run_again_and_records_the_dealer_signed_in_since(
        instances: tuple[PokerTables, PokerTables]) -> None:
    """R-AUD-1: a deal writes the hand, not the table, but its record names the table's signed-in dealer. The first
    instance signs a new dealer in; the second, whose copy of the table still names the old one, deals: the store
    refuses the deal for the stale table it read, and the deal run again records the new dealer."""
    first, second = instances
    with first.unit.acting(DEALER):
        first.handle(SignIn("dealer-a", "Mesa", "D-0001"), DEALER)
    first.handle(StartHand("start", "Mesa", DeckIdentity(52, BackColour.RED)))
    with second.unit.acting(DEALER):
        second.handle(Act("deal-1", "Mesa", Deal(card=Card.parse("As"))), DEALER)
    assert _record(first, "deal-1").dealer == "D-0001"
    with first.unit.acting(DEALER):
        first.handle(SignIn("dealer-b", "Mesa", "D-0002"), DEALER)
    with second.unit.acting(DEALER):
        second.handle(Act("deal-2", "Mesa", Deal(card=Card.parse("Kd"))), DEALER)
    assert _record(first, "deal-2").dealer == "D-0002"


def test_a_true_refusal_is_still_refused_and_records_nothing(instances: tuple[PokerTables, PokerTables]) -> None:
    """A deal with no hand in progress is refused (R-CIRC-2) on the fresh copy too; nothing is written."""
    _, second = instances
    before = _events(second)
    with pytest.raises(Exception, match="no hand is in progress") as refused:
        second.handle(Act("deal", "Mesa", Deal(card=Card.parse("As"))), PIT)
    assert getattr(refused.value, "rule", "") == "R-CIRC-2"
    assert _events(second) == before


def _second_table(app: PokerTables, name: str) -> None:
    app.handle(OpenTable(f"open-{name}", name, holdem()))
    for seat in (1, 2):
        app.handle(Sit(f"sit-{name}-{seat}", name, seat, 1000))


def test_a_start_hand_needs_no_read_of_the_store_for_the_audit_findings_it_found_absent(
        instances: tuple[PokerTables, PokerTables]) -> None:
    """R-HOLD-1 asks each StartHand whether the audit found tampering (the casino's record of findings): once found
    absent, the next StartHand takes it as absent without a read, and the store checks it still is."""
    first, _ = instances
    for name in ("Mesa 2", "Mesa 3"):  # tables the first instance wrote last: its copies are current
        _second_table(first, name)
    first.handle(StartHand("start-1", "Mesa 2", DeckIdentity(52, BackColour.RED)))  # the findings read, found absent
    with counting_reads(first) as reads:
        first.handle(StartHand("start-2", "Mesa 3", DeckIdentity(52, BackColour.RED)))
    assert reads == []


def test_r_hold_1_a_finding_recorded_at_another_instance_holds_the_next_hand_here(
        instances: tuple[PokerTables, PokerTables]) -> None:
    """An attacker's hope: the second instance remembers that the audit had found nothing, the first records
    tampering of the whole log (no table), and the second starts a hand as if nothing were found. The store refuses
    the second's insert (the findings it read as absent exist now), the command runs again on what the store holds,
    and R-HOLD-1 refuses it: nothing is recorded."""
    first, second = instances
    _second_table(first, "Mesa 2")
    second.handle(StartHand("start-1", "Mesa 2", DeckIdentity(52, BackColour.RED)))  # absent, remembered at the second
    assert first.audit.record_finding(Finding("head", 10**6, "the signed head is ahead of the log"))
    before = _events(first)
    with pytest.raises(RuleError, match="held by an alert") as refused:
        second.handle(StartHand("start-2", "Mesa", DeckIdentity(52, BackColour.RED)))
    assert refused.value.rule == "R-HOLD-1"
    assert _events(first) == before and first.table("Mesa").hands_started == 0


def test_r_hold_1_the_sole_writer_of_an_sqlite_file_holds_the_next_hand_once_it_records_a_finding(
        tmp_path: Path) -> None:
    """The sole writer of an SQLite file trusts what it remembers as absent, and forgets it when it stores it."""
    with open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True) as store:
        app = store.app
        assert app.sole_writer
        for name in ("Mesa", "Mesa 2"):
            _second_table(app, name)
        app.handle(StartHand("start-1", "Mesa 2", DeckIdentity(52, BackColour.RED)))
        assert app.audit.record_finding(Finding("head", 10**6, "the signed head is ahead of the log"))
        with pytest.raises(RuleError, match="held by an alert") as refused:
            app.handle(StartHand("start-2", "Mesa", DeckIdentity(52, BackColour.RED)))
        assert refused.value.rule == "R-HOLD-1" and app.table("Mesa").hands_started == 0
        assert [hold.kind for hold in app.views.view("Mesa", PIT).holds] == ["audit"]


def test_a_view_of_many_tables_asks_the_store_once_and_reads_only_the_tables_another_instance_changed(
        instances: tuple[PokerTables, PokerTables]) -> None:
    """ListTables (the pit's floor): one question to the store for every table listed, then a read of only the
    tables whose cached copy is behind. The first instance's copy of Mesa is behind (the second added a chip); its
    copies of Mesa 2 and Mesa 3, which it wrote last, are current."""
    first, _ = instances
    for name in ("Mesa 2", "Mesa 3"):
        _second_table(first, name)
    first.handle(StartHand("start", "Mesa 3", DeckIdentity(52, BackColour.RED)))  # a hand in progress: with its table
    names = ("Mesa", "Mesa 2", "Mesa 3")
    with counting_reads(first) as reads, first.reads.current_as_of_now([Table.create_id(name) for name in names]):
        views = {name: first.views.view(name, PIT) for name in names}
    assert len(reads) == 1  # Mesa alone, fast-forwarded
    mesa = views["Mesa"].detail
    assert isinstance(mesa, CircleTableView) and mesa.stacks == {1: 1001, 2: 1000, 3: 1000}  # the other's chip
    assert views["Mesa 3"].hand is not None and views["Mesa 2"].holds == ()
