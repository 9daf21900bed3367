"""The station's panels drawn from the table view, the legal actions and the hand's log (pure functions: what the
screen shows is a function of what the service said).

The croupier's screen never shows a face-down card (issue 15, item 5): a card that is not face up is drawn as
:data:`FACE_DOWN` unless the station is the pit's (``sees_down_cards``), whatever the service sent.

>>> card_text("As", face_up=False, sees_down_cards=False), card_text("As", face_up=True, sees_down_cards=False)
('▒▒', 'As')
>>> side_pots([(10, False, 0), (30, False, 5), (30, True, 0), (30, False, 40)], 100)
[40, 60]
>>> redact("service lost: read 44 (Qh) held; card Ts already dealt (R-DECK-4)")
'service lost: read 44 (▒▒) held; card ▒▒ already dealt (R-DECK-4)'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.client import word
from service.station.tui import showdown
from service.station.tui.hand_log import HandLog
from service.station.tui.i18n import CARD_CODE, Labels

FACE_DOWN = "▒▒"
"""A face-down card on the croupier's screen."""
BOX_SPOTS = ("ante", "bonus", "flop", "turn", "river", "play")

CIRCLE_KEYS: Mapping[int, str] = {
    pb.ACTION_KIND_FOLD: "f", pb.ACTION_KIND_CHECK: "c", pb.ACTION_KIND_CALL: "c", pb.ACTION_KIND_BET: "b",
    pb.ACTION_KIND_ALL_IN: "a", pb.ACTION_KIND_BRING_IN: "i", pb.ACTION_KIND_SHOW: "s", pb.ACTION_KIND_MUCK: "m",
    pb.ACTION_KIND_DISCARD: "x", pb.ACTION_KIND_REQUEST_CORRECTION: "r",
}
"""The key of each circle action (check and call share ``c``: only one of them is ever allowed; ``r`` asks for the
correction of the last action, :mod:`.corrections`)."""
BANKED_KEYS: Mapping[int, str] = {
    pb.ACTION_KIND_FOLD: "f", pb.ACTION_KIND_FLOP_BET: "p", pb.ACTION_KIND_PLAY: "p", pb.ACTION_KIND_CHECK: "c",
    pb.ACTION_KIND_BET: "b", pb.ACTION_KIND_EXCHANGE: "x",
}
"""The key of each decision of a banked box."""




def redact(text: str) -> str:
    """A text for the croupier's screen: every card code in it drawn as :data:`FACE_DOWN` (an alert or a refusal
    may name a card the croupier must not see: a read held or refused, a discard refused; D-SEE-1)."""
    return CARD_CODE.sub(FACE_DOWN, text)


def card_text(card: str, *, face_up: bool, sees_down_cards: bool) -> str:
    """A card as this station shows it."""
    return card if face_up or sees_down_cards else FACE_DOWN


def side_pots(players: Iterable[tuple[int, bool, int]], total: int) -> list[int]:
    """The main pot then the side pots, from each player's (chips put in, folded, stack behind): a side pot opens
    above each all-in player's total; chips in the middle no player put in (carried, dead antes) are the main pot's."""
    rows = list(players)
    caps = sorted({put for put, folded, stack in rows if stack == 0 and not folded and put})
    top = max((put for put, _, _ in rows), default=0)
    pots: list[int] = []
    previous = 0
    for cap in [*caps, top]:
        amount = sum(min(put, cap) - min(put, previous) for put, _, _ in rows)
        if amount > 0:
            pots.append(amount)
        previous = max(previous, cap)
    if not pots:
        return [total]
    pots[0] += total - sum(pots)
    return pots


def target_text(due: pb.NextCard, labels: Labels) -> str:
    """Where the next card goes, as the croupier says it."""
    where = word(pb.CardTarget, due.target).replace("-", "_")
    return labels(f"target_{where}", seat=due.seat) if where else labels("no_card")


