"""The station's small dialogs: an amount within the legal range, a box and an amount, cards given back, and help.

Each checks what is typed before anything is sent: an amount outside the range the service gave, or a string that
is not a card code, stays in the dialog with the reason shown."""

from __future__ import annotations

import re
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

CARD = re.compile(r"^([2-9TJQKA])([cdhs])$")
"""A card code: rank then suit (types.proto)."""


SPANISH_SUITS = {"p": "s", "c": "h", "d": "d", "t": "c"}
"""The suits as a Spanish croupier writes them (picas, corazones, diamantes, tréboles) and their codes."""
SPANISH_RANKS = {"R": "K", "D": "Q"}
"""Rey and dama as Spanish cards mark them (the jota is J, the ace A)."""


def card_code(text: str, lang: str = "en") -> str | None:
    """A typed card as its code (``"as"`` → ``"As"``, ``"10h"`` → ``"Th"``), or None when it is not a card; in
    Spanish (``lang="es"``) the suits are p, c, d, t (``"ac"``: the ace of hearts, corazones) and the king and queen
    may be R and D as well as K and Q.

    >>> card_code(" as"), card_code("10h"), card_code("Kd"), card_code("1x"), card_code("")
    ('As', 'Th', 'Kd', None, None)
    >>> card_code("ac", "es"), card_code("10t", "es"), card_code("rp", "es"), card_code("as", "es")
    ('Ah', 'Tc', 'Ks', None)
    """
    cleaned = text.strip()
    if cleaned.startswith("10"):
        cleaned = "T" + cleaned[2:]
    if len(cleaned) != 2:
        return None
    rank, suit = cleaned[0].upper(), cleaned[1].lower()
    if lang == "es":
        rank = SPANISH_RANKS.get(rank, rank)
        if suit not in SPANISH_SUITS:
            return None
        suit = SPANISH_SUITS[suit]
    code = rank + suit
    return code if CARD.match(code) else None


class _Prompt(ModalScreen[object]):
    """A title, one input and a line for the reason a value is refused; Escape cancels."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape", "cancel", show=False)]
    DEFAULT_CSS = """
    _Prompt { align: center middle; }
    _Prompt > Vertical { width: 70; height: auto; border: thick $accent; padding: 0 1; background: $surface; }
    _Prompt #reason { color: $error; }
    """

    def __init__(self, title: str, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="title")
            yield Input(value=self.value, id="value")
            yield Static("", id="reason")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def refuse(self, reason: str) -> None:
        self.query_one("#reason", Static).update(reason)


class AmountPrompt(_Prompt):
    """A bet's amount, prefilled with the legal minimum, accepted only within [low, high]."""

    def __init__(self, title: str, low: int, high: int, reason: str) -> None:
        super().__init__(title, str(low))
        self.low, self.high, self.reason = low, high, reason

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text.isdigit() and self.low <= int(text) <= self.high:
            self.dismiss(int(text))
        else:
            self.refuse(self.reason)


class BoxAmountPrompt(_Prompt):
    """A box and an amount (``"2 10"``): a box from 1 to ``most`` (seven at Texas Hold'em Bonus, R-THB-1), the
    amount within [low, high]."""

    def __init__(self, title: str, box: int, low: int, high: int, reasons: tuple[str, str], *, most: int = 6) -> None:
        super().__init__(title, f"{box} {low}")
        self.low, self.high, self.reasons, self.most = low, high, reasons, most

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        parts = event.value.split()
        if len(parts) != 2 or not all(part.isdigit() for part in parts) or not 1 <= int(parts[0]) <= self.most:
            self.refuse(self.reasons[0])
        elif not self.low <= int(parts[1]) <= self.high:
            self.refuse(self.reasons[1])
        else:
            self.dismiss((int(parts[0]), int(parts[1])))


class CardsPrompt(_Prompt):
    """Up to ``most`` card codes separated by spaces (none: the box stands pat)."""

    def __init__(self, title: str, most: int, bad_card: str, lang: str = "en") -> None:
        super().__init__(title)
        self.most, self.bad_card, self.lang = most, bad_card, lang

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        words = event.value.split()
        codes = [card_code(word, self.lang) for word in words]
        bad = [word for word, code in zip(words, codes, strict=True) if code is None]
        if bad or len(codes) > self.most:
            self.refuse(self.bad_card.format(text=" ".join(bad or words)))
        else:
            self.dismiss([code for code in codes if code is not None])


class HelpScreen(ModalScreen[None]):
    """The keys of the station (``?``)."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape,question_mark,q,enter", "close", show=False)]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical { width: 96; height: auto; border: thick $accent; padding: 0 1; background: $surface; }
    """

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="title")
            yield Static(self.body, id="body")

    def action_close(self) -> None:
        self.dismiss(None)
