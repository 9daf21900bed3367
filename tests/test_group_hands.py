"""The group's figures of hands whatever the follower's pages and restarts (issue 18, item 3): a hand still in
progress at a casino is counted as such and, once finished, counted once with its chips; and for any page size and
any pattern of restarts (a new follower, with nothing kept in memory, after any page), the group's totals equal the
casino's own, computed from its log."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.group.figures import casino_totals, total
from service.group.follower import CasinoLog, Follower
from service.group.store import GroupStore
from tests.app_play import play_circle_hand, start_circle_hand
from tests.test_application import POSTGRES_URL, postgres_store
from tests.test_group_follower import Played, play_casino


@pytest.fixture
def casino(tmp_path: Path) -> Iterator[Played]:
    played = play_casino("Sol", f"{POSTGRES_URL}?schema={postgres_store()['POSTGRES_SCHEMA']}", 6, 31,
                         directory=tmp_path, every=50)
    yield played
    played.app.close()


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
