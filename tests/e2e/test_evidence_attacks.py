"""Issue 29 — the evidence attacked and operated as a casino's adversary and its own staff would (R-AUD-1, R-HOLD-1).

- audits every two seconds while eight stations play, on SQLite and on PostgreSQL with two instances each with its
  own key: never a false finding, never a hold;
- an event forged into the database while the service runs, with a correct link, then SIGTERM: ``audit verify``
  names it ``forged``, and the restarted service holds play;
- the signing key rotated twice during play (SIGHUP), then a restart: no alarm, no hold, the log verifies from the
  first key alone;
- a key announcement signed by no trusted key: caught, and play is held.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import signal
import subprocess
import tarfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import grpc
import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.cards.decks import BackColour, DeckIdentity
from domain.errors import RuleError
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.app.commands import Sit, StartHand
from service.store import backup_end
from service.store.audit import verify
from service.store.heads import KeyAnnouncement
from service.store.keyring import load_keyring, trust_key
from service.store.persistence import environment
from service.store.signer import HeadSigner
from service.store.signing import fingerprint, load_or_create_signing_key, load_signing_key, public_pem
from tests.support.audit_tampering import Store, _forged_chips, append
from tests.support.evidence_service import PIT, STATIONS, Service, _until
from tests.support.grpc_support import rule_of
from tests.support.serve_process import SCRIPT
from tests.support.stores import POSTGRES_URL, postgres_store

STATIONS_AT_TABLES = 8


class Stations:
    """Eight stations, a table each, seating players and adding chips as fast as their service answers."""

    def __init__(self, services: list[Service]) -> None:
        self.services, self.stop, self.acknowledged = services, threading.Event(), 0
        self.failures: list[str] = []
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._play, args=(number,)) for number in range(STATIONS_AT_TABLES)]

    def __enter__(self) -> Stations:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)

    def play(self, commands: int) -> None:
        """Wait until ``commands`` more commands are acknowledged (or a station fails)."""
        target = self.acknowledged + commands
        _until(lambda: self.acknowledged >= target or bool(self.failures), f"{commands} commands played")

    def _play(self, number: int) -> None:
        stub = self.services[number % len(self.services)].stub
        table = f"Mesa {number + 1}"
        settings = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2], no_burns=True)
        try:
            stub.OpenTable(svc.OpenTableRequest(command_id=f"open-{table}", table=table, game=pb.GAME_HOLDEM,
                                                circle=settings), metadata=PIT, timeout=10)
            for seat in (1, 2):
                stub.SeatPlayer(svc.SeatPlayerRequest(command_id=f"sit-{table}-{seat}", table=table, seat=seat,
                                                      chips=100), metadata=PIT, timeout=10)
            while not self.stop.is_set():
                stub.AddChips(svc.AddChipsRequest(command_id=uuid.uuid4().hex, table=table, seat=1, chips=1),
                              metadata=PIT, timeout=10)
                with self._lock:
                    self.acknowledged += 1
        except grpc.RpcError as error:
            self.failures.append(f"{table}: {error.code()} {error.details()}")


def _verify(url: str, keys: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCRIPT, "audit", "verify", "--db", url, "--public-key", str(keys)], capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, int]]:
    """A store's URL and how many instances serve it: one on SQLite (its sole writer), two on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'tables.db'}", 1
        return
    schema = postgres_store()["POSTGRES_SCHEMA"]
    yield f"{POSTGRES_URL}?schema={schema}", 2
    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        conn.execute(f"drop schema {schema} cascade")


