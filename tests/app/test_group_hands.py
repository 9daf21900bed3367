"""The group's figures of hands whatever the follower's pages and restarts (issue 18, item 3): a hand still in
progress at a casino is counted as such and, once finished, counted once with its chips; and for any page size and
any pattern of restarts (a new follower, with nothing kept in memory, after any page), the group's totals equal the
casino's own, computed from its log."""

from __future__ import annotations

import os
import random
import threading
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.group.figures import casino_totals, total
from service.group.follower import CasinoLog, Follower
from service.group.store import GroupStore
from tests.support.app_play import play_circle_hand, start_circle_hand
from tests.support.group_support import Played, play_casino
from tests.support.postgres_schemas import drop_schemas
from tests.support.stores import POSTGRES_URL, _postgres_available, postgres_store


@pytest.fixture(scope="module")
def casino(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """A casino on a schema of its own for the module's tests (which leave it with every hand finished), dropped at
    the end."""
    if not _postgres_available():
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI ({POSTGRES_URL})")
        pytest.skip(f"no PostgreSQL at {POSTGRES_URL}")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    played = None
    try:
        played = play_casino("Sol", f"{POSTGRES_URL}?schema={schema}", 5, 31,
                             directory=tmp_path_factory.mktemp("sol"), every=50)
        yield played
    finally:
        if played is not None:
            played.app.close()
        drop_schemas([schema])


def _log(casino: Played) -> CasinoLog:
    return CasinoLog(casino.name, casino.app.recorder, casino.app.mapper)


def test_a_hand_in_progress_is_counted_as_such_then_once_with_its_chips(casino: Played) -> None:
    table = casino.casino.name("Holdem")
    deck, _ = start_circle_hand(casino.app, table, casino.casino.ids)  # blinds posted, nothing dealt yet
    with GroupStore(f"{POSTGRES_URL}?schema={postgres_store()['POSTGRES_SCHEMA']}") as store:
        while Follower(store, page=7).sync(_log(casino), pages=1).more:  # a new follower every page: a restart
            pass
        holdem = store.totals()[(casino.name, "holdem")]
        assert holdem.in_progress == 1
        assert store.totals() == {(casino.name, game): totals
                                  for game, totals in casino_totals(casino.app.recorder, casino.app.mapper).items()}
        play_circle_hand(casino.app, table, deck, random.Random(5), casino.casino.ids)
        Follower(store, page=7).sync(_log(casino))
        after = store.totals()[(casino.name, "holdem")]
        assert (after.in_progress, after.hands, after.played) == (0, holdem.hands, holdem.played + 1)
        own = casino_totals(casino.app.recorder, casino.app.mapper)
        assert after == own["holdem"] and total(own).hands == sum(t.hands for t in store.totals().values())


def test_whatever_the_pages_and_the_restarts_the_groups_totals_are_the_casinos_own(casino: Played) -> None:
    own = {(casino.name, game): totals
           for game, totals in casino_totals(casino.app.recorder, casino.app.mapper).items()}
    head = casino.head

    @settings(max_examples=6, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(page=st.integers(1, 400), restarts=st.lists(st.integers(1, 6), min_size=1, max_size=6))
    def check(page: int, restarts: list[int]) -> None:
        schema = f"g_{uuid.uuid4().hex[:12]}"
        try:
            with GroupStore(f"{POSTGRES_URL}?schema={schema}") as store:
                turns = iter(restarts)
                while Follower(store, page=page).sync(_log(casino), pages=next(turns, None)).more:
                    pass  # killed after that many pages: a new follower, nothing in memory, from the position
                assert store.tracked(casino.name).position == head
                assert store.totals() == own
        finally:
            with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
                connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    check()


def test_two_followers_of_one_casino_at_once_never_both_store_a_page(casino: Played) -> None:
    schema = postgres_store()["POSTGRES_SCHEMA"]
    stores = [GroupStore(f"{POSTGRES_URL}?schema={schema}") for _ in range(2)]
    moved: list[int] = []

    class Counting(Follower):
        def _forget(self, name: str) -> None:  # called when the other follower stored the page first (or a failure)
            moved.append(1)
            super()._forget(name)

    try:
        threads = [threading.Thread(target=Counting(store, page=5).sync, args=(_log(casino),)) for store in stores]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with stores[0].connection.transaction():
            row = stores[0].connection.execute("SELECT count(*) AS events, count(DISTINCT position) AS positions "
                                               "FROM group_events").fetchone()
        assert row == {"events": casino.head, "positions": casino.head}
        assert stores[0].tracked(casino.name).events == casino.head  # each page counted by one follower only
        assert stores[0].totals() == {(casino.name, game): totals for game, totals in
                                      casino_totals(casino.app.recorder, casino.app.mapper).items()}
        assert moved  # they did meet: one found the position moved and read on from it
    finally:
        for store in stores:
            store.close()
