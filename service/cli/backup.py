"""``pokertable backup`` and ``pokertable restore``: the event store with its hash chain and signed heads in one file,
and back again (issue 17, item 6; docs/ops/backup.md; R-AUD-1).

``backup --db URL --to FILE`` copies the store while the service runs (SQLite: the online backup API from a read-only
connection, no claim on the file; PostgreSQL: ``pg_dump -Fc`` of the URL's schema) and prints the backup's chain
head, ``POSITION:HASH``, on standard output: keep it with the file; ``audit verify --head`` proves later that a
restored store is that backup.

``restore --from FILE --db URL`` writes a backup into an empty store (SQLite: a new or empty file that no service
holds; PostgreSQL: ``pg_restore`` into the backup's schema) or, with ``--force``, over one; then it checks the restored
log as ``audit verify`` does and prints the verdict.

The store's URL and password are read as ``pokertable serve`` reads them (:mod:`service.cli.settings`): ``--db``, else
``POKERTABLE_DB``, else the configuration file's ``db`` (``--config`` or ``POKERTABLE_CONFIG``); a PostgreSQL
password from ``POKERTABLE_DB_PASSWORD`` or the file ``--db-password-file`` (or ``db_password_file``) names, so that
it is never on a command line. It is never printed either, and reaches ``pg_dump`` and ``pg_restore`` in their
environment only.

Exit status: 0 done (and the restored log clean), 1 refused, failed or not clean, 2 a usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.bootstrap import open_store
from service.cli import audit as audit_command
from service.cli.settings import Settings, SettingsError, read_file, settings
from service.store.audit import verify
from service.store.backup import backup, read, restore
from service.store.backup_end import end_problem, signature_problem, unsigned
from service.store.backup_files import BackupError, hide
from service.store.keyring import load_keyring
from service.store.persistence import PersistenceUrlError, masked_url
from service.store.signing import KEY_FILE_NAME, SigningKeyError, fingerprint, load_signing_key

INTERRUPTED = 130


def add_parser(commands: Any) -> None:
    """Register ``pokertable backup`` and ``pokertable restore``."""
    parser = commands.add_parser("backup", help="back the event store up into one file, while the service runs",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="sqlite:///FILE or postgresql://USER@HOST/DB[?schema=NAME] (default: the "
                        "service's, from POKERTABLE_DB or the configuration file; else sqlite:///pokertable.db)")
    parser.add_argument("--to", type=Path, required=True, metavar="FILE", help="the backup file to write")
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")
    parser.add_argument("--signing-key", type=Path, metavar="FILE",
                        help="sign the backup's end with this key (default: the service's, signing.key beside its "
                        "configuration file, when there is one; without a key the end is recorded unsigned)")
    _add_settings(parser)
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
                        help="check the signed heads and the backup's signed end too (as 'audit verify "
                        "--public-key': keys trusted from outside; a file may hold several)")
    parser.add_argument("--accept-unsigned-end", action="store_true",
                        help="with --public-key: accept a backup whose end is not signed (made without the service's "
                        "key, or before issue 29), which nothing then proves was not extended")
    _add_settings(parser)
    parser.set_defaults(run=run_restore)


def _add_settings(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="the service's configuration file (default POKERTABLE_CONFIG): "
                        "its [service] db and db_password_file")
    parser.add_argument("--db-password-file", type=Path, metavar="FILE",
                        help="a file holding the PostgreSQL password, its first line (or POKERTABLE_DB_PASSWORD); "
                        "never the password on the command line")


def _store_url(args: argparse.Namespace) -> str:
    """The store's URL with its password, as ``pokertable serve`` reads them (:class:`SettingsError`)."""
    url: str = _settings(args).db
    return url


def _settings(args: argparse.Namespace) -> Settings:
    path = _config(args)
    return settings({"db": args.db, "db_password_file": args.db_password_file}, os.environ,
                    read_file(path) if path else {}, path)


def _config(args: argparse.Namespace) -> Path | None:
    return args.config or (Path(os.environ["POKERTABLE_CONFIG"]) if os.environ.get("POKERTABLE_CONFIG") else None)


def _signing_key(args: argparse.Namespace) -> Ed25519PrivateKey | None:
    """The key that signs the backup's end: ``--signing-key``, else the service's (its setting, else beside its
    configuration file) when there is one (:class:`SigningKeyError` if it cannot be used)."""
    if args.signing_key is not None:
        return load_signing_key(args.signing_key)
    config = _config(args)
    if config is None:
        return None
    chosen = _settings(args).values.get("signing_key") or config.parent / KEY_FILE_NAME
    return load_signing_key(Path(chosen)) if Path(chosen).exists() else None


