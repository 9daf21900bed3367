"""The hardware-aware dealer station: the shuffler and the shoe are cabled to it (by port URL), and it forwards every
checked shoe read to the service as the next deal, with its source and read sequence.

Reads that cannot be right never become deals (R-DECK-4): the adapter refuses them, and the service refuses what the
adapter could not know (a card already dealt, not in the deck in play, read while no card is due).  Everything is shown
to the croupier and recorded at the table as a device fault, the service's refusals included (R-DECK-4: a refused read
is neither accepted nor forgotten).  The red and blue decks alternate hand by hand: one in the shoe, the other in the
shuffler (R-DECK-2); the shuffler's word for which deck it delivered goes to the table as it is, and the table refuses
a deck that does not alternate.

A read the service did not acknowledge is never dropped: unless the service refused it by a rule (FAILED_PRECONDITION
or INVALID_ARGUMENT naming a rule), whatever the reason — the service unreachable, its store failing (a full disk, a
lost database connection: UNAVAILABLE), any other error — the read is held, with every read after it, shown to the
croupier ("service lost"), and retried until the service takes them, in read sequence order.  Each read is sent with a
command id made of the shoe's serial number, the hand and the read sequence, so a read the service stored just before
the loss (its answer lost on the way) is recognised and not dealt twice.  Device reports (faults, shuffles, deck
checks) the service did not acknowledge are held and retried the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import grpc

from devices.adapters import (
    CardRead,
    DeviceStatus,
    Irregularity,
    ShoeAdapter,
    ShoeEvent,
    ShufflerAdapter,
    ShufflerError,
)
from devices.protocol import Colour, DeckCheckResult, Hello
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.client import Station, colour, command, refusing_rule, value
from service.station.discards import DiscardReader


def _deck(deck: Colour) -> pb.DeckColour:
    """The API's colour of a device's deck."""
    return colour(deck.name.lower())


@dataclass
class HardwareStation:
    """A station with a shoe (and optionally a shuffler) attached."""

    station: Station
    table: str
    shoe_url: str
    shuffler_url: str | None = None
    banked: bool = False
    show: Callable[[str], None] = print
    dealt: list[tuple[str, int]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    irregularities: list[Irregularity] = field(default_factory=list)
    held: list[tuple[str, int]] = field(default_factory=list)
    unreported: list[svc.RecordDeviceReportRequest] = field(default_factory=list)
    retry_seconds: float = 0.5
    silence_seconds: float | None = 3.0
    baudrate: int = 115200
    alert: Callable[[str], None] | None = None
    """Told of every fault the croupier must acknowledge (a device fault, an irregular read, a read the service
    refused, a deck that is not ready); ``show`` tells him everything, faults too, when it is ``None``."""
    deck_size: int = 52
    """The size of the decks the shuffler prepares (the table's: R-CARD-2)."""

    def __post_init__(self) -> None:
        self.hands = 0
        self.shift = 0  # 1 when the table's decks run blue on odd hands (learnt from an R-DECK-2 refusal)
        self.changed = threading.Condition()
        self._sending = threading.RLock()
        self._closed = threading.Event()
        self._retrier: threading.Thread | None = None
        self.shuffler: ShufflerAdapter | None = None
        self.shuffling: Colour | None = None
        """The deck the shuffler is shuffling and checking now."""
        self.checks: dict[Colour, DeckCheckResult] = {}
        """The last deck check of each colour (R-DECK-3)."""
        self.discards = DiscardReader(lambda action, seat, cards: self._call(
            lambda: self.station.act(self.table, action, seat=seat, cards=cards)))
        """The discards (exchanges) the shoe reads (issue 33)."""
        self.shoe_news = "waiting for the shoe's identity"
        self.shuffler_news = "no shuffler attached" if self.shuffler_url is None else "waiting for the shuffler"
        self.shoe = ShoeAdapter(self.shoe_url, self._on_shoe, baudrate=self.baudrate,
                                silence_seconds=self.silence_seconds)
        self.shuffler = ShufflerAdapter(self.shuffler_url, baudrate=self.baudrate, on_fault=self._shuffler_fault) \
            if self.shuffler_url else None
        if self.shoe.link.open_error is not None:  # not there yet: the link opens it when it is (a state, no error)
            self._on_shoe(DeviceStatus(f"shoe not connected at {self.shoe_url}: {self.shoe.link.open_error}; "
                                       "waiting for it", fault=True))
        if self.shuffler is not None and self.shuffler.link.open_error is not None:
            self._shuffler_fault(f"shuffler not connected at {self.shuffler_url}: {self.shuffler.link.open_error}; "
                                 "waiting for it")

    def _warn(self, message: str) -> None:
        """A fault: shown, and raised as an alert the croupier acknowledges."""
        (self.alert or self.show)(message)

    def colour_of_hand(self, number: int) -> Colour:
        """Odd hands of this station are dealt from the red deck, even hands from the blue one (R-DECK-2), unless the
        table said otherwise (a station started when the table's last hand was red)."""
        return Colour.RED if (number + self.shift) % 2 else Colour.BLUE

    def start_hand(self, deck: Colour | None = None, *, prepare: bool = True) -> Colour:
        """Start the next hand with ``deck`` (or, without one, the deck the table did not deal its last hand from:
        the service says which, R-DECK-2); the shuffler prepares the other one meanwhile (unless ``prepare`` is
        false: then :meth:`prepare_next` does, once the caller knows the size of the hand's deck).

        In the right order (issue 33): a deck the shuffler has not shuffled and checked in this session is shuffled
        and checked first (R-DECK-3); the service starts the hand; only then does the shuffler deliver the deck to
        the shoe, so that a hand the table refuses (a reshuffle still required, a held table) has put no deck in the
        shoe.  The shuffler's word for the deck it delivered is recorded (``delivery``); a deck other than the
        hand's is a fault, and the croupier puts the right one in (R-DECK-2)."""
        view = self._view() if deck is None else None  # the table asked only for what the caller did not say
        colour = deck if deck is not None else self._next_deck(view)
        if deck is not None and deck is not self.colour_of_hand(self.hands + 1):  # the table's alternation
            self.shift ^= 1
        if self.shuffler is not None and colour not in self.checks:  # never delivered unshuffled
            view = view or self._view()
            if view is not None and view.next_deck_size:
                self.deck_size = view.next_deck_size  # the table's deck (R-CARD-2, R-DRAW-8)
            self._prepare_other_deck(self.shuffler, colour)
        previous = self.shoe.colour
        self.shoe.expect_colour(colour)
        request = svc.StartHandRequest(command_id=self.station.command_id(), table=self.table,
                                       deck_colour=_deck(colour))
        try:
            self.station.call("StartHand", request)
        except grpc.RpcError as error:  # refused (a reshuffle still required, R-THB-11; the wrong deck, R-DECK-2)
            self.shoe.expect_colour(previous)
            self.show(f"hand not started: {error.code().name}: {error.details()}")
            if refusing_rule(error) == "R-DECK-2" and deck is None:  # the station asked for the wrong deck
                self.shift ^= 1
            raise
        self.hands += 1
        if self.shuffler is not None:
            self._deliver(self.shuffler, colour)
        if prepare:
            self.prepare_next()
        return colour

    def _view(self) -> pb.TableView | None:
        """The table now, or None when the service cannot say."""
        try:
            return self.station.table(self.table)
        except grpc.RpcError:
            return None

    def _next_deck(self, view: pb.TableView | None) -> Colour:
        """The deck the table's next hand is dealt from: the other one than its last hand's, as the service says
        (a station started mid-session knows it so); this station's own count if the service cannot say."""
        last = view.last_deck if view is not None else pb.DECK_COLOUR_UNSPECIFIED
        if last == pb.DECK_COLOUR_UNSPECIFIED:
            return self.colour_of_hand(self.hands + 1)
        colour = Colour.BLUE if last == pb.DECK_COLOUR_RED else Colour.RED
        if colour is not self.colour_of_hand(self.hands + 1):
            self.shift ^= 1
        return colour

    def _deliver(self, shuffler: ShufflerAdapter, colour: Colour) -> None:
        """The shuffler delivers the hand's deck to the shoe (the hand started); a fault or another deck is shown
        and recorded: the croupier puts the hand's deck in by hand."""
        try:
            delivered = shuffler.deliver(colour)
        except ShufflerError as error:
            name = colour.name.lower()
            self._shuffler_failed(error, colour, news=f"the {name} deck not delivered",
                                  alert=f"put the {name} deck in the shoe by hand", result="the deck was not delivered")
            return
        self._report("delivery", delivered, f"the {delivered.name.lower()} deck delivered to the shoe")
        if delivered is not colour:
            self._warn(f"shuffler: it delivered the {delivered.name.lower()} deck, the hand is dealt from the "
                       f"{colour.name.lower()} one: put the {colour.name.lower()} deck in the shoe (R-DECK-2)")
            self._report("fault", colour, f"the {delivered.name.lower()} deck delivered for a "
                                          f"{colour.name.lower()} hand (R-DECK-2)")

    def _shuffler_failed(self, error: ShufflerError, colour: Colour, *, news: str, alert: str, result: str) -> None:
        """A shuffler's fault: its news on the panel, an alert for the croupier, a fault recorded at the table."""
        self.shuffler_news = f"FAULT: {error}; {news}"
        self._warn(f"shuffler: {error}; {alert}")
        self._report("fault", colour, f"{error}; {result}")

    def prepare_next(self) -> None:
        """The shuffler shuffles and checks the deck of the next hand (``deck_size`` cards)."""
        if self.shuffler is not None:
            self._prepare_other_deck(self.shuffler, self.colour_of_hand(self.hands + 1))

    def reshuffle(self) -> None:
        """R-THB-11: the full reshuffle of the last hand's deck the table requires before the next hand: through
        the shuffler (its shuffle report, recorded at the table, clears the requirement), or, without one, the
        croupier's reshuffle by hand, recorded."""
        if self.shuffler is None:
            self.station.act(self.table, "reshuffle")
            return
        self._prepare_other_deck(self.shuffler, self.colour_of_hand(self.hands))

    def _prepare_other_deck(self, shuffler: ShufflerAdapter, other: Colour) -> None:
        """Shuffle and check the deck for the next hand; a fault or an incomplete deck is shown and recorded, and
        that deck is not used until a deck check passes (R-DECK-3)."""
        self.shuffling = other
        try:
            shuffled = shuffler.shuffle(other, self.deck_size)
            self._report("shuffle", shuffled, "deck ready" if shuffled is other else
                         f"deck ready: the {shuffled.name.lower()} deck, asked for the {other.name.lower()} one")
            check = shuffler.deck_check(other)
        except ShufflerError as error:
            name = other.name.lower()
            self._shuffler_failed(error, other, news=f"the {name} deck is not ready",
                                  alert=f"the {name} deck is not ready (R-DECK-3)", result="deck not ready")
            return
        finally:
            self.shuffling = None
        self.checks[other] = check
        complete = not (check.missing or check.duplicates or check.foreign)
        self._report("deck-check", other, f"{check.counted} counted, {'complete' if complete else 'INCOMPLETE'}"
                     + ("" if complete else f": missing {len(check.missing)}, duplicated {len(check.duplicates)}, "
                        f"foreign {len(check.foreign)}"))
        self.shuffler_news = f"the {other.name.lower()} deck shuffled and checked: {check.counted} counted" + (
            "" if complete else ", INCOMPLETE")
        if not complete:
            self._warn(f"shuffler: the {other.name.lower()} deck is incomplete ({check.counted} counted); "
                      "check it before it is used (R-DECK-3)")

    def _shuffler_fault(self, message: str) -> None:
        self.shuffler_news = message
        self._warn(message)
        self._report("fault", self.colour_of_hand(self.hands + 1), message[:200])

    def _report(self, kind: str, colour: Colour, result: str) -> None:
        """A shuffle, deck check, delivery or fault of the shuffler, recorded at the table."""
        identity = self.shuffler.identity if self.shuffler else None
        self._send_report(self._device_report(identity, "shuffler", kind, colour, result))

    def _send_report(self, request: svc.RecordDeviceReportRequest) -> None:
        """Record a device report; one the service does not acknowledge waits (in order) and is sent again."""
        with self._sending:
            if self.unreported or not self._deliver_report(request):
                if request not in self.unreported:
                    self.unreported.append(request)
                self._start_retrier()

    def _deliver_report(self, request: svc.RecordDeviceReportRequest) -> bool:
        """One report: True once the service recorded it or refused it by a rule (then shown: nothing to retry)."""
        try:
            self.station.call("RecordDeviceReport", request)
        except grpc.RpcError as error:
            if refusing_rule(error):
                self._refused(f"device report refused: {error.code().name}: {error.details()}")
                return True
            self.show(f"service lost ({error.code().name}): device report held: {request.result}")
            return False
        return True

    def _device_report(self, identity: Hello | None, device: str, kind: str, colour: Colour,
                       result: str) -> svc.RecordDeviceReportRequest:
        """A device report with the device's identity (from its HELLO; its kind while it has not said)."""
        return svc.RecordDeviceReportRequest(command_id=self.station.command_id(), table=self.table,
                                             device=identity.model if identity else device,
                                             serial=identity.serial if identity else "unknown",
                                             kind=cast("pb.DeviceReportKind", value(pb.DeviceReportKind, kind)),
                                             colour=_deck(colour), result=result)

    def _on_shoe(self, event: ShoeEvent) -> None:
        match event:
            case CardRead(card, _, read_seq):
                if not self.discards.take(str(card)):
                    self._deal(str(card), read_seq)
            case Irregularity():
                self._warn(f"shoe: {event.message} ({event.rule})")
                self._record_fault(event)
                if event.rule == "R-THB-11" and self.banked and event.card is not None:
                    self._call(lambda: self.station.act(self.table, "face-up-card", card=str(event.card)))
                self.irregularities.append(event)  # last: a waiter sees it once everything above is done
            case DeviceStatus(message, fault):
                self.shoe_news = message
                if fault:
                    self._warn(message)
                    self._record_shoe_fault(message)
                else:
                    self.show(message)
        with self.changed:
            self.changed.notify_all()

    def _record_fault(self, irregularity: Irregularity) -> None:
        """The table records the shoe's irregularity too, with the shoe's identity and the deck in play."""
        card = f" {irregularity.card}" if irregularity.card is not None else ""
        read = f"read {irregularity.read_seq}{card}: " if irregularity.read_seq is not None else ""
        self._record_shoe_fault(f"{read}{irregularity.message} ({irregularity.rule})")

    def _record_shoe_fault(self, result: str) -> None:
        self._send_report(self._device_report(self.shoe.identity, "shoe", "fault", self.shoe.colour, result[:200]))

    def _deal(self, card: str, read_seq: int) -> None:
        with self._sending:
            if self.held:  # the service is away: this read waits behind the others, in order, on the screen
                self.held.append((card, read_seq))
                self.show(f"service lost: read {read_seq} ({card}) held, not dealt; "
                          f"{len(self.held)} read(s) waiting for the service")
                return
            self._send_read(card, read_seq)

    def _send_read(self, card: str, read_seq: int) -> bool:
        """Send one read; False (and the read held) unless the service took it or refused it by a rule.  A refused
        read is shown and recorded at the table as a device fault (R-DECK-4)."""
        identity = self.shoe.identity
        command_id = f"{identity.serial if identity else 'shoe'}-{self.station.prefix}-h{self.hands}-r{read_seq}"
        request = svc.ActRequest(command_id=command_id, table=self.table, command=command(
            "deal", card=card, source=pb.CARD_SOURCE_SHOE, sequence=read_seq))
        try:
            self.station.call("Act", request)
        except grpc.RpcError as error:
            if not refusing_rule(error):  # not acknowledged, for whatever reason: held, never dropped
                self.held.insert(0, (card, read_seq))  # first in line: it is the oldest read not yet stored
                self._warn(f"service lost ({error.code().name}: {error.details()}): read {read_seq} ({card}) held, "
                          "not dealt; reads are held until the service takes them")
                self._start_retrier()
                return False
            self._refused(f"refused: {error.code().name}: {error.details()}")
            fault = self._device_report(identity, "shoe", "fault", self.shoe.colour,
                                        f"read {read_seq} {card} refused by the service: {error.details()}"[:200])
            if self.unreported or not self._deliver_report(fault):
                self.unreported.append(fault)
                self._start_retrier()
            return True
        self.dealt.append((card, read_seq))
        return True

    def _refused(self, message: str) -> None:
        self.refused.append(message)
        self._warn(message)

    def reconcile(self) -> bool:
        """Send the held reads in sequence order, then the held device reports; True when none is left."""
        with self._sending:
            reconciled = len(self.held)
            while self.held:
                card, read_seq = self.held.pop(0)
                if not self._send_read(card, read_seq):
                    return False
            while self.unreported:
                if not self._deliver_report(self.unreported[0]):
                    return False
                self.unreported.pop(0)
            if reconciled:
                self.show(f"service back: {reconciled} held read(s) reconciled by sequence number")
        with self.changed:
            self.changed.notify_all()
        return True

    def _start_retrier(self) -> None:
        """Retry what waits every ``retry_seconds`` until nothing does (called holding ``_sending``)."""
        with self._sending:
            if self._retrier is not None:
                return

            def retry() -> None:
                while not self._closed.wait(self.retry_seconds):
                    with self._sending:
                        if not (self.held or self.unreported):
                            self._retrier = None
                            return
                    self.reconcile()

            self._retrier = threading.Thread(target=retry, daemon=True, name="station-reconcile")
            self._retrier.start()

    def _call(self, command: Callable[[], object]) -> bool:
        try:
            command()
        except grpc.RpcError as error:
            self._refused(f"refused: {error.code().name}: {error.details()}")
            return False
        return True

    def wait(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait until the shoe's reports make ``predicate`` true."""
        with self.changed:
            return self.changed.wait_for(predicate, timeout)

    def close(self) -> None:
        """Release the devices."""
        self._closed.set()
        self.shoe.close()
        if self.shuffler is not None:
            self.shuffler.close()
