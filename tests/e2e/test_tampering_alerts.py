"""Issue 16, item 4 — tampering found by the audit is an alert of the pit (R-AUD-1).

The service checks its own log (:mod:`service.app.tampering`): what it finds is recorded once, as an event of the
casino's record of findings, whichever table it concerns; the pit boss or the games director acknowledges it (an
event too), nobody else; a clean log records nothing. Attacked as someone with the database password would: an event
altered, removed or reordered in SQLite and in PostgreSQL, before the service starts and while it serves; the alert
reaches a floor's Watch stream (table: the casino's log) and is acknowledged through ``AcknowledgeAlert``.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from domain.audit_findings import FINDINGS_ID
from domain.errors import RuleError
from service.api import table_service_pb2 as svc
from service.app.access import AccessDeniedError, NotFoundError
from service.app.application import PokerTables, Role, Viewer
from service.app.commands import AcknowledgeAlert
from service.store.persistence import environment
from service.store.signer import HeadSigner
from tests.support import audit_tampering
from tests.support.audit_tampering import TAMPERING, Store, play
from tests.support.grpc_support import TOKENS, Client, rule_of
from tests.support.serve_process import start

store = audit_tampering.store
"""A played store (Mesa A, two hands) on SQLite and on PostgreSQL, with raw SQL access to it."""

PIT = Viewer("pit", Role.PIT_BOSS)
DIRECTOR = Viewer("dj", Role.GAMES_DIRECTOR)


def _finding_position(app: PokerTables) -> int:
    """The log position of the recorded TamperingFound event (the alert's own position)."""
    found = [notification.id for notification in app.recorder.unchecked_notifications(1, 10_000)  # type: ignore[attr-defined]
             if notification.originator_id == FINDINGS_ID and notification.topic.endswith("TamperingFound")]
    assert len(found) == 1, found
    return int(found[0])


def test_r_aud_1_a_clean_log_raises_no_alert(store: Store) -> None:
    app = PokerTables(env=store.env)
    verdict = app.audit.audit_log()
    assert verdict.clean
    assert app.audit.audit_findings() is None


@pytest.mark.parametrize(("tampering", "position", "table"), [
    ("altered", 7, "Mesa A"),  # the table's own event (Table.PlayerSeated): the table no longer loads
    ("altered", 13, "Mesa A"),  # a hand's (Hand.CardDealt)
    ("altered", 12, ""),  # a command's record: no table's event
    ("removed", 13, ""),  # the row is gone: whose it was cannot be read
    ("reordered", 10, "Mesa A"),  # two events of a hand swapped
])
def test_r_aud_1_tampering_is_recorded_once_with_its_table_and_acknowledged_by_the_pit(
    store: Store, tampering: str, position: int, table: str,
) -> None:
    change, kind = TAMPERING[tampering]
    change(store, position)
    app = PokerTables(env=store.env)
    verdict = app.audit.audit_log()
    assert verdict.finding is not None and verdict.finding.kind == kind and verdict.finding.position == position
    record = app.audit.audit_findings()
    assert record is not None
    (finding,) = record.findings
    assert (finding.kind, finding.position, finding.table, finding.by) == (kind, position, table, "service audit")
    head = app.recorder.max_notification_id()
    again = PokerTables(env=store.env)  # another instance, or the next interval: the same finding, recorded once
    again.audit.audit_log()
    assert again.recorder.max_notification_id() == head
    alert = _finding_position(again)
    assert alert > position
    position = alert

    for who in (Viewer("tv", Role.OBSERVER), Viewer("mesa-1", Role.DEALER, "Mesa A"),
                Viewer("shoe", Role.DEVICE, "Mesa A")):
        with pytest.raises(AccessDeniedError) as refused:
            again.handle(AcknowledgeAlert("ack-bad", "", position, "looked at it"), who)
        assert refused.value.rule == "R-AUD-1"
    assert again.recorder.max_notification_id() == head
    with pytest.raises(NotFoundError) as wrong:  # a table's event is not a finding of the log
        again.handle(AcknowledgeAlert("ack-wrong", "", 3, "looked at it"), PIT)
    assert wrong.value.rule == "R-AUD-1"
    again.handle(AcknowledgeAlert("ack-1", "", position, "the DBA's change is being investigated (ticket 4411)"),
                 DIRECTOR)
    with pytest.raises(RuleError, match="already acknowledged"):
        again.handle(AcknowledgeAlert("ack-2", "", position, "again"), PIT)
    acknowledged = again.audit.audit_findings()
    assert acknowledged is not None and acknowledged.acknowledged_alerts == {position}


def test_r_aud_1_a_signed_head_forged_with_another_key_is_an_alert(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    app = PokerTables(env=environment(f"sqlite:///{tmp_path / 'signed.db'}"))
    play(app)
    forger = HeadSigner(app, Ed25519PrivateKey.generate())
    forger.sign("forged")
    verdict = app.audit.audit_log(public_key=Ed25519PrivateKey.generate().public_key())
    assert verdict.finding is not None and verdict.finding.kind == "signature"
    record = app.audit.audit_findings()
    assert record is not None and [finding.kind for finding in record.findings] == ["signature"]


STATIONS = """
[stations.pit]
token = "pit-boss-token-0123456789"
role = "pit-boss"

[stations.tv]
token = "observer-token-0123456789"
role = "observer"

[stations.dj]
token = "games-director-token-012345"
role = "games-director"
"""


def _floor(port: int, token: str, into: list[svc.WatchResponse], stop: threading.Event) -> Callable[[], None]:
    """Follow the floor's stream (every table) into ``into`` until ``stop``."""
    client = Client(port, token)

    def follow() -> None:
        stream: Any = client.stub.Watch(svc.WatchRequest(table="", after_position=0), metadata=client.metadata)
        try:
            for change in stream:
                into.append(change)
                if stop.is_set():
                    break
        except grpc.RpcError:
            pass
        finally:
            stream.cancel()

    return follow


def _wait(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _kind(change: svc.WatchResponse) -> str:
    return change.event.WhichOneof("event") or ""


def test_r_aud_1_the_service_audits_its_log_and_the_pit_acknowledges_on_the_floor(tmp_path: Path) -> None:
    """An event altered in the file while the service serves (the attacker has the file, not the key): the service's
    next audit finds it and the floor's stream carries the alert; an observer may not acknowledge it, the pit boss
    does, and the acknowledgement is on the stream too."""
    db, config = tmp_path / "tables.db", tmp_path / "stations.toml"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    play(PokerTables(env=environment(f"sqlite:///{db}")))
    process, port = start(db, config, "--audit-every", "0.5")
    changes: list[svc.WatchResponse] = []
    stop = threading.Event()
    follower = threading.Thread(target=_floor(port, TOKENS["pit"], changes, stop), daemon=True)
    follower.start()
    try:
        time.sleep(1.5)  # audits of a clean log meanwhile: nothing to say
        assert not [change for change in changes if _kind(change).startswith("audit_findings")]
        with sqlite3.connect(db) as conn:  # the attacker's edit, under the running service
            (state,) = conn.execute("SELECT state FROM stored_events WHERE rowid = 7").fetchone()
            conn.execute("UPDATE stored_events SET state = ? WHERE rowid = 7", (bytes(state).replace(b"500", b"900"),))
        _wait(lambda: any(_kind(change) == "audit_findings_tampering_found" for change in changes))
        (found,) = [change for change in changes if _kind(change) == "audit_findings_tampering_found"]
        assert found.table == ""  # the casino's log itself, not a table's change
        event = found.event.audit_findings_tampering_found
        assert (event.kind, event.position, event.table, event.by) == ("altered", 7, "Mesa A", "service audit")
        time.sleep(1.5)  # more audits find the same thing: recorded once
        assert len([change for change in changes if _kind(change) == "audit_findings_tampering_found"]) == 1
        # a floor opened after the tampering reads past the tampered event (never sent) to the alert
        late: list[svc.WatchResponse] = []
        threading.Thread(target=_floor(port, TOKENS["tv"], late, stop), daemon=True).start()
        _wait(lambda: any(_kind(change) == "audit_findings_tampering_found" for change in late))
        assert 7 not in [change.position for change in late]
        assert [change.position for change in late if change.position != 7] == \
            [change.position for change in changes if change.position != 7][:len(late)]

        def acknowledge(token: str, command_id: str) -> svc.AcknowledgeAlertResponse:
            reply: svc.AcknowledgeAlertResponse = Client(port, token).AcknowledgeAlert(svc.AcknowledgeAlertRequest(
                command_id=command_id, table="", position=found.position, reason="DBA change under investigation"))
            return reply

        with pytest.raises(grpc.RpcError) as refused:
            acknowledge(TOKENS["tv"], "ack-tv")
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(refused.value) == "R-AUD-1"
        assert acknowledge(TOKENS["pit"], "ack-pit").result.table == ""
        _wait(lambda: any(_kind(change) == "audit_findings_alert_acknowledged" for change in changes))
        (done,) = [change for change in changes if _kind(change) == "audit_findings_alert_acknowledged"]
        assert done.event.audit_findings_alert_acknowledged.position == found.position
        assert done.event.audit_findings_alert_acknowledged.by == "pit"
    finally:
        stop.set()
        process.terminate()
        process.wait(timeout=20)
