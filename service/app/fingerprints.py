"""The stored form of the actions' and the starts' fingerprints (issue 31, item 6): what a command's record digests,
as the records of earlier versions digest it, so that a command stored before an upgrade and retried after it is
answered with its first result, never refused as another command.

Before issue 31 an action was one of two union records: a circle hand's ``HandCommand`` and a banked table's
``BankedCommand``, each with every field of every action, and digested by its ``repr``; a banked table's start had a
name of its own.  :func:`act_form` and :func:`start_form` write those forms of the typed commands, field by field,
in the order and with the defaults they had (``tests/app/test_fingerprints.py`` holds the digests the code before
issue 31 computed, and proves each one unchanged).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from domain.actions import Action
from domain.banked.table import BankedTable
from domain.cards.decks import DeckIdentity
from domain.tables import NextDeck, TableRecord

CIRCLE_FIELDS: tuple[tuple[str, object], ...] = (
    ("seat", None), ("amount", None), ("card", None), ("cards", ()), ("source", "croupier"), ("sequence", None),
    ("rule", ""), ("reason", ""), ("replacement", None), ("approve", False))
"""A circle hand's command record's fields after its action, with their defaults (the seat is the action's)."""
BANKED_FIELDS: tuple[tuple[str, object], ...] = (
    ("box", None), ("amount", None), ("card", None), ("cards", ()), ("source", "croupier"), ("sequence", None),
    ("reason", ""), ("rule", ""), ("director", ""), ("correctable", False))
"""A banked table's command record's fields after its action, with their defaults (the box is the action's seat)."""


@dataclass(frozen=True)
class _Form:
    """A record of an earlier version as its ``repr`` wrote it: ``Kind(action='bet', seat=3, …)``."""

    kind: str
    fields: tuple[tuple[str, object], ...]

    def __repr__(self) -> str:
        return f"{self.kind}({', '.join(f'{name}={value!r}' for name, value in self.fields)})"


FORMS: Mapping[type[TableRecord], tuple[str, str, tuple[tuple[str, object], ...]]] = {
    BankedTable: ("banked_command", "BankedCommand", BANKED_FIELDS),
}
"""The record of an action by the table's class: a banked table's; every other's is a circle hand's."""
CIRCLE_FORM = ("hand_command", "HandCommand", CIRCLE_FIELDS)


def _form(action: Action, kind: str, fields: tuple[tuple[str, object], ...]) -> _Form:
    values: list[tuple[str, object]] = [("action", action.name)]
    for name, default in fields:
        value = getattr(action, "seat" if name == "box" else name, default)
        if isinstance(value, Action):  # a correction's replacement: a circle hand's record of its own
            value = _form(value, CIRCLE_FORM[1], CIRCLE_FIELDS)
        values.append((name, value))
    return _Form(kind, tuple(values))


def act_form(action: Action, table: TableRecord | None) -> tuple[object, ...]:
    """An action as its record's fingerprint names it, at ``table`` (a circle hand's form when unknown)."""
    name, kind, fields = FORMS.get(type(table), CIRCLE_FORM) if table is not None else CIRCLE_FORM
    return name, _form(action, kind, fields)


def start_form(deck: DeckIdentity | NextDeck, table: TableRecord | None) -> tuple[object, ...]:
    """A start as its record's fingerprint names it: a banked table's named its deck, always of 52 cards."""
    if table is None or type(table) not in FORMS:
        return "start_hand", deck
    if isinstance(deck, NextDeck):
        deck = DeckIdentity(52, deck.colour, deck.label)
    return "start_banked_hand", deck
