"""Where a casino group's follower finds its store and its casinos (issue 18, item 3; docs/group.md): the
``[group]`` table of the configuration file (``--config FILE`` or ``POKERTABLE_CONFIG``, the file the service reads,
:mod:`service.cli.settings`), and flags that add to it or override it.

.. code-block:: toml

    [group]
    db = "postgresql://group@10.0.0.2/pokertable_group"   # the group's read store (PostgreSQL)
    interval = 1.0                                         # group sync --follow: seconds between two reads

    [group.casinos."Gran Via"]
    db = "postgresql://reader@10.1.0.5/pokertable"         # the casino's own store (a read-only role will do)
    public_key = "/etc/pokertable/gran-via.pub.pem"        # 'pokertable audit key' of the casino's service

>>> config = group_config({"group": {"db": "postgresql://g@h/group", "casinos": {"A": {"db": "postgresql://a@h/a"}}}},
...                       casinos=["B=postgresql://b@h/b"], keys=["B=/keys/b.pem"])
>>> sorted(config.casinos), config.casinos["B"].keys, config.interval
(['A', 'B'], (PosixPath('/keys/b.pem'),), 1.0)
>>> group_config({}, casinos=["nameless"])
Traceback (most recent call last):
...
service.cli.settings.SettingsError: --casino nameless: NAME=URL, e.g. 'Gran Via=postgresql://reader@10.1.0.5/pokertable'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from service.cli.settings import SettingsError
from service.store.persistence import PersistenceUrlError, environment

DEFAULT_INTERVAL = 1.0
"""Seconds between two reads of every casino's log in ``group sync --follow``."""


@dataclass(frozen=True)
class CasinoConfig:
    """One casino: its store's URL and the public keys of its service (several: a key rotated)."""

    url: str
    keys: tuple[Path, ...] = ()


@dataclass(frozen=True)
class GroupConfig:
    """The group's store, its casinos by name, and the follower's interval."""

    db: str | None = None
    casinos: Mapping[str, CasinoConfig] = field(default_factory=dict)
    interval: float = DEFAULT_INTERVAL


def _url(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{where}: a database URL, not {value!r}")
    try:
        environment(value)
    except PersistenceUrlError as error:
        raise SettingsError(f"{where}: {error}") from None
    return value


def _pair(text: str, flag: str, wanted: str, example: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not value.strip():
        raise SettingsError(f"{flag} {text}: {wanted}, e.g. {example!r}")
    return name.strip(), value.strip()


def group_config(file: Mapping[str, Any], *, db: str | None = None, casinos: Sequence[str] = (),
                 keys: Sequence[str] = (), interval: float | None = None, path: Path | None = None) -> GroupConfig:
    """The group's configuration: the file's ``[group]`` table, then the flags (``--group-db``, ``--casino NAME=URL``,
    ``--public-key NAME=FILE``, ``--interval``); :class:`SettingsError` naming where a bad value came from."""
    where = f"config {path}" if path else "config"
    section = file.get("group", {})
    if not isinstance(section, dict):
        raise SettingsError(f"{where}: [group] is a table")
    unknown = sorted(set(section) - {"db", "interval", "casinos"})
    if unknown:
        raise SettingsError(f"{where}: [group] {unknown[0]}: no such setting (known: db, interval, casinos)")
    found: dict[str, CasinoConfig] = {}
    for name, table in dict(section.get("casinos", {})).items():
        place = f"{where} [group.casinos.{name}]"
        if not isinstance(table, dict) or set(table) - {"db", "public_key"}:
            raise SettingsError(f"{place}: a table of db and public_key")
        key = table.get("public_key")
        keys_of = (Path(key).expanduser(),) if isinstance(key, str) else tuple(Path(k).expanduser() for k in key or ())
        found[name] = CasinoConfig(_url(table.get("db"), f"{place} db"), keys_of)
    for text in casinos:
        name, url = _pair(text, "--casino", "NAME=URL", "Gran Via=postgresql://reader@10.1.0.5/pokertable")
        found[name] = CasinoConfig(_url(url, f"--casino {name}"), found[name].keys if name in found else ())
    for text in keys:
        name, key_path = _pair(text, "--public-key", "NAME=FILE", "Gran Via=/etc/pokertable/gran-via.pub.pem")
        if name not in found:
            raise SettingsError(f"--public-key {name}: no casino {name!r} (--casino or [group.casinos])")
        found[name] = replace(found[name], keys=(*found[name].keys, Path(key_path).expanduser()))
    chosen = db or section.get("db")
    seconds = interval if interval is not None else section.get("interval", DEFAULT_INTERVAL)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds <= 3600:
        raise SettingsError(f"{'--interval' if interval is not None else f'{where} [group] interval'}: seconds "
                            f"above 0 (at most 3600), not {seconds!r}")
    return GroupConfig(_url(chosen, "--group-db" if db else f"{where} [group] db") if chosen else None, found,
                       float(seconds))
