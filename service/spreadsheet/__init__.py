"""Text written into a CSV file a person opens in a spreadsheet: never read as a formula.

A table's name, a dealer's id or a person's name is chosen by someone at the casino; written as it is,
``=HYPERLINK(…)``, ``@SUM(…)`` or ``+1+1`` would run as a formula when the pit opens the file (CSV injection,
OWASP).  A cell whose text begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written with a
leading apostrophe, which spreadsheets show as text and do not display; every other text, a number written as text
(``-2.50``, a hold's percentage), a lone dash (no value) and every number are written as they are.

>>> [safe_cell(text) for text in ("Mesa 1", "=HYPERLINK(\\"http://x\\")", "@SUM(A1)", "+1+1", "-2.50", 12, -30)]
['Mesa 1', '\\'=HYPERLINK("http://x")', "'@SUM(A1)", "'+1+1", '-2.50', 12, -30]
>>> safe_row(["=1+1", 3]), safe_mapping({"table": "@x", "hands": 4})
(["'=1+1", 3], {'table': "'@x", 'hands': 4})
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?\d+(\.\d+)?|-+")
"""A number written as text (``-2.50``), or a dash standing for no value: never a formula."""


def safe_cell(value: object) -> object:
    """A CSV cell's value: a text that a spreadsheet would take for a formula, quoted with an apostrophe; a number
    (chips, counts) as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(value):
        return "'" + value
    return value


def safe_row(row: Iterable[object]) -> list[object]:
    """A CSV row, each cell :func:`safe_cell`."""
    return [safe_cell(value) for value in row]


def safe_mapping(row: Mapping[str, object]) -> dict[str, object]:
    """A ``csv.DictWriter`` row, each value :func:`safe_cell`."""
    return {key: safe_cell(value) for key, value in row.items()}
