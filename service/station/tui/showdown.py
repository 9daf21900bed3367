"""The showdown as the croupier calls it (issue 15, item 1): the hands shown, named as he says them ("full de nueves y
ases"), each pot's winners, its splits and odd chips (R-CIRC-11), and the payments to make; at a banked table each
box's result and payment, with the hands of the box and of the croupier or the bank.

Pure functions of the hand's log (:mod:`service.station.tui.hand_log`, what the Watch stream said) and the labels.
A hand is named only when it was shown: a circle player's ``HandShown`` cards (with the board); a banked box that
stayed in once it is settled (at Casino Draw Poker only against a bank that qualified); the croupier's or the bank's
cards once they are turned.  A mucked or folded hand, or a card this station received as ``??``, is never named.  The
names come from the cards (:func:`domain.cards.spoken.best_hand`), as the service sends no hand's name, with the
kickers that decide between two hands of the same name (issue 33):

>>> from service.station.tui.hand_log import HandLog
>>> from service.station.tui.i18n import Labels
>>> kickers = HandLog(game="holdem", deck_size=52, board="6h 6s Td 4s 2c".split(),
...                   shown={1: ["Ah", "9d"], 2: ["Kh", "9c"]})
>>> hand_name(kickers, ["Ah", "9d"], Labels("en")), hand_name(kickers, ["Kh", "9c"], Labels("es"))
('pair of sixes, ace kicker', 'pareja de seises, con rey')

>>> from service.station.tui.hand_log import HandLog, PotResult
>>> from service.station.tui.i18n import Labels
>>> log = HandLog(number=7, game="holdem", deck_size=52, board="7h 8s Td 4s Js".split(),
...               shown={2: ["Qd", "9h"], 4: ["Qs", "9c"], 1: ["Ah", "Ad"]}, mucked=[3])
>>> log.pots = [PotResult(0, 41, 2, [(2, 20), (4, 19)], (1, 2, 4), (1, 2, 3, 4)),
...             PotResult(1, 30, 0, [(4, 15), (2, 15)], (2, 4), (2, 4))]
>>> print(result_text(log, Labels("en"), banked=False).plain)
Result of hand 7
  Board: 7h 8s Td 4s Js
  seat 1 shows Ah Ad: pair of aces
  seat 2 shows Qd 9h: straight, queen high
  seat 4 shows Qs 9c: straight, queen high
  seat 3 mucks
  main pot 41 (rake 2) — seats 2 and 4 split it (straight, queen high): 19 each
    the odd chip to seat 2 (R-CIRC-11)
  side pot 1: 30 — seats 2 and 4 split it (straight, queen high): 15 each
Payments
  pay 35 to seat 2: 20 from the main pot + 15 from side pot 1
  pay 34 to seat 4: 19 from the main pot + 15 from side pot 1
  rake to the house: 2
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from domain.cards.cards import Card
from domain.cards.hand_classes import HandClass, Language
from domain.cards.spoken import best_hand
from domain.errors import RuleError
from domain.games import GAMES
from service.station.banked import BOX_SPOTS
from service.station.tui.hand_log import HandLog, PotResult
from service.station.tui.i18n import Labels

THOUSAND_TO_ONE = "aces_vs_dealer_aces"
"""The bonus outcome whose payment waits for the games director (R-THB-9, R-THB-10)."""
HIDDEN = "??"
"""A card the service did not let this station see."""
def hand_class(log: HandLog, cards: Iterable[str]) -> HandClass | None:
    """The class of the best hand these cards make with the board under the game's rule, or ``None`` (a card not
    seen, ``??``; too few cards yet; a game without a hand rule)."""
    if log.game not in GAMES:
        return None
    try:
        own = [Card.parse(card) for card in cards]
        board = [Card.parse(card) for card in log.board]
        return best_hand(own, board, game=GAMES[log.game].hand_rule, deck_size=log.deck_size or None,
                         flush_beats_full_house=log.flush_beats_full_house).hand_class
    except RuleError:  # "??", a hand not complete (R-CARD-6), a card not of the deck (R-CARD-2)
        return None


def hand_name(log: HandLog, cards: Iterable[str], labels: Labels) -> str | None:
    """The hand these shown cards make with the board, as the croupier calls it in the station's language, with the
    kickers that tell it from another hand shown of the same name (``two pair, kings and twos, ace kicker``);
    ``None`` when no hand can be named."""
    mine = hand_class(log, list(cards))
    if mine is None:
        return None
    others = (hand_class(log, shown) for shown in log.shown.values())
    kickers = max((mine.kickers_deciding(other) for other in others if other is not None), default=0)
    language: Language = "es" if labels.lang == "es" else "en"
    return mine.describe(language, kickers)


def shown_line(log: HandLog, who: str, cards: list[str], labels: Labels) -> str:
    """``seat 4 shows Qs 9c: queen-high straight`` (the name only where one can be given)."""
    shown = labels("shown", who=who, cards=" ".join(cards))
    name = hand_name(log, cards, labels)
    return labels("called", shown=shown, hand=name) if name else shown


def together(items: list[str], labels: Labels) -> str:
    """``2``, ``2 and 4``, ``1, 2 and 4`` (``y`` in Spanish)."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {labels('and')} {items[-1]}"


