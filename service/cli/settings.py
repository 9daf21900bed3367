"""The service's configuration (issue 17, item 5): one TOML file, ``POKERTABLE_*`` environment variables and flags.

Each setting is read from, in this order of precedence: its flag (``--port``), its environment variable
(``POKERTABLE_PORT``), the ``[service]`` table of the configuration file (``port = 50051``), its default. The file is
the one ``--config`` names (or ``POKERTABLE_CONFIG``); its ``[stations.NAME]`` tables are the stations
(:mod:`service.grpc.stations`). docs/ops/pokertable.toml is a documented example.

Secrets are never echoed: the database password comes from ``POKERTABLE_DB_PASSWORD`` or from the file that
``db_password_file`` names (or from the URL itself, discouraged), and every description of the settings
(:meth:`Settings.described`, the start-up log) masks it; the signing key is a file; station tokens are kept in the
file as their SHA-256 digests (``pokertable tokens add``). A bad value is refused with the key it came from:

>>> settings(flags={"port": None}, environ={"POKERTABLE_PORT": "http"}, file={})
Traceback (most recent call last):
...
service.cli.settings.SettingsError: environment POKERTABLE_PORT: a port from 0 to 65535, not 'http'
>>> chosen = settings(flags={"port": 7000}, environ={"POKERTABLE_PORT": "6000"}, file={"service": {"port": 5000}})
>>> chosen.port, chosen.origin["port"]
(7000, '--port')
>>> secret = settings(environ={"POKERTABLE_DB": "postgresql://casino@db/tables", "POKERTABLE_DB_PASSWORD": "s3cr3t"})
>>> secret.db, secret.described()["db"]
('postgresql://casino:s3cr3t@db/tables', 'postgresql://casino:***@db/tables')
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from domain.integrity.monitor import MonitorSettings
from domain.integrity.observations import Gathering
from service.app.clock import DEFAULT_CLOCK_CHECK_EVERY, DEFAULT_CLOCK_MAX_ERROR
from service.store.persistence import DEFAULT_DB, PersistenceUrlError, environment, masked_url
from service.store.signing import DEFAULT_EVERY

ENV_PREFIX = "POKERTABLE_"
SECTION = "service"
DEFAULT_TZ = "Europe/Madrid"
"""The casino's time zone when none is configured (a Spanish casino's; R-… times are local on the floor)."""
LOG_FORMATS = ("human", "json")
LOG_LEVELS = ("debug", "info", "warning", "error")


class SettingsError(ValueError):
    """A setting that cannot be used; the message names where it came from (flag, variable or file key)."""


def _text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"a text, not {value!r}")
    return value


def _port(value: object) -> int:
    number = _integer(value, "a port from 0 to 65535")
    if not 0 <= number <= 65535:
        raise ValueError(f"a port from 0 to 65535, not {value!r}")
    return number


def _integer(value: object, wanted: str = "a whole number") -> int:
    if isinstance(value, bool):
        raise ValueError(f"{wanted}, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise ValueError(f"{wanted}, not {value!r}")


def _boolean(value: object) -> bool:
    """``true`` or ``false`` (TOML), or as text: true/false, yes/no, on/off, 1/0."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise ValueError(f"true or false, not {value!r}")


def _positive(value: object) -> int:
    number = _integer(value, "a whole number from 1")
    if number < 1:
        raise ValueError(f"a whole number from 1, not {value!r}")
    return number


def _lock_after(value: object) -> int:
    number = _positive(value)
    if number > 10:
        raise ValueError(f"a whole number from 1 to 10, not {value!r}")
    return number


def _count(value: object) -> int:
    number = _integer(value, "a whole number from 0")
    if not 0 <= number < 10**6:
        raise ValueError(f"a whole number from 0, not {value!r}")
    return number


def _seconds(value: object) -> float:
    if isinstance(value, bool):
        raise ValueError(f"seconds (0 or more), not {value!r}")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"seconds (0 or more), not {value!r}") from None
    if not 0 <= number < 10**7:
        raise ValueError(f"seconds (0 or more), not {value!r}")
    return number


def _seconds_above_zero(value: object) -> float:
    try:
        number = _seconds(value)
    except ValueError:
        number = 0.0
    if number <= 0:
        raise ValueError(f"seconds above 0, not {value!r}")
    return number


def _probability(value: object) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"a probability between 0 and 1, not {value!r}") from None
    if isinstance(value, bool) or not 0 < number < 1:
        raise ValueError(f"a probability between 0 and 1, not {value!r}")
    return number


def _path(value: object) -> Path:
    return (value if isinstance(value, Path) else Path(_text(value))).expanduser()


def _address(value: object) -> str:
    text = _text(value)
    _, colon, port = text.rpartition(":")
    if not colon or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"HOST:PORT (port 0 picks a free one), not {value!r}")
    return text


def _database(value: object) -> str:
    text = _text(value)
    try:
        environment(text)
    except PersistenceUrlError as error:
        raise ValueError(str(error)) from None
    return text


