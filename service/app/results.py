"""What a command answers (issue 31): one typed result for every command, stored with the record of the command
(``ProcessedCommand``) so that a retry answers it again, word for word.

The record stores the fields that were set, under their names, as the records of every earlier version did (a
``dict``: an event's payload); :meth:`Result.stored` and :meth:`Result.from_stored` are the two directions.

>>> Result(table="Mesa 1", hand_id="5e2a…", number=3).stored()
{'table': 'Mesa 1', 'hand_id': '5e2a…', 'number': 3}
>>> Result.from_stored({"table": "Mesa 1", "version": 7}).version
7
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Result:
    """A command's result: the table (``""``: the casino's log), and what the command made or changed."""

    table: str
    table_id: str | None = None
    """An opened table's aggregate id."""
    hand_id: str | None = None
    """The hand started or acted on."""
    number: int | None = None
    """The hand started's number at its table."""
    version: int | None = None
    """The changed aggregate's version after the command (the table's, the hand's, the shift's)."""
    complete: bool | None = None
    """An action's: whether the hand is over."""
    shift: int | None = None
    """A shift's command: the shift's number at its table (R-ACC-1)."""
    win: int | None = None
    """A closed shift's win (R-ACC-4)."""
    flagged: bool | None = None
    """A closed shift's: whether its hold is outside its theoretical band (R-ACC-6)."""
    recorded: bool | None = None
    """A record the service keeps of itself (a finding, a view): whether this command recorded something new."""

    def stored(self) -> dict[str, Any]:
        """As the command's record stores it: the fields set, by name."""
        return {field.name: getattr(self, field.name) for field in fields(self)
                if getattr(self, field.name) is not None}

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> Result:
        """A stored result (of this version or an earlier one) as a :class:`Result`; keys it does not know are left."""
        known = {field.name for field in fields(cls)}
        return cls(**{key: value for key, value in stored.items() if key in known})
