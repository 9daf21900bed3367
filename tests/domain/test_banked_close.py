"""Issue 33: a banked table is closed by the pit between hands, as a circle table is (R-AUD-1): once, never
mid-hand, and no hand starts there again; the close is an event, and replaying the table's events rebuilds it."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

import pytest
from eventsourcing.application import Application

from domain.banked.cdp import CdpSettings
from domain.banked.table import BankedTable, BankedTableError
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.decks import BackColour, DeckIdentity

TABLES: list[Callable[[], BankedTable]] = [
    lambda: BankedTable.open("THB C", "holdem-bonus", ThbSettings(STANDARD_LIMITS[10])),
    lambda: BankedTable.open("CDP C", "casino-draw", CdpSettings(ante_min=5, ante_max=100)),
]


@pytest.mark.parametrize("opened", TABLES, ids=["holdem-bonus", "casino-draw"])
def test_r_aud_1_a_banked_table_closes_between_hands_once_and_deals_no_more(
        opened: Callable[[], BankedTable]) -> None:
    playing = opened()
    playing.start_hand(DeckIdentity(52, BackColour.RED))
    with pytest.raises(BankedTableError) as mid_hand:
        playing.close("pit")
    assert mid_hand.value.rule == "R-AUD-1" and not playing.closed
    table = opened()
    table.close("pit")
    assert table.closed
    with pytest.raises(BankedTableError) as again:
        table.close("pit")
    assert again.value.rule == "R-AUD-1"
    with pytest.raises(BankedTableError) as start:
        table.start_hand(DeckIdentity(52, BackColour.BLUE))
    assert start.value.rule == "R-AUD-1" and "the table is closed" in str(start.value)
    app: Application[UUID] = Application()
    app.save(table)
    replayed: BankedTable = app.repository.get(table.id)
    assert isinstance(replayed, BankedTable) and replayed.closed and replayed.version == table.version


def test_a_banked_table_recorded_before_closing_existed_reads_open() -> None:
    """A table whose state predates the close (no ``closed`` of its own) reads as open."""
    table = TABLES[0]()
    assert "closed" not in vars(table) and table.closed is False
