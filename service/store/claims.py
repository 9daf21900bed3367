"""What a service wrote itself (issue 29, item 0; R-AUD-1): the positions of its own commits, kept out of reach of
the database, so that a signed head vouches for those events and for no others.

The chain proves that the log was not changed after a link was written; it cannot tell who wrote an event, since
its formula is public: whoever can write the database can append an event with a correct link. The service
therefore remembers the positions it committed itself (:class:`OwnWrites`, told by the recorder after each commit)
and each head it signs lists them (its *claims*, :class:`Positions`): an event the service did not write is in no
signed head's claims, and ``audit verify`` names it ``forged`` as soon as every service running when it was stored
has signed past it (:mod:`service.store.audit`).

The positions since the last signed head are also appended to a *journal* beside the signing key (one line a
commit, no fsync: it survives a killed process, as the page cache does), so that a service restarted after an
unclean stop claims what it wrote before it died (a ``start`` head, :mod:`service.store.signing`). A journal lost
with the machine's power leaves those positions *unvouched*: reported, never called forged.

>>> claims = Positions.parse("3-5,9")
>>> claims.add(6, 7); claims.add(11, 11); str(claims)
'3-7,9,11'
>>> 4 in claims, 8 in claims, len(claims)
(True, False, 7)
>>> claims.remove_upto(5); str(claims)
'6-7,9,11'
"""

from __future__ import annotations

import bisect
import contextlib
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


