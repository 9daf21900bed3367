"""Typed domain errors.  Every error names the rule of ``RULES.md`` it enforces."""

from __future__ import annotations


class RuleError(Exception):
    """A command or an input broke a rule; ``rule`` is its id in RULES.md (e.g. ``R-CARD-2``)."""

    def __init__(self, message: str, *, rule: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.message = message
        self.rule = rule


class InvalidCardError(RuleError):
    """Text or a code that is not a card of the French deck (R-CARD-1)."""


class InvalidCardsError(RuleError):
    """A set of cards that cannot be a hand: a card twice, a card not in the deck in play, the wrong count."""
