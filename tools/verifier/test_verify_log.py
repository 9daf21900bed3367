"""Self-tests of the independent verifier: stores built by hand from docs/audit-format.md, sections 1-5."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parent))

import verify_log

SCRIPT = Path(__file__).resolve().parent / "verify_log.py"
ZERO = bytes(32)
TOPIC_V1 = "service.store.signing:SignedHead.Signed"
TOPIC_V2 = "service.store.heads:WriterHead.Signed"
TOPIC_ANNOUNCEMENT = "service.store.heads:KeyAnnouncement.Announced"
TOPIC_DOMAIN = "domain.circle.table:Table.Opened"
KEY_A = Ed25519PrivateKey.from_private_bytes(bytes(range(0, 32)))
KEY_B = Ed25519PrivateKey.from_private_bytes(bytes(range(32, 64)))
KEY_C = Ed25519PrivateKey.from_private_bytes(bytes(range(64, 96)))


# ---------------------------------------------------------------------------------------------------------------------
# Encoding written again here, straight from the specification (independently of the module under test)
# ---------------------------------------------------------------------------------------------------------------------


def i64(value: int) -> bytes:
    return struct.pack(">q", value)


def text(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack(">I", len(data)) + data


def raw(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(key: Ed25519PrivateKey) -> str:
    return hashlib.sha256(raw(key)).hexdigest()[:16]


def pem(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def chain_hash(previous: bytes, position: int, *, originator: str, version: int, topic: str, state: bytes) -> bytes:
    canonical = f"{originator[:8]}-{originator[8:12]}-{originator[12:16]}-{originator[16:20]}-{originator[20:]}"
    data = (
        previous + i64(position) + text(canonical) + i64(version) + text(topic) + struct.pack(">I", len(state)) + state
    )
    return hashlib.sha256(data).digest()


def head_v2_message(
    position: int, link: bytes, *, since: int, signed_at: int, kind: str, claims: str, writer: str, reason: str
) -> bytes:
    return (
        b"pokertable signed head v2\n"
        + i64(position)
        + link
        + i64(since)
        + i64(signed_at)
        + text(kind)
        + text(claims)
        + text(writer)
        + text(reason)
    )


def announcement_message(new_key: bytes, position: int, retires: bool, reason: str) -> bytes:
    return (
        b"pokertable key announcement v1\n" + new_key + i64(position) + (b"\x01" if retires else b"\x00") + text(reason)
    )


# ---------------------------------------------------------------------------------------------------------------------
# A hand-built SQLite store
# ---------------------------------------------------------------------------------------------------------------------


@dataclass
class Row:
    position: int
    originator: str
    version: int
    topic: str
    state: bytes


@dataclass
class LogBuilder:
    """Events appended at positions 1, 2, ... with their links computed per section 2."""

    rows: list[Row] = field(default_factory=list)
    links: dict[int, bytes] = field(default_factory=dict)
    previous: bytes = ZERO

    @property
    def position(self) -> int:
        return self.rows[-1].position if self.rows else 0

    def event(self, topic: str = TOPIC_DOMAIN, state: bytes | None = None, originator: str | None = None) -> int:
        position = self.position + 1
        originator = originator or f"{position:032x}"
        state = state if state is not None else json.dumps({"seat": position}).encode()
        link = chain_hash(self.previous, position, originator=originator, version=1, topic=topic, state=state)
        self.rows.append(Row(position, originator, 1, topic, state))
        self.links[position] = link
        self.previous = link
        return position

    def link(self, position: int) -> bytes:
        return ZERO if position == 0 else self.links[position]

    def head_v2(
        self,
        key: Ed25519PrivateKey,
        kind: str,
        since: int,
        claims: str,
        *,
        writer: str = "mesa-1:50051",
        position: int | None = None,
        corrupt: bool = False,
        link: bytes | None = None,
        reason: str | None = None,
        signed_at: int = 1795785906731738,
    ) -> int:
        position = self.position if position is None else position
        link = self.link(position) if link is None else link
        reason = f"{kind} head" if reason is None else reason
        signature = bytearray(
            key.sign(
                head_v2_message(
                    position,
                    link,
                    since=since,
                    signed_at=signed_at,
                    kind=kind,
                    claims=claims,
                    writer=writer,
                    reason=reason,
                )
            )
        )
        if corrupt:
            signature[0] ^= 1
        state = {
            "position": position,
            "chain_hash": link.hex(),
            "since": since,
            "signed_at": signed_at,
            "kind": kind,
            "claims": claims,
            "writer": writer,
            "reason": reason,
            "key": fingerprint(key),
            "signature": signature.hex(),
        }
        return self.event(TOPIC_V2, json.dumps(state).encode(), originator="ab" * 16)

    def head_v1(self, key: Ed25519PrivateKey, position: int | None = None) -> int:
        position = self.position if position is None else position
        link = self.link(position)
        signature = key.sign(b"pokertable chain head v1\n" + i64(position) + link)
        state = {
            "position": position,
            "chain_hash": link.hex(),
            "signature": signature.hex(),
            "key": fingerprint(key),
            "reason": "1000 events",
        }
        return self.event(TOPIC_V1, json.dumps(state).encode(), originator="cd" * 16)

    def announce(self, by: Ed25519PrivateKey, new: Ed25519PrivateKey, retires: bool) -> int:
        position, reason = self.position, "key rotation"
        signature = by.sign(announcement_message(raw(new), position, retires, reason))
        state = {
            "new_key": raw(new).hex(),
            "position": position,
            "retires": retires,
            "reason": reason,
            "by": fingerprint(by),
            "signature": signature.hex(),
        }
        return self.event(TOPIC_ANNOUNCEMENT, json.dumps(state).encode(), originator="ef" * 16)

    def write(self, path: Path) -> Path:
        with sqlite3.connect(path) as connection:
            connection.execute(
                "CREATE TABLE stored_events (originator_id TEXT, originator_version INTEGER, topic TEXT, state BLOB)"
            )
            connection.execute("CREATE TABLE stored_events_chain (position INTEGER, hash BLOB)")
            connection.executemany(
                "INSERT INTO stored_events (rowid, originator_id, originator_version, topic, state) VALUES (?,?,?,?,?)",
                [(row.position, row.originator, row.version, row.topic, row.state) for row in self.rows],
            )
            connection.executemany(
                "INSERT INTO stored_events_chain (position, hash) VALUES (?, ?)", sorted(self.links.items())
            )
        connection.close()
        return path


def write_keys(path: Path, *keys: Ed25519PrivateKey) -> Path:
    path.write_bytes(b"".join(pem(key) for key in keys))
    return path


def verify(store: Path, capsys: pytest.CaptureFixture[str], *keys: Path) -> tuple[int, dict[str, object]]:
    argv = ["--sqlite", str(store)]
    for key in keys:
        argv += ["--public-key", str(key)]
    status = verify_log.main(argv)
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    return status, json.loads(out)


def execute(store: Path, statement: str, *params: object) -> None:
    with sqlite3.connect(store) as connection:
        connection.execute(statement, params)
    connection.close()


@pytest.fixture
def key_a(tmp_path: Path) -> Path:
    return write_keys(tmp_path / "a.pem", KEY_A)


def writer_log() -> LogBuilder:
    """A clean log of one writer: start, five events, run (claims 2-6), two events, stop (claims 8-9)."""
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)  # at 1
    for _ in range(5):
        log.event()  # 2..6
    log.head_v2(KEY_A, "run", 0, "2-6")  # at 7, names 6
    log.event()  # 8
    log.event()  # 9
    log.head_v2(KEY_A, "stop", 6, "8-9")  # at 10, names 9
    return log


# ---------------------------------------------------------------------------------------------------------------------
# Worked examples of sections 2 and 3
# ---------------------------------------------------------------------------------------------------------------------

EXAMPLE_HASH = "de6003fe7e35608fdef4e3b265679366422094e3fb69d39827647334a3fd75d8"


def test_worked_example_hash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    event = verify_log.Event(
        1, "8b87f3dbfc87539eb28790434e4d6bbe", 1, "domain.circle.table:Table.Opened", b'{"name":"Mesa 1"}'
    )
    assert verify_log.event_hash(ZERO, 1, event) is not None
    assert verify_log.event_hash(ZERO, 1, event).hex() == EXAMPLE_HASH  # type: ignore[union-attr]
    log = LogBuilder()
    log.event(TOPIC_DOMAIN, b'{"name":"Mesa 1"}', originator="8b87f3dbfc87539eb28790434e4d6bbe")
    assert log.links[1].hex() == EXAMPLE_HASH
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys)
    assert status == 0
    assert report == {
        "clean": True,
        "kind": None,
        "position": None,
        "events": 1,
        "signed_heads": 0,
        "signed": 0,
        "tail": None,
        "unvouched": None,
        "unattended": None,
    }


def test_worked_example_keys() -> None:
    assert raw(KEY_A).hex() == "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
    assert fingerprint(KEY_A) == "56475aa75463474c"
    assert b"MCowBQYDK2VwAyEAA6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=" in pem(KEY_A)
    assert raw(KEY_B).hex() == "29acbae141bccaf0b22e1a94d34d0bc7361e526d0bfe12c89794bc9322966dd7"
    assert fingerprint(KEY_B) == "24f6ed6acbfe1009"
    assert verify_log.fingerprint(KEY_A.public_key()) == "56475aa75463474c"


def test_worked_example_head_v2_signature() -> None:
    head = verify_log.HeadV2(
        position=1,
        chain_hash=bytes.fromhex(EXAMPLE_HASH),
        since=0,
        signed_at=1795785906731738,
        kind="run",
        claims_text="1",
        claims=[(1, 1)],
        writer="mesa-1:50051",
        reason="1000 events",
        key="56475aa75463474c",
        signature=b"",
    )
    expected_message = (
        "706f6b65727461626c65207369676e656420686561642076320a 0000000000000001"
        f" {EXAMPLE_HASH} 0000000000000000 00066141fd103ada"
        " 00000003 72756e 00000001 31 0000000c 6d6573612d313a3530303531 0000000b 31303030206576656e7473"
    )
    assert head.message() == bytes.fromhex(expected_message.replace(" ", ""))
    signature = KEY_A.sign(head.message())
    assert signature.hex() == (
        "9e199b4ca69e9f7393effdbb7ea14a6bfe6e559febb33efacda67a0fc43ff00a"
        "307ab30cc08c9fa6586ef073e8b8b0f0d2f29d08d2c6d89a40382e5322ab480f"
    )
    assert verify_log.signature_valid(KEY_A.public_key(), signature, head.message())


def test_worked_example_announcement_signature() -> None:
    announcement = verify_log.Announcement(raw(KEY_B), 1, True, "key rotation", "56475aa75463474c", b"")
    expected_message = (
        "706f6b65727461626c65206b657920616e6e6f756e63656d656e742076310a"
        "29acbae141bccaf0b22e1a94d34d0bc7361e526d0bfe12c89794bc9322966dd7 0000000000000001 01"
        " 0000000c 6b657920726f746174696f6e"
    )
    assert announcement.message() == bytes.fromhex(expected_message.replace(" ", ""))
    assert KEY_A.sign(announcement.message()).hex() == (
        "1f04655c08b1920b976a36d43e54eecad97247a2b149af1d6e3b8ea907e6a3b1"
        "804941be0ae1d84ecf6258372fdbc77ce8952de0d01a51475c1dfce52baf9908"
    )


def test_worked_example_head_in_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.event(TOPIC_DOMAIN, b'{"name":"Mesa 1"}', originator="8b87f3dbfc87539eb28790434e4d6bbe")
    log.head_v2(KEY_A, "run", 0, "1", reason="1000 events", signed_at=1795785906731738)
    assert json.loads(log.rows[-1].state)["signature"].startswith("9e199b4ca69e9f7393effdbb7ea14a6b")
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert status == 0
    assert (report["signed_heads"], report["signed"], report["tail"]) == (1, 1, None)


# ---------------------------------------------------------------------------------------------------------------------
# Clean logs
# ---------------------------------------------------------------------------------------------------------------------


def test_clean_log_with_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = writer_log()
    log.event()  # 11: unsigned, after the only writer stopped
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert status == 0
    assert report == {
        "clean": True,
        "kind": None,
        "position": None,
        "events": 11,
        "signed_heads": 3,
        "signed": 9,
        "tail": [11, 1],
        "unvouched": None,
        "unattended": [11, 1],
    }


def test_clean_log_without_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, report = verify(writer_log().write(tmp_path / "s.sqlite"), capsys)
    assert status == 0
    assert report["clean"] is True
    assert (report["events"], report["signed_heads"], report["signed"]) == (10, 3, 0)
    assert (report["tail"], report["unvouched"], report["unattended"]) == (None, None, None)


def test_clean_log_v1_heads(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    for _ in range(3):
        log.event()
    log.head_v1(KEY_A)
    log.event()
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert status == 0
    assert (report["signed_heads"], report["signed"], report["tail"]) == (1, 3, [5, 1])


def test_pending_positions_are_the_tail(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", writer="w1", position=0)  # 1
    log.head_v2(KEY_A, "start", 0, "", writer="w2", position=0)  # 2
    log.event()  # 3: waits for w1 and w2
    log.event()  # 4: likewise
    log.head_v2(KEY_A, "run", 0, "4", writer="w1")  # 5: w1 claims 4 only; 3 still waits for w2
    store = log.write(tmp_path / "s.sqlite")
    status, report = verify(store, capsys, key_a)
    assert status == 0
    assert (report["signed"], report["tail"]) == (4, [3, 1])
    log.head_v2(KEY_A, "run", 0, "3", writer="w2")  # 6: w2 claims 3
    status, report = verify(log.write(tmp_path / "t.sqlite"), capsys, key_a)
    assert (status, report["signed"], report["tail"]) == (0, 5, None)


def test_writer_running_without_head_leaves_a_tail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path
) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)
    log.event()
    log.event()
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert (status, report["signed"], report["tail"], report["unattended"]) == (0, 0, [2, 2], None)


def test_lost_positions_are_unvouched(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)  # 1: writer at 0
    log.event()  # 2
    log.event()  # 3
    log.head_v2(KEY_A, "run", 3, "")  # since 3 > 0: 2-3 lost, released, no other writer: unvouched
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert status == 0
    assert (report["unvouched"], report["tail"]) == ([2, 2], None)


# ---------------------------------------------------------------------------------------------------------------------
# Tampering with the chain
# ---------------------------------------------------------------------------------------------------------------------


def test_altered_state(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    store = writer_log().write(tmp_path / "s.sqlite")
    execute(store, "UPDATE stored_events SET state = ? WHERE rowid = 4", b'{"seat": 99}')
    status, report = verify(store, capsys, key_a)
    assert status == 1
    assert (report["clean"], report["kind"], report["position"], report["events"]) == (False, "altered", 4, 4)
    assert report["tail"] is None


def test_deleted_event_is_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = writer_log().write(tmp_path / "s.sqlite")
    execute(store, "DELETE FROM stored_events WHERE rowid = 4")
    status, report = verify(store, capsys)
    assert status == 1
    assert (report["kind"], report["position"]) == ("removed", 4)


def test_deleted_last_event_is_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = writer_log().write(tmp_path / "s.sqlite")
    execute(store, "DELETE FROM stored_events WHERE rowid = 10")
    status, report = verify(store, capsys)
    assert (status, report["kind"], report["position"], report["events"]) == (1, "removed", 10, 9)


def test_swapped_contents_are_reordered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = writer_log().write(tmp_path / "s.sqlite")
    with sqlite3.connect(store) as connection:
        rows = {
            rowid: rest
            for rowid, *rest in connection.execute(
                "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events WHERE rowid IN (3, 4)"
            )
        }
        for target, source in ((3, 4), (4, 3)):
            connection.execute(
                "UPDATE stored_events SET originator_id=?, originator_version=?, topic=?, state=? WHERE rowid=?",
                (*rows[source], target),
            )
    connection.close()
    status, report = verify(store, capsys)
    assert (status, report["kind"], report["position"]) == (1, "reordered", 3)


def test_event_without_link_is_inserted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = writer_log().write(tmp_path / "s.sqlite")
    execute(
        store,
        "INSERT INTO stored_events (rowid, originator_id, originator_version, topic, state) VALUES (11, ?, 1, ?, ?)",
        "f" * 32,
        TOPIC_DOMAIN,
        b"{}",
    )
    status, report = verify(store, capsys)
    assert (status, report["kind"], report["position"], report["events"]) == (1, "inserted", 11, 11)


def test_event_at_position_zero_is_inserted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = writer_log().write(tmp_path / "s.sqlite")
    execute(
        store,
        "INSERT INTO stored_events (rowid, originator_id, originator_version, topic, state) VALUES (0, ?, 1, ?, ?)",
        "f" * 32,
        TOPIC_DOMAIN,
        b"{}",
    )
    execute(store, "INSERT INTO stored_events_chain (position, hash) VALUES (0, ?)", ZERO)
    status, report = verify(store, capsys)
    assert (status, report["kind"], report["position"], report["events"]) == (1, "inserted", 0, 1)


def test_link_below_one_is_inserted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = writer_log().write(tmp_path / "s.sqlite")
    execute(store, "INSERT INTO stored_events_chain (position, hash) VALUES (-3, ?)", ZERO)
    status, report = verify(store, capsys)
    assert (status, report["kind"], report["position"]) == (1, "inserted", -3)


# ---------------------------------------------------------------------------------------------------------------------
# Signed records
# ---------------------------------------------------------------------------------------------------------------------


def test_bad_signature(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)
    log.event()
    log.head_v2(KEY_A, "run", 0, "2", corrupt=True)  # at 3
    store = log.write(tmp_path / "s.sqlite")
    assert verify(store, capsys)[0] == 0  # without keys, signed records are only counted
    status, report = verify(store, capsys, key_a)
    assert (status, report["kind"], report["position"], report["signed_heads"]) == (1, "signature", 3, 2)


def test_untrusted_key(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)
    log.event()
    log.head_v2(KEY_C, "run", 0, "2")  # at 3, by a key nobody trusts
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert (status, report["kind"], report["position"]) == (1, "signature", 3)


def test_unreadable_head_is_signature(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.event()
    log.event(TOPIC_V2, b"not json")  # 2: a head by its topic, whose state cannot be read
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert (status, report["kind"], report["position"], report["signed_heads"]) == (1, "signature", 2, 1)


def test_claims_breaking_the_grammar_are_signature(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path
) -> None:
    log = LogBuilder()
    log.event()
    log.event()
    log.head_v2(KEY_A, "start", 0, "1,2")  # 3: signed, but the items touch
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert (status, report["kind"], report["position"]) == (1, "signature", 3)


def test_head_naming_a_wrong_hash_is_rewritten(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.event()
    log.event()
    log.head_v2(KEY_A, "start", 0, "1-2", link=b"\x01" * 32)
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert (status, report["kind"], report["position"]) == (1, "rewritten", 2)


def test_unclaimed_event_before_stop_is_forged(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)  # 1
    log.event()  # 2
    log.event()  # 3
    log.head_v2(KEY_A, "run", 0, "2-3")  # 4, names 3
    log.event()  # 5, written by the writer
    log.event()  # 6, slipped in with a correct link
    log.head_v2(KEY_A, "stop", 3, "5")  # 7, names 6, claims 5 only
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert (status, report["kind"], report["position"], report["events"]) == (1, "forged", 6, 7)


def test_claimed_events_before_stop_are_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)
    log.event()
    log.event()
    log.head_v2(KEY_A, "stop", 0, "2-3")
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert (status, report["tail"], report["unvouched"], report["unattended"]) == (0, None, None, None)


def test_rotation_verifies_with_the_first_key(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)  # 1
    log.event()  # 2
    log.announce(KEY_A, KEY_B, retires=True)  # 3: A retired at 3
    log.event()  # 4
    log.head_v2(KEY_B, "run", 0, "2,4")  # 5
    log.event()  # 6
    log.head_v2(KEY_B, "stop", 4, "6")  # 7
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert status == 0
    assert (report["signed_heads"], report["signed"], report["tail"]) == (3, 6, None)


def test_retired_key_after_retirement(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)  # 1
    log.event()  # 2
    log.announce(KEY_A, KEY_B, retires=True)  # 3
    log.event()  # 4
    log.head_v2(KEY_A, "run", 0, "2,4")  # 5: the retired key
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, key_a)
    assert (status, report["kind"], report["position"]) == (1, "signature", 5)


def test_several_keys_in_one_pem_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = LogBuilder()
    log.head_v2(KEY_A, "start", 0, "", position=0)
    log.event()
    log.head_v2(KEY_C, "stop", 0, "2", writer="mesa-1:50051")
    keys = write_keys(tmp_path / "both.pem", KEY_A, KEY_C)
    status, report = verify(log.write(tmp_path / "s.sqlite"), capsys, keys)
    assert (status, report["signed"]) == (0, 2)


# ---------------------------------------------------------------------------------------------------------------------
# Claims grammar and the command line
# ---------------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claims", "parsed"),
    [
        ("", []),
        ("1", [(1, 1)]),
        ("1-3,5,7-9", [(1, 3), (5, 5), (7, 9)]),
        ("2-2", [(2, 2)]),
        ("1,2", None),
        ("1-3,4", None),
        ("3,1", None),
        ("0", None),
        ("3-1", None),
        ("1,", None),
        (" 1", None),
        ("-1", None),
        ("1-2-3", None),
        ("\u0661", None),
    ],
)
def test_claims_grammar(claims: str, parsed: list[tuple[int, int]] | None) -> None:
    assert verify_log.parse_claims(claims) == parsed


def test_command_line_exit_codes(tmp_path: Path, key_a: Path) -> None:
    store = writer_log().write(tmp_path / "s.sqlite")
    clean = subprocess.run(
        [sys.executable, str(SCRIPT), "--sqlite", str(store), "--public-key", str(key_a)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert clean.returncode == 0, clean.stderr
    assert list(json.loads(clean.stdout)) == [
        "clean",
        "kind",
        "position",
        "events",
        "signed_heads",
        "signed",
        "tail",
        "unvouched",
        "unattended",
    ]
    execute(store, "UPDATE stored_events SET topic = 'x' WHERE rowid = 2")
    finding = subprocess.run([sys.executable, str(SCRIPT), "--sqlite", str(store)], capture_output=True, check=False)
    assert finding.returncode == 1
    missing = subprocess.run(
        [sys.executable, str(SCRIPT), "--sqlite", str(tmp_path / "nope.sqlite")], capture_output=True, check=False
    )
    assert (missing.returncode, missing.stdout) == (2, b"")
    assert missing.stderr
    usage = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, check=False)
    assert usage.returncode == 2
    no_tables = tmp_path / "empty.sqlite"
    sqlite3.connect(no_tables).close()
    read_error = subprocess.run(
        [sys.executable, str(SCRIPT), "--sqlite", str(no_tables)], capture_output=True, check=False
    )
    assert read_error.returncode == 2


def test_store_is_not_written(tmp_path: Path, capsys: pytest.CaptureFixture[str], key_a: Path) -> None:
    store = writer_log().write(tmp_path / "s.sqlite")
    before = store.read_bytes()
    store.chmod(0o444)
    verify(store, capsys, key_a)
    assert store.read_bytes() == before


# ---------------------------------------------------------------------------------------------------------------------
# PostgreSQL (only when VERIFY_LOG_POSTGRES holds a conninfo of a scratch database)
# ---------------------------------------------------------------------------------------------------------------------


@pytest.mark.skipif(not os.environ.get("VERIFY_LOG_POSTGRES"), reason="VERIFY_LOG_POSTGRES is not set")
def test_postgres_store(tmp_path: Path, key_a: Path) -> None:
    import psycopg
    from psycopg import sql

    conninfo = os.environ["VERIFY_LOG_POSTGRES"]
    log = writer_log()
    log.event()
    schema = "verify_log_selftest"
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
        connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        connection.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        connection.execute(
            "CREATE TABLE pokertable_events (notification_id bigint, originator_id uuid, originator_version bigint,"
            " topic text, state bytea)"
        )
        connection.execute("CREATE TABLE pokertable_events_chain (position bigint, hash bytea)")
        with connection.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO pokertable_events VALUES (%s, %s, %s, %s, %s)",
                [(row.position, row.originator, row.version, row.topic, row.state) for row in log.rows],
            )
            cursor.executemany("INSERT INTO pokertable_events_chain VALUES (%s, %s)", sorted(log.links.items()))

    def run() -> tuple[int, dict[str, object]]:
        argv = [sys.executable, str(SCRIPT), "--postgres", conninfo, "--schema", schema, "--public-key", str(key_a)]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        return done.returncode, json.loads(done.stdout)

    try:
        status, report = run()
        assert (status, report["events"], report["signed"], report["tail"]) == (0, 11, 9, [11, 1])
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute(
                sql.SQL("UPDATE {} SET state = 'x' WHERE notification_id = 5").format(
                    sql.Identifier(schema, "pokertable_events")
                )
            )
        status, report = run()
        assert (status, report["kind"], report["position"]) == (1, "altered", 5)
    finally:
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
