"""The name under which an event keeps its clock's own reading when the log timed it later (issue 29, item 4).

The events' times never go backwards in log order: an event that reaches the log behind one timed after it is given
that later time, and keeps what its clock said under this name (:mod:`service.store.log_time`). It is bookkeeping,
as the event's time is, not something the event says.
"""

from __future__ import annotations

CLOCK_READING = "clock_reading"
"""An event's attribute (and key of its stored state): the time its clock gave it, when the log timed it later."""
