"""``pokertable audit verify|head``: check the tamper-evident chain of the event log (R-AUD-1).

``verify`` reads every event in position order and recomputes the chain; it names the first altered, removed,
reordered or inserted event, with its position and the hand or table it belongs to, and exits 1; a clean log exits 0.
``head`` prints the last position and its hash, to be kept somewhere else; ``verify --head POSITION:HASH`` then
also proves the log still leads to it (a rewritten chain would not).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from service.audit import verify
from service.persistence import DEFAULT_DB, PersistenceUrlError, environment


def add_parser(commands: Any) -> None:
    """Register ``pokertable audit``."""
    parser = commands.add_parser("audit", help="verify the tamper-evident event log", description=__doc__)
    parser.add_argument("action", choices=("verify", "head"))
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    parser.add_argument("--head", help="a safekept head, POSITION:HASH (from 'pokertable audit head')")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Verify the log or print its head."""
    from service.application import PokerTables

    try:
        env = environment(args.db)
    except PersistenceUrlError as error:
        print(f"pokertable audit: {error}")
        return 2
    if "SQLITE_DBNAME" in env and not Path(env["SQLITE_DBNAME"]).exists():
        print(f"pokertable audit: no database {env['SQLITE_DBNAME']!r}")
        return 2
    expected = None
    if args.head:
        position, _, digest = args.head.partition(":")
        try:
            expected = (int(position), bytes.fromhex(digest))
        except ValueError:
            print("pokertable audit: --head is POSITION:HASH, as 'pokertable audit head' prints it")
            return 2
    app = PokerTables(env=env)
    verdict = verify(app.recorder, expected)
    position, digest = verdict.head
    if args.action == "head":
        print(f"{position}:{digest.hex()}")
        return 0 if verdict.clean else 1
    if verdict.finding is None:
        print(f"clean: {verdict.events} events, chain head {position}:{digest.hex()}")
        return 0
    print(f"TAMPERED ({verdict.finding.kind}): {verdict.finding.message}")
    print(f"the log is intact up to position {position} ({verdict.events - 1} events)")
    return 1
