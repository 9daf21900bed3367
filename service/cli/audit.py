"""``pokertable audit verify|head|key|sign``: check the tamper-evident event log and its signed heads (R-AUD-1).

``verify`` reads every stored event, from the lowest position there is, and recomputes the chain; it names the first
altered, removed, reordered or inserted event, with its position and the hand or table it belongs to, and exits 1; a
clean log exits 0. ``head`` prints the last position and its hash, to be kept somewhere else; ``verify --head
POSITION:HASH`` then also proves the log still leads to it (a rewritten chain would not).

``verify --public-key FILE`` also checks every head the service signed (``signature``: forged or another key;
``rewritten``: the log no longer leads to a signed head, though its chain was recomputed), and reports the *unsigned
tail*: the events after the last signed head, with the first of them named. ``key --signing-key FILE`` prints the
public key of the service's key, to hand to whoever verifies; ``sign --signing-key FILE`` signs the head of a store
that no service is writing (the service signs by itself: every ``--sign-every`` events, at a table's close and at
its stop).

The verdicts, the head and the key go to standard output; errors to standard error.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from service.bootstrap import open_store
from service.cli.conventions import OK, REFUSED, USAGE, fail
from service.store.audit import Verdict, verify
from service.store.keyring import KEYRING_NAME, keyring_path, load_keyring, trust_key
from service.store.persistence import DEFAULT_DB, PersistenceUrlError, StoreInUseError
from service.store.signer import HeadSigner
from service.store.signing import SigningKeyError, fingerprint, load_public_key, load_signing_key, public_pem


def add_parser(commands: Any) -> None:
    """Register ``pokertable audit``."""
    parser = commands.add_parser("audit", help="verify the tamper-evident event log", description=__doc__)
    parser.add_argument("action", choices=("verify", "head", "key", "sign", "trust"))
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    parser.add_argument("--head", help="a safekept head, POSITION:HASH (from 'pokertable audit head')")
    parser.add_argument("--public-key", type=Path, action="append",
                        help="verify: a key trusted from outside the log (from 'audit key'; a file may hold several, "
                        "as trusted-keys.pem does): the log's own announcements hand trust on from it; trust: the "
                        "public key to add to the keyring")
    parser.add_argument("--keyring", type=Path,
                        help=f"trust: the keyring to add it to (default {KEYRING_NAME} beside --signing-key)")
    parser.add_argument("--signing-key", type=Path, help="key, sign: the service's private key file")
    parser.add_argument("--reason", default="signed by hand", help="sign: why (e.g. 'end of shift')")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Verify the log, print its head or the public key, or sign the head."""
    try:
        if args.action == "key":
            print(public_pem(load_signing_key(_needed(args.signing_key))), end="")
            return 0
        if args.action == "trust":
            return _trust(args)
        public_key = [key for path in args.public_key for key in load_keyring(path)] if args.public_key else None
        expected = _expected_head(args.head)
        store = None if args.action == "sign" else open_store(args.db, must_exist=True)
    except (SigningKeyError, PersistenceUrlError, ValueError) as error:
        return fail("audit", error, USAGE)
    if args.action == "sign":
        return _sign(args)
    assert store is not None
    with store:
        verdict = verify(store.app.recorder, expected, public_key=public_key, mapper=store.app.mapper)
    if args.action == "head":
        position, digest = verdict.head
        print(f"{position}:{digest.hex()}")
        if verdict.finding is not None:
            return fail("audit", f"the log is intact only up to that head: TAMPERED ({verdict.finding.kind}): "
                        f"{verdict.finding.message}", REFUSED)
        return OK if verdict.clean else REFUSED
    return report(verdict)


def report(verdict: Verdict) -> int:
    """Print a verdict as ``verify`` does (also after ``pokertable restore``): 0 when clean, 1 when not."""
    position, digest = verdict.head
    if verdict.finding is None:
        print(f"clean: {verdict.events} events, chain head {position}:{digest.hex()}")
        _report_signatures(verdict)
        return 0
    print(f"TAMPERED ({verdict.finding.kind}): {verdict.finding.message}")
    print(f"the first bad position is {verdict.finding.position}: nothing good is said of the log from there on")
    return REFUSED


def _needed(path: Path | None) -> Path:
    if path is None:
        raise ValueError("--signing-key FILE is needed (the service's key: signing.key beside its stations file)")
    return path


def _expected_head(text: str | None) -> tuple[int, bytes] | None:
    if not text:
        return None
    position, _, digest = text.partition(":")
    try:
        return int(position), bytes.fromhex(digest)
    except ValueError:
        raise ValueError("--head is POSITION:HASH, as 'pokertable audit head' prints it") from None


def _report_signatures(verdict: Verdict) -> None:
    if not verdict.checked:
        if verdict.signed_heads:
            print(f"signed heads: {verdict.signed_heads}, not checked: give --public-key FILE")
        return
    if verdict.signed:
        print(f"signed heads: {verdict.signed_heads}, every one valid; the log is signed up to position "
              f"{verdict.signed}")
    else:
        print("signed heads: none with this key")
    print(f"trusted keys: {verdict.keys} (given, and handed on by the log's announcements)")
    if verdict.tail is None:
        print("unsigned tail: none (every event is covered by a signed head)")
    else:
        first, count, what = verdict.tail
        print(f"unsigned tail: {count} events from position {first} ({what}): chained, not yet vouched for by a "
              "signed head (a running service's latest, or one stopped uncleanly)")
    if verdict.unvouched is not None:
        first, count = verdict.unvouched
        print(f"unvouched: {count} events from position {first}: a service restarted without its journal gave "
              "them up (an unclean stop); chained, not vouched for")
    if verdict.unattended is not None:
        first, count = verdict.unattended
        print(f"unattended: {count} events from position {first} were stored while no service was signing "
              "(e.g. by 'pokertable audit sign' or a restore); chained, not vouched for")


def _trust(args: argparse.Namespace) -> int:
    """Add a public key to the keyring (the keys the service's audit starts from)."""
    if not args.public_key or len(args.public_key) != 1:
        return fail("audit", "trust takes one --public-key FILE (the instance's key, from 'audit key')", USAGE)
    keyring = args.keyring or (keyring_path(args.signing_key) if args.signing_key else None)
    if keyring is None:
        return fail("audit", "trust needs --keyring FILE or --signing-key FILE (the keyring beside it)", USAGE)
    try:
        key = load_public_key(args.public_key[0])
        added = trust_key(keyring, key)
    except (SigningKeyError, OSError) as error:
        return fail("audit", error, USAGE)
    print(f"{'trusted' if added else 'already trusted'}: {fingerprint(key)} in {keyring}")
    return OK


def _sign(args: argparse.Namespace) -> int:
    """Sign the head of a store no service is writing (on SQLite, claimed as its sole writer meanwhile)."""
    try:
        key = load_signing_key(_needed(args.signing_key))
        store = open_store(args.db, writer=True, must_exist=True)
    except (SigningKeyError, StoreInUseError, PersistenceUrlError, ValueError) as error:
        return fail("audit", error, USAGE)
    with store:
        signed = HeadSigner(store.app, key).attest(args.reason)  # not twice: the last head this key signed is found
    if signed is None:
        print("nothing to sign: the head is already signed")
    else:
        print(f"signed the chain head at position {signed.position} ({args.reason})")
    return OK
