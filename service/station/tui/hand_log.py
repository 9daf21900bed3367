"""What the Watch stream told the station about the hand in progress (or the last one): the deck in play, the
table's limits, and at the end the pots and their winners, the cards shown and each box's settlement.

The table view (``GetTable``) is the truth of the table's state; this log keeps only what the view does not carry:
the deck's colour, the bet limits of a banked hand, and the results of a hand once it is over: the pots, the cards
shown and mucked, the board, and the cards of a banked hand's boxes and house as the stream gave them (``??`` where
this station may not see them), so that the showdown panel can name the hands that were shown
(:mod:`service.station.tui.showdown`).

>>> from service.api import events_pb2 as ev
>>> log = HandLog()
>>> log.apply(ev.TableEvent(table_hand_started=ev.TableHandStarted(number=4, deck_colour="blue")))
>>> log.apply(ev.TableEvent(hand_pot_awarded=ev.HandPotAwarded(index=0, amount=30, shares=[
...     ev.PotShareRecord(seat=2, amount=15), ev.PotShareRecord(seat=5, amount=15)])))
>>> log.number, log.deck_colour, [(p.index, p.amount, p.shares) for p in log.pots]
(4, 'blue', [(0, 30, [(2, 15), (5, 15)])])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.games import BANKED_BY_HAND
from service.api import events_pb2 as ev


@dataclass(frozen=True)
class PotResult:
    """One pot paid: 0 is the main pot; each winner's (seat, chips)."""

    index: int
    amount: int
    rake: int
    shares: list[tuple[int, int]]
    eligible: tuple[int, ...] = ()
    """The seats that could win it."""
    contributors: tuple[int, ...] = ()
    """The seats that put chips in it."""
    carried_in: int = 0
    """Chips of it carried from blank hands (R-DRAW-3)."""

    @property
    def uncalled(self) -> bool:
        """A bet nobody called, coming back to the one who made it (never raked, no winner)."""
        return (len(self.contributors) == 1 and self.eligible == self.contributors and not self.carried_in
                and [seat for seat, _ in self.shares] == list(self.contributors))


@dataclass(frozen=True)
class BoxResult:
    """A box settled against the house: the net chips of each spot, and its bonus outcome."""

    box: int
    spots: dict[str, int]
    bonus_class: str | None


@dataclass
class HandLog:
    """The current (or last) hand as the Watch stream told it."""

    number: int = 0
    game: str = ""
    """The game's code (:data:`domain.games.GAMES`) as its hand's first event names it (``holdem``, ``stud7``, …)."""
    deck_colour: str = ""
    deck_size: int = 0
    openers: int = 0
    """Five-card draw: the lowest pair that opens, as a rank (11 jacks … 14 aces; R-DRAW-2, R-DRAW-3); 0 elsewhere."""
    flush_beats_full_house: bool | None = None
    """R-CARD-5 as the circle hand's settings say; ``None``: the deck's default."""
    limits: dict[str, tuple[int, int]] = field(default_factory=dict)
    """A banked hand's bet limits by spot (``ante``, ``bonus``): (lowest, highest)."""
    pots: list[PotResult] = field(default_factory=list)
    shown: dict[int, list[str]] = field(default_factory=dict)
    mucked: list[int] = field(default_factory=list)
    board: list[str] = field(default_factory=list)
    box_cards: dict[int, list[str]] = field(default_factory=dict)
    """A banked hand's cards by box, exchanged cards taken out (``??`` where this station may not see them)."""
    house_cards: list[str] = field(default_factory=list)
    """The croupier's two cards (Texas Hold'em Bonus) or the bank's five (Casino Draw Poker)."""
    out_boxes: set[int] = field(default_factory=set)
    """Boxes that folded or whose hand is void: never opened at the showdown."""
    bank_shown: list[str] = field(default_factory=list)
    """Casino Draw Poker: the five cards the bank showed once every box had decided (R-CDP-4)."""
    bank_changed: list[str] = field(default_factory=list)
    """The cards the bank changed by the house way, then those it drew in their place, one by one (R-CDP-4)."""
    bank_drawn: list[str] = field(default_factory=list)
    house_turned: bool = False
    """R-THB-12: nobody played, and the croupier's cards were turned for an A-A bonus."""
    boxes: dict[int, BoxResult] = field(default_factory=dict)
    bank_qualified: bool | None = None
    bank_result: int | None = None
    voided: str = ""
    passed: int | None = None
    finished: bool = False
    events: int = 0
    last_bettor: int | None = None
    """The seat of the hand's last betting action (a correction is of his action, R-AUD-1)."""
    pending_correction: tuple[int, str, int | None, str] | None = None
    """A correction waiting for the pit: the seat, the replacement's action and amount, the reason."""

    def apply(self, event: ev.TableEvent) -> None:
        """Take one event of the table's stream."""
        self.events += 1
        case = event.WhichOneof("event")
        if case is None:
            return
        handler = _HANDLERS.get(case)
        if handler is not None:
            handler(self, getattr(event, case))

    def _started(self, number: int, colour: str) -> None:
        """A new hand: the last one's results go; the limits stay until the hand's own arrive."""
        fresh = HandLog(number=number, deck_colour=colour, limits=self.limits, events=self.events)
        self.__dict__.update(fresh.__dict__)