def header(view: pb.TableView, log: HandLog, labels: Labels, who: str = "") -> Text:
    """The table, its game, the hand and the deck in play, and who the station acts for."""
    if not view.table:
        return Text(who, style="bold")
    parts = [view.table, labels.game(word(pb.Game, view.game))]
    if view.hand_in_progress:
        parts.append(labels("hand", number=view.hand_number))
        if log.deck_colour:
            parts.append(labels("deck", colour=labels(log.deck_colour)))
    else:
        parts.append(labels("no_hand"))
    text = Text(" · ".join(parts), style="bold")
    if view.hand_in_progress and log.deck_colour:
        text.stylize("red" if log.deck_colour == "red" else "blue", len(" · ".join(parts[:3])) + 3)
    if who:
        text.append(f"   —   {who}", style="italic")
    return text


def holds_lines(view: pb.TableView, labels: Labels) -> list[RenderableType]:
    """The alerts holding the table (R-HOLD-1) and its decks out of play (R-DECK-3), in bold red."""
    lines: list[RenderableType] = [
        Text(labels("table_held", detail=labels.device(hold.detail), rule=hold.rule), style="bold red")
        for hold in view.holds]
    lines.extend(Text(labels("deck_out", colour=labels(word(pb.DeckColour, colour))), style="bold red")
                 for colour in view.decks_out_of_play)
    return lines


def marker_name(circle: pb.CircleTableView, labels: Labels) -> str:
    """The round marker as the croupier calls it: la mano where its holder speaks first (R-CIRC-1), else the
    button."""
    return labels("mano") if circle.button_is_mano else labels("button")


def circle_panel(view: pb.TableView, labels: Labels, *, sees_down_cards: bool) -> RenderableType:
    """Seats, stacks, bets, cards, the board and the pots of a circle table."""
    circle = view.circle
    table = Table(expand=True, show_edge=False, pad_edge=False)
    for column in ("col_seat", "col_stack", "col_bet", "col_in", "col_cards", "col_state"):
        table.add_column(labels(column))
    lines: list[RenderableType] = holds_lines(view, labels)
    if circle.HasField("reshuffle_required"):
        lines.append(Text(labels("reshuffle", colour=labels(word(pb.DeckColour, circle.reshuffle_required)),
                                 rule="R-CIRC-2"), style="bold red"))
    if circle.closed:
        lines.append(Text(labels("closed"), style="bold"))
    if not view.hand_in_progress or circle.phase == pb.HAND_PHASE_UNSPECIFIED:
        for seat, stack in sorted(circle.stacks.items()):
            marked = circle.HasField("button_seat") and seat == circle.button_seat
            button = marker_name(circle, labels) if marked else ""
            table.add_row(f"  {seat}", str(stack), "", "", "", button)
        return Group(*lines, table)
    actor = circle.actor_seat if circle.HasField("actor_seat") else None
    for player in circle.players:
        cards = " ".join(labels.card(card_text(card, face_up=up, sees_down_cards=sees_down_cards))
                         for card, up in zip(player.cards, player.face_up, strict=True))
        state = [labels("folded")] if player.folded else []
        if not player.folded and player.stack == 0 and player.put_in:
            state.append(labels("all_in"))
        if circle.HasField("button_seat") and player.seat == circle.button_seat:
            state.append(marker_name(circle, labels))
        marker = "→ " if player.seat == actor else "  "
        table.add_row(f"{marker}{player.seat}", str(player.stack), str(player.bet or ""), str(player.put_in or ""),
                      cards, ", ".join(state), style="bold reverse" if player.seat == actor else None)
    phase = word(pb.HandPhase, circle.phase)
    pots = side_pots(((p.put_in, p.folded, p.stack) for p in circle.players), circle.pot)
    pot_text = " · ".join([labels("main_pot", amount=pots[0]),
                           *(labels("side_pot", index=i, amount=amount) for i, amount in enumerate(pots[1:], 1))])
    lines.append(Text(f"{circle.street} ({labels('phase_' + phase) if phase else ''})"))
    board = " ".join(labels.card(card) for card in circle.board)
    return Group(*lines, table, Text(f"{labels('board')}: {board or '—'}    "
                                     f"{labels('pot')}: {circle.pot}  ({pot_text})", style="bold"))