def _choice(choices: tuple[str, ...]) -> Callable[[object], str]:
    def parse(value: object) -> str:
        if not isinstance(value, str) or value.lower() not in choices:
            raise ValueError(f"one of {', '.join(choices)}, not {value!r}")
        return value.lower()
    return parse


def _zone(value: object) -> str:
    text = _text(value)
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"a time zone such as Europe/Madrid, not {value!r}") from None
    return text


@dataclass(frozen=True)
class Key:
    """One setting: how its value is checked, its default and what it is."""

    parse: Callable[[object], Any]
    default: Any
    help: str
    secret: bool = False

    def flag(self, name: str) -> str:
        return "--" + name.replace("_", "-")


KEYS: Mapping[str, Key] = {
    "db": Key(_database, DEFAULT_DB, "where the events live: sqlite:///FILE or postgresql://USER@HOST/DB[?schema=S]"),
    "db_password_file": Key(_path, None, "a file holding the PostgreSQL password (its first line)"),
    "db_password": Key(_text, None, "the PostgreSQL password (environment only: POKERTABLE_DB_PASSWORD)", secret=True),
    "host": Key(_text, "127.0.0.1", "the address gRPC listens on"),
    "port": Key(_port, 50051, "gRPC's port (0 picks a free one, printed at start)"),
    "http": Key(_address, None, "HOST:PORT of the pit's dashboard, /metrics and /livez, /readyz (off when unset)"),
    "tls_cert": Key(_path, None, "PEM certificate chain: serve gRPC and HTTP over TLS (with tls_key)"),
    "tls_key": Key(_path, None, "PEM private key of tls_cert", secret=False),
    "signing_key": Key(_path, None, "the Ed25519 key that signs chain heads (default: beside the config file)"),
    "sign_every": Key(_positive, DEFAULT_EVERY, "sign the chain head every N events stored"),
    "instance": Key(_text, None, "this instance's name in the heads it signs and its journal's (default HOST:PORT; "
                                 "each instance sharing a configuration directory needs its own)"),
    "audit_every": Key(_seconds, 3600.0, "seconds between the service's audits of its log (0: never)"),
    "grace": Key(_seconds, 10.0, "seconds calls in flight get to finish when the service stops"),
    "log_format": Key(_choice(LOG_FORMATS), "human", "human (a line a record) or json (one object per line)"),
    "log_level": Key(_choice(LOG_LEVELS), "info", "the least severe log records written"),
    "tz": Key(_zone, DEFAULT_TZ, "the casino's time zone, for times read and printed"),
    "shuffler_gathering": Key(_choice(tuple(Gathering)), str(Gathering.READ_THEN_STUB),
                              "how a hand's cards go back into the shuffler (docs/integrity.md): read-then-stub, "
                              "stub-then-read or unknown"),
    "shuffler_level": Key(_probability, 0.01, "the shuffler monitor's false-alarm probability for the floor in a "
                                              "shift (0.01: 99 % confidence)"),
    "shuffler_looks": Key(_positive, 160, "the shuffles of one deck a shift holds (the shuffler monitor's looks)"),
    "shuffler_check_every": Key(_seconds, 300.0, "seconds between the service's checks of its shufflers over the "
                                                 "shift; a deck that fails holds its tables (0: never)"),
    "hole_cards_live": Key(_boolean, True, "show face-down cards to the pit and the games director during the hand "
                                          "(false: only once it ends); every look is recorded (docs/audit.md)"),
    "station_idle_minutes": Key(_positive, 15, "minutes after which a station unused locks: its person is signed "
                                               "out and signs in again (docs/staff.md)"),
    "lock_after": Key(_lock_after, 10, "wrong PINs in a row that lock a badge until an administrator resets it (1 "
                                       "to 10, PCI DSS 4.0 8.3.4)"),
    "verify_install_every": Key(_seconds, 3600.0, "seconds between the service's checks of its installed files "
                                                  "against the release manifest; a difference holds every table "
                                                  "(0: never)"),
    "clock_check_every": Key(_seconds, DEFAULT_CLOCK_CHECK_EVERY, "seconds between the service's checks of its host "
                             "clock's synchronisation, the first at start (0: never)"),
    "escalate_after_minutes": Key(_count, 10, "minutes an alert stays open before the floor escalates it to the "
                                              "games director (0: never)"),
    "alert_hand_minutes": Key(_count, 10, "minutes a hand may last before its table is flagged on the floor (0: "
                                          "never)"),
    "alert_hands_per_hour_below": Key(_count, 0, "hands an hour below which a table open for an hour is flagged on "
                                                 "the floor (0: never)"),
    "alert_hands_per_hour_above": Key(_count, 0, "hands an hour above which a table is flagged on the floor (0: "
                                                 "never)"),
    "clock_max_error": Key(_seconds_above_zero, DEFAULT_CLOCK_MAX_ERROR, "seconds: a clock that may be off by more "
                           "is logged as an error and shown in the metrics (play is not held)"),
}
"""Every setting, by its key in the file (the flag is ``--key-with-dashes``, the variable ``POKERTABLE_KEY``)."""
ENVIRONMENT_ONLY = frozenset({"db_password"})
"""Secrets never read from a flag (a flag is visible to every user of the machine in its process list)."""


