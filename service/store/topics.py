"""Stored topics of the classes that issue 14 moved (eventsourcing's ``register_topic``).

A stored event names its class by topic, ``module:qualname``. The move to ``domain/cards|circle|banked`` and
``service/app|store|…`` changed the modules of the table and hand aggregates and of the service's own records, so
events stored before the move name modules that no longer exist. Each old module is registered as an alias of the
module that now holds its classes: ``domain.hand:Hand.CardDealt`` resolves to
:class:`domain.circle.hand.Hand.CardDealt`. Events stored from now on carry the new topics; both kinds load side by
side, and the hash chain, which covers the topic as stored, still checks (tests/app/test_fixture_before_move.py).
"""

from __future__ import annotations

import importlib

from eventsourcing.utils import register_topic

MOVED: dict[str, str] = {
    "domain.table": "domain.circle.table",
    "domain.hand": "domain.circle.hand",
    "domain.banked_table": "domain.banked.table",
    "domain.thb": "domain.banked.thb",
    "domain.cdp": "domain.banked.cdp",
    "service.application": "service.app.application",
    "service.signing": "service.store.signing",
}
"""Every module that held a stored aggregate or event before the move → the module that holds it now."""


def old_topics(topic: str) -> tuple[str, ...]:
    """``topic`` and the topics the same class had before the move (for queries that select events by topic)."""
    module, _, name = topic.partition(":")
    return (topic, *(f"{old}:{name}" for old, new in MOVED.items() if new == module))


def register_moved_topics() -> None:
    """Let the old topics resolve (idempotent: a topic already registered to the same module is left as it is)."""
    for old, new in MOVED.items():
        register_topic(old, importlib.import_module(new))
