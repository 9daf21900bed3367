"""What a station is shown of a table, typed (issue 31, item 3): a :class:`TableView` with its game's part
(:class:`CircleTableView` or :class:`BankedTableView`) and the hand in progress (:class:`CircleHandView`,
:class:`BankedHandView`), built from the domain's plain-data state through the one visibility policy
(:mod:`service.app.visibility`), now or at a past moment alike.  The gRPC edge maps them to proto by attribute.

Where the next card goes is one type for every game, :class:`NextCard`: a circle hand's next hole card names its
seat, a banked hand's next box card its box; the board, a burn, the croupier's or the bank's cards name none; and
whether the card is dealt face up (only then may the croupier key it: D-SEE-1, docs/station.md).

>>> NextCard("box", 3), NextCard("board", face_up=True)
(NextCard(target='box', seat=3, face_up=False), NextCard(target='board', seat=None, face_up=True))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.banked.cdp import CdpHand
from domain.banked.table import BankedTable
from domain.banked.thb import ThbHand
from domain.circle.table import Table
from domain.holds import Hold
from service.app.visibility import banked_hand_state, circle_snapshot


@dataclass(frozen=True)
class NextCard:
    """Where the next card of a hand goes (``target``: a CardTarget code, e.g. ``hole``, ``board``, ``burn``,
    ``box``, ``bank``, ``dealer-left``) and, for a player's card, to which seat or box."""

    target: str
    seat: int | None = None
    face_up: bool = False
    """The card is dealt face up (a board card, a stud up card): the croupier may key it; a face-down card comes
    from the shoe (issue 33)."""


@dataclass(frozen=True)
class PlayerView:
    """A seat of a circle hand: chips, this interval's bet, all it put in, folded, and its cards as the viewer may
    see them (``face_up`` card by card)."""

    seat: int
    stack: int
    bet: int
    put_in: int
    folded: bool
    cards: tuple[str, ...]
    face_up: tuple[bool, ...]


@dataclass(frozen=True)
class CircleHandView:
    """A circle hand in progress as the viewer may see it."""

    phase: str
    street: str
    board: tuple[str, ...]
    pot: int
    """Every chip in the middle: this hand's bets and pots, and a pot carried from blank hands (R-DRAW-3)."""
    actor: int | None
    drawer: int | None
    next_to_show: int | None
    next_card: NextCard | None
    players: tuple[PlayerView, ...]


@dataclass(frozen=True)
class BoxView:
    """A box of a banked hand: its bets by spot, its cards as the viewer may see them, its result once settled."""

    seat: int
    bets: Mapping[str, int]
    cards: tuple[str, ...]
    result: Mapping[str, int] | None


@dataclass(frozen=True)
class BankedHandView:
    """A banked hand in progress as the viewer may see it: the house's cards (the croupier's or the bank's) face
    down to the table until the boxes are settled."""

    stage: str
    house: tuple[str, ...]
    board: tuple[str, ...]
    to_decide: int | None
    next_card: NextCard | None
    boxes: tuple[BoxView, ...]


@dataclass(frozen=True)
class CircleTableView:
    """A circle table's own part: stacks by seat, the button, closed, a deck to shuffle again (R-CIRC-2)."""

    stacks: Mapping[int, int]
    button_seat: int | None
    closed: bool
    reshuffle_required: str
    hand: CircleHandView | None
    button_is_mano: bool = False
    """The marker is la mano, whose holder speaks first (R-CIRC-1), not a dealer button."""

    @property
    def chips_in_play(self) -> int:
        """Every chip in the middle of the hand in progress."""
        return self.hand.pot if self.hand is not None else 0

    @property
    def seats(self) -> int:
        """The seats taken."""
        return len(self.stacks)


@dataclass(frozen=True)
class BankedTableView:
    """A banked table's own part: the house's result, a reshuffle required (R-THB-11), closed."""

    bank_result: int
    reshuffle_required: str
    hand: BankedHandView | None
    closed: bool = False
    """The pit closed the table (R-AUD-1)."""

    @property
    def chips_in_play(self) -> int:
        """Every chip staked on the boxes of the hand in progress."""
        return sum(sum(box.bets.values()) for box in self.hand.boxes) if self.hand is not None else 0

    @property
    def seats(self) -> int:
        """The boxes that bet in the hand in progress."""
        return len(self.hand.boxes) if self.hand is not None else 0


@dataclass(frozen=True)
class TableView:
    """A table of any game as a station may see it now."""

    table: str
    game: str
    hands_started: int
    dealer: str
    language: str
    deck_colour: str
    """The back colour of its last hand's deck ("" before the first)."""
    opened: str
    holds: tuple[Hold, ...]
    """What holds the table now (R-HOLD-1), oldest first."""
    decks_out: tuple[str, ...]
    """The colours of its decks out of play (R-DECK-3)."""
    closed: bool
    detail: CircleTableView | BankedTableView
    seat_count: int = 0
    """A circle table's seats (R-CIRC-2), a banked table's boxes (R-THB-1, R-CDP-1)."""

    @property
    def hand(self) -> CircleHandView | BankedHandView | None:
        """The hand in progress, as the viewer may see it (None between hands)."""
        return self.detail.hand