def test_r_aud_1_audits_every_two_seconds_during_play_find_nothing(database: tuple[str, int],
                                                                   tmp_path: Path) -> None:
    url, instances = database
    config = tmp_path / "stations.toml"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    keyring = tmp_path / "trusted-keys.pem"
    keys = [tmp_path / f"instance-{number}.key" for number in range(instances)]
    for path in keys:  # each instance its own key, both trusted by the administrator beforehand
        trust_key(keyring, load_or_create_signing_key(path)[0].public_key())
    services = [Service(url, config, "--audit-every", "2", "--sign-every", "40", "--signing-key", str(path),
                        "--instance", path.stem) for path in keys]
    verdicts: list[subprocess.CompletedProcess[str]] = []
    try:
        with Stations(services) as stations:
            deadline = time.monotonic() + 180
            # the live log checked from outside, one check after the other, while every service has checked it
            # itself at least three times (at its start, then every two seconds)
            while len(verdicts) < 3 or min(service.said("audit: the log is intact") for service in services) < 3:
                assert time.monotonic() < deadline, "fewer than three audits of each kind in three minutes"
                verdicts.append(_verify(url, keyring))
            played = stations.acknowledged
        assert not stations.failures
    finally:
        errors = [service.stop() for service in services]
    assert played > 100 and len(verdicts) >= 3
    for verdict in verdicts:  # every audit of the live log: clean
        assert verdict.returncode == 0 and verdict.stdout.startswith("clean: "), verdict.stdout + verdict.stderr
    for said in errors:
        assert "TAMPERING" not in said
        assert said.count("audit: the log is intact") >= 3  # the service's own audits ran, and found nothing
    final = _verify(url, keyring)
    assert final.returncode == 0 and "unsigned tail: none" in final.stdout, final.stdout
    assert f"trusted keys: {instances}" in final.stdout
    app = PokerTables(env=environment(url))
    assert app.audit.audit_findings() is None  # nothing recorded, so nothing held
    # issue 29, item 4: whichever instance wrote them, the events' times never go backwards in log order
    times, start = [], 1
    while page := app.recorder.select_notifications(start, 1000):
        times += [cast(Any, app.mapper.to_domain_event(notification)).timestamp for notification in page]
        start = page[-1].id + 1
    assert len(times) > played and all(later >= earlier for earlier, later in itertools.pairwise(times))


def test_r_aud_1_an_event_forged_while_the_service_runs_is_named_and_then_held(tmp_path: Path) -> None:
    db, config = tmp_path / "tables.db", tmp_path / "stations.toml"
    url = f"sqlite:///{db}"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    store = Store(environment(url))  # Mesa A played (two hands), and raw access to the file
    service = Service(url, config)
    service.stub.AddChips(svc.AddChipsRequest(command_id="before", table="Mesa A", seat=1, chips=5), metadata=PIT,
                          timeout=10)
    forged = append(store, _forged_chips(store, 100_000))  # the database writable: a correct link, chips added
    settings = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2], no_burns=True)
    service.stub.OpenTable(svc.OpenTableRequest(command_id="after", table="Mesa B", game=pb.GAME_HOLDEM,
                                                circle=settings), metadata=PIT, timeout=10)  # it goes on writing
    assert "(service stop)" in service.stop()  # its stop head: what it wrote, and the forged event not among it
    verdict = _verify(url, tmp_path / "trusted-keys.pem")
    assert verdict.returncode == 1, verdict.stdout
    assert verdict.stdout.startswith(f"TAMPERED (forged): position {forged}: written by no service"), verdict.stdout
    restarted = Service(url, config)  # its audit at start finds it, and every table is held (R-HOLD-1)
    try:
        deadline = time.monotonic() + 30
        while not restarted.holds("Mesa A"):
            assert time.monotonic() < deadline, "the forged event held nothing"
            time.sleep(0.1)
        with pytest.raises(grpc.RpcError) as refused:
            restarted.stub.StartHand(svc.StartHandRequest(command_id="hand-1", table="Mesa A",
                                                          deck_colour=pb.DECK_COLOUR_RED), metadata=PIT,
                                     timeout=10)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert rule_of(refused.value) == "R-HOLD-1"
    finally:
        restarted.stop()


