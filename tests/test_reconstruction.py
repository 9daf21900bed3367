"""Hand reconstruction (R-THB-13, R-AUD-1): for random hands of every circle game, each reconstructed step equals the
state the live hand was in right after that event, and the last step equals the state the hand ended with."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.reconstruction import reconstruct, render
from tests.circle_support import play_randomly, shuffled
from tests.test_circle_properties import Table, start_table, tables


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
