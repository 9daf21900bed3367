"""The database written before issue 14's move (tests/data, made by tests/support/make_fixture_before_move.py) and the
state each of its tables was then reported in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent.parent / "data"
DATABASE = DATA / "before-the-move.db"
RECORD: dict[str, Any] = json.loads((DATA / "before-the-move.json").read_text(encoding="utf-8"))