def seats_text(seats: list[int], labels: Labels) -> str:
    """``seat 2`` or ``seats 2 and 4``."""
    if len(seats) == 1:
        return labels("seat", seat=seats[0])
    return labels("seats", seats=together([str(seat) for seat in seats], labels))


def pot_name(pot: PotResult, labels: Labels) -> str:
    """``main pot 41 (rake 2)``, ``side pot 1: 30``."""
    name = labels("main_pot", amount=pot.amount) if pot.index == 0 else labels("side_pot", index=pot.index,
                                                                                 amount=pot.amount)
    notes = [labels("rake", amount=pot.rake)] if pot.rake else []
    if pot.carried_in:
        notes.append(labels("carried", amount=pot.carried_in))
    return f"{name} ({'; '.join(notes)})" if notes else name


def winners_text(log: HandLog, pot: PotResult, labels: Labels) -> list[str]:
    """Who wins the pot and with what; a split: each share, then who gets the odd chips (R-CIRC-11)."""
    shares = sorted(pot.shares)
    seats = [seat for seat, _ in shares]
    names = [hand_name(log, log.shown[seat], labels) if seat in log.shown else None for seat in seats]
    if len(seats) == 1:
        hand = (labels("with_hand", hand=names[0]) if names[0]
                else "" if seats[0] in log.shown else labels("unshown"))  # R-CIRC-7: nobody called
        return [labels("won", who=labels("seat", seat=seats[0]), hand=hand)]
    share = min(amount for _, amount in shares)
    if names[0] and len(set(names)) == 1:
        text = labels("split", whom=seats_text(seats, labels), hand=labels("with_hand", hand=names[0]), share=share)
    else:  # hands not all named alike: each winner with his own
        each = [f"{seat} ({name})" if name else str(seat) for seat, name in zip(seats, names, strict=True)]
        text = labels("split", whom=labels("seats", seats=together(each, labels)), hand="", share=share)
    odd = [seat for seat, amount in shares if amount > share]
    if len(odd) == 1:
        return [text, labels("odd_chip", who=labels("seat", seat=odd[0]))]
    if odd:
        return [text, labels("odd_chips", whom=seats_text(odd, labels))]
    return [text]


def pot_lines(log: HandLog, pot: PotResult, labels: Labels) -> list[str]:
    """One pot: its name and who wins it (or the uncalled bet that comes back); the odd chips below."""
    if pot.uncalled:
        return [labels("uncalled", amount=pot.amount, who=labels("seat", seat=pot.contributors[0]))]
    winners, *odd = winners_text(log, pot, labels)
    return [f"{pot_name(pot, labels)} — {winners}", *(f"  {line}" for line in odd)]