def test_r_aud_1_rotating_the_key_twice_during_play_raises_no_alarm(tmp_path: Path) -> None:
    db, config = tmp_path / "tables.db", tmp_path / "stations.toml"
    url = f"sqlite:///{db}"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    service = Service(url, config, "--audit-every", "1", "--sign-every", "40")
    first = tmp_path / "first-key.pem"  # what the regulator was given: the first key, and nothing since
    first.write_text(public_pem(load_signing_key(tmp_path / "signing.key")), encoding="utf-8")
    try:
        with Stations([service]) as stations:  # each key signs heads during play (a head every 40 events)
            stations.play(200)
            for rotation in (1, 2):
                service.process.send_signal(signal.SIGHUP)
                _until(lambda: service.said("rotated its signing key") >= rotation,  # noqa: B023 (waited on here)
                       f"rotation {rotation}")
                stations.play(200)
                audits = service.said("audit: the log is intact")  # and the service audits them: a whole audit
                _until(lambda: service.said("audit: the log is intact") >= audits + 2,  # noqa: B023 (here too)
                       f"an audit after rotation {rotation}")
        assert not stations.failures and stations.acknowledged > 50
    finally:
        said = service.stop()
    assert said.count("rotated its signing key") == 2 and "TAMPERING" not in said
    assert fingerprint(load_signing_key(tmp_path / "signing.key").public_key()) != fingerprint(
        load_keyring(first)[0])
    restarted = Service(url, config, "--audit-every", "1")
    try:  # audits at start and after: nothing found
        _until(lambda: restarted.said("audit: the log is intact") >= 2 or restarted.said("TAMPERING") > 0,
               "two audits of the restarted service")
        assert not restarted.holds("Mesa 1")
    finally:
        said = restarted.stop()
    assert "TAMPERING" not in said
    verdict = _verify(url, first)
    assert verdict.returncode == 0, verdict.stdout
    assert "trusted keys: 3" in verdict.stdout and "unsigned tail: none" in verdict.stdout
    assert PokerTables(env=environment(url)).audit.audit_findings() is None


@pytest.mark.parametrize("forger", ["another key", "the service's name, a wrong signature"])
def test_r_aud_1_a_forged_key_announcement_is_caught_and_holds_play(tmp_path: Path, forger: str) -> None:
    store = Store(environment(f"sqlite:///{tmp_path / 'tables.db'}"))  # Mesa A played
    app = PokerTables(env=store.env)
    key = Ed25519PrivateKey.generate()
    signer = HeadSigner(app, key)
    signer.start()
    app.handle(Sit("late", "Mesa A", 4, 200))
    signer.sign("end of hands")
    intruder, theirs = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    name = fingerprint(intruder.public_key()) if forger == "another key" else signer.fingerprint
    announcement = KeyAnnouncement.sign(intruder, name, theirs.public_key(), position=1, retires=False,
                                        reason="rotation")
    at = append(store, app.mapper.to_stored_event(announcement.collect_events()[0]))
    verdict = PokerTables(env=store.env).audit.audit_log(public_key=key.public_key())
    assert verdict.finding is not None and (verdict.finding.kind, verdict.finding.position) == ("signature", at)
    with contextlib.suppress(Exception):
        signer.stop()
    again = PokerTables(env=store.env)
    with pytest.raises(RuleError) as held:
        again.handle(StartHand("after", "Mesa A", DeckIdentity(52, BackColour.RED)))
    assert held.value.rule == "R-HOLD-1"


@pytest.mark.parametrize("journal_kept", [True, False])
def test_r_aud_1_an_instance_stopped_uncleanly_claims_its_writes_from_its_journal(tmp_path: Path,
                                                                                  journal_kept: bool) -> None:
    """A service killed between two heads (no stop head): restarted with its journal it claims what it wrote, and the
    log verifies clean; with the journal lost (the machine's power), those events are reported unvouched, never
    forged."""
    store = Store(environment(f"sqlite:///{tmp_path / 'tables.db'}"))  # Mesa A played
    key, journal = Ed25519PrivateKey.generate(), tmp_path / "signing.key.journal"
    killed = HeadSigner(PokerTables(env=store.env), key, writer="mesa:50051", journal=journal)
    killed.start()
    for seat in (4, 5, 6):
        killed.app.handle(Sit(f"late-{seat}", "Mesa A", seat, 200))  # type: ignore[attr-defined]
    written = killed.writes.written().positions
    assert len(written) >= 3 and journal.read_text(encoding="ascii").startswith("since ")
    # killed here: no stop head; the process's memory is gone, the journal stays (or not)
    if not journal_kept:
        journal.unlink()
    restarted = HeadSigner(PokerTables(env=store.env), key, writer="mesa:50051", journal=journal)
    restarted.start()
    restarted.stop()
    verdict = verify(restarted.app.recorder, public_key=key.public_key(), mapper=restarted.app.mapper)
    assert verdict.clean and verdict.tail is None
    if journal_kept:
        assert verdict.unvouched is None
    else:
        # what it wrote after its start head (which its own signature vouches for): given up, named, not forged
        first = written.first()
        assert first is not None and verdict.unvouched == (first + 1, len(written) - 1)


