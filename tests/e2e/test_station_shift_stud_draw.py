"""Issue 33, acceptance: a croupier's whole shift at the full-screen station, for the stud and draw games (seven- and
five-card stud, five-card draw, póquer sintético): the pit boss's and the croupier's stations through their keys
alone (Textual's pilot), the simulated shoe and shuffler on pseudo-terminals, ``pokertable serve`` in its own
process with the casino's staff in force; then ``report dealers`` and ``report shift``
(tests/support/station_shift_support.py)."""

from __future__ import annotations

import pytest

from benchmarks.station import GAMES, Game
from tests.support.station_shift_support import Served, shift_of
from tests.support.station_shift_support import served as served  # noqa: PLC0414  (the module's fixture)

SHIFT_GAMES = [game for game in GAMES if game.code in ("stud7", "draw", "stud5", "sintetico")]


@pytest.mark.slow  # seven hands a shift in make test, ten in make test-slow (tests/support/station_shift_support.py)
@pytest.mark.parametrize("game", SHIFT_GAMES, ids=[game.code for game in SHIFT_GAMES])
def test_a_whole_shift_at_the_station(served: Served, game: Game) -> None:
    shift_of(served, game)
