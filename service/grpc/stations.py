"""The stations: each station's token, role and, for a dealer or a device, its table (the configuration file's
``[stations.NAME]`` tables, docs/ops/pokertable.toml).

A station's token is a secret: the file should hold only its SHA-256 digest (``token_sha256``, what ``pokertable
tokens add`` writes), or name a file that holds it (``token_file``); ``token`` in clear is still read, for the files
written before. The service keeps every token by its digest, so a token is never in its memory longer than a call.

>>> book = Stations.from_mapping({"pit": {"token_sha256": digest("pit-boss-token-0123456789"), "role": "pit-boss"}})
>>> book.by_token.get("pit-boss-token-0123456789").station, "pit-boss-token-0123456789" in book.by_token
('pit', True)
>>> book.by_token.get("a guess") is None
True
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import stat
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.app.access import STATION_KINDS
from service.app.application import (
    Role,
    Viewer,
)
from service.app.staff import HOUSE_STATION, SERVICE_KIND

MIN_TOKEN = 16
"""The shortest token a station may have."""
_DIGEST = re.compile(r"[0-9a-f]{64}")


class StationConfigError(ValueError):
    """A stations file that cannot be used."""


def digest(token: str) -> str:
    """A token's SHA-256 digest, as the configuration file keeps it (hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


class TokenBook:
    """The stations by token, kept by the tokens' digests."""

    def __init__(self, by_digest: Mapping[str, Viewer]) -> None:
        self._by_digest = dict(by_digest)

    def get(self, token: str) -> Viewer | None:
        """The station whose token this is (None: none)."""
        return self._by_digest.get(digest(token)) if isinstance(token, str) else None

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and digest(token) in self._by_digest

    def values(self) -> Iterable[Viewer]:
        """Every station."""
        return self._by_digest.values()

    def __len__(self) -> int:
        return len(self._by_digest)

    def digests(self) -> Mapping[str, Viewer]:
        """The stations by their tokens' digests."""
        return self._by_digest


