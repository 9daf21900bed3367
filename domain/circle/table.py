"""The event-sourced table: seats, stacks and the button between hands (R-CIRC-1, R-CIRC-6).

>>> from domain.cards.decks import BackColour, DeckIdentity
>>> from domain.circle.settings import BettingStructure, TableSettings
>>> table = Table.open("T1", TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2)))
>>> for seat, stack in ((1, 100), (4, 100), (7, 100)):
...     table.sit(seat, stack)
>>> hand = table.start_hand(DeckIdentity(52, BackColour.RED))
>>> table.button_seat, hand.seats
(1, [4, 7, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.cards.cards import Card, Rank
from domain.cards.decks import DeckIdentity, lowest_rank
from domain.circle.hand import TABLES_NAMESPACE, Hand
from domain.circle.settings import MAX_SEATS, TableSettings
from domain.circle.state import HandRuleError
from domain.holds import Hold
from domain.names import verify_name
from domain.tables import LANGUAGES, TableRecord


class Table(TableRecord, Aggregate):
    """A circle-poker table: who sits where with how many chips, the button, and the hand in progress; the record
    every table keeps (hands, decks, devices, reconstructions) is :class:`domain.tables.TableRecord`'s."""

    ERROR = HandRuleError

    @staticmethod
    def create_id(name: str, **_: Any) -> UUID:
        """Tables have deterministic ids from their names."""
        return uuid5(TABLES_NAMESPACE, f"table/{name}")

    @event("Opened")
    def __init__(self, *, name: str, settings: dict[str, Any], seat_count: int, language: str = LANGUAGES[0],
                 hands_key: str = "") -> None:
        self.name = name
        self.hands_key = hands_key
        """What makes its hands' ids its own in every store (:attr:`hands_namespace`; tables opened before: none)."""
        self.language = language
        """The language of the table's stations (domain.tables.LANGUAGES; tables opened before it: Spanish)."""
        self.settings = TableSettings.from_dict(settings)
        self.seat_count = seat_count
        self.stacks: dict[int, int] = {}
        self.button_seat: int | None = None
        self.reset_record()
        self.blank_hands = 0
        self.carried_pot = 0
        self.closed = False
        self.previous_button: int | None = None
        self.reshuffle_required: dict[str, str] | None = None
        """R-CIRC-2: set by a card exposed at the cut (colour, card, rule) until that deck is shuffled again."""

    @property
    def openers(self) -> Rank:
        """R-DRAW-2, R-DRAW-3: jacks, then after each blank hand queens, kings, and aces from then on."""
        return (Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)[min(self.blank_hands, 3)]

    def deck_size_for_next_hand(self) -> int:
        """The deck the next hand needs: the table's, or by players dealt in (R-DRAW-8)."""
        return self.settings.deck_for(sum(1 for stack in self.stacks.values() if stack > 0))

    @classmethod
    def open(cls, name: str, settings: TableSettings, seat_count: int = MAX_SEATS,
             language: str = LANGUAGES[0], hands_key: str = "") -> Table:
        """Open a table with its settings and its stations' language; ``hands_key`` (32 hex digits, random, given
        by the service) makes its hands' ids unique to this table of this store (:attr:`hands_namespace`)."""
        verify_name(name)  # R-AUD-1: no control, format or invisible character (domain.names)
        if not 2 <= seat_count <= MAX_SEATS:
            raise HandRuleError(f"a table has 2 to {MAX_SEATS} seats", rule="R-CIRC-2")
        try:
            cls.verify_hands_key(hands_key)
        except ValueError as error:
            raise HandRuleError(str(error), rule="R-AUD-1") from None
        return cls(name=name, settings=settings.to_dict(), seat_count=seat_count, language=language,
                   hands_key=hands_key)

    # -- seats --------------------------------------------------------------------------------------

    def verify_sit(self, seat: int, stack: int) -> None:
        """A free seat of the table and a whole, positive number of chips (R-CIRC-6)."""
        if not 1 <= seat <= self.seat_count:
            raise HandRuleError(f"seat {seat} is not at this table (1–{self.seat_count})", rule="R-CIRC-2")
        if seat in self.stacks:
            raise HandRuleError(f"seat {seat} is taken", rule="R-CIRC-2")
        _require_chips(stack)

    def sit(self, seat: int, stack: int) -> None:
        """Seat a player with his chips."""
        self.verify_sit(seat, stack)
        self._seated(seat=seat, stack=stack)

    def verify_leave(self, seat: int) -> None:
        """A seated player leaves between hands."""
        self._require_seated(seat)
        self._require_between_hands()

    def leave(self, seat: int) -> None:
        """The player leaves the table with his chips."""
        self.verify_leave(seat)
        self._left(seat=seat)

    def verify_add_chips(self, seat: int, amount: int) -> None:
        """Chips are added between hands only: table stakes (R-CIRC-6)."""
        self._require_seated(seat)
        self._require_between_hands()
        _require_chips(amount)

    def add_chips(self, seat: int, amount: int) -> None:
        """The player buys more chips between hands."""
        self.verify_add_chips(seat, amount)
        self._chips_added(seat=seat, amount=amount)

    def verify_configure(self, settings: TableSettings) -> None:
        """New stakes or structure between hands, for the same game."""
        self._require_between_hands()
        if settings.variant != self.settings.variant:
            raise HandRuleError("a table keeps its game; open another table for another game", rule="R-CIRC-5")

    def configure(self, settings: TableSettings) -> None:
        """Change the table's settings from the next hand on."""
        self.verify_configure(settings)
        self._configured(settings=settings.to_dict())

    def verify_correct_stack(self, seat: int, stack: int, reason: str) -> None:
        """A pit correction between hands: a seated player's chips set to ``stack`` for a stated reason."""
        self._require_seated(seat)
        self._require_between_hands()
        if isinstance(stack, bool) or not isinstance(stack, int) or stack < 0:
            raise HandRuleError("chips are a whole, non-negative number", rule="R-CIRC-6")
        if not reason.strip() or len(reason) > 200:
            raise HandRuleError("a correction states its reason (1–200 characters)", rule="R-AUD-1")

    def correct_stack(self, seat: int, stack: int, reason: str, by: str) -> None:
        """The pit boss corrects a stack; who, why and the old and new amounts are recorded (R-AUD-1)."""
        self.verify_correct_stack(seat, stack, reason)
        self._stack_corrected(seat=seat, old=self.stacks[seat], new=stack, reason=reason, by=by)

    def verify_close(self) -> None:
        """Between hands."""
        self._require_between_hands()

    def close(self, by: str) -> None:
        """Close the table: no more hands; the players leave with their chips."""
        self.verify_close()
        self._closed(by=by, stacks={str(seat): stack for seat, stack in self.stacks.items()})

    # -- hands --------------------------------------------------------------------------------------

    def verify_start_hand(self, deck: DeckIdentity, casino: Sequence[Hold] = ()) -> list[int]:
        """Two or more players with chips (at most as many as the game deals in), no hand in progress, no alert
        holding the table (R-HOLD-1; ``casino``: the casino's alerts that concern it), no deck waiting for a new
        shuffle (R-CIRC-2) or out of play (R-DECK-3); returns the seats dealt in."""
        self._require_between_hands()
        self.verify_not_held(casino)
        if self.reshuffle_required is not None:
            required = self.reshuffle_required
            raise HandRuleError(f"a card was exposed at the cut ({required['card']}): the {required['colour']} deck "
                                "must be shuffled again before the deal", rule="R-CIRC-2")
        self.verify_deck_colour(deck)
        players = sorted(seat for seat, stack in self.stacks.items() if stack > 0)
        if len(players) < 2:
            raise HandRuleError("a hand needs two players with chips", rule="R-CIRC-2")
        if problem := self.settings.variant_rules.players_problem(len(players)):
            raise HandRuleError(problem[0], rule=problem[1])
        self.verify_deck_size(deck, self.settings.deck_for(len(players)),
                              rule="R-DRAW-8" if self.settings.deck_by_players else "R-CARD-2")
        return players

    def start_hand(self, deck: DeckIdentity, casino: Sequence[Hold] = ()) -> Hand:
        """Move the button (R-CIRC-1) and start the next hand; save the table and the hand together."""
        players = self.verify_start_hand(deck, casino)
        if self.settings.marker_speaks_first:  # R-CIRC-1: the holder of la mano is dealt first and speaks first
            button = _next_clockwise(players, self.button_seat)
            order = [s for s in players if s >= button] + [s for s in players if s < button]
        elif self.settings.variant_rules.button:
            button = _next_clockwise(players, self.button_seat)
            order = [s for s in players if s > button] + [s for s in players if s <= button]
        else:  # stud: dealt from the croupier's left (R-STUD5-2); no button
            button, order = players[-1], players
        number = self.hands_started + 1
        hand = Hand.start(self.id, number, self.settings, seats=order, stacks=[self.stacks[s] for s in order],
                          button_seat=button, deck=deck, openers=self.openers, carried_pot=self.carried_pot,
                          hands=self.hands_namespace)
        self._hand_started(hand_id=hand.id, number=number, button_seat=button, deck_colour=deck.colour.value)
        return hand

    def verify_finish_hand(self, hand: Hand) -> None:
        """The hand in progress, complete."""
        if hand.id != self.hand_in_progress:
            raise HandRuleError("that is not the hand in progress at this table", rule="R-AUD-1")
        if not hand.is_complete:
            raise HandRuleError("the hand is not over", rule="R-CIRC-6")

    def finish_hand(self, hand: Hand) -> None:
        """Take the finishing stacks of the hand.  A void (R-CIRC-14, decision) gives back what was put in during
        that deal and changes nothing else: a pot carried from blank hands stays carried, the openers required stay
        as they were, and la mano (the marker) does not move."""
        self.verify_finish_hand(hand)
        stacks = {str(seat): stack for seat, stack in zip(hand.seats, hand.stacks, strict=True)}
        if hand.state.void_rule is not None:
            self._hand_voided(hand_id=hand.id, stacks=stacks, rule=hand.state.void_rule)
            return
        blank = hand.state.passed_rule == "R-DRAW-3"
        self._hand_finished(hand_id=hand.id, stacks=stacks, carried_pot=hand.carried_out, blank=blank)

    # -- the cut (R-CIRC-2) -------------------------------------------------------------------------

    def verify_record_cut_exposure(self, card: Card, colour: str, by: str) -> None:
        """Between hands, a card of the deck about to be dealt, who saw it."""
        self._require_between_hands()
        if card.rank < lowest_rank(self.deck_size_for_next_hand()):
            raise HandRuleError(f"{card} is not in the deck of the next hand", rule="R-CARD-2")
        if colour not in ("red", "blue"):
            raise HandRuleError("a deck is red or blue", rule="R-DECK-2")
        if not by.strip():
            raise HandRuleError("the record names who reports the exposed card", rule="R-AUD-1")

    def record_cut_exposure(self, card: Card, colour: str, by: str) -> None:
        """R-CIRC-2: a card exposed during the cut is recorded and forces a new shuffle of that deck before the
        deal; the next hand is refused until a shuffle of that colour is reported (shuffler or by hand)."""
        self.verify_record_cut_exposure(card, colour, by)
        self._cut_card_exposed(card=str(card), colour=colour, by=by)

    def _require_seated(self, seat: int) -> None:
        if seat not in self.stacks:
            raise HandRuleError(f"nobody sits at seat {seat}", rule="R-CIRC-2")

    def _require_between_hands(self) -> None:
        if self.closed:
            raise HandRuleError("the table is closed", rule="R-AUD-1")
        if self.hand_in_progress is not None:
            raise HandRuleError("a hand is in progress", rule="R-CIRC-6")

    # -- events -------------------------------------------------------------------------------------

    @event("PlayerSeated")
    def _seated(self, *, seat: int, stack: int) -> None:
        self.stacks[seat] = stack

    @event("PlayerLeft")
    def _left(self, *, seat: int) -> None:
        del self.stacks[seat]

    @event("ChipsAdded")
    def _chips_added(self, *, seat: int, amount: int) -> None:
        self.stacks[seat] += amount

    @event("Configured")
    def _configured(self, *, settings: dict[str, Any]) -> None:
        self.settings = TableSettings.from_dict(settings)

    @event("StackCorrected")
    def _stack_corrected(self, *, seat: int, old: int, new: int, reason: str, by: str) -> None:
        del old, reason, by
        self.stacks[seat] = new

    @event("Closed")
    def _closed(self, *, by: str, stacks: dict[str, int]) -> None:
        del by, stacks
        self.closed = True
        self.stacks = {}

    @property
    def game(self) -> str:
        """The game the table deals, by its code (R-CIRC-5: a table keeps its game; ``domain.games``)."""
        return self.settings.variant

    def hand_id(self, number: int) -> UUID:
        """The id of hand ``number`` of this table."""
        return Hand.create_id(self.hands_namespace, number)

    @event("ReconstructionRequested")
    def _reconstruction_requested(self, *, hand_id: UUID, number: int, pit_boss: str, reason: str) -> None:
        self.reconstructions += 1

    @event("DeviceReported")
    def _device_reported(self, *, device: str, serial: str, kind: str, colour: str, result: str,
                         hold: str = "") -> None:
        """A shuffle of the deck whose card was exposed at the cut lifts the hold on the next deal (R-CIRC-2); a
        report that holds play (``hold``, the kind of hold; "" for none and before issue 19) holds the table until
        acknowledged (R-HOLD-1); a deck check takes its deck out of or back into play (R-DECK-3)."""
        self.note_device_report(device, serial, kind, colour=colour, result=result, hold=hold)
        if kind == "shuffle" and self.reshuffle_required is not None and self.reshuffle_required["colour"] == colour:
            self.reshuffle_required = None

    @event("DealerSignedIn")
    def _dealer_signed_in(self, *, dealer_id: str, station: str, previous: str) -> None:
        """R-AUD-1: the dealer dealing here from now on, who signed him in, and whom he replaces ("" for nobody)."""
        del previous
        self.note_dealer_signed_in(dealer_id, station)

    @event("AlertAcknowledged")
    def _alert_acknowledged(self, *, position: int, reason: str, by: str, version: int = 0) -> None:
        """R-AUD-1: the alert raised by the event at log ``position`` (a device fault, a void) acknowledged by the
        station ``by`` (the pit boss's or the games director's), and why; ``version``: the table's version of that
        event (0: an event of one of its hands, and before issue 19), whose hold it releases (R-HOLD-1)."""
        del reason, by
        self.note_table_alert_acknowledged(position, version)

    @event("AlertRaised")
    def _alert_raised(self, *, kind: str, detail: str, by: str) -> None:
        """R-HOLD-1: the service (``by``) raised an alert of ``kind`` here (a shuffler that failed the integrity
        monitor); it holds the table until acknowledged."""
        del by
        self.note_alert_raised(kind, detail)

    @event("DealerSignedOut")
    def _dealer_signed_out(self, *, dealer_id: str, station: str) -> None:
        """R-AUD-1: the dealer ``dealer_id`` left the table, signed out at ``station``; none deals until the next."""
        del dealer_id, station
        self.dealer = None

    @event("CutCardExposed")
    def _cut_card_exposed(self, *, card: str, colour: str, by: str) -> None:
        self.reshuffle_required = {"card": card, "colour": colour, "by": by, "rule": "R-CIRC-2"}

    @event("HandStarted")
    def _hand_started(self, *, hand_id: UUID, number: int, button_seat: int, deck_colour: str | None = None) -> None:
        self.note_hand_started(number, deck_colour)
        self.previous_button = self.button_seat
        self.button_seat = button_seat
        self.hand_in_progress = hand_id

    @event("HandFinished")
    def _hand_finished(self, *, hand_id: UUID, stacks: dict[str, int], carried_pot: int, blank: bool) -> None:
        del hand_id
        for seat, stack in stacks.items():
            self.stacks[int(seat)] = stack
        self.hand_in_progress = None
        self.carried_pot = carried_pot
        self.blank_hands = self.blank_hands + 1 if blank else 0  # R-DRAW-3: back to jacks after an opened hand

    @event("HandVoided")
    def _hand_voided(self, *, hand_id: UUID, stacks: dict[str, int], rule: str) -> None:
        """R-CIRC-14: the players have back what they put in; carried pot, openers and la mano stay."""
        del hand_id, rule
        for seat, stack in stacks.items():
            self.stacks[int(seat)] = stack
        self.hand_in_progress = None
        self.button_seat = self.previous_button


def _next_clockwise(seats: list[int], after: int | None) -> int:
    """The next of ``seats`` (sorted) clockwise after seat ``after``; the first hand's button is the lowest seat."""
    if after is None:
        return seats[0]
    return next((s for s in seats if s > after), seats[0])


def _require_chips(amount: int) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise HandRuleError("chips are a whole, positive number", rule="R-CIRC-6")