def _rewrapped(backup: Path, store: Path, into: Path, *, digest: bool) -> Path:
    """The backup ``backup`` with its store replaced by ``store``: its manifest as it was, or (``digest``) with the
    store's new SHA-256 written into it, as an attacker who knows the format would."""
    with tarfile.open(backup) as tar:
        member = tar.extractfile(backup_end.MANIFEST)
        assert member is not None
        manifest = json.loads(member.read())
    if digest:
        manifest["end"]["store_sha256"] = backup_end.sha256_of(store).hex()
    data = json.dumps(manifest).encode()
    with tarfile.open(into, "w") as tar:
        info = tarfile.TarInfo(backup_end.MANIFEST)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        tar.add(str(store), manifest["member"])
    return into


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_r_aud_1_forged_events_appended_to_a_backup_are_refused_at_restore(tmp_path: Path, kind: str) -> None:
    """A backup carries its signed end: events appended to the store inside it (the digest left, or recomputed), or
    the end stripped off, and ``restore --public-key`` refuses, restoring nothing; the backup as written restores
    and says its log ends where its end says."""
    key_file, public = tmp_path / "signing.key", tmp_path / "public.pem"
    public.write_text(public_pem(load_or_create_signing_key(key_file)[0]), encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'live.db'}" if kind == "sqlite" else \
        f"{POSTGRES_URL}?schema={postgres_store()['POSTGRES_SCHEMA']}"
    schema = url.partition("?schema=")[2]
    try:
        Store(environment(url))  # Mesa A played
        backup = tmp_path / "tables.backup"
        made = subprocess.run([SCRIPT, "backup", "--db", url, "--to", str(backup), "--signing-key", str(key_file)],
                              capture_output=True, text=True, timeout=120, check=False)
        assert made.returncode == 0 and "its end signed" in made.stderr, made.stderr
        head = made.stdout.strip()
        # the attacker's copy of the store, with forged chips appended and the chain recomputed
        with tarfile.open(backup) as tar:
            tar.extractall(tmp_path / "opened", filter="data")
        member = next((tmp_path / "opened").glob("store.*"))
        if kind == "sqlite":
            forged_store = Store.__new__(Store)
            forged_store.env, forged_store.table, forged_store.sqlite = (
                environment(f"sqlite:///{member}"), "stored_events", True)
            append(forged_store, _forged_chips(forged_store, 100_000))
        else:  # appended in the live schema, dumped again: what pg_dump writes of a longer log
            live = Store.__new__(Store)
            live.env, live.table, live.sqlite = environment(url), "pokertable_events", False
            append(live, _forged_chips(live, 100_000))
            subprocess.run(["pg_dump", "--format=custom", f"--schema={schema}", f"--file={member}",
                            f"--dbname={POSTGRES_URL}"], check=True, timeout=120)
        attacks = {
            "digest left": _rewrapped(backup, member, tmp_path / "left.backup", digest=False),
            "digest recomputed": _rewrapped(backup, member, tmp_path / "recomputed.backup", digest=True),
            "end stripped": member,  # the store alone, as a backup written before issue 29 is
        }
        if kind == "postgres":
            with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
                conn.execute(f"drop schema {schema} cascade")
        for attack, forged in attacks.items():
            target = f"sqlite:///{tmp_path / f'{attack}.db'}" if kind == "sqlite" else url
            done = subprocess.run([SCRIPT, "restore", "--from", str(forged), "--db", target, "--public-key",
                                   str(public)], capture_output=True, text=True, timeout=120, check=False)
            assert done.returncode == 1 and "nothing restored" in done.stderr, (attack, done.stdout, done.stderr)
            if kind == "sqlite":
                assert not (tmp_path / f"{attack}.db").exists(), attack
        restored = subprocess.run([SCRIPT, "restore", "--from", str(backup), "--db",
                                   f"sqlite:///{tmp_path / 'restored.db'}" if kind == "sqlite" else url,
                                   "--public-key", str(public)], capture_output=True, text=True, timeout=120,
                                  check=False)
        assert restored.returncode == 0, restored.stdout + restored.stderr
        assert f"backup end: the log ends at position {head.split(':')[0]}" in restored.stdout
    finally:
        if kind == "postgres":
            with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
                conn.execute(f"drop schema if exists {schema} cascade")