@dataclass(frozen=True)
class Stations:
    """Station tokens and what each station is."""

    by_token: TokenBook

    @classmethod
    def load(cls, path: Path) -> Stations:
        """Read the stations of a configuration file."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise StationConfigError(f"cannot read {path}: {error}") from error
        return cls.of_file(data.get("stations", {}), path)

    @classmethod
    def of_file(cls, stations: Mapping[str, Any], path: Path) -> Stations:
        """The ``[stations]`` read from the configuration file at ``path``: refused if the file holds a token in
        clear and anyone on the machine may read it (issue 32)."""
        if isinstance(stations, Mapping) and any(isinstance(entry, Mapping) and "token" in entry
                                                 for entry in stations.values()):
            verify_not_world_readable(path, "holds station tokens in clear")
        return cls.from_mapping(stations, path.parent)

    @classmethod
    def from_mapping(cls, stations: Mapping[str, Any], base: Path | None = None) -> Stations:
        """Stations from ``{name: {token | token_sha256 | token_file, role, table}}`` (``token_file`` relative to
        ``base``, the configuration file's folder)."""
        if not isinstance(stations, Mapping):
            raise StationConfigError("[stations] is a table of stations")
        by_digest: dict[str, Viewer] = {}
        for name, entry in stations.items():
            if not isinstance(entry, Mapping):
                raise StationConfigError(f"[stations.{name}] is a table (token_sha256, role, table)")
            known = sorted(set(entry) - {"token", "token_sha256", "token_file", "role", "table"})
            if known:
                raise StationConfigError(f"[stations.{name}] {known[0]}: no such key (token_sha256, token_file, "
                                         "token, role, table)")
            key = _digest_of(name, entry, base)
            if key in by_digest:
                raise StationConfigError(f"[stations.{name}]: its token is another station's")
            kind = entry.get("role", "")
            if kind not in STATION_KINDS:
                raise StationConfigError(f"[stations.{name}] role: unknown role {kind!r} (the kind of station: one "
                                         f"of {', '.join(STATION_KINDS)})")
            if name == HOUSE_STATION:
                raise StationConfigError(f"[stations.{name}]: {HOUSE_STATION!r} names the house's own tools, not a "
                                         "station")
            # A pit terminal acts alone (before the staff are in force) as an observer: its persons' roles decide.
            viewer = Viewer(name, Role.OBSERVER if kind == "pit" else Role(kind), entry.get("table"),
                            kind="pit" if kind == "pit" else "")
            if viewer.role in (Role.DEALER, Role.DEVICE) and not viewer.table:
                raise StationConfigError(f"[stations.{name}] table: a {viewer.role.value} station names its table")
            by_digest[key] = viewer
        return cls(TokenBook(by_digest))

    def authenticate(self, name: str, token: str) -> tuple[str, str | None] | None:
        """The role and table of the station called ``name`` whose token this is (the pit's web sign-in, issue 16);
        None when the token is unknown or is another station's."""
        viewer = self.by_token.get(token)
        if viewer is None or not hmac.compare_digest(viewer.station.encode(), name.encode()):
            return None
        return viewer.role.value, viewer.table

    def with_station(self, name: str, role: Role, kind: str = SERVICE_KIND) -> tuple[Stations, str]:
        """These stations and one more, of ``role``, with a random token made for this process only; the new
        token.  Of the service's own kind (:data:`service.app.staff.SERVICE_KIND`: no configuration file can name
        one) it reads as its role without a person signed in, the staff in force or not (the pit dashboard's floor);
        of kind ``pit``, it is the dashboard's station, where the pit's people sign in (issue 32).  Its token never
        leaves the process's memory."""
        token = secrets.token_urlsafe(32)
        own = Viewer(name, role, None, kind=kind)
        return Stations(TokenBook({**self.by_token.digests(), digest(token): own})), token


def _digest_of(name: str, entry: Mapping[str, Any], base: Path | None) -> str:
    """The digest of a station's token, from whichever of ``token_sha256``, ``token_file`` and ``token`` it has
    (exactly one)."""
    given = [key for key in ("token_sha256", "token_file", "token") if key in entry]
    if len(given) != 1:
        raise StationConfigError(f"[stations.{name}]: one of token_sha256 (as 'pokertable tokens add' writes it), "
                                 "token_file or token")
    value = entry[given[0]]
    if given[0] == "token_sha256":
        if not isinstance(value, str) or not _DIGEST.fullmatch(value.lower()):
            raise StationConfigError(f"[stations.{name}] token_sha256: 64 hexadecimal digits (a SHA-256 digest)")
        return value.lower()
    if given[0] == "token_file":
        if not isinstance(value, str) or not value:
            raise StationConfigError(f"[stations.{name}] token_file: the path of a file holding the token")
        path = Path(value).expanduser()
        path = path if path.is_absolute() or base is None else base / path
        verify_not_world_readable(path, f"[stations.{name}] token_file")
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise StationConfigError(f"[stations.{name}] token_file: cannot read {path}: {error.strerror}") from None
        value = lines[0].strip() if lines else ""
    if not isinstance(value, str) or len(value) < MIN_TOKEN:
        raise StationConfigError(f"[stations.{name}] {given[0]}: a token of at least {MIN_TOKEN} characters")
    return digest(value)


def verify_not_world_readable(path: Path, what: str) -> None:
    """A file of secrets that anyone on the machine may read is refused with one line (issue 32): its owner fixes
    its mode (``chmod o-rwx``), the service does not start on it.  A file that cannot be looked at is left to the
    read that follows, which says why."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if mode & stat.S_IROTH:
        raise StationConfigError(f"{path} ({what}) is readable by anyone on this machine (mode "
                                 f"{stat.S_IMODE(mode):04o}): chmod o-rwx {path}")