def circle_payments(pots: list[PotResult], labels: Labels) -> list[str]:
    """Which seat receives how much from which pot, and the rake."""
    received: dict[int, list[tuple[int, str]]] = {}
    for pot in pots:
        for seat, amount in pot.shares:
            source = ("from_uncalled" if pot.uncalled else "from_main" if pot.index == 0 else "from_side")
            received.setdefault(seat, []).append((amount, labels(source, index=pot.index)))
    lines = []
    for seat, parts in sorted(received.items()):
        pays = labels("pays", amount=sum(amount for amount, _ in parts), who=labels("seat", seat=seat))
        if len(parts) == 1:
            lines.append(f"{pays} {parts[0][1]}")
        else:
            lines.append(f"{pays}: {' + '.join(f'{amount} {source}' for amount, source in parts)}")
    rake = sum(pot.rake for pot in pots)
    if rake:
        lines.append(labels("rake_total", amount=rake))
    return lines


def seen(cards: list[str]) -> bool:
    """Cards this station received face up (none ``??``), so that it may show them."""
    return bool(cards) and HIDDEN not in cards


def house_shown(log: HandLog) -> bool:
    """The croupier's or the bank's cards were turned: some box played against them, or (R-THB-12) they were turned
    for an A-A bonus."""
    played = any(box not in log.out_boxes for box in log.boxes)
    return bool(log.boxes) and (played or log.house_turned)


def box_shown(log: HandLog, box: int) -> bool:
    """A box's hand was opened: settled and still in; at Casino Draw Poker against a bank that qualified."""
    if box not in log.boxes or box in log.out_boxes:
        return False
    return not _bank_qualifies(log) or log.bank_qualified is True


def box_payment(box: int, spots: dict[str, int], labels: Labels) -> str:
    """``box 1: pay 15 (ante 5, flop 10); give back to box 1: turn``: what the croupier pays, takes and gives back."""
    who = labels("box", seat=box)
    won = [(spot, spots[spot]) for spot in BOX_SPOTS if spots.get(spot, 0) > 0]
    lost = [(spot, -spots[spot]) for spot in BOX_SPOTS if spots.get(spot, 0) < 0]
    even = [spot for spot in BOX_SPOTS if spot in spots and spots[spot] == 0]
    parts = []
    if won:
        parts.append(labels("box_pays", amount=sum(a for _, a in won), who=who,
                            spots=", ".join(f"{spot} {a}" for spot, a in won)))
    if lost:
        parts.append(labels("box_takes", amount=sum(a for _, a in lost), who=who,
                            spots=", ".join(f"{spot} {a}" for spot, a in lost)))
    if even:
        parts.append(labels("box_returns", who=who, spots=", ".join(even)))
    return "; ".join(parts)


def _bank_qualifies(log: HandLog) -> bool:
    """The house is a bank that must qualify (Casino Draw Poker, R-CDP-4), not a croupier who always plays."""
    return log.game in GAMES and GAMES[log.game].bank_qualifies


def bonus_text(bonus_class: str, labels: Labels) -> str:
    """A THB bonus as the croupier announces it (R-THB-9): its hand and its odds in words; a class the station does
    not know by its code."""
    key = f"bonus_{bonus_class}"
    return labels(key) if labels.knows(key) else labels("bonus_class", name=bonus_class)


