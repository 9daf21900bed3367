"""The stations file: each station's token, role and, for a dealer or a device, its table."""

from __future__ import annotations

import hmac
import secrets
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.app.application import (
    Role,
    Viewer,
)


class StationConfigError(ValueError):
    """A stations file that cannot be used."""


@dataclass(frozen=True)
class Stations:
    """Station tokens and what each station is."""

    by_token: dict[str, Viewer]

    @classmethod
    def load(cls, path: Path) -> Stations:
        """Read the stations file."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise StationConfigError(f"cannot read {path}: {error}") from error
        return cls.from_mapping(data.get("stations", {}))

    @classmethod
    def from_mapping(cls, stations: dict[str, Any]) -> Stations:
        """Stations from ``{name: {token, role, table}}``."""
        by_token: dict[str, Viewer] = {}
        for name, entry in stations.items():
            token, role = entry.get("token", ""), entry.get("role", "")
            if len(token) < 16:
                raise StationConfigError(f"station {name}: a token of at least 16 characters")
            if token in by_token:
                raise StationConfigError(f"station {name}: its token is another station's")
            try:
                viewer = Viewer(name, Role(role), entry.get("table"))
            except ValueError:
                raise StationConfigError(f"station {name}: unknown role {role!r}") from None
            if viewer.role in (Role.DEALER, Role.DEVICE) and not viewer.table:
                raise StationConfigError(f"station {name}: a {viewer.role.value} station names its table")
            by_token[token] = viewer
        return cls(by_token)

    def authenticate(self, name: str, token: str) -> tuple[str, str | None] | None:
        """The role and table of the station called ``name`` whose token this is (the pit's web sign-in, issue 16);
        None when the token is unknown or is another station's."""
        viewer = self.by_token.get(token)
        if viewer is None or not hmac.compare_digest(viewer.station.encode(), name.encode()):
            return None
        return viewer.role.value, viewer.table

    def with_station(self, name: str, role: Role) -> tuple[Stations, str]:
        """These stations and one more, of ``role``, with a random token made for this process only (the pit
        dashboard's floor reads the tables through it); the new token."""
        token = secrets.token_urlsafe(32)
        return Stations({**self.by_token, token: Viewer(name, role, None)}), token
