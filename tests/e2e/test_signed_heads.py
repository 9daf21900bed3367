"""Signed chain heads (R-AUD-1, issue 13): the service signs the chain head with its Ed25519 key every N events, at a
table's close and at its stop; ``audit verify --public-key`` checks every signed head and names the unsigned tail.
Each attack the chain alone let through is performed: events appended after the last signed head with the chain
recomputed, a signed head forged, a stretch of the log rewritten and rechained."""

from __future__ import annotations

import itertools
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from eventsourcing.persistence import StoredEvent

from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.app.application import PokerTables
from service.app.commands import CloseTable, OpenTable, Sit
from service.cli.main import main
from service.grpc.server import Stations
from service.store.audit import Verdict, verify
from service.store.heads import WRITER_HEAD_TOPIC
from service.store.persistence import environment
from service.store.signer import HeadSigner
from service.store.signing import (
    SIGNED_HEAD_TOPIC,
    SignedHead,
    SigningKeyError,
    fingerprint,
    head_message,
    load_or_create_signing_key,
    load_signing_key,
    public_pem,
)
from tests.support.audit_tampering import PIT, Store, _drop_guards, _forged_chips, _insert_at, append, rechain
from tests.support.grpc_support import serving
from tests.support.stores import postgres_store

EVERY = 10


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield Store(environment(f"sqlite:///{tmp_path / 'signed.db'}") if request.param == "sqlite" else postgres_store())


def signed(store: Store, key: Ed25519PrivateKey) -> PokerTables:
    """The store's service with a head signer, a little more played at Mesa B and Mesa A closed (signed then)."""
    app = PokerTables(env=store.env)
    HeadSigner(app, key, EVERY).start()
    app.handle(OpenTable("b-open", "Mesa B", app.table("Mesa A").settings))
    for seat in range(1, 9):
        app.handle(Sit(f"b-sit-{seat}", "Mesa B", seat, 100))
    app.handle(CloseTable("a-close", "Mesa A"), PIT)
    return app


def signed_heads(app: PokerTables) -> list[Any]:
    """The signed-head events of the log, in order."""
    return [app.mapper.to_domain_event(n) for n in app.recorder.select_notifications(
        1, 10_000, topics=[SIGNED_HEAD_TOPIC, WRITER_HEAD_TOPIC])]


def check(app: PokerTables, key: Ed25519PrivateKey | None) -> Verdict:
    return verify(app.recorder, public_key=key.public_key() if key else None, mapper=app.mapper)


def test_r_aud_1_the_signing_key_is_made_owner_only_and_refused_when_open_to_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "signing.key"
    key, created = load_or_create_signing_key(path)
    assert created and stat.S_IMODE(path.stat().st_mode) == 0o600
    again, created = load_or_create_signing_key(path)
    assert not created and public_pem(again) == public_pem(key)
    assert main(["audit", "key", "--signing-key", str(path)]) == 0
    assert capsys.readouterr().out == public_pem(key)
    for mode in (0o640, 0o604, 0o620):
        path.chmod(mode)
        with pytest.raises(SigningKeyError, match="open to group or others"):
            load_or_create_signing_key(path)
    assert main(["audit", "key", "--signing-key", str(path)]) == 2
    refused = capsys.readouterr()
    assert "chmod 600" in refused.err and refused.out == ""  # an error: on stderr, nothing on stdout


def test_r_aud_1_heads_are_signed_every_n_events_and_when_a_table_closes(store: Store) -> None:
    key = Ed25519PrivateKey.generate()
    played = PokerTables(env=store.env)  # kept while read: closing it closes its connections
    before = played.recorder.max_notification_id() or 0  # 58 events, more than EVERY, unsigned
    app = signed(store, key)
    heads = signed_heads(app)
    covered = [before, *(head.position for head in heads)]
    assert all(later - earlier <= EVERY + 2 for earlier, later in itertools.pairwise(covered))  # a command: 2 events
    assert heads[-1].reason.startswith("table ") and heads[-1].reason.endswith(" closed")
    verdict = check(app, key)
    assert verdict.clean and verdict.signed_heads == len(heads) and verdict.tail is None
    assert verdict.signed == verdict.head[0] - 1  # the close's signature is the last event