def circle_hand_view(snapshot: Mapping[str, Any], *, sees_down_cards: bool) -> CircleHandView:
    """A circle hand's :meth:`domain.circle.hand.Hand.snapshot` as a station may see it."""
    shown = circle_snapshot(dict(snapshot), sees_down_cards=sees_down_cards)
    seats: list[int] = shown["seats"]
    next_card = None
    if shown["next_card"]:
        kind, position = shown["next_card"]
        seat = seats[position] if kind == "hole" and 0 <= position < len(seats) else None
        next_card = NextCard(kind, seat, bool(shown.get("next_card_up", kind == "board")))
    players = tuple(PlayerView(seat, shown["stacks"][i], shown["bets"][i], shown["contributed"][i],
                               shown["folded"][i], tuple(card for card, _ in shown["hole"][i]),
                               tuple(up for _, up in shown["hole"][i])) for i, seat in enumerate(seats))
    return CircleHandView(shown["phase"], str(shown["street"]).lower(), tuple(shown["board"]),
                          int(sum(shown["contributed"])) + int(shown["carried_in"]), shown["actor"] or None,
                          shown["drawer"] or None, shown["next_to_show"] or None, next_card, players)


def banked_next_card(hand: ThbHand | CdpHand) -> NextCard | None:
    """Where a banked hand's next card goes (Casino Draw Poker names a box, or 0 for the bank)."""
    due = hand.next_card
    if due is None:
        return None
    if isinstance(due, int):
        return NextCard("box", due) if due else NextCard("bank", face_up=hand.next_card_face_up)
    return NextCard("box", due.box) if due.kind == "box" else NextCard(due.kind, face_up=due.kind == "board")


def banked_hand_view(state: Mapping[str, Any], *, sees_down_cards: bool,
                     next_card: NextCard | None = None) -> BankedHandView:
    """A banked hand's state (:meth:`domain.banked.box_hand.BankedHand.snapshot`) as a station may see it."""
    shown = banked_hand_state(dict(state), sees_down_cards=sees_down_cards)
    results: Mapping[int, Mapping[str, int]] = shown["results"]
    boxes = tuple(BoxView(int(box), dict(bets), tuple(shown["cards"].get(box, [])),
                          dict(results[box]) if box in results else None)
                  for box, bets in sorted(shown["bets"].items()))
    return BankedHandView(shown["stage"], tuple(shown.get("dealer", shown.get("bank", []))),
                          tuple(shown.get("board", [])), shown["to_decide"] or None, next_card, boxes)


def _circle_part(table: Mapping[str, Any], hand: Mapping[str, Any] | None, *, sees_down_cards: bool,
                 next_card: NextCard | None) -> CircleTableView:
    del next_card  # a circle hand's own snapshot says it
    return CircleTableView(
        {int(seat): stack for seat, stack in table["stacks"].items()}, table.get("button_seat") or None,
        bool(table.get("closed", False)), str(table.get("reshuffle_required") or ""),
        None if hand is None else circle_hand_view(hand, sees_down_cards=sees_down_cards),
        bool(table.get("button_is_mano", False)))


def _banked_part(table: Mapping[str, Any], hand: Mapping[str, Any] | None, *, sees_down_cards: bool,
                 next_card: NextCard | None) -> BankedTableView:
    return BankedTableView(
        int(table["bank_result"]), str(table.get("reshuffle_required") or ""),
        None if hand is None else banked_hand_view(hand, sees_down_cards=sees_down_cards, next_card=next_card),
        bool(table.get("closed", False)))


Part = Callable[..., CircleTableView | BankedTableView]
PARTS: Mapping[type[Any], Part] = {Table: _circle_part, BankedTable: _banked_part}
"""A game's part of a view, by its table's aggregate class (:attr:`domain.games.Game.table_class`)."""


def table_part(table_class: type[Any], table: Mapping[str, Any], hand: Mapping[str, Any] | None, *,
               sees_down_cards: bool, next_card: NextCard | None = None) -> CircleTableView | BankedTableView:
    """The game's part of a view: the table's own state (:attr:`domain.games.Game.table_state`) and its hand's
    (:attr:`domain.games.Game.state`, the pit's copy), as a station may see them."""
    return PARTS[table_class](table, hand, sees_down_cards=sees_down_cards, next_card=next_card)


@dataclass(frozen=True)
class HandSummary:
    """A hand as a search lists it: its number and times, the seats (or boxes) dealt in, how it ended
    (:data:`domain.games.OUTCOMES`), the chips in its pot (or staked), the seats that won and each seat's net once
    finished (a banked box's against the house)."""

    hand_id: str
    number: int
    started: datetime
    ended: datetime
    seats: tuple[int, ...]
    outcome: str
    pot: int
    winners: tuple[int, ...]
    net: Mapping[int, int]
    rake: int | None = None
    """The house's chips from the hand's pots (R-CIRC-12; 0 at a banked table); None for a hand the index kept
    before the rake was summed up."""

    @classmethod
    def of(cls, summary: Mapping[str, Any]) -> HandSummary:
        """A summary as the game makes it and the hands index keeps it (:attr:`domain.games.Game.summarise`)."""
        rake = summary.get("rake")
        return cls(str(summary["hand_id"]), int(summary["number"]), datetime.fromisoformat(str(summary["started"])),
                   datetime.fromisoformat(str(summary["ended"])), tuple(summary["seats"]), str(summary["outcome"]),
                   int(summary["pot"]), tuple(summary["winners"]),
                   {int(seat): int(net) for seat, net in summary["net"].items()}, None if rake is None else int(rake))

    def stored(self) -> dict[str, Any]:
        """As the hands index stores it (JSON), key for key what the game's summary says (:meth:`of` reads it
        back): the index of every earlier version reads the same."""
        return {"hand_id": self.hand_id, "number": self.number, "started": str(self.started),
                "ended": str(self.ended), "seats": list(self.seats), "outcome": self.outcome, "pot": self.pot,
                "winners": list(self.winners), "net": dict(self.net),
                **({} if self.rake is None else {"rake": self.rake})}
