"""``pokertable backup`` and ``pokertable restore``: the event store with its hash chain and signed heads in one file,
and back again (issue 17, item 6; docs/ops/backup.md; R-AUD-1).

``backup --db URL --to FILE`` copies the store while the service runs (SQLite: the online backup API from a read-only
connection, no claim on the file; PostgreSQL: ``pg_dump -Fc`` of the URL's schema) and prints the backup's chain
head, ``POSITION:HASH``, on standard output: keep it with the file; ``audit verify --head`` proves later that a
restored store is that backup.

``restore --from FILE --db URL`` writes a backup into an empty store (SQLite: a new or empty file that no service
holds; PostgreSQL: ``pg_restore`` into the backup's schema) or, with ``--force``, over one; then it checks the restored
log as ``audit verify`` does and prints the verdict.

Exit status: 0 done (and the restored log clean), 1 refused, failed or not clean, 2 a usage error, 130 interrupted.
A PostgreSQL URL's password is never printed nor put on a command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from service.bootstrap import open_store
from service.cli import audit as audit_command
from service.store.audit import verify
from service.store.backup import BackupError, backup, hide, mask, restore
from service.store.persistence import DEFAULT_DB, PersistenceUrlError
from service.store.signing import SigningKeyError, load_public_key

INTERRUPTED = 130


def add_parser(commands: Any) -> None:
    """Register ``pokertable backup`` and ``pokertable restore``."""
    parser = commands.add_parser("backup", help="back the event store up into one file, while the service runs",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…"
                        "[?schema=NAME]")
    parser.add_argument("--to", type=Path, required=True, metavar="FILE", help="the backup file to write")
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")
    parser.set_defaults(run=run_backup)
    parser = commands.add_parser("restore", help="restore a backup into a new store and verify its log",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", type=Path, required=True, metavar="FILE",
                        help="a file written by 'pokertable backup'")
    parser.add_argument("--db", required=True, help="the store to write: sqlite:///FILE or postgresql://…"
                        "[?schema=NAME]")
    parser.add_argument("--force", action="store_true",
                        help="replace a store that is not empty (SQLite: the whole file; PostgreSQL: what the "
                        "backup holds in its schema)")
    parser.add_argument("--public-key", type=Path, action="append",
                        help="check the signed heads too (as 'audit verify --public-key'); once per key")
    parser.set_defaults(run=run_restore)


def run_backup(args: argparse.Namespace) -> int:
    """Write the backup; print its chain head (stdout) and what it holds (stderr)."""
    try:
        made = backup(args.db, args.to, force=args.force)
    except PersistenceUrlError as error:
        return _say(f"pokertable backup: {hide(str(error), args.db)}", 2)
    except BackupError as error:
        return _say(f"pokertable backup: {error}", 1)
    except KeyboardInterrupt:
        return _say("pokertable backup: interrupted; no backup written", INTERRUPTED)
    position, digest = made.head
    print(f"{position}:{digest.hex()}", flush=True)
    _say(f"pokertable backup: {mask(args.db)} -> {made.path} ({made.store}, {made.size:,} bytes): {made.events} "
         f"events, chain head at position {position}", 0)
    return 0


def run_restore(args: argparse.Namespace) -> int:
    """Restore the backup, then verify the restored log and print the verdict (stdout)."""
    try:
        return _restore(args)
    except KeyboardInterrupt:
        return _say("pokertable restore: interrupted (an SQLite file or a PostgreSQL schema is left as it was, or "
                    "holds the whole backup)", INTERRUPTED)


def _restore(args: argparse.Namespace) -> int:
    try:
        public_key = [load_public_key(path) for path in args.public_key] if args.public_key else None
        restored = restore(args.source, args.db, force=args.force)
    except (PersistenceUrlError, SigningKeyError) as error:
        return _say(f"pokertable restore: {hide(str(error), args.db)}", 2)
    except BackupError as error:
        return _say(f"pokertable restore: {error}", 1)
    schema = f" (schema {restored.schema})" if restored.schema else ""
    _say(f"pokertable restore: {args.source} ({restored.store}) restored into {mask(args.db)}{schema}; its log, "
         "checked as 'pokertable audit verify' does:", 0)
    try:
        with open_store(args.db, must_exist=True) as store:
            verdict = verify(store.app.recorder, public_key=public_key, mapper=store.app.mapper)
    except Exception as error:  # a restored store that cannot even be read is not verified: say why, masked
        return _say(f"pokertable restore: the restored log cannot be read: "
                    f"{hide(' '.join(str(error).split()), args.db)}", 1)
    return audit_command.report(verdict)


def _say(message: str, status: int) -> int:
    print(message, file=sys.stderr, flush=True)
    return status
