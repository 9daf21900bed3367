"""Names people read on screens and in the audit log: a table's name is its identity (R-AUD-1).

A name that hides what it says could pass for another: a NUL or a control character that a screen drops, a
right-to-left override that shows ``Mesa 1`` reversed, a zero-width space or a no-break space between two words that
look like ``Mesa 1``, the same letters composed or decomposed. A name is refused if it has any of those.

>>> name_problem("Mesa 1") is None and name_problem("Mesa ñ — salón") is None
True
>>> name_problem("Mesa\\u202e1")
"a table's name has no control, format or invisible character (U+202E)"
"""

from __future__ import annotations

import unicodedata

from domain.errors import RuleError

MAX_NAME = 64
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories of characters that are not seen as themselves: controls, format characters (bidi overrides
and isolates, zero-width ones, the BOM), surrogates, private use, unassigned, line and paragraph separators."""


class InvalidNameError(RuleError):
    """A name that is empty, too long, or hides what it says (R-AUD-1)."""


def name_problem(name: str, what: str = "a table's name") -> str | None:
    """What is wrong with ``name``, or ``None``."""
    if not name.strip() or len(name) > MAX_NAME:
        return f"{what} has 1 to {MAX_NAME} characters"
    if name != name.strip():
        return f"{what} does not begin or end with a space"
    for character in name:
        category = unicodedata.category(character)
        if category in _HIDDEN:
            return f"{what} has no control, format or invisible character (U+{ord(character):04X})"
        if category == "Zs" and character != " ":
            return f"{what} separates words with plain spaces, not U+{ord(character):04X}"
    if unicodedata.normalize("NFC", name) != name:
        return f"{what} is written in composed form (Unicode NFC)"
    return None


def verify_name(name: str, what: str = "a table's name") -> None:
    """Raise :class:`InvalidNameError` (R-AUD-1) if ``name`` is not a name."""
    problem = name_problem(name, what)
    if problem is not None:
        raise InvalidNameError(problem, rule="R-AUD-1")
