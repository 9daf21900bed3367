"""The handlers of the application's commands, one per command type (issue 31): :data:`HANDLERS` is what
:meth:`service.app.application.PokerTables.handle` dispatches on.

Each handler takes the application, the command and who gives it (already authorised by ``handle`` for the
command's permission) and returns the command's :class:`service.app.results.Result`; it reads and changes
aggregates within a unit of work (``app.unit.execute``: once per command id, atomically with its record).  A new
command is a class of :mod:`service.app.commands` and a handler registered here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from service.app.commands import Command
from service.app.handlers import accounts, hands, people, staff, tables

if TYPE_CHECKING:
    from service.app.access import Viewer
    from service.app.handlers.context import Tables
    from service.app.results import Result

Handler = Callable[["Tables", Any, "Viewer"], "Result"]

HANDLERS: Mapping[type[Command], Handler] = {**tables.HANDLERS, **hands.HANDLERS, **people.HANDLERS,
                                             **accounts.HANDLERS, **staff.HANDLERS}
"""Every command's handler, by the command's type."""
