"""What is done to a hand in progress, one frozen dataclass per intent (issue 31): the croupier's and the players'
actions, the pit's and the games director's decisions, and a banked table's reshuffle.

Every game of :data:`domain.games.GAMES` names the actions it takes and the hand method each one calls
(:attr:`domain.games.Game.actions`): a circle hand takes :class:`Fold`, :class:`BetTo` or :class:`Discard`, a Texas
Hold'em Bonus hand :class:`PlaceBonus` or :class:`FlopBet`, and :class:`Deal`, :class:`Fold`, :class:`Check` and
:class:`Void` are taken by hands of both families.  A seat is a circle table's seat or a banked table's box (as the
API names both ``seat``).

``name`` is the action's name in the station's words and in the records of commands stored before issue 31 (whose
fingerprints name it, :mod:`service.app.fingerprints`); ``permission`` is what the role matrix must allow the station
giving it (:data:`service.app.access.PERMISSIONS`: "play" unless the rule names someone, R-AUD-1, R-THB-10).

>>> BetTo(3, 40)
BetTo(seat=3, amount=40)
>>> Void("R-CIRC-14", "misdeal").permission, Fold(2).permission
('void', 'play')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.cards.cards import Card


@dataclass(frozen=True)
class Action:
    """An action on the hand in progress (or, for a few, on the table between hands)."""

    name: ClassVar[str]
    permission: ClassVar[str] = "play"
    between_hands: ClassVar[bool] = False
    """Taken by the table itself, between hands (:class:`Reshuffle`): no hand is needed."""
    after_hand: ClassVar[bool] = False
    """Taken by the table's last hand when none is in progress (:class:`Reconstruction`, R-THB-13)."""


# -- every game ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deal(Action):
    """The next card where it is due (R-DECK-4): typed by the croupier or read by the shoe (then with the read's
    sequence number, R-AUD-1)."""

    card: Card
    source: str = "croupier"
    sequence: int | None = None
    name: ClassVar[str] = "deal"
    permission: ClassVar[str] = "deal"


@dataclass(frozen=True)
class Fold(Action):
    """The seat folds (R-CIRC-3); a Texas Hold'em Bonus box folds before the flop, its ante lost (R-THB-5); a Casino
    Draw Poker box folds (R-CDP-3)."""

    seat: int
    name: ClassVar[str] = "fold"


@dataclass(frozen=True)
class Check(Action):
    """The seat checks (R-CIRC-3); a Texas Hold'em Bonus box makes no turn or river bet (R-THB-6)."""

    seat: int
    name: ClassVar[str] = "check"


@dataclass(frozen=True)
class Void(Action):
    """The pit boss voids the whole hand, naming the rule and why (R-AUD-1, R-CIRC-14, R-THB-11)."""

    rule: str
    reason: str
    name: ClassVar[str] = "void"
    permission: ClassVar[str] = "void"


# -- circle poker ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call(Action):
    """The seat calls (R-CIRC-3)."""

    seat: int
    name: ClassVar[str] = "call"


@dataclass(frozen=True)
class BetTo(Action):
    """A bet or raise: the seat's whole bet of this interval after it (R-CIRC-3, R-CIRC-3b, R-CIRC-4)."""

    seat: int
    amount: int
    name: ClassVar[str] = "bet"


@dataclass(frozen=True)
class AllIn(Action):
    """The seat puts in every chip it has (R-CIRC-6)."""

    seat: int
    name: ClassVar[str] = "all-in"


@dataclass(frozen=True)
class BringIn(Action):
    """Stud: the lowest up card's forced bet (R-STUD7-1)."""

    seat: int
    name: ClassVar[str] = "bring-in"


@dataclass(frozen=True)
class Discard(Action):
    """Five-card draw (R-DRAW-4) and Pineapple (R-PINE-1): the cards the seat throws away (none: it stands pat)."""

    seat: int
    cards: tuple[Card, ...] = ()
    name: ClassVar[str] = "discard"


@dataclass(frozen=True)
class ReshuffleDiscards(Action):
    """Five-card draw: the discards become the stock (R-DRAW-8)."""

    name: ClassVar[str] = "reshuffle-discards"


@dataclass(frozen=True)
class Show(Action):
    """The seat shows its hand at the showdown (R-CIRC-13)."""

    seat: int
    name: ClassVar[str] = "show"


@dataclass(frozen=True)
class Muck(Action):
    """The seat gives up its hand at the showdown unseen (R-CIRC-13)."""

    seat: int
    name: ClassVar[str] = "muck"


@dataclass(frozen=True)
class ExposeCard(Action):
    """A down card of the seat exposed by mistake (R-CIRC-9)."""

    seat: int
    card: Card
    name: ClassVar[str] = "expose-card"


@dataclass(frozen=True)
class ExposeHand(Action):
    """The seat's hand exposed before the showdown (R-CIRC-9)."""

    seat: int
    name: ClassVar[str] = "expose-hand"


@dataclass(frozen=True)
class Absent(Action):
    """The seat's player is away when his turn comes (R-CIRC-10)."""

    seat: int
    name: ClassVar[str] = "absent"


BETTING: tuple[type[Action], ...] = (Fold, Check, Call, BetTo, AllIn, BringIn)
"""The betting actions: what a correction's replacement may be (R-AUD-1)."""


