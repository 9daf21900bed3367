"""The command path's shortcuts (issue 18, SQLite sequential) keep what they replace:

- a command's record is stored as its one event (``ProcessedCommand.recorded``), exactly as the aggregate would have
  stored it, and a retry still finds it (R-AUD-1, exactly once);
- the SQLite chain remembers the last link it committed and uses it for the next insert only when that insert's first
  position follows it at once: after an insert that rolled back, and after another writer's events slipped in
  between (an attack on a file served by someone else, or a writer that ignores the claim), the log still verifies.
"""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent

from service.app.application import PokerTables, ProcessedCommand
from service.app.commands import CloseTable, OpenTable
from service.bootstrap import open_store
from service.store.audit import verify
from service.store.chain import ChainedSQLiteRecorder
from service.store.chain_postgres import WRITTEN_OUT
from tests.support.audit_tampering import PIT, play
from tests.support.stores import postgres_store


def test_r_aud_1_a_commands_record_is_stored_as_the_aggregate_would_store_it() -> None:
    app = PokerTables(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    result = {"table": "Mesa A", "hand_id": str(uuid4()), "version": 4, "complete": False}
    built = ProcessedCommand(command_id="c-1", result=result, fingerprint="f" * 64, dealer="dealer-7")
    (created,) = built.collect_events()
    recorded = ProcessedCommand.recorded("c-1", result, "f" * 64, "dealer-7")
    assert recorded.result is not result  # the record keeps its own copy, as the aggregate did
    as_built, as_recorded = app.mapper.to_stored_event(created), app.mapper.to_stored_event(recorded)
    assert (as_recorded.originator_id, as_recorded.originator_version, as_recorded.topic) == (
        as_built.originator_id, as_built.originator_version, as_built.topic)
    state_built, state_recorded = (app.mapper.transcoder.decode(s.state) for s in (as_built, as_recorded))
    del state_built["timestamp"], state_recorded["timestamp"]
    assert state_recorded == state_built
    loaded = ProcessedCommand.Processed.mutate(app.mapper.to_domain_event(as_recorded), None)  # type: ignore[arg-type]
    assert isinstance(loaded, ProcessedCommand)
    assert (loaded.command_id, loaded.result, loaded.fingerprint, loaded.dealer) == ("c-1", result, "f" * 64,
                                                                                      "dealer-7")


def test_r_aud_1_a_retry_finds_the_record_stored_as_an_event(tmp_path: Path) -> None:
    with open_store(f"sqlite:///{tmp_path / 'retry.db'}", writer=True) as store:
        play(store.app)
        app = store.app
        first = app.handle(OpenTable("retry-open", "Mesa B", app.table("Mesa A").settings))
        assert app.handle(OpenTable("retry-open", "Mesa B", app.table("Mesa A").settings)) == first
        assert verify(app.recorder).clean


def _recorder(app: PokerTables) -> ChainedSQLiteRecorder:
    assert isinstance(app.recorder, ChainedSQLiteRecorder)
    return app.recorder


def test_r_aud_1_an_insert_that_rolled_back_leaves_no_remembered_link(tmp_path: Path) -> None:
    with open_store(f"sqlite:///{tmp_path / 'rollback.db'}", writer=True) as store:
        app = store.app
        play(app)
        recorder = _recorder(app)
        (last,) = recorder.select_notifications(recorder.max_notification_id() or 1, 1)
        fresh = StoredEvent(originator_id=uuid4(), originator_version=1, topic=last.topic, state=last.state)
        taken = StoredEvent(originator_id=last.originator_id, originator_version=last.originator_version,
                            topic=last.topic, state=last.state)
        with pytest.raises(IntegrityError):  # the first event took the next position, then the whole insert undid
            recorder.insert_events([fresh, taken])
        assert recorder._last is None
        app.handle(CloseTable("after-rollback", "Mesa A"), PIT)  # the next command takes that position again
        result = verify(recorder)
        assert result.clean, result


def test_r_aud_1_another_writers_events_between_two_commands_are_chained_after(tmp_path: Path) -> None:
    """Attack: a second writer on the same file (it ignores the sole-writer claim) appends events between two of the
    service's commands. The service's next insert does not follow its remembered link, so it links to the other
    writer's last event, and the whole log verifies."""
    url = f"sqlite:///{tmp_path / 'two-writers.db'}"
    with open_store(url, writer=True) as store:
        play(store.app)
        remembered = _recorder(store.app)._last
        assert remembered is not None
        intruder = PokerTables(env=store.app.env)  # a writer without the claim
        try:
            intruder.handle(OpenTable("intruder-1", "Mesa X", store.app.table("Mesa A").settings))
        finally:
            intruder.close()
        store.app.handle(CloseTable("after-intruder", "Mesa A"), PIT)
        after = _recorder(store.app)._last
        assert after is not None and after[0] > remembered[0] + 1
        result = verify(store.app.recorder)
        assert result.clean and result.events == store.app.recorder.max_notification_id(), result


def test_a_completed_hand_leaves_the_cache_and_still_reads_from_the_store(tmp_path: Path) -> None:
    """The aggregate cache keeps what commands change (the table, its hand in progress), not finished hands: they are
    what a full collection of the garbage collector walked through (the tail of the commands' latency)."""
    with open_store(f"sqlite:///{tmp_path / 'cache.db'}", writer=True) as store:
        app = store.app
        play(app)  # two hands, both complete
        cache = app.repository.cache
        assert cache is not None
        table = app.table("Mesa A")
        finished = [table.hand_id(number) for number in (1, 2)]
        for hand_id in finished:
            with pytest.raises(KeyError):
                cache.get(hand_id)
        assert cache.get(table.id) is not None  # the table stays cached: every command reads it
        hand = app.hand(finished[-1])
        assert hand.is_complete and hand.number == 2


@pytest.mark.parametrize("count", [1, 5, WRITTEN_OUT, WRITTEN_OUT + 1, 300])
def test_r_aud_1_postgresql_inserts_of_any_size_chain_as_the_service_checks_them(count: int) -> None:
    """PostgreSQL: a command's few events go to the insert function written out, an element a parameter, a bulk of
    them as arrays; either way each lands at its position with the link the audit recomputes, and a stale version
    refuses the whole insert."""
    app = PokerTables(env=postgres_store())
    try:
        play(app)
        recorder = app.recorder
        (last,) = recorder.select_notifications(recorder.max_notification_id() or 1, 1)
        before = recorder.max_notification_id() or 0
        fresh = [StoredEvent(originator_id=uuid4(), originator_version=1, topic=last.topic, state=last.state)
                 for _ in range(count)]
        assert list(recorder.insert_events(fresh) or []) == list(range(before + 1, before + count + 1))
        with pytest.raises(IntegrityError):  # the last one is taken: nothing of the insert is written
            recorder.insert_events([*(StoredEvent(uuid4(), 1, last.topic, last.state) for _ in range(count)),
                                    fresh[-1]])
        assert recorder.max_notification_id() == before + count
        result = verify(recorder)
        assert result.clean and result.events == before + count, result
    finally:
        app.close()
