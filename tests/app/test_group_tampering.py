"""What the group's follower refuses (issue 18, item 3; R-AUD-1): an event altered at a casino, a forged event whose
chain was recomputed (the casino's signed head after it gives it away), a casino's log rewritten before what the group
already received, a head signed by another key; and, without the casinos, a row altered in the group's own store.
A refused page stores nothing, and the refusal is recorded once. A casino that cannot be reached is skipped and
caught up with later, by a role that may only read the casino's tables."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from eventsourcing.persistence import StoredEvent
from psycopg import sql

from service.cli.main import main
from service.group.follower import CasinoLog, Follower
from service.group.store import GroupStore
from service.group.verify import verify_received
from service.store.chain import links
from service.store.signing import load_public_key, public_pem
from tests.support.group_support import Played, play_casino
from tests.support.stores import POSTGRES_URL, postgres_store


def _url(env: dict[str, str]) -> str:
    return f"{POSTGRES_URL}?schema={env['POSTGRES_SCHEMA']}"


@pytest.fixture
def casino(tmp_path: Path) -> Iterator[Played]:
    """A casino on a schema of its own: two hands, a head signed every 40 events."""
    played = play_casino("Mar", _url(postgres_store()), 2, 21, directory=tmp_path, every=40)
    yield played
    played.app.close()


@pytest.fixture
def store() -> Iterator[GroupStore]:
    with GroupStore(_url(postgres_store())) as group_store:
        yield group_store


def log(casino: Played, *, keys: bool = True) -> CasinoLog:
    return CasinoLog(casino.name, casino.app.recorder, casino.app.mapper,
                     (load_public_key(casino.key_file),) if keys else ())


def rewrite(casino: Played, position: int, *, recompute: bool) -> None:
    """Change the stored state of the event at ``position`` (a chip more somewhere: a forgery), and with
    ``recompute`` the chain links from there on, as someone who can write the casino's database could."""
    recorder: Any = casino.app.recorder
    schema = sql.Identifier(recorder.datastore.schema)
    events, chain = sql.Identifier(recorder.events_table_name), sql.Identifier(recorder.chain_table)
    with psycopg.connect(POSTGRES_URL) as connection:
        state = connection.execute(sql.SQL("SELECT state FROM {}.{} WHERE notification_id = %s")
                                   .format(schema, events), (position,)).fetchone()
        assert state is not None
        forged = bytes(state[0]).replace(b"1", b"2", 1)
        assert forged != bytes(state[0])
        connection.execute(sql.SQL("UPDATE {}.{} SET state = %s WHERE notification_id = %s").format(schema, events),
                           (forged, position))
        if not recompute:
            return
        previous = connection.execute(sql.SQL("SELECT hash FROM {}.{} WHERE position < %s ORDER BY position DESC "
                                              "LIMIT 1").format(schema, chain), (position,)).fetchone()
        rows = connection.execute(sql.SQL("SELECT notification_id, originator_id, originator_version, topic, state "
                                          "FROM {}.{} WHERE notification_id >= %s ORDER BY notification_id")
                                  .format(schema, events), (position,)).fetchall()
        stored = [StoredEvent(originator_id=row[1], originator_version=row[2], topic=row[3], state=bytes(row[4]))
                  for row in rows]
        for at, link in links(bytes(previous[0]) if previous else bytes(32), [row[0] for row in rows], stored):
            connection.execute(sql.SQL("UPDATE {}.{} SET hash = %s WHERE position = %s").format(schema, chain),
                               (link, at))


@contextlib.contextmanager
def reader(casino: Played) -> Iterator[str]:
    """The URL of the casino's store for a new role that may only read its tables (dropped afterwards)."""
    role = f"reader_{uuid.uuid4().hex[:10]}"
    schema = casino.app.recorder.datastore.schema  # type: ignore[attr-defined]
    with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        try:
            connection.execute(sql.SQL("GRANT USAGE ON SCHEMA {0} TO {1}; GRANT SELECT ON ALL TABLES IN SCHEMA {0} "
                                       "TO {1}").format(sql.Identifier(schema), sql.Identifier(role)))
            parts = urlsplit(casino.url)
            yield urlunsplit(parts._replace(netloc=f"{role}@{parts.hostname}:{parts.port or 5432}"))
        finally:
            connection.execute(sql.SQL("DROP OWNED BY {0}; DROP ROLE {0}").format(sql.Identifier(role)))


def sync(capsys: pytest.CaptureFixture[str], casino: Played, store: GroupStore, *extra: str,
         url: str | None = None) -> tuple[int, str, str]:
    capsys.readouterr()
    group_url = f"{POSTGRES_URL}?schema={store.schema}"
    status = main(["group", "sync", "--group-db", group_url, "--casino", f"{casino.name}={url or casino.url}",
                   *extra])
    out, err = capsys.readouterr()
    return status, out, err


