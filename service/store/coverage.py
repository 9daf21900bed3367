"""Which events the services vouched for (issue 29, item 0; R-AUD-1): the check of signed heads' claims, made as
``audit verify`` walks the log in position order, in memory bounded by what is not yet vouched for.

Every event walked while at least one writer (a service instance, :mod:`service.store.heads`) is running is
*pending* until each of those writers has signed a head past it: claimed by one of them, it is vouched for; claimed
by none, after all of them signed past it, it is **forged** (written into the database by someone else). A writer
that started again without its journal of claims (a machine that lost power) gives up its last window: what only
it could have claimed there is *unvouched* (reported, never called forged). Events stored while no writer ran
(before the first version-2 head, between a stop and the next start) are *unattended* (counted and reported).

>>> coverage = Coverage()
>>> coverage.head("a", "start", since=0, position=0, claims=Positions())
>>> for position in range(1, 6):
...     coverage.walked(position)
>>> coverage.head("a", "run", since=0, position=5, claims=Positions.parse("1-2,4-5"))
3
"""

from __future__ import annotations

from dataclasses import dataclass

from service.store.claims import Positions


@dataclass
class _Pending:
    """Positions ``start`` to ``end`` walked while the writers ``needs`` ran, none of which has claimed them yet."""

    start: int
    end: int
    needs: frozenset[str]
    released: bool = False
    """Some writer gave up its window over them (an unclean stop without its journal)."""


class Coverage:
    """The claims of the version-2 heads met so far, and the positions they do not yet vouch for."""

    def __init__(self) -> None:
        self.writers: dict[str, int] = {}
        """The running writers and the position each has signed up to."""
        self._running: frozenset[str] = frozenset()
        self._pending: list[_Pending] = []
        self.started = False
        """Whether a writer ever started (before that, events are of a log written before version-2 heads)."""
        self.unvouched: tuple[int, int] | None = None
        """The first position given up by a writer, and how many were (see the module's docstring)."""
        self.unattended: tuple[int, int] | None = None
        """The first position stored while no writer ran (after one had started), and how many were."""

    def walked(self, position: int) -> None:
        """The event at ``position`` (not itself a signed record) has been walked."""
        if not self._running:
            if self.started:
                self.unattended = _counted(self.unattended, position, 1)
            return
        last = self._pending[-1] if self._pending else None
        if last is not None and last.end == position - 1 and last.needs is self._running and not last.released:
            last.end = position
        else:
            self._pending.append(_Pending(position, position, self._running))

    def head(self, writer: str, kind: str, *, since: int, position: int, claims: Positions) -> int | None:
        """A valid version-2 head of ``writer``: its claims are vouched for, and the writer has signed up to
        ``position``. Returns the first position found forged by it (``None``: none)."""
        for start, end in claims.ranges():
            self._discard(start, end)
        if kind == "hand":
            return None
        previous = self.writers.get(writer)
        forged = self._settle(writer, position, given_up=(previous, since) if previous is not None else None)
        if kind == "stop":
            self.writers.pop(writer, None)
        else:
            self.writers[writer] = position
            self.started = True
        self._running = frozenset(self.writers)
        return forged

    def pending(self) -> list[tuple[int, int]]:
        """The positions not yet vouched for, as ranges (waiting for a running writer's next head)."""
        return [(item.start, item.end) for item in self._pending]

    def _discard(self, start: int, end: int) -> None:
        kept: list[_Pending] = []
        for item in self._pending:
            if item.end < start or item.start > end:
                kept.append(item)
                continue
            if item.start < start:
                kept.append(_Pending(item.start, start - 1, item.needs, item.released))
            if item.end > end:
                kept.append(_Pending(end + 1, item.end, item.needs, item.released))
        self._pending = kept

    def _settle(self, writer: str, position: int, given_up: tuple[int, int] | None) -> int | None:
        """``writer`` signed up to ``position``; ``given_up``: (the position it had signed up to, the ``since`` of
        this head): a window it no longer answers for when the second is past the first."""
        forged: int | None = None
        lost_upto = given_up[1] if given_up is not None and given_up[1] > given_up[0] else 0
        kept: list[_Pending] = []
        for item in self._pending:
            if writer not in item.needs or item.start > position:
                kept.append(item)
                continue
            for start, end in _split(item.start, item.end, (lost_upto, position)):
                if start > position:
                    kept.append(_Pending(start, end, item.needs, item.released))
                    continue
                settled = _Pending(start, end, item.needs - {writer}, item.released or end <= lost_upto)
                if settled.needs:
                    kept.append(settled)
                elif settled.released:
                    self.unvouched = _counted(self.unvouched, start, end - start + 1)
                elif forged is None or start < forged:
                    forged = start
        self._pending = kept
        return forged


def _split(start: int, end: int, cuts: tuple[int, ...]) -> list[tuple[int, int]]:
    """``start``-``end`` cut after each of ``cuts`` that falls inside it."""
    pieces = []
    for cut in sorted(cuts):
        if start <= cut < end:
            pieces.append((start, cut))
            start = cut + 1
    return [*pieces, (start, end)]


def _counted(counted: tuple[int, int] | None, first: int, count: int) -> tuple[int, int]:
    return (first, count) if counted is None else (min(counted[0], first), counted[1] + count)