@dataclass(frozen=True)
class Settings:
    """The settings in effect, and where each came from."""

    values: Mapping[str, Any]
    origin: Mapping[str, str] = field(default_factory=dict)
    stations: Mapping[str, Any] = field(default_factory=dict)
    """The file's ``[stations.NAME]`` tables, as read."""
    path: Path | None = None
    """The configuration file read (None: none)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def db(self) -> str:
        """The database URL, with the password from its secret (never printed: :meth:`described`)."""
        url: str = self.values["db"]
        password = self.values.get("db_password")
        if password is None and self.values.get("db_password_file") is not None:
            password = _read_secret(self.values["db_password_file"], self.origin.get("db_password_file", ""))
        if password is None:
            return url
        parts = urlsplit(url)
        if parts.scheme not in ("postgresql", "postgres") or parts.password:
            return url
        user = quote(parts.username or "postgres", safe="")
        host = parts.hostname or ""
        netloc = f"{user}:{quote(password, safe='')}@{host}{f':{parts.port}' if parts.port else ''}"
        return urlunsplit(parts._replace(netloc=netloc))

    def shuffler_monitor(self) -> MonitorSettings:
        """The shuffler integrity monitor's settings (``shuffler_level``, ``shuffler_looks``,
        ``shuffler_gathering``): ``pokertable serve`` passes them to the server, ``report shufflers`` uses them."""
        return MonitorSettings(level=self.values["shuffler_level"], looks=self.values["shuffler_looks"],
                               gathering=Gathering(self.values["shuffler_gathering"]))

    def described(self) -> dict[str, str]:
        """Every setting as text for a log or a screen: secrets masked, the database URL's password too."""
        out = {}
        for name, key in KEYS.items():
            value = self.values.get(name)
            if value is None:
                continue
            out[name] = "***" if key.secret else masked_url(self.db) if name == "db" else str(value)
        return out


def _read_secret(path: Path, origin: str) -> str:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise SettingsError(f"{origin}: cannot read the secret file {path}: {error.strerror}") from None
    if not lines or not lines[0].strip():
        raise SettingsError(f"{origin}: the secret file {path} is empty")
    return lines[0].strip()


def read_file(path: Path) -> dict[str, Any]:
    """The configuration file as a mapping (:class:`SettingsError` naming the file and line when it is not TOML)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SettingsError(f"config {path}: cannot read it: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"config {path}: not TOML: {error}") from None


def settings(flags: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None,
             file: Mapping[str, Any] | None = None, path: Path | None = None) -> Settings:
    """The settings in effect: each key from its flag (unless None), its variable, the file's ``[service]`` table,
    or its default; every value checked (:class:`SettingsError` naming its origin). Unknown keys in the file's
    ``[service]`` table and unknown ``POKERTABLE_*`` variables are refused too: a misspelt setting is not silently
    ignored."""
    flags = flags or {}
    environ = os.environ if environ is None else environ
    file = file or {}
    where = f"config {path}" if path else "config"
    section = file.get(SECTION, {})
    if not isinstance(section, dict):
        raise SettingsError(f"{where}: [{SECTION}] is a table of settings")
    unknown = sorted(set(section) - set(KEYS))
    if unknown:
        raise SettingsError(f"{where}: [{SECTION}] {unknown[0]}: no such setting (known: {', '.join(KEYS)})")
    if "db_password" in section:
        raise SettingsError(f"{where}: [{SECTION}] db_password: a password is not written in the file; "
                            "use db_password_file or POKERTABLE_DB_PASSWORD")
    known_variables = {ENV_PREFIX + name.upper() for name in KEYS} | {ENV_PREFIX + "CONFIG"}
    strays = sorted(name for name in environ if name.startswith(ENV_PREFIX) and name not in known_variables
                    and not name.startswith(ENV_PREFIX + "TEST_"))
    if strays:
        raise SettingsError(f"environment {strays[0]}: no such setting "
                            f"(known: {', '.join(sorted(known_variables))})")
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for name, key in KEYS.items():
        variable = ENV_PREFIX + name.upper()
        if flags.get(name) is not None and name not in ENVIRONMENT_ONLY:
            raw, source = flags[name], key.flag(name)
        elif variable in environ:
            raw, source = environ[variable], f"environment {variable}"
        elif name in section:
            raw, source = section[name], f"{where} [{SECTION}] {name}"
        else:
            values[name], origin[name] = key.default, "default"
            continue
        try:
            values[name] = key.parse(raw)
        except ValueError as error:
            raise SettingsError(f"{source}: {error}") from None
        origin[name] = source
    if (values["tls_cert"] is None) != (values["tls_key"] is None):
        raise SettingsError("tls_cert and tls_key go together "
                            f"({origin['tls_cert'] if values['tls_cert'] else origin['tls_key']})")
    stations = file.get("stations", {})
    if not isinstance(stations, dict):
        raise SettingsError(f"{where}: [stations] is a table of stations")
    chosen = Settings(values, origin, stations, path)
    chosen.db  # noqa: B018 -- a password file that cannot be read is refused now, naming its key
    return chosen
