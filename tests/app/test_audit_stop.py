"""A service that stops does not wait for its own audit of a long log (issue 30; R-AUD-1): the check on its thread
ends at its next page once the service stops (on a 3 M-event store, `pokertable serve` took more than a minute to
stop after SIGTERM, waiting for the throttled full audit it runs at every start), and a check that ends that way
says nothing about the log: the next one starts from the lowest position again and finds it clean."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from service.app import tampering
from service.app.application import PokerTables
from service.store.audit import AuditStoppedError
from tests.support.app_tables import ids, open_table
from tests.support.stores import store as store  # noqa: PLC0414  (the fixture: a fresh SQLite file, a PostgreSQL schema)


def _pages_of_log(store: dict[str, str], pages: int = 4) -> PokerTables:
    """A store of ``pages`` audit pages and more (1,000 events each): chips added at a seat, 500 events a
    transaction (the audit reads pages of the log, however they were written)."""
    app = PokerTables(env=store)
    table = open_table(app, ids())
    while (app.recorder.max_notification_id() or 0) < pages * 1000 + 10:
        record = app.table(table)
        for _ in range(500):
            record.add_chips(1, 1)
        app.save(record)
    return app


def test_r_aud_1_a_check_stops_at_its_next_page_once_stopping_is_set_and_the_next_is_whole(
        store: dict[str, str]) -> None:
    app = _pages_of_log(store)
    stopping = threading.Event()
    threading.Timer(0.2, stopping.set).start()
    started = time.monotonic()
    with pytest.raises(AuditStoppedError):
        app.audit.audit_log(full=True, pause=1.0, stopping=stopping)  # four pages, a second's pause after each
    assert time.monotonic() - started < 1.0
    verdict = app.audit.audit_log(full=False)  # nothing to resume from a check cut short: the whole log again
    assert verdict.finding is None and verdict.events == app.recorder.max_notification_id()
    app.close()


def test_r_aud_1_the_service_s_audit_cancelled_leaves_no_thread_behind(store: dict[str, str],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """What `pokertable serve`'s stop does: the audit's task cancelled, then asyncio's shutdown waits for the
    threads it ran; the check ends at its next page instead of walking the rest of the log."""
    app = _pages_of_log(store)
    monkeypatch.setattr(tampering, "FULL_PAUSE", 1.0)  # the whole check would take four seconds and more

    async def serve_then_stop() -> None:
        audit = asyncio.ensure_future(tampering.audit_periodically(app.audit, 3600.0))
        await asyncio.sleep(0.3)
        audit.cancel()
        with pytest.raises(asyncio.CancelledError):
            await audit

    started = time.monotonic()
    asyncio.run(serve_then_stop())  # returns once the default executor's threads have ended
    assert time.monotonic() - started < 2.0
    app.close()