def test_r_aud_1_events_appended_after_the_last_signed_head_are_the_named_unsigned_tail(store: Store) -> None:
    key = Ed25519PrivateKey.generate()
    app = signed(store, key)
    _drop_guards(store)  # nothing more is needed than the database password
    forged = append(store, _chips_at_mesa_b(store, 100_000))
    assert check(app, None).clean  # the chain alone: recomputed, so it checks
    verdict = check(app, key)
    assert verdict.clean and verdict.tail is not None
    assert verdict.tail[:2] == (forged, 1) and "Table.ChipsAdded" in verdict.tail[2]
    # a signed head to cover it cannot be made without the key
    intruder = Ed25519PrivateKey.generate()
    position, digest = app.recorder.head()  # type: ignore[attr-defined]
    fake = SignedHead(position=position, chain_hash=digest.hex(), reason=f"{EVERY} events",
                      signature=intruder.sign(head_message(position, digest)).hex(),
                      key=fingerprint(key.public_key()))  # it claims the service's key
    at = append(store, app.mapper.to_stored_event(fake.collect_events()[0]))
    verdict = check(app, key)
    assert verdict.finding is not None and (verdict.finding.kind, verdict.finding.position) == ("signature", at)
    assert "not valid under the given key" in verdict.finding.message


def _chips_at_mesa_b(store: Store, amount: int) -> StoredEvent:
    app = PokerTables(env=store.env)
    table = app.table("Mesa B")
    table.add_chips(1, amount)
    (event,) = table.collect_events()
    return app.mapper.to_stored_event(event)


def test_r_aud_1_a_stretch_rewritten_and_rechained_no_longer_leads_to_its_signed_head(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = Ed25519PrivateKey.generate()
    app = signed(store, key)
    (state, position) = store.execute("SELECT state, notification_id FROM stored_events WHERE topic LIKE "
                                      "'%%Table.PlayerSeated' ORDER BY notification_id LIMIT 1")[0]
    store.execute("UPDATE stored_events SET state = %s WHERE notification_id = %s",
                  bytes(state).replace(b"500", b"900"), position)
    rechain(store, position)
    assert check(app, None).clean  # the chain alone says clean: this was the hole
    verdict = check(app, key)
    first_signed = min(head.position for head in signed_heads(app) if head.position >= position)
    assert verdict.finding is not None
    assert (verdict.finding.kind, verdict.finding.position) == ("rewritten", first_signed)
    if store.sqlite:  # the command line says so, with the public key exported by 'audit key'
        public = tmp_path / "public.pem"
        public.write_text(public_pem(key), encoding="utf-8")
        url = f"sqlite:///{store.env['SQLITE_DBNAME']}"
        assert main(["audit", "verify", "--db", url]) == 0
        assert main(["audit", "verify", "--db", url, "--public-key", str(public)]) == 1
        assert capsys.readouterr().out.split("\n")[-3].startswith(f"TAMPERED (rewritten): the log up to position "
                                                                  f"{first_signed} was rewritten")


def test_r_aud_1_a_signed_log_with_an_unsigned_tail_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(environment(f"sqlite:///{tmp_path / 'cli.db'}"))
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    path = tmp_path / "signing.key"
    key, _ = load_or_create_signing_key(path)
    public = tmp_path / "public.pem"
    assert main(["audit", "key", "--signing-key", str(path)]) == 0
    public.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["audit", "sign", "--db", url, "--signing-key", str(path), "--reason", "end of shift"]) == 0
    assert capsys.readouterr().out.startswith("signed the chain head at position ")
    assert main(["audit", "sign", "--db", url, "--signing-key", str(path)]) == 0
    assert capsys.readouterr().out.startswith("nothing to sign")
    app = PokerTables(env=store.env)
    app.handle(Sit("late", "Mesa A", 4, 200))
    assert main(["audit", "verify", "--db", url, "--public-key", str(public)]) == 0
    out = capsys.readouterr().out
    assert "signed heads: 1, every one valid" in out
    assert "unsigned tail: 2 events from position " in out and "Table.PlayerSeated" in out
    assert load_signing_key(path).public_key() == key.public_key()


