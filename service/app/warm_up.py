"""The hand-ranking tables a service builds before its first hands (the evaluator's, :mod:`domain.cards.ranking`): of
the decks its store's tables deal, so that no table's first showdown pays for them."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from domain.cards.decks import DECK_SIZES
from domain.cards.ranking import RankingRules, hand_ranking, in_use
from domain.circle.settings import TableSettings
from service.store import ranking_tables as ranking_file

if TYPE_CHECKING:
    from service.app.application import PokerTables


def warm_up(app: PokerTables | None = None) -> None:
    """Build, once for the process and before the first hands, the hand-ranking tables of the decks the store's
    tables deal: the 52-card deck's always (Hold'em, stud, the banked games), every deck a draw table's players may
    call for (R-DRAW-8), and the split tables of an Omaha (52 cards) or sintético (28) table, so that their first
    showdown does not pay for them either. A table opened later of another deck builds its own at its first hand
    (0.03 to 0.7 s, once). ``app`` None: every deck (all of them: 2.9 s of one core). The 52-card deck's are read
    from the file the build keeps (:mod:`service.store.ranking_tables`: 0.08 s instead of 1.4 s) when it is this
    release's."""
    sizes, split = ({52}, set()) if app is not None else (set(DECK_SIZES), {52, 28})
    if app is not None:
        for name in app.table_names():
            settings = getattr(app.any_table(name), "settings", None)
            if not isinstance(settings, TableSettings):
                continue  # a banked table: 52 cards
            for players in range(2, 11):
                with contextlib.suppress(ValueError):  # more players than the game seats
                    sizes.add(settings.deck_for(players))
            if settings.variant in ("omaha", "sintetico"):
                split.add(settings.deck_size)
    if in_use(RankingRules(52)) is None:  # the 52-card deck's, kept by the build: milliseconds, if this release's
        ranking_file.load()
    for size in sorted(sizes, reverse=True):
        hand_ranking(size)
    for size in sorted(split, reverse=True):
        hand_ranking(size).split_tables  # noqa: B018 (built on first use: the property is the build)
