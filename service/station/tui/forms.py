"""The station's forms for the shift's operations (issue 33): a menu of what may be done now, a form of a few fields
checked as they are typed, and a yes/no question.

A field is parsed before anything is sent: a number where a number is asked, chips by denomination (``100x20 25x40``:
twenty chips of 100 and forty of 25, R-ACC-2), one of a list of choices (its number or its code), a PIN never shown.
A value that does not parse keeps the form open with the reason; Escape closes it and nothing is sent.

>>> parse(Field("chips", "", "chips"), "100x20 25X4")
(((100, 20), (25, 4)), '')
>>> parse(Field("seat", "", "int", low=1), "0")[1]
'low'
>>> parse(Field("game", "", "choice", choices=("holdem", "omaha")), "2")
('omaha', '')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from domain.accounts import typed_count

MENU_KEYS = "123456789abcdefghijklmnopqrstuvwxyz"
"""The key of each line of a menu, in order."""
Kind = Literal["int", "chips", "text", "secret", "choice", "optional-text"]


@dataclass(frozen=True)
class Field:
    """One value a form asks for: its name in the request, its label key, its kind and its default."""

    name: str
    label: str
    kind: Kind = "int"
    default: str = ""
    choices: tuple[str, ...] = ()
    low: int = 0
    """The smallest number an ``int`` field takes."""


def _chips(typed: str) -> tuple[object, str]:
    """Chips by denomination: ``100x20 25x40``, each denomination once, at least one (:func:`typed_count`)."""
    counts = typed_count(typed)
    return (counts, "") if counts is not None else (None, "chips")


def parse(field: Field, text: str) -> tuple[object, str]:
    """A field's value from what was typed, and ``""``; or ``None`` and the reason's label key (``low``, ``number``,
    ``chips``, ``choice``, ``required``)."""
    typed = text.strip()
    if field.kind == "int":
        if not typed.isdigit():
            return None, "number"
        return (int(typed), "") if int(typed) >= field.low else (None, "low")
    if field.kind == "chips":
        return _chips(typed)
    if field.kind == "choice":
        if typed.isdigit() and 1 <= int(typed) <= len(field.choices):
            return field.choices[int(typed) - 1], ""
        return (typed.lower(), "") if typed.lower() in field.choices else (None, "choice")
    if field.kind in ("optional-text", "secret"):
        return (text if field.kind == "secret" else typed), ""
    return (typed, "") if typed else (None, "required")


class FormScreen(ModalScreen[object]):
    """A title and a few fields; Enter moves to the next field and, on the last, sends the values (a mapping of the
    fields' names) once every one parses; Escape cancels (``None``)."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape", "cancel", show=False)]
    DEFAULT_CSS = """
    FormScreen { align: center middle; }
    FormScreen > Vertical { width: 90; height: auto; border: thick $accent; padding: 0 1; background: $surface; }
    FormScreen Horizontal { height: 1; }
    FormScreen .label { width: 34; }
    FormScreen Input { width: 1fr; height: 1; border: none; padding: 0; }
    FormScreen #reason { color: $error; }
    """

    def __init__(self, title: str, fields: Sequence[Field], labels: Callable[[str], str],
                 reasons: Mapping[str, str]) -> None:
        super().__init__()
        self.title_text, self.fields, self.labels, self.reasons = title, tuple(fields), labels, reasons

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="title")
            for field in self.fields:
                label = self.labels(field.label)
                if field.kind == "choice":
                    label += " (" + " ".join(f"{i}:{code}" for i, code in enumerate(field.choices, 1)) + ")"
                with Horizontal():
                    yield Static(label, classes="label")
                    yield Input(value=field.default, id=f"field-{field.name}", password=field.kind == "secret")
            yield Static("", id="reason")

    def on_mount(self) -> None:
        self.query(Input).first().focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        inputs = list(self.query(Input))
        index = inputs.index(event.input)
        if index + 1 < len(inputs):
            inputs[index + 1].focus()
            return
        values: dict[str, object] = {}
        for field, widget in zip(self.fields, inputs, strict=True):
            value, reason = parse(field, widget.value)
            if reason:
                self.query_one("#reason", Static).update(f"{self.labels(field.label)}: {self.reasons[reason]}")
                widget.focus()
                return
            values[field.name] = value
        self.dismiss(values)


class MenuScreen(ModalScreen[object]):
    """What may be done now, one line each: the line's key (or arrows and Enter) chooses; Escape closes (``None``)."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape", "cancel", show=False)]
    DEFAULT_CSS = """
    MenuScreen { align: center middle; }
    MenuScreen > Vertical { width: 70; height: auto; max-height: 90%; border: thick $accent; background: $surface; }
    MenuScreen OptionList { height: auto; max-height: 30; }
    """

    def __init__(self, title: str, entries: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text, self.entries = title, tuple(entries)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="title")
            yield OptionList(*(Option(f" {MENU_KEYS[index]}  {text}", id=key)
                               for index, (key, text) in enumerate(self.entries)))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_key(self, event: events.Key) -> None:
        """A line's key (1 to 9, then a to z) chooses it at once: one key for any line."""
        character = event.character
        index = MENU_KEYS.find(character) if character is not None and len(character) == 1 else -1
        if 0 <= index < len(self.entries):
            event.stop()
            self.dismiss(self.entries[index][0])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A question answered ``y`` (or ``s``, sí) or ``n``/Escape."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("y,s", "answer(True)", show=False), Binding("n,escape", "answer(False)", show=False)]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 70; height: auto; border: thick $warning; padding: 0 1; background: $surface; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question)

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
