"""Issue 14 (acceptance): every game the house deals — the seven circle games and the two banked ones — is played
through the SAME pokertable.v1 RPCs over a real server on a free port (SQLite as sole writer, and PostgreSQL):
OpenTable, SeatPlayer (circle), StartHand, Act until the hand is complete (the command chosen from GetLegalActions,
each card dealt where GetTable's ``next_card`` says, in the order the game deals them), then Watch (the typed
TableEvent stream from position 0; face-down cards ``??`` for an observer, real for the pit), ListHands,
SearchHands, ListTables, GetTable at a past position, ExportHand (JSON, and PHH for the variants PHH has) and
ReconstructHand.
(That the service names no banked game outside the CLI's argument texts: tests/e2e/test_game_names.py.)"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
import pytest
from google.protobuf import json_format
from pokerkit import HandHistory

from domain.cards.decks import composition
from domain.circle.variants import VARIANTS, draw_deck_size
from domain.games import GAMES
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, act
from tests.support.pokerkit_hands import OracleHand, loads_as_written

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

PLAYERS = 4  # sintético deals to 4 to 10 players (R-SYNTH-1); five-card draw's deck is then 32 cards (R-DRAW-8)
STACK = 100
DRAW_STOCK = "Jc Ac Th As Jd Kd Td Ks 7c Qh 9s Qs 8c Ts 9d 7d 9c 8s 7h 8d"
"""Five-card draw, dealt one at a time from la mano (seat 1): seat 1 jacks (openers, R-DRAW-2), seat 2 ace high,
seat 3 two pair, seat 4 ace high; everyone stands pat."""


@dataclass(frozen=True)
class Case:
    """One game: how its table is opened, what is bet before the deal (banked), which events its hand must show."""

    code: str
    settings: dict[str, Any] = field(default_factory=dict)  # CircleSettings, HoldemBonusSettings or CasinoDrawSettings
    antes: dict[int, int] = field(default_factory=dict)  # banked: the boxes' antes
    bonuses: dict[int, int] = field(default_factory=dict)  # Texas Hold'em Bonus: the boxes' bonus bets
    stock: str = ""  # the cards in the order they are due ("": the game's deck, shuffled with a fixed seed)
    keep: int = 0  # cards a player keeps at a discard (Pineapple: 2; 0: stands pat)
    phh: bool = False  # PHH has this variant (domain.export.PHH_VARIANTS)
    events: frozenset[str] = frozenset()  # TableEvent cases this game's hand shows besides the common ones

    @property
    def game(self) -> pb.Game:
        """The contract's Game of the domain's code: "GAME_" + code upper-cased, "-" read as "_"."""
        return cast(pb.Game, pb.Game.Value("GAME_" + self.code.upper().replace("-", "_")))

    @property
    def banked(self) -> bool:
        return GAMES[self.code].family == "banked"

    @property
    def table(self) -> str:
        return "THB 1" if self.banked else "Mesa 1"  # the tables of the "thb-1" and "mesa-1" dealer stations

    @property
    def prefix(self) -> str:
        """The TableEvent case prefix of the game's hand events (Hand -> hand, ThbHand -> thb_hand)."""
        name = GAMES[self.code].hand_class.__name__
        return "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(name)).lower()