def _table_started(log: HandLog, event: ev.TableHandStarted | ev.BankedTableHandStarted) -> None:
    log._started(event.number, event.deck_colour if event.HasField("deck_colour") else "")


def _circle_started(log: HandLog, event: ev.HandStarted) -> None:
    log.deck_colour, log.deck_size = event.deck.colour or log.deck_colour, event.deck.size
    log.game, log.openers = event.settings.variant, event.openers
    if event.settings.HasField("flush_beats_full_house"):
        log.flush_beats_full_house = event.settings.flush_beats_full_house


def _thb_started(log: HandLog, event: ev.ThbHandStarted) -> None:
    log.deck_colour, log.deck_size = event.deck.colour or log.deck_colour, event.deck.size
    log.game = BANKED_BY_HAND["ThbHand"].code
    limits = list(event.settings.limits)
    if len(limits) >= 6:
        log.limits = {"ante": (limits[0], limits[1]), "bonus": (limits[4], limits[5])}


def _cdp_started(log: HandLog, event: ev.CdpHandStarted) -> None:
    log.deck_colour, log.deck_size = event.deck.colour or log.deck_colour, event.deck.size
    log.game = BANKED_BY_HAND["CdpHand"].code
    log.limits = {"ante": (event.settings.ante_min, event.settings.ante_max)}


def _pot(log: HandLog, event: ev.HandPotAwarded) -> None:
    log.pots.append(PotResult(event.index, event.amount, event.rake, [(s.seat, s.amount) for s in event.shares],
                              tuple(event.eligible), tuple(event.contributors), event.carried_in))


def _shown(log: HandLog, event: ev.HandShown) -> None:
    log.shown[event.seat] = list(event.cards)


def _mucked(log: HandLog, event: ev.HandMucked) -> None:
    log.mucked.append(event.seat)


def _circle_dealt(log: HandLog, event: ev.HandCardDealt) -> None:
    if event.kind == "board":
        log.board.append(event.card)


def _thb_dealt(log: HandLog, event: ev.ThbHandCardDealt) -> None:
    if event.kind == "box":
        log.box_cards.setdefault(event.box, []).append(event.card)
    elif event.kind.startswith("dealer"):
        log.house_cards.append(event.card)
    elif event.kind == "board":
        log.board.append(event.card)


def _cdp_dealt(log: HandLog, event: ev.CdpHandCardDealt) -> None:
    (log.box_cards.setdefault(event.box, []) if event.box else log.house_cards).append(event.card)
    if not event.box and log.bank_changed:
        log.bank_drawn.append(event.card)


def _bank_shown(log: HandLog, event: ev.CdpHandBankShown) -> None:
    log.bank_shown = list(event.cards)
    log.house_cards = list(event.cards)


def _given_back(held: list[str], cards: Iterable[str]) -> None:
    """Take exchanged cards out of a hand (a ``??`` takes out a ``??``)."""
    for card in cards:
        if card in held:
            held.remove(card)


