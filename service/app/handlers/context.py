"""What a handler works with (:class:`Tables`): the application's collaborators, not the application itself, so
that a handler imports what it uses and the application imports its handlers, never the other way round."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from service.app.accounts import Accounts
    from service.app.holds import Holds
    from service.app.reads import Reads
    from service.app.sessions import Sessions
    from service.app.staff import Staff
    from service.app.tampering import LogAudit
    from service.app.unit import UnitOfWork


class Tables(Protocol):
    """The application as a handler sees it (:class:`service.app.application.Tables` is one)."""

    @property
    def reads(self) -> Reads:
        """Tables and hands by name and id."""

    @property
    def unit(self) -> UnitOfWork:
        """The unit of work a handler's change runs in."""

    @property
    def holds(self) -> Holds:
        """What holds a table (R-HOLD-1): a hand starts only if nothing does."""

    @property
    def audit(self) -> LogAudit:
        """The casino's record of the audit's findings (R-AUD-1)."""

    @property
    def staff(self) -> Staff:
        """The staff register and the persons' records (issue 32)."""

    @property
    def sessions(self) -> Sessions:
        """The persons signed in at the stations (issue 32)."""

    @property
    def accounts(self) -> Accounts:
        """The shifts' accounts (R-ACC-1 … R-ACC-6)."""

    @property
    def mapper(self) -> Any:
        """The store's mapper (an event of the log read back)."""

    @property
    def recorder(self) -> Any:
        """The store's log (an alert's log position)."""