FIXED = pb.BETTING_STRUCTURE_FIXED_LIMIT
CASES = [
    Case("holdem", {"structure": pb.BETTING_STRUCTURE_NO_LIMIT, "blinds": [1, 2]}, phh=True,
         events=frozenset({"hand_forced_bets_posted"})),
    Case("omaha", {"structure": pb.BETTING_STRUCTURE_POT_LIMIT, "blinds": [1, 2]}, phh=True,
         events=frozenset({"hand_forced_bets_posted"})),
    Case("stud7", {"structure": FIXED, "ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}, phh=True,
         events=frozenset({"hand_forced_bets_posted", "hand_bring_in_posted"})),
    Case("draw", {"structure": FIXED, "ante": 1, "small_bet": 2, "big_bet": 4}, stock=DRAW_STOCK,
         events=frozenset({"hand_forced_bets_posted", "hand_discarded"})),
    Case("stud5", {"structure": FIXED, "ante": 1, "small_bet": 2, "big_bet": 4},
         events=frozenset({"hand_forced_bets_posted"})),
    Case("sintetico", {"structure": pb.BETTING_STRUCTURE_POT_LIMIT, "ante": 1, "min_bet": 2},
         events=frozenset({"hand_forced_bets_posted"})),
    Case("pineapple", {"structure": pb.BETTING_STRUCTURE_NO_LIMIT, "blinds": [1, 2]}, keep=2,
         events=frozenset({"hand_forced_bets_posted", "hand_discarded"})),
    Case("holdem-bonus", {"ante_min": 5}, antes={1: 10, 2: 10}, bonuses={1: 5},
         events=frozenset({"thb_hand_checked"})),
    Case("casino-draw", {"ante_min": 5, "ante_max": 100}, antes={1: 10, 2: 10},
         events=frozenset({"cdp_hand_exchanged"})),
]
CIRCLE_EVENTS = {"table_opened", "table_player_seated", "table_hand_started", "hand_started", "hand_card_dealt",
                 "hand_bet_or_raised", "hand_called", "hand_shown", "hand_pot_awarded", "hand_completed",
                 "table_hand_finished"}
BANKED_EVENTS = {"banked_table_opened", "banked_table_hand_started", "banked_table_hand_finished"}
BANKED_HAND_EVENTS = {"started", "bet_placed", "bets_closed", "card_dealt", "box_settled", "completed"}


def deck_size(case: Case) -> int:
    """The deck the hand is dealt from (the game's, five-card draw's by the players dealt in, R-DRAW-8)."""
    if case.banked:
        return 52
    variant = VARIANTS[case.code]
    return draw_deck_size(PLAYERS) if variant.deck_by_players else variant.deck_size


def stock(case: Case) -> Iterator[str]:
    """The cards in the order the croupier deals them: the case's, then the rest of the deck."""
    deck = [str(card) for card in composition(deck_size(case))]
    first = case.stock.split()
    rest = [card for card in deck if card not in first]
    random.Random(14).shuffle(rest)
    assert set(first) <= set(deck), "a card the deck does not have"
    return iter(first + rest)


def view_of(client: Client, table: str, **moment: Any) -> pb.TableView:
    reply: svc.GetTableResponse = client.GetTable(svc.GetTableRequest(table=table, **moment))
    return reply.view


def detail_of(view: pb.TableView) -> Any:
    """The view's circle or banked detail."""
    return getattr(view, str(view.WhichOneof("detail")))


def open_table(case: Case, pit: Client, dealer: Client) -> None:
    if case.banked:
        grpc_support.open_banked(pit, case.table, case.game, **case.settings)
        return
    grpc_support.open_circle(pit, case.table, case.game, **case.settings)
    for seat in range(1, PLAYERS + 1):
        grpc_support.seat(dealer, case.table, seat, STACK)


def place_bets(case: Case, dealer: Client) -> None:
    """Banked: the boxes' antes and bonuses, then "no va más" (R-THB-3, R-THB-4, R-CDP-1)."""
    for box, amount in case.antes.items():
        act(dealer, case.table, ante=cmd.Ante(seat=box, amount=amount))
    for box, amount in case.bonuses.items():
        act(dealer, case.table, bonus=cmd.Bonus(seat=box, amount=amount))
    if case.banked:
        act(dealer, case.table, close_bets=cmd.CloseBets())


@dataclass
class Play:
    """What the croupier did: the cards dealt with where each went, and whether anyone has bet or raised yet."""

    dealt: list[tuple[str, int]] = field(default_factory=list)  # (card, CardTarget)
    bet_made: bool = False
    last: svc.ActResponse = field(default_factory=svc.ActResponse)


def choose(case: Case, view: pb.TableView, legal: svc.GetLegalActionsResponse, play: Play) -> dict[str, Any]:
    """The next command from the legal actions: one bet or raise a hand (the opener's in five-card draw, the turn
    bet in THB), otherwise check or call (THB: the flop bet; CDP: the play); the discard the game wants (CDP: stands
    pat); show at the showdown."""
    allowed = set(legal.allowed)
    detail = detail_of(view)
    if case.banked:
        assert legal.HasField("seat") and legal.seat == detail.to_decide, (legal, detail)
        return _banked_decision(legal.seat, allowed, legal, play)
    if detail.phase == pb.HAND_PHASE_DRAWING:
        seat = legal.seat if legal.HasField("seat") else detail.drawer_seat if detail.HasField("drawer_seat") else \
            next(p.seat for p in detail.players if not p.folded and len(p.cards) > case.keep)
        player = next(p for p in detail.players if p.seat == seat)
        return {"discard": cmd.Discard(seat=seat, cards=list(player.cards)[case.keep:] if case.keep else [])}
    if pb.ACTION_KIND_SHOW in allowed or detail.phase == pb.HAND_PHASE_SHOWDOWN:
        return {"show": cmd.Show(seat=legal.seat if legal.HasField("seat") else detail.next_to_show_seat)}
    assert legal.HasField("seat") and legal.seat == detail.actor_seat, (legal, detail)
    if pb.ACTION_KIND_BRING_IN in allowed:
        return {"bring_in": cmd.BringIn(seat=legal.seat)}
    return _betting(legal.seat, allowed, legal.raise_min, play)


def _banked_decision(seat: int, allowed: set[pb.ActionKind], legal: svc.GetLegalActionsResponse,
                     play: Play) -> dict[str, Any]:
    """A box's decision; the bet is the amount GetLegalActions names (THB flop 2x the ante, turn 1x; CDP play 2x)."""
    if pb.ACTION_KIND_FLOP_BET in allowed:
        return {"flop_bet": cmd.FlopBet(seat=seat, amount=legal.bet)}
    if pb.ACTION_KIND_EXCHANGE in allowed:
        return {"exchange": cmd.Exchange(seat=seat)}  # stands pat
    if pb.ACTION_KIND_PLAY in allowed:
        return {"play": cmd.Play(seat=seat, amount=legal.bet)}
    return _betting(seat, allowed, legal.bet, play)


def _betting(seat: int, allowed: set[pb.ActionKind], amount: int, play: Play) -> dict[str, Any]:
    """The hand's one bet or raise, then checks and calls."""
    if pb.ACTION_KIND_BET in allowed and not play.bet_made:
        play.bet_made = True
        return {"bet": cmd.Bet(seat=seat, amount=amount)}
    if pb.ACTION_KIND_CHECK in allowed:
        return {"check": cmd.Check(seat=seat)}
    assert pb.ACTION_KIND_CALL in allowed, (seat, allowed)
    return {"call": cmd.Call(seat=seat)}


def play_hand(case: Case, pit: Client, dealer: Client) -> Play:
    """Start the hand and act until it is complete, every card where the table says it is due."""
    started = grpc_support.start(dealer, case.table, pb.DECK_COLOUR_RED)
    assert started.result.hand_number == 1 and started.result.hand_id
    place_bets(case, dealer)
    cards, play = stock(case), Play()
    for _ in range(300):
        view = view_of(pit, case.table)
        if not view.hand_in_progress:
            assert play.last.result.hand_complete and play.last.result.hand_id == started.result.hand_id
            return play
        detail = detail_of(view)
        if detail.HasField("next_card"):
            card = next(cards)
            play.dealt.append((card, detail.next_card.target))
            play.last = act(dealer, case.table, deal=cmd.Deal(card=card, source=pb.CARD_SOURCE_CROUPIER))
            continue
        legal: svc.GetLegalActionsResponse = dealer.GetLegalActions(svc.GetLegalActionsRequest(table=case.table))
        play.last = act(dealer, case.table, **choose(case, view, legal, play))
    raise AssertionError(f"{case.code}: the hand did not end in 300 commands")


def expected_targets(case: Case) -> Counter[int]:
    """Circle: the cards the variant deals four players who all stay in and stand pat (domain.circle.variants)."""
    streets = VARIANTS[case.code].streets
    return Counter({pb.CARD_TARGET_HOLE: PLAYERS * sum(len(street.hole) for street in streets),
                    pb.CARD_TARGET_BOARD: sum(street.board for street in streets),
                    pb.CARD_TARGET_BURN: sum(street.burn for street in streets)}) + Counter()  # no zero counts


def watch(client: Client, case: Case) -> list[svc.WatchResponse]:
    """The table's stream from position 0 up to the hand's end (its Completed event and the table's record)."""
    ends = {f"{case.prefix}_completed", "banked_table_hand_finished" if case.banked else "table_hand_finished"}
    changes: list[svc.WatchResponse] = []
    stream = client.Watch(svc.WatchRequest(table=case.table, after_position=0))
    try:
        for change in stream:
            changes.append(change)
            ends.discard(str(change.event.WhichOneof("event")))
            if not ends:
                break
    finally:
        stream.cancel()
    assert not ends, f"the stream ended without {ends}"
    return changes


def face_down(case: Case, dealt: Any) -> bool:
    """Whether a dealt card is face down when recorded (the visibility policy, service/app/visibility.py)."""
    if case.code == "casino-draw":
        return not dealt.face_up  # every card of the boxes and the bank, but those the shown bank draws (R-CDP-4)
    if case.code == "holdem-bonus":
        return bool(dealt.kind != "board")
    return dealt.kind in ("hole", "burn") and not dealt.face_up


def cases(changes: list[svc.WatchResponse]) -> list[str]:
    return [str(change.event.WhichOneof("event")) for change in changes]


@pytest.mark.parametrize("case", CASES, ids=[case.code for case in CASES])
def test_issue_14_every_game_is_played_through_the_same_rpcs(port: int, case: Case) -> None:
    pit, tv = Client(port, TOKENS["pit"]), Client(port, TOKENS["tv"])
    dealer = Client(port, TOKENS["thb" if case.banked else "dealer"])
    open_table(case, pit, dealer)
    opened = view_of(pit, case.table)
    assert opened.game == case.game and opened.hands_started == 0 and not opened.hand_in_progress
    assert opened.family == (pb.GAME_FAMILY_BANKED if case.banked else pb.GAME_FAMILY_CIRCLE)
    assert opened.WhichOneof("detail") == ("banked" if case.banked else "circle")

    play = play_hand(case, pit, dealer)
    hand_id = play.last.result.hand_id
    now = view_of(pit, case.table)
    assert now.hands_started == 1 and not now.hand_in_progress and now.hand_number == 0
    targets = Counter(target for _, target in play.dealt)
    if case.banked:
        spots = {pb.CARD_TARGET_BOX, pb.CARD_TARGET_DEALER_LEFT, pb.CARD_TARGET_DEALER_RIGHT, pb.CARD_TARGET_BURN,
                 pb.CARD_TARGET_BOARD} if case.code == "holdem-bonus" else {pb.CARD_TARGET_BOX, pb.CARD_TARGET_BANK}
        assert set(targets) == spots
        bank_result = now.banked.bank_result
        net_total = -bank_result
    else:
        assert targets == expected_targets(case), "the cards the variant deals, where it deals them"
        assert sum(now.circle.stacks.values()) == PLAYERS * STACK, "every chip is still at the table (no rake)"
        net_total = 0

    # Watch: the typed events from position 0, the pit's with every card, the observer's with "??" for down cards.
    seen, public = watch(pit, case), watch(tv, case)
    kinds = cases(seen)
    assert cases(public) == kinds and [c.position for c in public] == [c.position for c in seen]
    assert [c.position for c in seen] == sorted({c.position for c in seen})
    common = BANKED_EVENTS | {f"{case.prefix}_{name}" for name in BANKED_HAND_EVENTS} if case.banked else \
        CIRCLE_EVENTS
    assert common | case.events <= set(kinds), sorted(common | case.events - set(kinds))
    assert kinds[0] == ("banked_table_opened" if case.banked else "table_opened")
    assert {c.aggregate_id for c in seen if c.event.WhichOneof("event") == f"{case.prefix}_started"} == {hand_id}
    dealt_case = f"{case.prefix}_card_dealt"
    pit_cards = [getattr(c.event, dealt_case) for c in seen if c.event.WhichOneof("event") == dealt_case]
    tv_cards = [getattr(c.event, dealt_case) for c in public if c.event.WhichOneof("event") == dealt_case]
    assert [d.card for d in pit_cards] == [card for card, _ in play.dealt], "the pit sees every card, in order"
    hidden = [face_down(case, d) for d in pit_cards]
    assert any(hidden), "the game deals cards face down"
    assert [d.card for d in tv_cards] == ["??" if down else d.card for d, down in zip(pit_cards, hidden, strict=True)]
    if not case.banked:
        assert all(d.kind != "hole" or d.HasField("seat") for d in pit_cards)

    # ListHands and SearchHands: the hand, found with its outcome.
    listed = pit.ListHands(svc.ListHandsRequest(table=case.table)).hands
    assert [(h.hand_id, h.number) for h in listed] == [(hand_id, 1)]
    outcome = pb.HAND_OUTCOME_SETTLED if case.banked else pb.HAND_OUTCOME_SHOWDOWN
    found = list(pit.SearchHands(svc.SearchHandsRequest(table=case.table)).hands)
    assert [(h.hand_id, h.number, h.outcome) for h in found] == [(hand_id, 1, outcome)]
    summary = found[0]
    assert summary.pot > 0 and sum(summary.net.values()) == net_total
    assert list(summary.winners) == sorted(seat for seat, net in summary.net.items() if net > 0)
    assert summary.started.ToDatetime() <= summary.ended.ToDatetime()
    expected_seats = sorted(case.antes) if case.banked else list(range(1, PLAYERS + 1))
    assert sorted(summary.seats) == expected_seats
    for filters, numbers in (({"outcome": outcome, "game": case.game}, [1]), ({"seat": expected_seats[0]}, [1]),
                             ({"outcome": pb.HAND_OUTCOME_VOIDED}, []), ({"seat": 9}, []),
                             ({"game": pb.GAME_HOLDEM if case.banked else pb.GAME_CASINO_DRAW}, [])):
        hands = pit.SearchHands(svc.SearchHandsRequest(table=case.table, **filters)).hands
        assert [h.number for h in hands] == numbers, filters

    # ListTables (issue 16): the table on the floor, its game's only one, between hands after its first.
    (floor,) = tv.ListTables(svc.ListTablesRequest(game=case.game)).tables
    assert (floor.table, floor.game, floor.family, floor.status) == (case.table, case.game, now.family,
                                                                     pb.TABLE_STATUS_BETWEEN_HANDS)
    assert (floor.hand_number, floor.hands_started, floor.chips_in_play) == (1, 1, 0)
    assert floor.deck_colour == pb.DECK_COLOUR_RED and floor.language == now.language
    assert floor.seats == (0 if case.banked else PLAYERS)

    # GetTable at a past position: before the hand started, and while it was played.
    table_started = "banked_table_hand_started" if case.banked else "table_hand_started"
    index = kinds.index(table_started)
    before = view_of(pit, case.table, position=seen[index - 1].position)
    assert before.hands_started == 0 and not before.hand_in_progress and before.position == seen[index - 1].position
    assert before.game == case.game and before.WhichOneof("detail") == opened.WhichOneof("detail")
    if not case.banked:
        assert dict(before.circle.stacks) == {seat: STACK for seat in range(1, PLAYERS + 1)}
    at = view_of(pit, case.table, at=seen[index - 1].timestamp)  # the same moment by its time
    assert at.hands_started == 0 and not at.hand_in_progress and at.position == before.position
    during = view_of(pit, case.table, position=seen[kinds.index(dealt_case)].position)
    assert during.hand_in_progress and during.hands_started == 1 and during.hand_number == 1
    assert during.hand_id == hand_id and during.position <= seen[kinds.index(dealt_case)].position

    # ExportHand: JSON for every game (the observer's copy with down cards hidden); PHH where PHH has the variant.
    document = json.loads(export(pit, case, pb.EXPORT_FORMAT_JSON).content)
    assert document["hand_id"] == hand_id and document["game"] == case.code and document["complete"]
    exported = [e["data"]["card"] for e in document["events"] if e["event"].endswith(".CardDealt")]
    assert exported == [card for card, _ in play.dealt]
    observed = json.loads(export(tv, case, pb.EXPORT_FORMAT_JSON).content)
    exported = [e["data"]["card"] for e in observed["events"] if e["event"].endswith(".CardDealt")]
    assert exported == [d.card for d in tv_cards], "the observer's copy hides what the observer's stream hides"
    assert export(pit, case, pb.EXPORT_FORMAT_JSON).media_type == "application/json"
    if case.phh:
        phh = export(pit, case, pb.EXPORT_FORMAT_PHH)
        history = HandHistory.loads(phh.content)
        assert history.seats is not None and history.hand == 1
        assert history.finishing_stacks == [now.circle.stacks[seat] for seat in history.seats]
        assert not loads_as_written(OracleHand(phh.content, tuple(history.finishing_stacks), case.code))
    else:
        with pytest.raises(grpc.RpcError) as no_phh:
            export(pit, case, pb.EXPORT_FORMAT_PHH)
        assert no_phh.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "PHH" in str(no_phh.value.details())

    # ReconstructHand: the hand step by step for the pit boss; the request is recorded at the table first.
    request = svc.ReconstructHandRequest(command_id=pit.next_id(), table=case.table, hand_number=1,
                                         reason=f"{case.code}: seat 1 disputes")
    steps = list(pit.ReconstructHand(request))
    assert [step.version for step in steps] == list(range(1, len(steps) + 1))
    assert steps[0].event.WhichOneof("event") == f"{case.prefix}_started"
    assert steps[-1].event.WhichOneof("event") == f"{case.prefix}_completed"
    assert all(step.description and step.rendered for step in steps)
    state = json_format.MessageToDict(steps[-1].state)
    assert state["stage" if case.banked else "phase"] == "complete"
    recorded = "banked_table_reconstruction_requested" if case.banked else "table_reconstruction_requested"
    stream = pit.Watch(svc.WatchRequest(table=case.table, after_position=seen[-1].position))
    try:
        later = _until(stream, recorded)
    finally:
        stream.cancel()
    request_event = getattr(later.event, recorded)
    assert request_event.hand_id == hand_id and request_event.number == 1
    assert request_event.reason == f"{case.code}: seat 1 disputes" and request_event.pit_boss == "pit"


def _until(stream: Any, case_name: str) -> svc.WatchResponse:
    """The first change of the stream that is a ``case_name`` event."""
    for change in stream:
        if change.event.WhichOneof("event") == case_name:
            found: svc.WatchResponse = change
            return found
    raise AssertionError(f"no {case_name} on the stream")


def export(client: Client, case: Case, form: pb.ExportFormat) -> svc.ExportHandResponse:
    reply: svc.ExportHandResponse = client.ExportHand(svc.ExportHandRequest(table=case.table, hand_number=1,
                                                                            format=form))
    return reply
