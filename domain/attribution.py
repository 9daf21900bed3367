"""Who did it, and where (issue 32; R-AUD-1): the names under which every stored event of a command carries the
person who gave the command and the station he gave it at.

The service stamps each event of a command as it stores it (:mod:`service.app.unit`): the person's employee number
(:mod:`domain.staff`) and the station's name.  The stamp is part of the event's stored state, so the hash chain and
the signed heads cover it as they cover the cards.  An event stored before attribution (or by the service itself: an
alert it raised, a signed head) has no stamp, and is shown as such ("no person recorded").  Like an event's time, it
is bookkeeping the log keeps about the event, not something the event says.

>>> stamp = Attribution("1042", "mesa-1")
>>> stamp.stored(), Attribution.of(stamp.stored()), Attribution.of({})
({'by_person': '1042', 'by_station': 'mesa-1'}, Attribution(person='1042', station='mesa-1'), None)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

BY_PERSON = "by_person"
"""An event's attribute (and key of its stored state): the employee number of the person whose command it is ("":
the station acted with no person, before the staff were in force)."""
BY_STATION = "by_station"
"""An event's attribute (and key of its stored state): the station the command came from."""
KEYS = (BY_PERSON, BY_STATION)


@dataclass(frozen=True)
class Attribution:
    """The person (his employee number; "" for none) and the station of a command's events."""

    person: str
    station: str

    def stored(self) -> dict[str, str]:
        """The event's attributes that say it."""
        return {BY_PERSON: self.person, BY_STATION: self.station}

    @classmethod
    def of(cls, state: Mapping[str, object]) -> Attribution | None:
        """The attribution an event's state (or attributes) carries; None when it has none (an older event)."""
        station = state.get(BY_STATION)
        if not isinstance(station, str):
            return None
        person = state.get(BY_PERSON)
        return cls(person if isinstance(person, str) else "", station)