def bank_lines(log: HandLog, labels: Labels) -> list[str]:
    """Casino Draw Poker's bank as the croupier turns it and calls it (R-CDP-4): its five cards named and whether
    they qualify; when they do not, the house way's exchange card by card (what it keeps and changes, each card it
    draws, the hand it ends with) and whether that qualifies (R-CDP-5).

    >>> from domain.games import BANKED_BY_HAND
    >>> from service.station.tui.hand_log import HandLog
    >>> log = HandLog(game=BANKED_BY_HAND["CdpHand"].code, deck_size=52, bank_shown="5c 5d Kh 9s 2c".split(),
    ...               bank_changed=["9s", "2c"], bank_drawn=["Qd"], house_cards="5c 5d Kh Qd".split())
    >>> for line in bank_lines(log, Labels("en")):
    ...     print(line)
    Bank shows 5c 5d Kh 9s 2c: pair of fives
    house way (R-CDP-4): the bank keeps 5c 5d Kh and changes 9s 2c
      the bank draws Qd
    """
    lines = [shown_line(log, labels("bank"), log.bank_shown, labels)]
    if log.bank_changed:
        kept = [card for card in log.bank_shown if card not in log.bank_changed]
        lines.append(labels("house_way", kept=" ".join(kept), changed=" ".join(log.bank_changed)))
        lines += [f"  {labels('bank_draws', card=card)}" for card in log.bank_drawn]
        if len(log.bank_drawn) == len(log.bank_changed):
            now = labels("bank_now", cards=" ".join(log.house_cards))
            name = hand_name(log, log.house_cards, labels)
            lines.append(labels("called", shown=now, hand=name) if name else now)
    if log.bank_qualified is not None:
        lines.append(labels("qualifies" if log.bank_qualified else "no_qualify"))
    return lines


def banked_lines(log: HandLog, labels: Labels) -> tuple[list[str], list[str]]:
    """The lines of a banked hand's settlement, and its payments."""
    lines: list[str] = []
    house = labels("bank") if _bank_qualifies(log) else labels("house")
    if log.board:
        lines.append(f"{labels('board')}: {' '.join(log.board)}")
    if log.bank_shown:  # R-CDP-4: shown as soon as the bank turns, its exchange card by card
        lines += bank_lines(log, labels)
    elif house_shown(log) and seen(log.house_cards):  # a hand recorded before the bank's showing was
        lines.append(shown_line(log, house, log.house_cards, labels))
        if log.bank_qualified is False:
            lines.append(labels("no_qualify"))
    for seat in sorted(log.boxes):
        if box_shown(log, seat) and seen(log.box_cards.get(seat, [])):
            lines.append(shown_line(log, labels("box", seat=seat), log.box_cards[seat], labels))
    payments: list[str] = []
    for box in sorted(log.boxes.values(), key=lambda b: b.box):
        spots = ", ".join(f"{spot} {box.spots[spot]:+}" for spot in BOX_SPOTS if spot in box.spots)
        bonus = f" · {bonus_text(box.bonus_class, labels)}" if box.bonus_class else ""
        lines.append(labels("box_result", who=labels("box", seat=box.box), spots=spots,
                            total=sum(box.spots.values())) + bonus)
        spots_paid = dict(box.spots)
        if box.bonus_class == THOUSAND_TO_ONE and log.bank_result is None:  # R-THB-10: not paid before approval
            payments.append(labels("bonus_pending", who=labels("box", seat=box.box),
                                   amount=spots_paid.pop("bonus", 0)))
        payment = box_payment(box.box, spots_paid, labels)
        if payment:
            payments.append(payment)
    return lines, payments


def result_text(log: HandLog, labels: Labels, *, banked: bool) -> Text:
    """At the end of a hand (and as it settles): the hands shown and named, the winners and the payments to make."""
    lines: list[str] = [labels("voided", rule=log.voided)] if log.voided else []
    if banked:
        settlement, payments = banked_lines(log, labels)
        lines += settlement
    else:
        if log.board and (log.shown or log.pots):
            lines.append(f"{labels('board')}: {' '.join(log.board)}")
        for seat, cards in sorted(log.shown.items()):
            lines.append(shown_line(log, labels("seat", seat=seat), cards, labels))
        lines.extend(labels("mucked", who=labels("seat", seat=seat)) for seat in log.mucked)
        lines.extend(line for pot in log.pots for line in pot_lines(log, pot, labels))
        payments = circle_payments(log.pots, labels)
    if log.passed is not None:
        lines.append(labels("passed", amount=log.passed))
    if banked and log.bank_result is not None:
        lines.append(labels("bank_result", amount=log.bank_result))
    if not lines:
        return Text("")
    text = [labels("result", number=log.number), *(f"  {line}" for line in lines)]
    if payments:
        text += [labels("payments"), *(f"  {line}" for line in payments)]
    return Text(labels.cards_in("\n".join(text)))  # Spanish suit letters in Spanish
