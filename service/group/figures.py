"""The figures a games director of a casino group reads per casino and game (issue 18, item 3): hands by how they
ended, chips bet, chips paid to players, the rake of circle games (R-CIRC-12) and the house's result.

One hand's figures follow from the hand alone (:func:`hand_figures`): the follower derives them from the events it
received, and :func:`casino_totals` from a casino's own log, so that both are the same function of the same events.

- **bet**: the chips the players put in (circle: every contribution to the pots; banked: every stake on every spot);
- **paid**: the chips paid to players: circle, the pots awarded less their rake (the winners' own chips in them
  included); banked, what the bank paid the winning boxes beyond their stakes;
- **rake**: the house's commission on circle pots (R-CIRC-12), 0 at banked tables;
- **house**: the house's result: the rake at circle tables, the bank's net result at banked ones (R-THB-8, R-CDP-6).

Chips count only for hands that ended in play (``showdown``, ``uncontested``, ``blank``, ``settled``): a voided hand
returns every chip (R-CIRC-14, R-THB-11) and a hand in progress has not ended yet; both are counted as hands.

>>> totals = Totals().plus(HandFigures("holdem", "showdown", bet=40, paid=38, rake=2, house=2))
>>> totals = totals.plus(HandFigures("holdem", "voided", bet=0, paid=0, rake=0, house=0))
>>> totals.hands, totals.played, totals.voided, totals.bet, totals.rake
(2, 1, 1, 40, 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Mapper

from domain.games import HAND_CLASSES, game_of_started
from service.store.persistence import notifications

PLAYED = ("showdown", "uncontested", "blank", "settled")
"""The outcomes of a hand that ended in play: its chips count."""
HAND_AGGREGATES = frozenset(cls.__name__ for cls in HAND_CLASSES)
"""The names of the hand aggregates, as a stored topic ends (``…:Hand.Called``, ``…:ThbHand.BetPlaced``)."""


def is_hand_topic(topic: str) -> bool:
    """Whether a stored event's topic names an event of a hand (of any game, under its topic of now or of before
    issue 14's move)."""
    return topic.rpartition(":")[2].rpartition(".")[0] in HAND_AGGREGATES


@dataclass(frozen=True)
class HandFigures:
    """One hand's figures (chips as integers)."""

    game: str
    outcome: str
    bet: int
    paid: int
    rake: int
    house: int


def hand_figures(hand: Any, started: Any) -> HandFigures:
    """The figures of a hand of any game from its aggregate and its first event (its game: R-CIRC-5)."""
    game = game_of_started(started)
    summary = game.summarise(hand, [started, started])
    outcome = str(summary["outcome"])
    if outcome not in PLAYED:
        return HandFigures(game.code, outcome, 0, 0, 0, 0)
    if game.family == "circle":
        awards = hand.state.awards
        rake = sum(award.rake for award in awards)
        paid = sum(award.pot.amount for award in awards) - rake
        return HandFigures(game.code, outcome, int(summary["pot"]), paid, rake, rake)
    net = summary["net"].values()
    return HandFigures(game.code, outcome, int(summary["pot"]), sum(chips for chips in net if chips > 0), 0,
                       -sum(net))


@dataclass(frozen=True)
class Totals:
    """The figures of many hands: how many ended each way, and the chips."""

    hands: int = 0
    played: int = 0
    voided: int = 0
    in_progress: int = 0
    bet: int = 0
    paid: int = 0
    rake: int = 0
    house: int = 0

    def plus(self, figures: HandFigures) -> Totals:
        """These totals and one hand more."""
        return replace(self, hands=self.hands + 1, played=self.played + (figures.outcome in PLAYED),
                       voided=self.voided + (figures.outcome == "voided"),
                       in_progress=self.in_progress + (figures.outcome == "in-progress"),
                       bet=self.bet + figures.bet, paid=self.paid + figures.paid, rake=self.rake + figures.rake,
                       house=self.house + figures.house)

    def __add__(self, other: Totals) -> Totals:
        return Totals(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def as_dict(self) -> dict[str, int]:
        """The totals as plain data (JSON, CSV)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def by_game(figures: Iterable[HandFigures]) -> dict[str, Totals]:
    """Totals per game, games in alphabetical order."""
    totals: dict[str, Totals] = {}
    for one in figures:
        totals[one.game] = totals.get(one.game, Totals()).plus(one)
    return dict(sorted(totals.items()))


def casino_totals(recorder: ApplicationRecorder, mapper: Mapper[UUID], stop: int | None = None) -> dict[str, Totals]:
    """A casino's own totals per game, computed from its log alone up to position ``stop`` (every hand rebuilt from
    its events): what the group's totals of that casino must equal once the group has received up to ``stop``."""
    return by_game(_figures(recorder, mapper, stop))


def _figures(recorder: ApplicationRecorder, mapper: Mapper[UUID], stop: int | None) -> Iterator[HandFigures]:
    hands: dict[UUID, tuple[Any, Any]] = {}
    for notification in notifications(recorder, stop=stop):
        if not is_hand_topic(notification.topic):
            continue
        event: Any = mapper.to_domain_event(notification)
        hand, started = hands.get(event.originator_id, (None, event))
        hands[event.originator_id] = (event.mutate(hand), started)
    for hand, started in hands.values():
        yield hand_figures(hand, started)


def total(per_game: Mapping[str, Totals]) -> Totals:
    """The totals of every game together."""
    return sum(per_game.values(), Totals())