def run_backup(args: argparse.Namespace) -> int:
    """Write the backup; print its chain head (stdout) and what it holds (stderr)."""
    url = args.db or ""
    try:
        url = _store_url(args)
        made = backup(url, args.to, force=args.force, key=_signing_key(args))
    except (PersistenceUrlError, SettingsError, SigningKeyError) as error:
        return _say(f"pokertable backup: {_hidden(error, args, url)}", 2)
    except BackupError as error:
        return _say(f"pokertable backup: {error}", 1)
    except KeyboardInterrupt:
        return _say("pokertable backup: interrupted; no backup written", INTERRUPTED)
    position, digest = made.head
    print(f"{position}:{digest.hex()}", flush=True)
    _say(f"pokertable backup: {masked_url(url)} -> {made.path} ({made.store}, {made.size:,} bytes): {made.events} "
         f"events, chain head at position {position}; its end "
         f"{'signed' if made.signed else 'NOT signed (no --signing-key and no service key found)'}", 0)
    return 0


def run_restore(args: argparse.Namespace) -> int:
    """Restore the backup, then verify the restored log and print the verdict (stdout)."""
    try:
        return _restore(args)
    except KeyboardInterrupt:
        return _say("pokertable restore: interrupted (an SQLite file or a PostgreSQL schema is left as it was, or "
                    "holds the whole backup)", INTERRUPTED)


def _restore(args: argparse.Namespace) -> int:
    url = args.db
    try:
        url = _store_url(args)
        public_key = [key for path in args.public_key for key in load_keyring(path)] if args.public_key else None
    except (PersistenceUrlError, SettingsError, SigningKeyError) as error:
        return _say(f"pokertable restore: {_hidden(error, args, url)}", 2)
    with tempfile.TemporaryDirectory(prefix="pokertable-restore-") as scratch:
        try:
            contents = read(args.source, Path(scratch) / "store")
            end = contents.end if contents is not None else None
            if public_key is not None and not args.accept_unsigned_end and (missing := unsigned(end)) is not None:
                raise BackupError(f"{missing}; nothing restored (--accept-unsigned-end to restore it anyway)")
            anchors = {fingerprint(key): key for key in public_key or ()}
            if end is not None and end.key in anchors and contents is not None and \
                    (problem := signature_problem(end, contents.store, anchors)) is not None:
                raise BackupError(f"{problem}; nothing restored (R-AUD-1)")
            restored = restore(Path(scratch) / "store" if contents is not None else args.source, url,
                               force=args.force)
        except (PersistenceUrlError, SettingsError) as error:
            return _say(f"pokertable restore: {_hidden(error, args, url)}", 2)
        except BackupError as error:
            return _say(f"pokertable restore: {error}", 1)
    schema = f" (schema {restored.schema})" if restored.schema else ""
    _say(f"pokertable restore: {args.source} ({restored.store}) restored into {masked_url(url)}{schema}; its log, "
         "checked as 'pokertable audit verify' does:", 0)
    try:
        with open_store(url, must_exist=True) as store:
            verdict = verify(store.app.recorder, public_key=public_key, mapper=store.app.mapper)
    except Exception as error:  # a restored store that cannot even be read is not verified: say why, masked
        return _say(f"pokertable restore: the restored log cannot be read: {_hidden(error, args, url)}", 1)
    status = audit_command.report(verdict)
    if status != 0 or end is None or contents is None:
        return status
    problem = end_problem(end, contents.store, verdict.head, verdict.trusted if public_key is not None else None)
    if problem is not None:
        print(f"TAMPERED (backup end): {problem} (R-AUD-1): do not serve this store")
        return 1
    print(f"backup end: the log ends at position {end.position} as the backup's end says"
          f"{f', signed with key {end.key}' if end.signed and public_key is not None else ''}"
          f"{'' if public_key is not None else ' (its signature not checked: give --public-key)'}")
    return 0


def _hidden(error: Exception, args: argparse.Namespace, url: str) -> str:
    """An error's message on one line, with the password of the URL given and of the URL used masked."""
    text = " ".join(str(error).split())
    for given in {args.db or "", url} - {""}:
        text = hide(text, given)
    return text


def _say(message: str, status: int) -> int:
    print(message, file=sys.stderr, flush=True)
    return status