def _cdp_exchanged(log: HandLog, event: ev.CdpHandExchanged) -> None:
    _given_back(log.box_cards.setdefault(event.box, []), event.cards)


def _bank_exchanged(log: HandLog, event: ev.CdpHandBankExchanged) -> None:
    _given_back(log.house_cards, event.cards)
    log.bank_changed = list(event.cards)


def _turned_for_bonus(log: HandLog, event: ev.ThbHandDealerCardsTurnedForBonus) -> None:
    log.house_turned = True


def _box_out(log: HandLog, event: ev.ThbHandFolded | ev.CdpHandFolded | ev.ThbHandBoxVoided) -> None:
    log.out_boxes.add(event.box)


def _settled(log: HandLog, event: ev.ThbHandBoxSettled | ev.CdpHandBoxSettled) -> None:
    bonus = event.bonus_class if isinstance(event, ev.ThbHandBoxSettled) and event.HasField("bonus_class") else None
    log.boxes[event.box] = BoxResult(event.box, dict(event.result), bonus)


def _banked_completed(log: HandLog, event: ev.ThbHandCompleted | ev.CdpHandCompleted) -> None:
    log.bank_result = event.bank_result
    if isinstance(event, ev.CdpHandCompleted) and event.HasField("bank_qualified"):
        log.bank_qualified = event.bank_qualified
    log.finished = True


def _voided(log: HandLog, event: ev.HandVoided | ev.ThbHandVoided | ev.CdpHandVoided) -> None:
    log.voided = event.rule
    log.finished = True


def _passed(log: HandLog, event: ev.HandPassedOut) -> None:
    log.passed = event.amount


def _finished(log: HandLog, event: object) -> None:
    log.finished = True


def _betting(log: HandLog, event: ev.HandFolded | ev.HandChecked | ev.HandCalled | ev.HandBetOrRaised
             | ev.HandBringInPosted) -> None:
    log.last_bettor = event.seat


def _correction_requested(log: HandLog, event: ev.HandCorrectionRequested) -> None:
    log.pending_correction = (event.seat, event.action, event.amount if event.HasField("amount") else None,
                              event.reason)


def _correction_decided(log: HandLog, event: ev.HandCorrectionApproved | ev.HandCorrectionRefused) -> None:
    log.pending_correction = None


_HANDLERS: Mapping[str, Callable[[HandLog, Any], None]] = {
    "table_hand_started": _table_started,
    "banked_table_hand_started": _table_started,
    "hand_started": _circle_started,
    "thb_hand_started": _thb_started,
    "cdp_hand_started": _cdp_started,
    "hand_pot_awarded": _pot,
    "hand_shown": _shown,
    "hand_mucked": _mucked,
    "hand_card_dealt": _circle_dealt,
    "thb_hand_card_dealt": _thb_dealt,
    "cdp_hand_card_dealt": _cdp_dealt,
    "cdp_hand_exchanged": _cdp_exchanged,
    "cdp_hand_bank_shown": _bank_shown,
    "cdp_hand_bank_exchanged": _bank_exchanged,
    "thb_hand_folded": _box_out,
    "cdp_hand_folded": _box_out,
    "thb_hand_box_voided": _box_out,
    "thb_hand_dealer_cards_turned_for_bonus": _turned_for_bonus,
    "thb_hand_box_settled": _settled,
    "cdp_hand_box_settled": _settled,
    "thb_hand_completed": _banked_completed,
    "cdp_hand_completed": _banked_completed,
    "hand_voided": _voided,
    "thb_hand_voided": _voided,
    "cdp_hand_voided": _voided,
    "hand_passed_out": _passed,
    "hand_completed": _finished,
    "table_hand_finished": _finished,
    **dict.fromkeys(("hand_folded", "hand_checked", "hand_called", "hand_bet_or_raised", "hand_bring_in_posted"),
                    _betting),
    "hand_correction_requested": _correction_requested,
    "hand_correction_approved": _correction_decided,
    "hand_correction_refused": _correction_decided,
}
"""The events the log keeps something of, by their case of ``TableEvent``."""
