"""Identities shared by every game, circle and banked: the namespace of the deterministic ids of tables and hands.

It lives apart from both kinds of hand so that neither has to import the other for it (docs/architecture.md, "Walls").

>>> from uuid import uuid5
>>> uuid5(TABLES_NAMESPACE, "table/Mesa 1") == uuid5(TABLES_NAMESPACE, "table/Mesa 1")
True
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, uuid5

TABLES_NAMESPACE = uuid5(NAMESPACE_URL, "https://pokertable.invalid/tables")
"""Namespace of the deterministic ids of tables and hands."""
