"""Texas Hold'em Bonus settlement as pure functions (R-THB-8, R-THB-9, R-THB-10, R-THB-12).

The tables' hands (:class:`domain.banked.thb.ThbHand`) and the odds simulator (``pokertable odds``) settle with these
same functions.  A result is a net in chips per spot: the win (+), 0 for a push, or minus the stake (−).

:func:`main_results` is plain arithmetic, so it settles one box (Python ints) or, element by element, a million
simulated boxes at once (numpy arrays) with the same code.

>>> main_results({"ante": 10, "flop": 20, "river": 10}, versus=1, ante_paid=False, folded=False)
{'ante': 0, 'flop': 20, 'river': 10}
>>> main_results({"ante": 10, "flop": 20}, versus=1, ante_paid=True, folded=False)
{'ante': 10, 'flop': 20}
>>> main_results({"ante": 10}, versus=0, ante_paid=False, folded=True)
{'ante': -10}
>>> import numpy as np
>>> main_results({"ante": np.array([1, 1, 1]), "flop": np.array([2, 2, 0])}, versus=np.array([1, -1, 1]),
...              ante_paid=np.array([True, True, False]), folded=np.array([False, False, True]))
{'ante': array([ 1, -1, -1]), 'flop': array([ 2, -2,  0])}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from domain.banked.paytables import bonus_class
from domain.banked.thb_settings import ThbSettings
from domain.cards.cards import Card
from domain.cards.ranking import hand_ranking

MAIN_SPOTS = ("ante", "flop", "turn", "river")
"""The spots played against the croupier (R-THB-8); the bonus is settled on its own (R-THB-9)."""

Chips = TypeVar("Chips", int, NDArray[np.int64])


def versus(player: Chips, dealer: Chips) -> Chips:
    """+1 where the player's hand is higher, 0 for a tie, −1 where the croupier's is higher (R-THB-8)."""
    return (player > dealer) * 1 - (player < dealer) * 1


def ante_paid(category: Any, settings: ThbSettings) -> Any:
    """R-THB-8 (setting ``ante_pays_from``): whether a winning hand of this category (or array of categories)
    is paid on its ante: a straight or better (the regulation), or a flush or better."""
    return category >= settings.ante_pays_from


def spot_multiple(spot: str, versus: Any, ante_paid: Any, folded: Any) -> Any:
    """What one chip on ``spot`` nets (R-THB-5, R-THB-8): a folded box loses its ante; against the croupier the
    flop, turn and river win 1:1, tie or lose; the ante wins 1:1 only with a qualifying hand, else it is returned
    when the player wins, and it is lost when the croupier wins.  Ints or numpy arrays alike."""
    if spot == "ante":
        return versus * (ante_paid | (versus < 0)) * (1 - folded) - folded
    return versus * (1 - folded)


def main_results(stakes: Mapping[str, Any], *, versus: Any, ante_paid: Any, folded: Any) -> dict[str, Any]:
    """The net of each main spot staked: ``stakes[spot] × spot_multiple(spot, …)``, for the spots present."""
    return {spot: stakes[spot] * spot_multiple(spot, versus, ante_paid, folded) for spot in MAIN_SPOTS
            if spot in stakes}


def dealer_strength(dealer: Sequence[Card], board: Sequence[Card]) -> int:
    """The croupier's best five of seven (R-THB-7), as a strength of the 52-card ranking."""
    return hand_ranking(52).strength([c.code for c in [*dealer, *board]])


def bonus_net(stake: int, outcome: str | None, settings: ThbSettings) -> int:
    """R-THB-9: the bonus stake times its payout, or minus the stake when the two cards win nothing."""
    return stake * settings.bonus_table.pays[outcome] if outcome is not None else -stake


def refused_bonus_net(stake: int, settings: ThbSettings) -> int:
    """R-THB-10 (decision, setting ``refused_bonus``): a refused 1000:1 returns its stake (0), or pays as aces."""
    return 0 if settings.refused_bonus == "returned" else stake * settings.bonus_table.pays["aces"]


def box_result(bets: Mapping[str, int], hole: Sequence[Card], board: Sequence[Card], dealer_value: int, *,
               folded: bool, dealer_seen: Sequence[Card], settings: ThbSettings) -> dict[str, int]:
    """A box's net result per spot: the main bets against ``dealer_value`` (unless the box folded), and the bonus
    on its two cards, against the croupier's cards only where they were turned (``dealer_seen``: R-THB-9,
    R-THB-12)."""
    stakes = {spot: amount for spot, amount in bets.items() if spot in MAIN_SPOTS}
    if folded:
        result: dict[str, int] = main_results(stakes, versus=0, ante_paid=False, folded=True)
    else:
        player = hand_ranking(52).evaluate([*hole, *board])
        result = main_results(stakes, versus=versus(player.strength, dealer_value),
                              ante_paid=ante_paid(player.category, settings), folded=False)
    if "bonus" in bets:
        result["bonus"] = bonus_net(bets["bonus"], bonus_class(hole, dealer_seen), settings)
    return {spot: int(net) for spot, net in result.items()}


def holds_aces(hole: Sequence[Card]) -> bool:
    """Two aces: the hand whose bonus the croupier's cards may raise to 1000:1 (R-THB-9, R-THB-12)."""
    return len(hole) == 2 and bonus_class(hole, ()) == "aces"