@dataclass(frozen=True)
class RequestCorrection(Action):
    """The croupier keyed the hand's last betting action wrong: ``replacement`` is what happened (R-AUD-1); the hand
    waits for the pit's decision."""

    replacement: Fold | Check | Call | BetTo | AllIn | BringIn
    reason: str
    name: ClassVar[str] = "request-correction"
    permission: ClassVar[str] = "request-correction"


@dataclass(frozen=True)
class DecideCorrection(Action):
    """The pit boss or the games director approves or refuses the pending correction (R-AUD-1)."""

    approve: bool
    reason: str
    name: ClassVar[str] = "decide-correction"
    permission: ClassVar[str] = "decide-correction"


# -- banked poker ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlaceAnte(Action):
    """A box's ante (R-THB-3, R-CDP-1)."""

    seat: int
    amount: int
    name: ClassVar[str] = "ante"


@dataclass(frozen=True)
class PlaceBonus(Action):
    """Texas Hold'em Bonus: a box's bonus side bet (R-THB-9)."""

    seat: int
    amount: int
    name: ClassVar[str] = "bonus"


@dataclass(frozen=True)
class CloseBets(Action):
    """"No va más": the bets are closed and the deal begins (R-THB-4, R-CDP-1)."""

    name: ClassVar[str] = "close-bets"


@dataclass(frozen=True)
class FlopBet(Action):
    """Texas Hold'em Bonus: the box plays, its flop bet twice the ante (R-THB-5)."""

    seat: int
    amount: int
    name: ClassVar[str] = "flop-bet"


@dataclass(frozen=True)
class StreetBet(Action):
    """Texas Hold'em Bonus: the box's turn or river bet, once the ante (R-THB-6)."""

    seat: int
    amount: int
    name: ClassVar[str] = "bet"


@dataclass(frozen=True)
class Exchange(Action):
    """Casino Draw Poker: the box exchanges 0, 1 or 2 cards (R-CDP-2)."""

    seat: int
    cards: tuple[Card, ...] = ()
    name: ClassVar[str] = "exchange"


@dataclass(frozen=True)
class Play(Action):
    """Casino Draw Poker: the box plays against the bank, its bet twice the ante (R-CDP-3)."""

    seat: int
    amount: int
    name: ClassVar[str] = "play"


@dataclass(frozen=True)
class ApproveBonus(Action):
    """Texas Hold'em Bonus, the games director: a box's 1000:1 bonus paid, and what he checked (R-THB-10; issue 32:
    the reason is recorded with the approval)."""

    seat: int
    reason: str = ""
    name: ClassVar[str] = "approve"
    permission: ClassVar[str] = "approve"


@dataclass(frozen=True)
class RefuseBonus(Action):
    """Texas Hold'em Bonus, the games director: a box's 1000:1 bonus refused, and why (R-THB-10)."""

    seat: int
    reason: str = ""
    name: ClassVar[str] = "refuse"
    permission: ClassVar[str] = "approve"


@dataclass(frozen=True)
class DealerCardShown(Action):
    """Texas Hold'em Bonus: a croupier's card shown by mistake (R-THB-11 a)."""

    name: ClassVar[str] = "dealer-card-shown"


@dataclass(frozen=True)
class FaceUpCard(Action):
    """Texas Hold'em Bonus: a card found face up in the deck (R-THB-11 b)."""

    card: Card
    name: ClassVar[str] = "face-up-card"


@dataclass(frozen=True)
class WrongCount(Action):
    """Texas Hold'em Bonus: a box (its hand void) or, with no seat, the croupier got the wrong number of cards; the
    croupier's is ``correctable`` when the cards' sequence is kept (R-THB-11 c, d)."""

    seat: int | None = None
    correctable: bool = False
    name: ClassVar[str] = "wrong-count"


@dataclass(frozen=True)
class Reconstruction(Action):
    """Texas Hold'em Bonus, the pit boss: a dispute's reconstruction recorded, with the games director informed
    (R-THB-13); of the last hand when none is in progress."""

    reason: str = ""
    director: str = ""
    name: ClassVar[str] = "reconstruction"
    permission: ClassVar[str] = "reconstruct"
    after_hand: ClassVar[bool] = True


@dataclass(frozen=True)
class Reshuffle(Action):
    """A banked table between hands: the croupier's full reshuffle (R-THB-11)."""

    name: ClassVar[str] = "reshuffle"
    between_hands: ClassVar[bool] = True


@dataclass(frozen=True)
class Legal:
    """What the hand in progress takes now, as a game answers it (:attr:`domain.games.Game.legal`): one answer for
    the station, the dashboard and the service.  ``seat``: the seat to act (circle) or the box deciding (banked);
    ``allowed``: the actions that seat (or the pit, for a correction's decision) may give; the amounts they take."""

    seat: int | None = None
    allowed: tuple[type[Action], ...] = ()
    call: int | None = None
    """Circle: the chips a call adds."""
    bring_in: int | None = None
    """Stud: the bring-in (R-STUD7-1)."""
    raise_min: int | None = None
    """Circle: the smallest total a bet or raise may go to (R-CIRC-3b)."""
    raise_max: int | None = None
    """Circle: the largest (the structure's limit, R-CIRC-4, R-CIRC-5)."""
    bet: int | None = None
    """Banked: what the decision's bet must be (THB flop twice the ante, turn and river once; CDP play twice)."""


NOTHING = Legal()
"""Nothing to decide now (no hand, or cards are due)."""
