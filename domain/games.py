"""The game seam (issue 14): every game the house deals, circle and banked, by its code, and what the service needs
to serve any of them through the same code — its family, its table and hand aggregates, how a hand's id follows from
its table's id and number, how a finished (or open) hand is summarised, and its state for views, history and
reconstruction.  The service resolves ``GAMES[table.game]`` once and never asks which game it holds.

>>> sorted(code for code, game in GAMES.items() if game.family == "banked")
['casino-draw', 'holdem-bonus']
>>> GAMES["omaha"].family, GAMES["omaha"].hand_class.__name__
('circle', 'Hand')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

from domain.actions import Action, Legal
from domain.banked.actions import CDP_ACTIONS, THB_ACTIONS, cdp_legal, thb_legal
from domain.banked.cdp import BOXES as CDP_BOXES
from domain.banked.cdp import CdpHand, CdpSettings
from domain.banked.table import BankedTable
from domain.banked.thb import BOXES as THB_BOXES
from domain.banked.thb import ThbHand, ThbSettings
from domain.circle.actions import CIRCLE_ACTIONS
from domain.circle.actions import legal as circle_legal
from domain.circle.hand import Hand
from domain.circle.table import Table
from domain.circle.variants import VARIANTS

Family = Literal["circle", "banked"]

CIRCLE_OUTCOMES = ("showdown", "uncontested", "voided", "blank", "in-progress")
"""How a circle hand ends: shown down, won uncontested, voided (R-AUD-1), passed blank, or not yet."""
BANKED_OUTCOMES = ("settled", "voided", "in-progress")
"""How a banked hand ends: every box settled against the house, voided (R-THB-11, R-AUD-1), or not yet (bets open,
cards due, a bonus awaiting the games director's approval, R-THB-10)."""
OUTCOMES = tuple(dict.fromkeys(CIRCLE_OUTCOMES + BANKED_OUTCOMES))
"""Every outcome a search may ask for."""


@dataclass(frozen=True)
class Game:
    """One game of the house, as the service serves it."""

    code: str
    family: Family
    table_class: type[Table] | type[BankedTable]
    hand_class: type[Hand] | type[ThbHand] | type[CdpHand]
    hand_id: Callable[[UUID, int], UUID]
    """The id of hand ``number`` of the table whose hands' namespace this is
    (:attr:`domain.tables.TableRecord.hands_namespace`; deterministic: a watcher knows it before it exists)."""
    summarise: Callable[[Any, list[Any]], dict[str, Any]]
    """A hand and its events → what a search lists: number, times, seats (or boxes), outcome, pot, winners, net."""
    state: Callable[[Any], dict[str, Any]]
    """A hand → its whole state as plain data (the pit's copy: every card)."""
    table_state: Callable[[Any], dict[str, Any]]
    """A table → what its history shows besides its hands (stacks and button, or the house's result)."""
    open: Callable[[str, Any, int, str, str], Any]
    """A new table of this game: its name, settings, seats (a circle table's), its stations' language and its
    hands' key (:meth:`domain.circle.table.Table.open`, :meth:`domain.banked.table.BankedTable.open`)."""
    actions: Mapping[type[Action], Callable[[Any, Any, str], None]]
    """The actions this game's hands take (:mod:`domain.actions`), each by the method it calls with the action and
    who gives it; an action whose class says ``between_hands`` is the table's (its method takes the table)."""
    legal: Callable[[Any], Legal]
    """A hand in progress → what it takes now (the seat or box to act, the actions allowed, their amounts)."""
    no_hand_rule: str = "R-CIRC-2"
    """The rule an action names when no hand is in progress at the table."""
    foreign_rule: str = "R-CIRC-3"
    """The rule an action of another game names, refused at this game's table."""
    settings_class: type[Any] | None = None
    """A banked game's settings (``None``: circle settings are :class:`domain.circle.settings.TableSettings`)."""
    hand_rule: str = "holdem"
    """Which cards make a hand (a key of :data:`domain.cards.hand_rules.HAND_RULES`, R-CARD-6): the best five of all
    (``holdem``, ``stud``, ``draw``) or exactly two own and three board cards (``omaha``, ``sintetico``)."""
    bank_qualifies: bool = False
    """A banked game whose bank must qualify to play (R-CDP-4); the others' house always plays."""
    boxes: int = 0
    """A banked game's boxes (R-THB-1: 7; R-CDP-1: 6); 0 for a circle game, whose tables say their seats."""

    @property
    def outcomes(self) -> tuple[str, ...]:
        """How a hand of this game may end."""
        return CIRCLE_OUTCOMES if self.family == "circle" else BANKED_OUTCOMES


def _times(hand: Any, events: list[Any]) -> dict[str, Any]:
    return {"hand_id": str(hand.id), "number": hand.number, "started": str(events[0].timestamp),
            "ended": str(events[-1].timestamp)}


def circle_summary(hand: Hand, events: list[Any]) -> dict[str, Any]:
    """A circle hand: its seats, how it ended, the pot, each seat's net once finished, and the house's rake from its
    pots (R-CIRC-12; a pot carried from a blank hand is no rake, R-DRAW-3)."""
    state = hand.state
    if state.void_rule is not None:
        outcome = "voided"
    elif state.passed_rule is not None:
        outcome = "blank"
    elif not hand.is_complete:
        outcome = "in-progress"
    else:
        outcome = "showdown" if state.shown else "uncontested"
    started = dict(zip(hand.seats, vars(events[0])["stacks"], strict=True))
    won = {seat: stack - started[seat] for seat, stack in zip(hand.seats, state.stacks, strict=True)}
    return {**_times(hand, events), "seats": list(hand.seats), "outcome": outcome, "pot": sum(state.contributed),
            "winners": sorted(seat for seat, net in won.items() if net > 0), "net": won if hand.is_complete else {},
            "rake": sum(award.rake for award in state.awards)}


def banked_summary(hand: ThbHand | CdpHand, events: list[Any]) -> dict[str, Any]:
    """A banked hand: its boxes, how it ended, the chips staked, and each box's net against the house once
    settled (a voided box is returned: net 0)."""
    if hand.void_rule is not None:
        outcome = "voided"
    elif not hand.is_complete:
        outcome = "in-progress"
    else:
        outcome = "settled"
    net = {box: sum(result.values()) for box, result in sorted(hand.results.items())} if hand.is_complete else {}
    return {**_times(hand, events), "seats": sorted(hand.bets), "outcome": outcome,
            "pot": sum(sum(spots.values()) for spots in hand.bets.values()),
            "winners": sorted(box for box, chips in net.items() if chips > 0), "net": net, "rake": 0}


def _circle_table(table: Table) -> dict[str, Any]:
    return {"stacks": dict(sorted(table.stacks.items())), "button_seat": table.button_seat, "closed": table.closed,
            "reshuffle_required": table.reshuffle_required["colour"] if table.reshuffle_required else "",
            "button_is_mano": table.settings.marker_speaks_first}


def _banked_table(table: BankedTable) -> dict[str, Any]:
    return {"game": table.game, "bank_result": table.bank_result, "reshuffle_required": table.reshuffle_pending or "",
            "closed": table.closed}


def _open_circle(name: str, settings: Any, seats: int, language: str, hands_key: str) -> Table:
    return Table.open(name, settings, seats, language, hands_key=hands_key)


def _open_banked(code: str) -> Callable[[str, Any, int, str, str], BankedTable]:
    def opened(name: str, settings: Any, seats: int, language: str, hands_key: str) -> BankedTable:
        del seats  # the game's boxes (R-THB-1, R-CDP-1)
        return BankedTable.open(name, code, settings, language, hands_key=hands_key)

    return opened


def _circle(code: str) -> Game:
    return Game(code, "circle", Table, Hand, Hand.create_id, circle_summary, Hand.snapshot, _circle_table,
                _open_circle, CIRCLE_ACTIONS, circle_legal, hand_rule=VARIANTS[code].hand_rule)


GAMES: Mapping[str, Game] = {
    **{code: _circle(code) for code in VARIANTS},
    "holdem-bonus": Game("holdem-bonus", "banked", BankedTable, ThbHand, ThbHand.hand_id, banked_summary,
                         ThbHand.snapshot, _banked_table, _open_banked("holdem-bonus"), THB_ACTIONS, thb_legal,
                         "R-AUD-1", "R-AUD-1", ThbSettings, hand_rule="holdem", boxes=THB_BOXES),
    "casino-draw": Game("casino-draw", "banked", BankedTable, CdpHand, CdpHand.hand_id, banked_summary,
                        CdpHand.snapshot, _banked_table, _open_banked("casino-draw"), CDP_ACTIONS, cdp_legal,
                        "R-AUD-1", "R-AUD-1", CdpSettings, hand_rule="draw", bank_qualifies=True,
                        boxes=CDP_BOXES),
}
"""Every game by its code: the circle variants (:data:`domain.circle.variants.VARIANTS`) and the banked games."""

HAND_CLASSES: frozenset[type[Any]] = frozenset(game.hand_class for game in GAMES.values())
"""The hand aggregates of every game: what a hand id may name."""


def game_of_settings(settings: Any) -> Game:
    """The game a table's settings are for: a circle variant's (:class:`TableSettings` names it), else the banked
    game whose settings class they are; :class:`ValueError` for none."""
    variant = getattr(settings, "variant", None)
    if isinstance(variant, str) and variant in GAMES:
        return GAMES[variant]
    for game in GAMES.values():
        if game.settings_class is not None and isinstance(settings, game.settings_class):
            return game
    raise ValueError(f"{type(settings).__name__} are the settings of no game of the house")


def game_of(table: Table | BankedTable) -> Game:
    """The game a table deals (R-CIRC-5: one game a table)."""
    return GAMES[table.game]


BANKED_BY_HAND: Mapping[str, Game] = {game.hand_class.__name__: game for game in GAMES.values()
                                      if game.family == "banked"}
"""The banked games by the name of their hand aggregate (``ThbHand``, ``CdpHand``)."""


def game_of_started(event: Any) -> Game:
    """The game of a hand from its first event (``Hand.Started``, ``ThbHand.Started``, …), or :class:`ValueError`."""
    aggregate, _, name = type(event).__qualname__.rpartition(".")
    if name != "Started":
        raise ValueError("a hand's events, from its Started event")
    if aggregate == Hand.__name__:
        return GAMES[vars(event)["settings"]["variant"]]
    if aggregate in BANKED_BY_HAND:
        return BANKED_BY_HAND[aggregate]
    raise ValueError(f"{type(event).__qualname__} does not start a hand")