class Positions:
    """A set of log positions kept as sorted, disjoint, non-adjacent ranges ``start-end``: a service's commits
    follow each other, so the positions it wrote between two heads are a few ranges, however many."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, ranges: Sequence[tuple[int, int]] = ()) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for start, end in ranges:
            self.add(start, end)

    @classmethod
    def parse(cls, text: str) -> Positions:
        """The claims as a signed head writes them (``"3-7,9"``); ValueError if they are not ranges in order."""
        ranges: list[tuple[int, int]] = []
        for part in filter(None, text.split(",")):
            first, dash, last = part.partition("-")
            start, end = int(first), int(last) if dash else int(first)
            if start < 1 or end < start or (ranges and start <= ranges[-1][1] + 1):
                raise ValueError(f"claims {text[:60]!r}: ranges of positions from 1, in order, apart")
            ranges.append((start, end))
        return cls(ranges)

    def add(self, start: int, end: int) -> None:
        """Add the positions ``start`` to ``end``, merged with the ranges they touch."""
        at = bisect.bisect_left(self._ends, start - 1)
        last = at
        while last < len(self._starts) and self._starts[last] <= end + 1:
            last += 1
        if at < last:
            start, end = min(start, self._starts[at]), max(end, self._ends[last - 1])
        self._starts[at:last] = [start]
        self._ends[at:last] = [end]

    def discard(self, start: int, end: int) -> None:
        """Remove the positions ``start`` to ``end``."""
        at = bisect.bisect_left(self._ends, start)
        kept_starts: list[int] = []
        kept_ends: list[int] = []
        last = at
        while last < len(self._starts) and self._starts[last] <= end:
            if self._starts[last] < start:
                kept_starts.append(self._starts[last])
                kept_ends.append(start - 1)
            if self._ends[last] > end:
                kept_starts.append(end + 1)
                kept_ends.append(self._ends[last])
            last += 1
        self._starts[at:last] = kept_starts
        self._ends[at:last] = kept_ends

    def remove_upto(self, position: int) -> None:
        """Remove every position up to ``position``."""
        if self._starts:
            self.discard(self._starts[0], position)

    def ranges(self) -> Iterator[tuple[int, int]]:
        """The ranges, in order."""
        return zip(self._starts, self._ends, strict=True)

    def first(self) -> int | None:
        """The lowest position (``None``: empty)."""
        return self._starts[0] if self._starts else None

    def last(self) -> int | None:
        """The highest position (``None``: empty)."""
        return self._ends[-1] if self._ends else None

    def __contains__(self, position: object) -> bool:
        if not isinstance(position, int):
            return False
        at = bisect.bisect_left(self._ends, position)
        return at < len(self._starts) and self._starts[at] <= position

    def __len__(self) -> int:
        return sum(end - start + 1 for start, end in self.ranges())

    def __bool__(self) -> bool:
        return bool(self._starts)

    def __str__(self) -> str:
        return ",".join(str(start) if start == end else f"{start}-{end}" for start, end in self.ranges())

    def __repr__(self) -> str:
        return f"Positions.parse({str(self)!r})"


@dataclass(frozen=True)
class Journal:
    """What a journal beside the key held at start: the position its writer had signed up to, and the positions
    written after it (an unclean stop's)."""

    since: int
    positions: Positions


@dataclass(frozen=True)
class Written:
    """What a service wrote since a moment: the positions, and the last of them with its link as the service
    computed it (what a head it signs names)."""

    positions: Positions
    head: tuple[int, bytes] | None


class OwnWrites:
    """The positions this process committed to the log, told by the recorder after each commit (thread-safe), and
    their journal (``None``: kept in memory only, as for a store no service writes)."""

    def __init__(self, journal: Path | None = None) -> None:
        self.journal = journal
        self._lock = threading.Lock()
        self._positions = Positions()
        self._head: tuple[int, bytes] | None = None
        self._file: int | None = None

    def recovered(self) -> Journal | None:
        """What the journal holds (``None``: no journal, or none readable): the position its writer had signed up to
        when it was last written afresh, and the positions written after it, before this process started: what an
        unclean stop left to claim. Lines cut short by a crash are skipped."""
        if self.journal is None:
            return None
        try:
            lines = self.journal.read_text(encoding="ascii", errors="replace").splitlines()
        except FileNotFoundError:
            return None
        if not lines or not lines[0].startswith("since ") or not lines[0].endswith(";"):
            return None
        try:
            since = int(lines[0][len("since "):-1])
        except ValueError:
            return None
        found = Positions()
        for line in lines[1:]:
            first, _, last = line.removesuffix(";").partition("-")
            with contextlib.suppress(ValueError):
                if line.endswith(";") and 1 <= int(first) <= int(last or first):
                    found.add(int(first), int(last or first))
        return Journal(since, found)

    def committed(self, positions: Sequence[int], link: bytes) -> None:
        """Told by the recorder once a commit of events at ``positions`` is durable; ``link``: the chain hash at
        the last of them, as this process computed it from the events it sent."""
        if not positions:
            return
        with self._lock:
            first, last = min(positions), max(positions)
            if last - first + 1 == len(positions):
                self._positions.add(first, last)
                line = f"{first}-{last};\n" if first != last else f"{first};\n"
            else:  # not one range (never seen: a commit's positions follow each other)
                for position in positions:
                    self._positions.add(position, position)
                line = "".join(f"{position};\n" for position in positions)
            if self._head is None or last > self._head[0]:
                self._head = (last, link)
            if self._file is not None:
                os.write(self._file, line.encode("ascii"))

    def written(self) -> Written:
        """What was committed since the last :meth:`claimed` (a copy)."""
        with self._lock:
            return Written(Positions(list(self._positions.ranges())), self._head)

    def claimed(self, upto: int, *, since: int) -> None:
        """A head claiming every position up to ``upto`` is stored: forget them, and start the journal again from
        ``since`` (the position that head names)."""
        with self._lock:
            self._positions.remove_upto(upto)
            if self.journal is not None:
                self._rewrite(since, self._positions)

    def close(self) -> None:
        """Close the journal (its content stays: a clean stop signs a head first, and empties it)."""
        with self._lock:
            if self._file is not None:
                os.close(self._file)
                self._file = None

    def _rewrite(self, since: int, keep: Positions) -> None:
        """The journal written again: ``since`` (the position its writer has signed up to), then ``keep``
        (atomically: a new file renamed over the old)."""
        assert self.journal is not None
        temporary = self.journal.with_name(self.journal.name + ".new")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(descriptor, (f"since {since};\n" + "".join(f"{start}-{end};\n" for start, end in keep.ranges())
                                  ).encode("ascii"))
        finally:
            os.close(descriptor)
        os.replace(temporary, self.journal)
        if self._file is not None:
            os.close(self._file)
        self._file = os.open(self.journal, os.O_WRONLY | os.O_APPEND)
