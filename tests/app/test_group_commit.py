"""Group commit (service.store.group_commit): concurrent commands share a transaction, each stays atomic and is answered
only after its own events are written; an integrity error fails only the command that caused it."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import IntegrityError
from hypothesis import given, settings
from hypothesis import strategies as st

from service.store.group_commit import GroupCommit


class Store:
    """A store whose transactions take a while (so that writers pile up), and that refuses any event named twice."""

    def __init__(self, delay: float = 0.005) -> None:
        self.delay, self.lock = delay, threading.Lock()
        self.rows: list[str] = []
        self.transactions: list[list[str]] = []
        self.broken = False
        self.versions: dict[UUID, int] = {}  # what a writer's reads are checked against

    def put(self, events: list[str], reads: Mapping[UUID, int]) -> list[int]:
        time.sleep(self.delay)
        with self.lock:
            if self.broken:
                raise OSError("disk I/O error")
            if any(self.versions.get(aggregate, 0) > version for aggregate, version in reads.items()):
                raise IntegrityError(f"stale read in {events}")
            if len(set(events)) < len(events) or set(events) & set(self.rows):
                raise IntegrityError(f"duplicate in {events}")
            start = len(self.rows)
            self.rows.extend(events)
            self.transactions.append(list(events))
            return list(range(start, start + len(events)))


def race(group: GroupCommit[str, int], writes: dict[str, list[str]]) -> dict[str, list[int] | BaseException]:
    """Every writer on its own thread, released at once; what each got back, or the error it raised."""
    outcomes: dict[str, list[int] | BaseException] = {}
    start = threading.Barrier(len(writes))

    def writer(name: str, events: list[str]) -> None:
        start.wait()
        try:
            outcomes[name] = group.write(events)
        except (IntegrityError, OSError) as error:
            outcomes[name] = error

    threads = [threading.Thread(target=writer, args=item) for item in writes.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_one_writer_alone_commits_at_once_in_its_own_transaction() -> None:
    store = Store(delay=0)
    group: GroupCommit[str, int] = GroupCommit(store.put)
    assert group.write(["a1", "a2"]) == [0, 1]
    assert group.write(["b1"]) == [2]
    assert store.transactions == [["a1", "a2"], ["b1"]]


def test_concurrent_writers_share_transactions_and_each_gets_its_own_positions() -> None:
    store = Store()
    group: GroupCommit[str, int] = GroupCommit(store.put)
    results: dict[int, list[int]] = {}
    start = threading.Barrier(40)

    def writer(n: int) -> None:
        start.wait()
        for k in range(5):
            results[n * 100 + k] = group.write([f"{n}-{k}-x", f"{n}-{k}-y"])

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.rows) == 400 and len(set(store.rows)) == 400  # everything written, once
    assert len(store.transactions) < 200  # …in fewer transactions than writes: groups formed
    assert group.largest > 1
    for key, positions in results.items():  # each writer's events, together, where the store put them
        n, k = divmod(key, 100)
        assert [store.rows[p] for p in positions] == [f"{n}-{k}-x", f"{n}-{k}-y"]
    for n in range(40):  # a writer's commands in the order it made them
        positions = [results[n * 100 + k][0] for k in range(5)]
        assert positions == sorted(positions)


def test_an_integrity_error_fails_only_the_offending_writer() -> None:
    store = Store(delay=0.02)
    store.rows.append("taken")  # e.g. a command id already applied, or a version another instance wrote
    names = {"blocker": ["blocker"], "bad": ["fresh", "taken"], **{f"ok{i}": [f"ok{i}"] for i in range(4)}}
    outcomes = race(GroupCommit(store.put), names)
    assert isinstance(outcomes["bad"], IntegrityError)
    assert "fresh" not in store.rows  # the offender's events: none written
    for name, events in names.items():
        if name != "bad":
            positions = outcomes[name]
            assert isinstance(positions, list)
            assert [store.rows[p] for p in positions] == events


def test_a_failing_store_fails_the_whole_group_and_the_next_writer_can_lead() -> None:
    store = Store(delay=0.01)
    group: GroupCommit[str, int] = GroupCommit(store.put)
    store.broken = True
    outcomes = race(group, {f"w{n}": [f"w{n}"] for n in range(8)})
    assert all(isinstance(outcome, OSError) for outcome in outcomes.values()) and store.rows == []
    store.broken = False
    assert group.write(["after"]) == [0]  # leadership was handed on, not lost


def test_groups_are_bounded() -> None:
    store = Store(delay=0.02)
    group: GroupCommit[str, int] = GroupCommit(store.put, most=3)
    race(group, {f"w{n}": [f"w{n}"] for n in range(12)})
    assert sorted(store.rows) == sorted(f"w{n}" for n in range(12))
    assert max(len(t) for t in store.transactions) <= 3
    with pytest.raises(IntegrityError):
        group.write(["w0"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdefghijklmnop"), min_size=1, max_size=4), min_size=1, max_size=12))
def test_each_writer_is_all_or_nothing_whatever_the_grouping(writes: list[list[str]]) -> None:
    """Writers racing with clashing events: a writer succeeds exactly when all its events are stored, each stored
    event belongs to exactly one successful writer, and a writer that failed stored nothing (atomic per command)."""
    store = Store(delay=0.001)
    outcomes = race(GroupCommit(store.put), {str(n): events for n, events in enumerate(writes)})
    stored: list[str] = []
    for n, events in enumerate(writes):
        outcome = outcomes[str(n)]
        if isinstance(outcome, BaseException):
            # it clashed: with itself, or with what another, successful writer stored (it stored nothing itself)
            assert len(set(events)) < len(events) or set(events) & set(store.rows)
        else:
            assert [store.rows[p] for p in outcome] == events
            stored.extend(events)
    assert sorted(stored) == sorted(store.rows)  # nothing stored but the successful writers' events, once each
    assert len(set(store.rows)) == len(store.rows)


def test_a_writer_whose_reads_are_stale_fails_alone_and_the_rest_of_its_group_commits() -> None:
    """A command that read an aggregate since changed (by another instance) is refused as a whole, with an integrity
    error (its application then reads afresh and runs it again); the other commands of its group are written."""
    store = Store()
    changed, untouched = uuid4(), uuid4()
    store.versions = {changed: 7, untouched: 3}
    group: GroupCommit[str, int] = GroupCommit(store.put)
    writes = {f"w{n}": [f"e{n}"] for n in range(6)}
    start = threading.Barrier(len(writes))
    outcomes: dict[str, object] = {}

    def writer(name: str, events: list[str]) -> None:
        start.wait()
        try:
            outcomes[name] = group.write(events, {changed: 6} if name == "w3" else {untouched: 3})
        except IntegrityError as error:
            outcomes[name] = error

    threads = [threading.Thread(target=writer, args=item) for item in writes.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert isinstance(outcomes.pop("w3"), IntegrityError)
    assert all(isinstance(outcome, list) for outcome in outcomes.values())
    assert sorted(store.rows) == sorted(f"e{n}" for n in range(6) if n != 3)
