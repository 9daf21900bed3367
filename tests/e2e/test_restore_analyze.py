"""A PostgreSQL store restored from a backup is ANALYZEd (issue 30, item 4): ``pg_restore`` leaves the planner no
statistics, and on a server where autovacuum has not reached them a large log was read 100-250 times slower.

Tier: operations (real ``pg_dump``/``pg_restore`` against the test server, required in CI)."""

from __future__ import annotations

import time

from service.app.commands import OpenTable, Sit
from service.bootstrap import open_store
from tests.support.app_play import Ids
from tests.support.app_tables import SETTINGS
from tests.support.backups import _admin, _url, pokertable
from tests.support.backups import pg_database as pg_database  # noqa: PLC0414  (a fixture: a fresh database)
from tests.support.backups import pg_schema as pg_schema  # noqa: PLC0414  (a fixture: a fresh schema)


def test_every_table_of_a_restored_schema_has_its_statistics(pg_schema: str, pg_database: str,
                                                             tmp_path: object) -> None:
    live, target = _url(pg_schema), _url(pg_schema, database=pg_database)
    with open_store(live, writer=True) as store:
        ids = Ids("analyze")
        store.app.handle(OpenTable(ids(), "Mesa 1", SETTINGS))
        store.app.handle(Sit(ids(), "Mesa 1", 1, 100))
    backup = f"{tmp_path}/store.backup"
    done = pokertable("backup", "--db", live, "--to", backup)
    assert done.returncode == 0, done.stderr
    restored = pokertable("restore", "--from", backup, "--db", target, "--accept-unsigned-end")
    assert restored.returncode == 0, restored.stdout + restored.stderr
    # the statistics views are flushed by each backend within a second or so (PostgreSQL 15's shared-memory stats):
    # under load the restore's last ANALYZE may show a moment after it returned
    deadline = time.monotonic() + 10
    while True:
        with _admin(pg_database) as connection:
            rows = connection.execute("SELECT relname, analyze_count + autoanalyze_count FROM pg_stat_user_tables "
                                      "WHERE schemaname = %s", (pg_schema,)).fetchall()
        counts = {str(name): int(str(count)) for name, count in rows}
        if all(count >= 1 for count in counts.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert {"pokertable_events", "pokertable_events_chain"} <= set(counts), counts
    assert all(count >= 1 for count in counts.values()), counts