def test_an_event_altered_at_a_casino_is_refused_with_its_page_and_recorded_once(
        casino: Played, store: GroupStore, capsys: pytest.CaptureFixture[str]) -> None:
    Follower(store).sync(log(casino))
    received, totals = store.tracked(casino.name).position, store.totals()
    casino.casino.play(1)
    rewrite(casino, received + 5, recompute=False)
    for _ in range(2):
        status, _, err = sync(capsys, casino, store, "--public-key", f"{casino.name}={casino.key_file}")
        assert status == 1
        assert "REFUSED (altered)" in err and f"position {received + 5}" in err and "R-AUD-1" in err
    assert store.tracked(casino.name).position == received  # nothing of the page: not the events before it either
    assert store.totals() == totals
    assert [(alert["position"], alert["kind"]) for alert in store.alerts()] == [(received + 5, "altered")]


def test_a_forged_event_with_its_chain_recomputed_is_given_away_by_the_signed_head_after_it(
        casino: Played, store: GroupStore, tmp_path: Path) -> None:
    rewrite(casino, 5, recompute=True)  # the chain checks again: only a signed head can tell
    synced = Follower(store).sync(log(casino))
    assert synced.refused is not None and synced.refused.kind == "rewritten" and synced.position == 0
    assert "signs position" in str(synced.refused)
    other = tmp_path / "other.pub.pem"  # a head is checked against the casino's key, not any key
    other.write_text(public_pem(Ed25519PrivateKey.generate()), encoding="utf-8")
    wrong = CasinoLog(casino.name, casino.app.recorder, casino.app.mapper, (load_public_key(other),))
    synced = Follower(store).sync(wrong)
    assert synced.refused is not None and synced.refused.kind == "signature" and synced.position == 0
    assert "not with the given key" in str(synced.refused)
    # without the casino's key the chain alone checks: the forgery is carried along with the heads, unchecked,
    # and 'group verify' with the key finds it in what the group holds
    assert Follower(store).sync(log(casino, keys=False)).refused is None
    assert verify_received(store, casino.name).clean
    verdict = verify_received(store, casino.name, log(casino).keys)
    assert verdict.finding is not None and verdict.finding.kind == "rewritten"


def test_a_casino_log_rewritten_before_what_the_group_received_no_longer_chains_on(
        casino: Played, store: GroupStore) -> None:
    Follower(store).sync(log(casino, keys=False))
    received = store.tracked(casino.name).position
    casino.casino.play(1)
    rewrite(casino, 3, recompute=True)  # the whole chain recomputed: the casino's own links all check
    synced = Follower(store).sync(log(casino, keys=False))
    assert synced.refused is not None and synced.refused.kind == "altered"
    assert synced.refused.position == received + 1 and synced.position == received


def test_a_row_altered_in_the_groups_own_store_is_found_by_group_verify(
        casino: Played, store: GroupStore, capsys: pytest.CaptureFixture[str]) -> None:
    Follower(store).sync(log(casino))
    capsys.readouterr()
    line = ["group", "verify", "--group-db", f"{POSTGRES_URL}?schema={store.schema}", "--casino",
            f"{casino.name}={casino.url}", "--public-key", f"{casino.name}={casino.key_file}"]
    assert main(line) == 0
    assert ": clean:" in capsys.readouterr().out
    with store.connection.transaction():
        store.connection.execute("UPDATE group_events SET state = overlay(state placing '9' from 3 for 1) "
                                 "WHERE casino = %s AND position = 9", (casino.name,))
    assert main(line) == 1
    assert "TAMPERED (altered): position 9:" in capsys.readouterr().out


def test_a_casino_cut_off_is_skipped_and_caught_up_with_later(casino: Played, store: GroupStore, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = sync(capsys, casino, store, "--connect-timeout", "1",
                            url="postgresql://postgres@127.0.0.1:1/nowhere")
    assert status == 1 and out == "" and "Mar: not reached, caught up with later" in err
    config = tmp_path / "group.toml"
    with reader(casino) as url:  # the group's role at the casino may only read its tables
        config.write_text(f'[group]\ndb = "{POSTGRES_URL}?schema={store.schema}"\n'
                          f'[group.casinos.{casino.name}]\ndb = "{url}"\npublic_key = "{casino.key_file}"\n',
                          encoding="utf-8")
        capsys.readouterr()
        assert main(["group", "sync", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{casino.name}\t+{casino.head} events\tposition {casino.head}\tsigned up to ")
    assert store.tracked(casino.name).position == casino.head