def test_r_aud_1_the_service_signs_at_its_stop_with_a_key_it_made_on_first_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "stations.toml"
    config.write_text('[stations.pit]\ntoken = "pit-boss-token-0123456789"\nrole = "pit-boss"\n', encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    db = tmp_path / "served.db"
    process = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--db", f"sqlite:///{db}", "--port", "0",
                                "--config", str(config), "--sign-every", "100"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "serving on" in line, process.stderr.read() if process.stderr else line
        stub: Any = svc_grpc.TableServiceStub(  # type: ignore[no-untyped-call]
            grpc.insecure_channel(f"127.0.0.1:{line.split(':')[1].split()[0]}"))
        pit = [("authorization", "Bearer pit-boss-token-0123456789")]
        settings = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2], no_burns=True)
        stub.OpenTable(svc.OpenTableRequest(command_id="open", table="Mesa 1", game=pb.GAME_HOLDEM, circle=settings),
                       metadata=pit, timeout=10)
        for seat in (1, 2, 3, 4):
            stub.SeatPlayer(svc.SeatPlayerRequest(command_id=f"sit-{seat}", table="Mesa 1", seat=seat, chips=100),
                            metadata=pit, timeout=10)
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "signed the chain head at position" in out and "(service stop)" in out
    key_file = tmp_path / "signing.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and "the new key" in err
    public = tmp_path / "public.pem"
    public.write_text(public_pem(load_signing_key(key_file)), encoding="utf-8")
    assert main(["audit", "verify", "--db", f"sqlite:///{db}", "--public-key", str(public)]) == 0
    report = capsys.readouterr().out
    assert "signed heads: 2, every one valid" in report and "unsigned tail: none" in report  # its start, its stop
    os.chmod(key_file, 0o644)  # a key others may read: the service refuses to start
    refused = subprocess.run([sys.executable, "-m", "service.cli", "serve", "--db", f"sqlite:///{db}", "--port", "0",
                              "--config", str(config)], capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 2 and "open to group or others" in refused.stderr


def test_r_aud_1_a_table_with_a_forged_event_answers_data_loss_over_grpc(tmp_path: Path) -> None:
    store = Store(environment(f"sqlite:///{tmp_path / 'forged.db'}"))
    forged = _forged_chips(store, 100_000)
    _drop_guards(store)
    _insert_at(store, 0, forged)
    app = PokerTables(env=store.env)
    stations = Stations.from_mapping({"pit": {"token": "pit-boss-token-0123456789", "role": "pit-boss"}})
    with serving(app, stations) as port:
        stub: Any = svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.RpcError) as error:
            stub.GetTable(svc.GetTableRequest(table="Mesa A"), metadata=[("authorization",
                                                                          "Bearer pit-boss-token-0123456789")],
                          timeout=10)
        assert error.value.code() is grpc.StatusCode.DATA_LOSS
        assert "at position 0: below position 1" in (error.value.details() or "")


def test_r_aud_1_a_log_signed_before_and_after_a_key_rotation_verifies_with_both_keys(tmp_path: Path) -> None:
    store = Store(environment(f"sqlite:///{tmp_path / 'rotated.db'}"))
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    app = PokerTables(env=store.env)
    first = HeadSigner(app, old)
    first.start()
    assert first.stop("end of shift") is not None
    rotated = HeadSigner(app, new)
    assert rotated.start() > 0  # the old key's heads are not this key's
    app.handle(Sit("after-rotation", "Mesa A", 4, 200))
    assert rotated.sign("end of shift") is not None
    verdict = verify(app.recorder, public_key=new.public_key(), mapper=app.mapper)
    assert verdict.finding is not None and verdict.finding.kind == "signature"
    assert f"signed with key {fingerprint(old.public_key())}" in verdict.finding.message
    verdict = verify(app.recorder, public_key=[old.public_key(), new.public_key()], mapper=app.mapper)
    assert verdict.clean and verdict.signed_heads == 4 and verdict.tail is None  # start, stop; start, run


def test_r_aud_1_a_service_whose_last_events_do_not_check_still_starts_and_serves_the_tables_that_do(
    tmp_path: Path
) -> None:
    store = Store(environment(f"sqlite:///{tmp_path / 'tail.db'}"))
    app = PokerTables(env=store.env)
    app.handle(OpenTable("b-open", "Mesa B", app.table("Mesa A").settings))
    append_unlinked = _forged_chips(store, 100_000)
    (last,) = store.execute("SELECT MAX(notification_id) FROM stored_events")[0]
    _insert_at(store, last + 1, append_unlinked)
    restarted = PokerTables(env=store.env)
    assert HeadSigner(restarted, Ed25519PrivateKey.generate()).start() == last  # no traceback: a warning
    assert restarted.table("Mesa B").name == "Mesa B"
    verdict = verify(restarted.recorder)
    assert verdict.finding is not None and (verdict.finding.kind, verdict.finding.position) == ("inserted", last + 1)
