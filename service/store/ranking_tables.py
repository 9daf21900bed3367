"""The 52-card deck's hand-ranking tables, kept in a file of the release (issue 30: a start in milliseconds).

Building them costs 1.4 s of a core (:class:`domain.cards.ranking.HandRanking`), and every service start needs them
before it serves (Hold'em, stud and the banked games all rank 52 cards): a restart, a failover, the tests' hundreds of
starts. The build writes them once, beside this module (``pokertable-52.tables``, made by ``hatch_build.py`` with the
generated gRPC code: never committed), and a start reads them back in milliseconds.

The file is never trusted for what it says: it is taken only if its SHA-256 is :data:`DIGEST`, the digest of the
tables this release's code builds (``tests/app/test_ranking_file.py`` builds them and holds the two equal), and if its
tables are of the right shape. A file changed by anyone, cut short, of another release or missing is passed over:
the tables are built as before, and the start says why (a WARNING when the file is there but not this release's).

The format: ``MAGIC``, then little-endian signed 64-bit integers: the deck size, the flush rule (0/1), the classes
(their count, then each as its length and its integers), the non-flush tables of 5, 6 and 7 cards (each its length,
its keys, its strengths), the flush strengths by rank bits (their count, then each), the 5-card flushes (as the
non-flush tables).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import tempfile
from array import array
from pathlib import Path

from domain.cards.ranking import HandRanking, RankingRules, RankingTables, provide

MAGIC = b"pokertable hand-ranking tables 1\n"
FILE = Path(__file__).with_name("pokertable-52.tables")
"""Where the build leaves the 52-card deck's tables (an artifact of the wheel, covered by its release manifest)."""
DIGEST = "13520eda71c364c8670d52eac405f12be94f1669b6ad02936113ade83e383249"
"""The SHA-256 of the file the code of this release writes (tests/app/test_ranking_file.py holds it to a fresh
build)."""

_log = logging.getLogger(__name__)


def encode(tables: RankingTables) -> bytes:
    """The file's bytes for ``tables`` (the same tables give the same bytes)."""
    values = [tables.deck_size, int(tables.flush_over_full), len(tables.classes)]
    for entry in tables.classes:
        values += [len(entry), *entry]
    for keys, strengths in (*tables.without_flush, tables.flush5):
        values += [len(keys), *keys, *strengths]
    values += [len(tables.flush_by_bits), *tables.flush_by_bits]
    numbers = array("q", values)
    if sys.byteorder != "little":
        numbers.byteswap()
    return MAGIC + numbers.tobytes()


def decode(data: bytes) -> RankingTables:
    """The tables of a file's bytes (``ValueError`` if they are not such a file: another magic, cut short, too long)."""
    if not data.startswith(MAGIC) or (len(data) - len(MAGIC)) % 8:
        raise ValueError("not a file of hand-ranking tables")
    numbers = array("q")
    numbers.frombytes(data[len(MAGIC):])
    if sys.byteorder != "little":
        numbers.byteswap()
    at = 0

    def take(count: int) -> tuple[int, ...]:
        nonlocal at
        if count < 0 or at + count > len(numbers):
            raise ValueError("the file is cut short or names a length it does not hold")
        taken, at = tuple(numbers[at:at + count]), at + count
        return taken

    deck_size, flush_over_full, classes = take(3)
    entries = tuple(take(take(1)[0]) for _ in range(classes))
    pairs = []
    for _ in range(4):
        length = take(1)[0]
        pairs.append((take(length), take(length)))
    flush_by_bits = take(take(1)[0])
    if at != len(numbers):
        raise ValueError("the file goes on past its tables")
    return RankingTables(deck_size, bool(flush_over_full), entries, tuple(pairs[:3]), flush_by_bits, pairs[3])


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write(target: Path = FILE) -> str:
    """Build the 52-card deck's tables and write them to ``target`` (atomically: a reader never sees half a file);
    their digest."""
    data = encode(HandRanking(RankingRules(52)).tables())
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", delete=False) as out:
        out.write(data)
    os.chmod(out.name, 0o644)  # read by the service's user, as the code beside it
    os.replace(out.name, target)
    return digest(data)


def load(source: Path = FILE) -> HandRanking | None:
    """Give the process the 52-card deck's ranking from ``source`` if it holds this release's tables (its digest is
    :data:`DIGEST`); ``None`` (and the reason logged) if not: the caller builds them."""
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        _log.info("no kept hand-ranking tables at %s: built instead (about 1.4 s)", source)
        return None
    except OSError as error:
        _log.warning("the kept hand-ranking tables at %s cannot be read (%s): built instead", source,
                     error.strerror or type(error).__name__)
        return None
    found = digest(data)
    if found != DIGEST:
        _log.warning("the kept hand-ranking tables at %s are not this release's (SHA-256 %s, expected %s): built "
                     "instead", source, found, DIGEST,
                     extra={"fields": {"event": "ranking_tables_refused", "sha256": found}})
        return None
    ranking = HandRanking(RankingRules(52), decode(data))
    return provide(ranking)
