"""Text written into a CSV file a person opens in a spreadsheet: never read as a formula.

A table's name, a dealer's id or a person's name is chosen by someone at the casino; written as it is,
``=HYPERLINK(…)``, ``@SUM(…)`` or ``+1+1`` would run as a formula when the pit opens the file (CSV injection,
OWASP).  A cell whose text begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written with a
leading apostrophe, which spreadsheets show as text and do not display; every other text, and every number, is
written as it is.

>>> [safe_cell(text) for text in ("Mesa 1", "=HYPERLINK(\\"http://x\\")", "@SUM(A1)", "+1+1", "-2", 12, -30)]
['Mesa 1', '\\'=HYPERLINK("http://x")', "'@SUM(A1)", "'+1+1", "'-2", 12, -30]
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> object:
    """A CSV cell's value: a text that a spreadsheet would take for a formula, quoted with an apostrophe; a number
    (chips, counts) as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
