"""What a request to reconstruct a hand must say (R-THB-13, R-AUD-1), for both kinds of table record.

It lives apart from :mod:`domain.reconstruction`, which replays circle and banked hands alike, so that a circle
table and a banked table can check a request without importing each other's hands (docs/architecture.md, "Walls").

>>> request_problem(3, 2, "Ana", "dispute")
('this table has no hand 3 (hands 1–2)', 'R-AUD-1')
>>> request_problem(1, 2, "Ana", "dispute") is None
True
"""

from __future__ import annotations


def request_problem(number: int, hands_started: int, pit_boss: str, reason: str) -> tuple[str, str] | None:
    """What is wrong with a reconstruction request, as (message, rule), or None: a hand of the table that has
    started, a pit boss, a stated reason (R-THB-13, R-AUD-1).  Both kinds of table record requests this way."""
    if not 1 <= number <= hands_started:
        return f"this table has no hand {number} (hands 1–{hands_started})", "R-AUD-1"
    if not pit_boss.strip():
        return "a reconstruction names the pit boss who asks for it", "R-THB-13"
    if not reason.strip() or len(reason) > 200:
        return "a reconstruction states its reason (1–200 characters)", "R-THB-13"
    return None