def banked_panel(view: pb.TableView, labels: Labels, *, sees_down_cards: bool) -> RenderableType:
    """The boxes, their bets and cards, the house's cards and the board of a banked table."""
    banked = view.banked
    lines: list[RenderableType] = [Text(labels("bank_result", amount=banked.bank_result)), *holds_lines(view, labels)]
    if banked.HasField("reshuffle_required"):
        lines.append(Text(labels("reshuffle", colour=labels(word(pb.DeckColour, banked.reshuffle_required)),
                                 rule="R-THB-11"), style="bold red"))
    if banked.closed:
        lines.append(Text(labels("closed"), style="bold"))
    if not view.hand_in_progress:
        return Group(*lines)
    stage = word(pb.BankedStage, banked.stage)
    settled = banked.stage == pb.BANKED_STAGE_COMPLETE
    lines.append(Text(labels("stage_" + stage) if stage else ""))
    table = Table(expand=True, show_edge=False, pad_edge=False)
    for column in ("col_box", "col_bets", "col_cards", "col_result"):
        table.add_column(labels(column))
    to_decide = banked.to_decide if banked.HasField("to_decide") else None
    for box in banked.boxes:
        bets = ", ".join(f"{spot} {getattr(box.bets, spot)}" for spot in BOX_SPOTS if box.bets.HasField(spot))
        cards = " ".join(labels.card(card_text(card, face_up=box.settled or settled, sees_down_cards=sees_down_cards))
                         for card in box.cards)
        result = ", ".join(f"{spot} {getattr(box.result, spot):+}" for spot in BOX_SPOTS
                           if box.result.HasField(spot)) if box.settled else ""
        marker = "→ " if box.seat == to_decide else "  "
        table.add_row(f"{marker}{box.seat}", bets, cards, result,
                      style="bold reverse" if box.seat == to_decide else None)
    house = labels("house") if view.game == pb.GAME_HOLDEM_BONUS else labels("bank")
    turned = settled or banked.stage == pb.BANKED_STAGE_BANK  # CDP: the bank has shown its hand (R-CDP-4)
    house_cards = " ".join(labels.card(card_text(card, face_up=turned, sees_down_cards=sees_down_cards))
                           for card in banked.dealer_cards)
    lines.append(table)
    shared = " ".join(labels.card(card) for card in banked.board)
    board = f"    {labels('board')}: {shared or '—'}" if view.game == pb.GAME_HOLDEM_BONUS else ""
    lines.append(Text(f"{house}: {house_cards or '—'}{board}", style="bold"))
    return Group(*lines)


def due_text(view: pb.TableView, legal: svc.GetLegalActionsResponse, log: HandLog, labels: Labels, *,
             shoe: bool = False, keyed: bool = True, reading: tuple[int, int, int] | None = None,
             give_back: str = "") -> Text:
    """What the croupier does next: the card due and where it goes (typed, or ``shoe``: drawn from the shoe; a
    face-down one without a shoe, not ``keyed`` here: the pit keys it, D-SEE-1), the discards the shoe is reading
    (``reading``: seat, read, count), or who acts and the keys he may press (``give_back``: the digits that say how
    many cards a seat gives back)."""
    if not view.table:
        return Text("")
    if not view.hand_in_progress:
        return Text(f"[n] {labels('new_hand')}" if not (view.holds or view.decks_out_of_play) else
                    labels("held_no_hand"), style="bold")
    detail = view.circle if view.WhichOneof("detail") == "circle" else view.banked
    if detail.HasField("next_card") and detail.next_card.target != pb.CARD_TARGET_UNSPECIFIED:
        where = target_text(detail.next_card, labels)
        how = labels("card_from_shoe" if shoe else "card_prompt" if keyed else "face_down_due")
        return Text(f"{labels('next_card', where=where)}   —   {how}", style="bold yellow")
    if reading is not None:
        seat, read, count = reading
        who = labels("box" if view.WhichOneof("detail") == "banked" else "seat", seat=seat)
        return Text(labels("reading_discards_due", who=who, read=read, count=count), style="bold yellow")
    waiting = banked_waiting(view, log, labels) if view.WhichOneof("detail") == "banked" else None
    if waiting is None and pb.ACTION_KIND_DECIDE_CORRECTION in legal.allowed and \
            (pending := correction_pending(log, labels)):
        waiting = Text(pending, style="bold magenta")
    if waiting is not None:
        return waiting
    if not legal.HasField("seat"):
        return Text(labels("nobody"))
    banked = view.WhichOneof("detail") == "banked"
    who = labels("box" if banked else "seat", seat=legal.seat)
    options = [f"[{key}] {label}" for key, label in offered(legal, labels, banked=banked)
               if not (give_back and key == "x")]
    if give_back:
        options.append(give_back)
    return Text(f"{labels('to_act', who=who)}  " + "   ".join(options), style="bold green")


