"""Tamper evidence (R-AUD-1): events altered, removed, reordered or inserted directly in the SQLite file or in
PostgreSQL are named by ``audit verify`` (the first bad one, with its position); a clean log is reported clean.
Positions below 1 are refused by the store, named by ``verify`` and never loaded; an event the chain does not vouch
for is never loaded into a table; a store written before these checks still loads and verifies."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.app.application import PokerTables
from service.cli.main import main
from service.store.audit import TamperedLogError, verify
from service.store.persistence import environment, notifications
from service.store.signer import HeadSigner
from tests.support.audit_tampering import TAMPERING, Store, _alter, _drop_guards, _forged_chips, _insert_at
from tests.support.audit_tampering import store as store  # noqa: PLC0414  (a fixture)
from tests.support.stores import postgres_store

FIXTURE = Path(__file__).parent.parent / "data" / "before-signed-heads.db"
"""A store written by the service before positions were guarded and heads signed: the two hands of :func:`play`
and Mesa A closed (58 events)."""
REFUSED = (sqlite3.IntegrityError, psycopg.errors.IntegrityError)


def test_a_clean_log_is_reported_clean(store: Store) -> None:
    app = PokerTables(env=store.env)
    result = verify(app.recorder)
    assert result.clean and result.events >= 30 and result.head[0] >= 30


@pytest.mark.parametrize("tampering", list(TAMPERING))
@pytest.mark.parametrize("position", [1, 5, 17])
def test_the_first_altered_removed_or_reordered_event_is_named(store: Store, tampering: str, position: int) -> None:
    change, kind = TAMPERING[tampering]
    change(store, position)
    assert store.verdict() == (kind, position)


def test_an_inserted_event_is_named(store: Store) -> None:
    rows = store.execute("SELECT originator_id, originator_version, topic, state FROM stored_events "
                         "ORDER BY notification_id DESC LIMIT 1")
    originator, version, topic, state = rows[0]
    store.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) "
                  "VALUES (%s, %s, %s, %s)", originator, version + 1, topic, state)
    (last,) = store.execute("SELECT MAX(notification_id) FROM stored_events")[0]
    assert store.verdict() == ("inserted", last)


def test_r_aud_1_the_store_refuses_positions_below_1(store: Store) -> None:
    forged = _forged_chips(store, 100_000)
    for position in (0, -5):
        with pytest.raises(REFUSED):
            _insert_at(store, position, forged)
        with pytest.raises(REFUSED):
            store.execute("UPDATE stored_events SET notification_id = %s WHERE notification_id = 3", position)
        with pytest.raises(REFUSED):
            store.execute("INSERT INTO stored_events_chain (position, hash) VALUES (%s, %s)", position, bytes(32))
    assert store.verdict() is None


@pytest.mark.parametrize(("position", "link"), [(0, False), (-5, True)], ids=["0-bare", "minus-5-with-a-link"])
def test_r_aud_1_an_event_forged_below_position_1_is_named_and_never_loaded(store: Store, position: int,
                                                                            link: bool) -> None:
    app = PokerTables(env=store.env)
    head = verify(app.recorder).head
    forged = _forged_chips(store, 100_000)
    _drop_guards(store)
    _insert_at(store, position, forged, link=link)
    assert store.verdict() == ("inserted", position)
    restarted = PokerTables(env=store.env)
    verdict = verify(restarted.recorder, head)  # with the safekept head too
    assert verdict.finding is not None and (verdict.finding.kind, verdict.finding.position) == ("inserted", position)
    with pytest.raises(TamperedLogError, match=f"ChipsAdded v[0-9]+ of .* at position {position}: below position 1"):
        restarted.table("Mesa A")  # not 100,500 chips at seat 1: no table at all until the log is put right


def test_r_aud_1_a_chain_link_forged_below_position_1_is_named(store: Store) -> None:
    _drop_guards(store)
    store.execute("INSERT INTO stored_events_chain (position, hash) VALUES (%s, %s)", -5, bytes(32))
    assert store.verdict() == ("inserted", -5)


def test_r_aud_1_an_event_the_chain_does_not_vouch_for_is_never_loaded(store: Store) -> None:
    forged = _forged_chips(store, 100_000)
    (last,) = store.execute("SELECT MAX(notification_id) FROM stored_events")[0]
    _insert_at(store, last + 1, forged)  # no link
    restarted = PokerTables(env=store.env)
    with pytest.raises(TamperedLogError, match="no chain link"):
        restarted.table("Mesa A")
    with pytest.raises(TamperedLogError, match=f"ChipsAdded v[0-9]+ of .* at position {last + 1}: it has no chain"):
        list(notifications(restarted.recorder))  # what the Watch stream, history and exports read
    store.execute("DELETE FROM stored_events WHERE notification_id = %s", last + 1)
    (state, position) = store.execute("SELECT state, notification_id FROM stored_events WHERE topic LIKE "
                                      "'%%Table.PlayerSeated' ORDER BY notification_id LIMIT 1")[0]
    store.execute("UPDATE stored_events SET state = %s WHERE notification_id = %s",
                  bytes(state).replace(b"500", b"900"), position)
    with pytest.raises(TamperedLogError, match=f"PlayerSeated v2 .* at position {position}: it does not match"):
        PokerTables(env=store.env).table("Mesa A")


@pytest.mark.parametrize("tampering", ["altered", "no link", "link before changed"])
def test_r_aud_1_a_page_of_a_few_topics_is_checked_event_by_event_against_its_own_links(store: Store,
                                                                                       tampering: str) -> None:
    """A read of a few topics (the dealers' figures, the floor's follower) is a sparse page: each event is checked
    against its own link and the link before it, read by position, as a dense page is (issue 30); an attacker who
    alters a selected event, takes its link away or changes the link before it is named, as in a full read."""
    recorder: Any = PokerTables(env=store.env).recorder
    topics = [row[0] for row in store.execute("SELECT DISTINCT topic FROM stored_events WHERE topic LIKE "
                                              "'%%Table.HandStarted'")]
    clean = recorder.select_notifications(1, 100, topics=topics)
    assert len(clean) == 2 and clean[1].id - clean[0].id > 4  # far apart: the sparse path
    position = clean[1].id
    if tampering == "altered":
        _alter(store, position)
    elif tampering == "no link":
        store.execute("DELETE FROM stored_events_chain WHERE position = %s", position)
    else:
        store.execute("UPDATE stored_events_chain SET hash = %s WHERE position = %s", bytes(32), position - 1)
    expected = {"altered": "it does not match", "no link": "it has no chain link",
                "link before changed": "it does not match"}[tampering]
    with pytest.raises(TamperedLogError, match=f"HandStarted v[0-9]+ of .* at position {position}: {expected}"):
        PokerTables(env=store.env).recorder.select_notifications(1, 100, topics=topics)


def test_a_sqlite_store_written_before_the_guards_and_signed_heads_loads_and_verifies(tmp_path: Path) -> None:
    shutil.copy(FIXTURE, tmp_path / "old.db")
    store = Store.__new__(Store)
    store.env, store.table, store.sqlite = environment(f"sqlite:///{tmp_path / 'old.db'}"), "stored_events", True
    app = PokerTables(env=store.env)
    table = app.table("Mesa A")
    assert table.closed and table.hands_started == 2
    key = Ed25519PrivateKey.generate()
    verdict = verify(app.recorder, public_key=key.public_key(), mapper=app.mapper)
    assert verdict.clean and verdict.events == 58 and verdict.signed == 0
    assert verdict.tail is not None and verdict.tail[:2] == (1, 58) and "Table.Opened v1" in verdict.tail[2]
    with pytest.raises(REFUSED):  # opening it added the guards
        store.execute("UPDATE stored_events SET notification_id = 0 WHERE notification_id = 3")
    with pytest.raises(REFUSED):
        store.execute("INSERT INTO stored_events_chain (position, hash) VALUES (%s, %s)", -5, bytes(32))
    signer = HeadSigner(app, key)
    assert signer.start() == 58  # its start head (position 59) signs the log as found, at 58
    assert signer.sign("end of shift") is not None  # claims what it wrote since: its start head
    verdict = verify(app.recorder, public_key=key.public_key(), mapper=app.mapper)
    assert verdict.clean and verdict.signed == 59 and verdict.tail is None and verdict.signed_heads == 2


def test_a_postgres_store_made_before_the_position_check_gets_it_and_still_starts() -> None:
    store = Store(postgres_store())
    forged = _forged_chips(store, 100_000)
    _drop_guards(store)
    _insert_at(store, 0, forged)  # a row already there when the check arrives
    app = PokerTables(env=store.env)  # the check is added (NOT VALID: the rows there are left to verify and load)
    with pytest.raises(REFUSED):
        _insert_at(store, -5, forged)
    assert store.verdict() == ("inserted", 0)
    with pytest.raises(TamperedLogError):
        app.table("Mesa A")


def test_the_command_line_names_the_first_bad_event_and_checks_a_safekept_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(environment(f"sqlite:///{tmp_path / 'cli.db'}"))
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["audit", "head", "--db", url]) == 0
    head = capsys.readouterr().out.strip()
    assert main(["audit", "verify", "--db", url, "--head", head]) == 0
    assert capsys.readouterr().out.startswith("clean: ")
    forged = head.split(":")[0] + ":" + "00" * 32
    assert main(["audit", "verify", "--db", url, "--head", forged]) == 1
    assert "safekept head" in capsys.readouterr().out
    _alter(store, 3)
    assert main(["audit", "verify", "--db", url]) == 1
    out = capsys.readouterr().out
    assert out.startswith("TAMPERED (altered): position 3: ")
    assert "the first bad position is 3: nothing good is said of the log from there on" in out
