"""Issue 29, item 5 — the log can be verified without pokertable's code: ``tools/verifier/verify_log.py``, written
from docs/audit-format.md alone by someone who never read the service, agrees with ``audit verify`` on every tamper
case of the attack tests, on SQLite and PostgreSQL stores the service wrote (R-AUD-1).

Each case builds a store with the application (and its signer), tampers with it as the attack tests do, then runs
both verifiers and compares their verdicts field by field: clean or not, the finding's kind and position, the events
walked, the heads met, the position signed up to and the tail not yet vouched for.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.app.application import PokerTables
from service.app.commands import OpenTable, Sit
from service.store.audit import Verdict, verify
from service.store.heads import KeyAnnouncement
from service.store.persistence import environment
from service.store.signer import HeadSigner
from service.store.signing import SignedHead, fingerprint, head_message, public_pem
from tests.support.audit_tampering import TAMPERING, Store, _drop_guards, _forged_chips, _insert_at, append, rechain
from tests.support.stores import POSTGRES_URL, postgres_store

VERIFIER = Path(__file__).parents[2] / "tools" / "verifier" / "verify_log.py"


@dataclass
class Case:
    """A store the service wrote (and someone tampered with), and the keys a verifier is given."""

    store: Store
    keys: list[Ed25519PrivateKey]


def _signed(store: Store, key: Ed25519PrivateKey) -> tuple[PokerTables, HeadSigner]:
    app = PokerTables(env=store.env)
    signer = HeadSigner(app, key, 10, writer="mesa-1:50051")
    signer.start()
    return app, signer


def _sit(app: PokerTables, *seats: int) -> None:
    for seat in seats:
        app.handle(Sit(f"sit-{seat}", "Mesa A", seat, 200))


def _clean(store: Store) -> list[Ed25519PrivateKey]:
    return []


def _tampered(kind: str, position: int) -> Callable[[Store], list[Ed25519PrivateKey]]:
    def tamper(store: Store) -> list[Ed25519PrivateKey]:
        TAMPERING[kind][0](store, position)
        return []
    return tamper


def _unlinked(store: Store) -> list[Ed25519PrivateKey]:
    (last,) = store.execute("SELECT MAX(notification_id) FROM stored_events")[0]
    _insert_at(store, int(last) + 1, _forged_chips(store, 100_000))
    return []


def _below_one(store: Store) -> list[Ed25519PrivateKey]:
    forged = _forged_chips(store, 100_000)
    _drop_guards(store)
    _insert_at(store, 0, forged)
    return []


def _signed_clean(store: Store) -> list[Ed25519PrivateKey]:
    key = Ed25519PrivateKey.generate()
    app, signer = _signed(store, key)
    _sit(app, 4, 5, 6, 7, 8)
    signer.stop()
    return [key]


def _appended_after_the_stop(store: Store) -> list[Ed25519PrivateKey]:
    keys = _signed_clean(store)
    append(store, _forged_chips(store, 100_000))
    return keys


def _forged_while_running(store: Store) -> list[Ed25519PrivateKey]:
    key = Ed25519PrivateKey.generate()
    app, signer = _signed(store, key)
    _sit(app, 4)
    append(store, _forged_chips(store, 100_000))  # the database writable: chips at Mesa A, a correct link
    app.handle(OpenTable("c-open", "Mesa C", app.table("Mesa A").settings))  # the service goes on writing
    signer.stop()
    return [key]


def _forged_head(store: Store) -> list[Ed25519PrivateKey]:
    keys = _signed_clean(store)
    app = PokerTables(env=store.env)
    position, digest = app.recorder.head()  # type: ignore[attr-defined]
    intruder = Ed25519PrivateKey.generate()
    fake = SignedHead(position=position, chain_hash=digest.hex(), reason="10 events",
                      signature=intruder.sign(head_message(position, digest)).hex(),
                      key=fingerprint(keys[0].public_key()))
    append(store, app.mapper.to_stored_event(fake.collect_events()[0]))
    return keys


def _rewritten(store: Store) -> list[Ed25519PrivateKey]:
    keys = _signed_clean(store)
    (state, position) = store.execute("SELECT state, notification_id FROM stored_events WHERE topic LIKE "
                                      "'%%Table.PlayerSeated' ORDER BY notification_id LIMIT 1")[0]
    store.execute("UPDATE stored_events SET state = %s WHERE notification_id = %s",
                  bytes(state).replace(b"500", b"900"), position)
    rechain(store, position)
    return keys


def _rotated(store: Store) -> list[Ed25519PrivateKey]:
    first = Ed25519PrivateKey.generate()
    app, signer = _signed(store, first)
    _sit(app, 4)
    signer.rotate(Ed25519PrivateKey.generate())
    _sit(app, 5)
    signer.rotate(Ed25519PrivateKey.generate())
    _sit(app, 6)
    signer.stop()
    return [first]  # the first key alone: the others are handed on by the log


def _forged_announcement(store: Store) -> list[Ed25519PrivateKey]:
    keys = _signed_clean(store)
    intruder = Ed25519PrivateKey.generate()
    announcement = KeyAnnouncement.sign(intruder, fingerprint(keys[0].public_key()), intruder.public_key(),
                                        position=1, retires=False, reason="rotation")
    append(store, PokerTables(env=store.env).mapper.to_stored_event(announcement.collect_events()[0]))
    return keys


def _unvouched(store: Store) -> list[Ed25519PrivateKey]:
    key = Ed25519PrivateKey.generate()
    app, _ = _signed(store, key)
    _sit(app, 4, 5)  # then killed: no stop head, and its journal lost
    _, signer = _signed(store, key)
    signer.stop()
    return [key]


CASES: dict[str, Callable[[Store], list[Ed25519PrivateKey]]] = {
    "clean": _clean,
    "altered": _tampered("altered", 7),
    "altered-hand": _tampered("altered", 13),
    "removed": _tampered("removed", 13),
    "removed-with-its-link": _tampered("removed-with-its-link", 13),
    "reordered": _tampered("reordered", 10),
    "inserted-without-link": _unlinked,
    "inserted-below-one": _below_one,
    "signed-clean": _signed_clean,
    "appended-after-the-stop": _appended_after_the_stop,
    "forged-while-running": _forged_while_running,
    "forged-head": _forged_head,
    "rewritten": _rewritten,
    "rotated-twice": _rotated,
    "forged-announcement": _forged_announcement,
    "unvouched": _unvouched,
}


@pytest.fixture(params=["sqlite", "postgres"])
def kind(request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param


def _ours(verdict: Verdict, keys: bool) -> dict[str, Any]:
    finding = verdict.finding
    return {"clean": verdict.clean, "kind": finding.kind if finding else None,
            "position": finding.position if finding else None, "events": verdict.events,
            "signed_heads": verdict.signed_heads, "signed": verdict.signed,
            "tail": list(verdict.tail[:2]) if verdict.tail else None,
            "unvouched": list(verdict.unvouched) if verdict.unvouched else None,
            "unattended": list(verdict.unattended) if verdict.unattended and keys else None}


def _theirs(store: Store, keys: list[Ed25519PrivateKey], tmp_path: Path) -> tuple[int, dict[str, Any]]:
    where = ["--sqlite", store.env["SQLITE_DBNAME"]] if store.sqlite else \
        ["--postgres", POSTGRES_URL, "--schema", store.env["POSTGRES_SCHEMA"]]
    pems = []
    for number, key in enumerate(keys):
        pem = tmp_path / f"key-{number}.pem"
        pem.write_text(public_pem(key), encoding="utf-8")
        pems += ["--public-key", str(pem)]
    done = subprocess.run([sys.executable, str(VERIFIER), *where, *pems], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("case", list(CASES))
def test_r_aud_1_the_independent_verifier_agrees_with_audit_verify(kind: str, case: str, tmp_path: Path) -> None:
    store = Store(environment(f"sqlite:///{tmp_path / 'tables.db'}") if kind == "sqlite" else postgres_store())
    keys = CASES[case](store)
    app = PokerTables(env=store.env)
    verdict = verify(app.recorder, public_key=[key.public_key() for key in keys] or None, mapper=app.mapper)
    status, theirs = _theirs(store, keys, tmp_path)
    ours = _ours(verdict, bool(keys))
    assert {name: theirs.get(name) for name in ours} == ours
    assert status == (0 if verdict.clean else 1)
    clean = ("clean", "signed-clean", "appended-after-the-stop", "rotated-twice", "unvouched")
    assert verdict.clean == (case in clean), verdict  # each case is the attack it names