def banked_waiting(view: pb.TableView, log: HandLog, labels: Labels) -> Text | None:
    """A banked table's stage that waits for no box: the bets open, a bonus payment waiting for the games director
    (R-THB-10); None otherwise."""
    if view.banked.stage == pb.BANKED_STAGE_BETTING:
        return Text(labels("bets_open"), style="bold")
    if view.banked.stage == pb.BANKED_STAGE_APPROVAL:
        pending = ([box.box for box in log.boxes.values() if box.bonus_class == showdown.THOUSAND_TO_ONE]
                   or [box.seat for box in view.banked.boxes if box.bets.HasField("bonus") and not box.settled])
        boxes = ", ".join(labels("box", seat=seat) for seat in pending) or "—"
        return Text(labels("approval", boxes=boxes), style="bold magenta")
    return None


def offered(legal: svc.GetLegalActionsResponse, labels: Labels, *, banked: bool) -> list[tuple[str, str]]:
    """The keys offered now with their labels, in the order the service lists the actions."""
    keys = BANKED_KEYS if banked else CIRCLE_KEYS
    out: list[tuple[str, str]] = []
    for kind in legal.allowed:
        key = keys.get(kind)
        if key is None:
            continue
        out.append((key, action_label(kind, legal, labels, banked=banked)))
    return out


def action_label(kind: int, legal: svc.GetLegalActionsResponse, labels: Labels, *, banked: bool) -> str:
    """One action's label with its amount."""
    if banked:
        banked_labels: dict[int, str] = {pb.ACTION_KIND_FOLD: labels("fold"), pb.ACTION_KIND_CHECK: labels("check"),
                         pb.ACTION_KIND_FLOP_BET: labels("flop_bet", amount=legal.bet),
                         pb.ACTION_KIND_BET: labels("banked_bet", amount=legal.bet),
                         pb.ACTION_KIND_PLAY: labels("play", amount=legal.bet),
                         pb.ACTION_KIND_EXCHANGE: labels("exchange")}
        return banked_labels[kind]
    if kind == pb.ACTION_KIND_CALL:
        return labels("call", amount=legal.call)
    if kind == pb.ACTION_KIND_BET:
        verb = "bet" if pb.ACTION_KIND_CHECK in legal.allowed else "raise"
        return labels(verb, low=legal.raise_min, high=legal.raise_max)
    names: dict[int, str] = {pb.ACTION_KIND_FOLD: "fold", pb.ACTION_KIND_CHECK: "check",
                             pb.ACTION_KIND_ALL_IN: "all_in_key", pb.ACTION_KIND_BRING_IN: "bring_in",
                             pb.ACTION_KIND_SHOW: "show", pb.ACTION_KIND_MUCK: "muck",
                             pb.ACTION_KIND_DISCARD: "discard", pb.ACTION_KIND_REQUEST_CORRECTION: "key_correction"}
    return labels(names[kind])


def correction_pending(log: HandLog, labels: Labels) -> str | None:
    """The correction waiting for the pit (R-AUD-1), as the croupier and the pit read it; None when none waits."""
    if log.pending_correction is None:
        return None
    seat, action, amount, reason = log.pending_correction
    what = f"{action} {amount}" if amount is not None else action
    return labels("correction_pending", seat=seat, what=what, reason=reason)


def result_text(log: HandLog, labels: Labels, *, banked: bool) -> Text:
    """The result panel: the showdown as the croupier calls it, and the payments (:mod:`.showdown`)."""
    return showdown.result_text(log, labels, banked=banked)
