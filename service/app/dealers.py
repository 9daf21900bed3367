"""Dealer sign-in (issue 15, item 8; R-AUD-1): the dealer now dealing at a table, and his id on the record of every
command the table's own stations send while he deals.

:class:`DealerSignIn` is a part of :class:`service.app.application.PokerTables`: the sign-in is a table command like
the others (executed once per command id, with its record); ``acting`` tells the application which station sends the
commands that run within it, and the record of each names the dealer then signed in at that station's table.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from domain.tables import TableRecord
from service.app.access import NotFoundError, Role, Viewer, authorize

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from domain.banked.table import BankedTable
    from domain.circle.table import Table


class DealerSignIn:
    """Who deals at each table, and which station acts now."""

    if TYPE_CHECKING:  # provided by service.app.application.PokerTables
        _local: threading.local

        def any_table(self, table: str) -> Table | BankedTable: ...
        def _execute(self, command_id: str, table: str,
                     change: Callable[[], tuple[dict[str, Any], list[Aggregate]]],
                     what: tuple[object, ...]) -> dict[str, Any]: ...

    def sign_in(self, command_id: str, table: str, dealer_id: str, viewer: Viewer) -> dict[str, Any]:
        """R-AUD-1: the dealer now dealing at a table (circle or banked), signed in at its croupier's station (or by
        the pit boss); his id is recorded with every later command of the table's stations, until another signs in."""
        authorize(viewer, table, "sign-in")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.any_table(table)
            record.sign_in(dealer_id, viewer.station)
            return {"table": table, "version": record.version}, [record]

        return self._execute(command_id, table, change, ("sign_in", dealer_id))

    def sign_out(self, command_id: str, table: str, viewer: Viewer) -> dict[str, Any]:
        """R-AUD-1: the dealer signed in at a table leaves it (a rotation, a break, the end of his shift), signed out
        at its croupier's station or by the pit boss; the table has no dealer until the next sign-in."""
        authorize(viewer, table, "sign-in")

        def change() -> tuple[dict[str, Any], list[Aggregate]]:
            record = self.any_table(table)
            record.sign_out(viewer.station)
            return {"table": table, "version": record.version}, [record]

        return self._execute(command_id, table, change, ("sign_out",))

    @contextlib.contextmanager
    def acting(self, viewer: Viewer) -> Iterator[None]:
        """The station whose commands run within: each command's record names the table's signed-in dealer when
        it comes from one of the table's own stations (its croupier's, its devices)."""
        self._local.viewer = viewer
        try:
            yield
        finally:
            self._local.viewer = None

    def _dealer_of(self, table: str, changed: list[Aggregate]) -> str:
        """R-AUD-1: the dealer signed in at ``table`` (after this command), when the acting station is one of the
        table's own (its croupier's or a device's); "" otherwise."""
        viewer: Viewer | None = getattr(self._local, "viewer", None)
        if viewer is None or viewer.table != table or viewer.role not in (Role.DEALER, Role.DEVICE):
            return ""
        record = next((a for a in changed if isinstance(a, TableRecord)), None) or self._local.table_record
        if record is None:
            try:
                record = self.any_table(table)
            except NotFoundError:
                return ""
        return str(record.dealer_id)
