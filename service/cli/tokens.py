"""``pokertable tokens add|list|remove``: the stations of the configuration file, and their tokens (issue 17).

``add`` makes a new station: a random token, printed once on standard output (hand it to the station: it is not kept
anywhere), and a ``[stations.NAME]`` table appended to the configuration file with the token's SHA-256 digest, its
role and its table. ``list`` prints the stations (never a token); ``remove`` takes one out (its token stops working
when the service next starts). The file is rewritten whole and atomically, and only if the result is a valid
configuration. Exit codes: 0 done, 1 refused (a name taken, none such), 2 usage or an unreadable file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import stat
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from service.app.access import STATION_KINDS
from service.grpc.stations import StationConfigError, Stations, digest

ROLES = {"croupier": "dealer", **{kind: kind for kind in STATION_KINDS}}
"""The kinds a station may be (docs/service.md, "Stations, people and roles"); ``croupier`` is the dealer's station,
``pit`` a pit terminal where any of the pit's people sign in, ``administrator`` the IT console."""
AT_A_TABLE = ("dealer", "device")
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tokens`` on the CLI."""
    parser = commands.add_parser("tokens", help="add, list or remove the stations of the configuration file",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("add", "list", "remove"))
    parser.add_argument("--name", help="the station's name (add: made from its table and role if not given)")
    parser.add_argument("--config", type=Path, default=_default_config(), required=_default_config() is None,
                        help="the configuration file (default: POKERTABLE_CONFIG)")
    parser.add_argument("--role", choices=sorted(ROLES), help="add: the station's role")
    parser.add_argument("--table", help="add: the table of a croupier's (dealer's) or a device's station")
    parser.set_defaults(run=run)


def _default_config() -> Path | None:
    value = os.environ.get("POKERTABLE_CONFIG")
    return Path(value) if value else None


def run(args: argparse.Namespace) -> int:
    """Add, list or remove a station."""
    path: Path = args.config
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        data = tomllib.loads(text)
        stations: dict[str, Any] = data.get("stations", {})
        Stations.from_mapping(stations, path.parent)
    except (OSError, tomllib.TOMLDecodeError, StationConfigError) as error:
        print(f"pokertable tokens: {path}: {error}", file=sys.stderr)
        return 2
    if args.action == "list":
        for name, entry in stations.items():
            table = f"\t{entry['table']}" if entry.get("table") else ""
            print(f"{name}\t{entry.get('role', '')}{table}")
        print(f"{len(stations)} station(s) in {path}", file=sys.stderr)
        return 0
    if args.action == "remove":
        return _remove(path, text, stations, args.name)
    return _add(path, text, stations, args)


def _add(path: Path, text: str, stations: dict[str, Any], args: argparse.Namespace) -> int:
    if args.role is None:
        print("pokertable tokens add: --role is required", file=sys.stderr)
        return 2
    role = ROLES[args.role]
    if role in AT_A_TABLE and not args.table:
        print(f"pokertable tokens add: a {args.role} station works at one table: --table", file=sys.stderr)
        return 2
    table = args.table if role in AT_A_TABLE else args.table or None
    name = args.name or _name_for(table, role, stations)
    if name in stations:
        print(f"pokertable tokens add: {path} has a station {name!r} already", file=sys.stderr)
        return 1
    token = secrets.token_urlsafe(32)
    entry = {"role": role, **({"table": table} if table else {}), "token_sha256": digest(token)}
    block = f"\n[stations.{_key(name)}]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in entry.items())
    new_text = (text.rstrip("\n") + "\n" if text.strip() else "") + block
    try:
        Stations.from_mapping(tomllib.loads(new_text).get("stations", {}), path.parent)
    except (tomllib.TOMLDecodeError, StationConfigError) as error:
        print(f"pokertable tokens add: {error}", file=sys.stderr)
        return 1
    try:
        _write(path, new_text)
    except KeptOwnerError as error:
        print(f"pokertable tokens add: {error}", file=sys.stderr)
        return 1
    print(token)
    print(f"station {name!r} ({role}{f' at {table}' if table else ''}) added to {path}; its token is printed "
          "once, above: give it to the station (the file keeps only its digest); the service reads it at its next "
          "start", file=sys.stderr)
    return 0


def _remove(path: Path, text: str, stations: dict[str, Any], name: str | None) -> int:
    if not name:
        print("pokertable tokens remove: name the station", file=sys.stderr)
        return 2
    if name not in stations:
        print(f"pokertable tokens remove: {path} has no station {name!r}", file=sys.stderr)
        return 1
    header = re.compile(rf"^\[stations\.{re.escape(_key(name))}\]\s*$")
    lines, kept, skipping = text.splitlines(keepends=True), [], False
    for line in lines:
        if line.lstrip().startswith("["):
            skipping = bool(header.match(line.strip()))
        if not skipping:
            kept.append(line)
    new_text = "".join(kept)
    remaining = tomllib.loads(new_text).get("stations", {})
    if name in remaining or len(remaining) != len(stations) - 1:
        print(f"pokertable tokens remove: the station {name!r} is not written as its own [stations.…] table in "
              f"{path}: edit the file by hand", file=sys.stderr)
        return 1
    try:
        _write(path, new_text)
    except KeptOwnerError as error:
        print(f"pokertable tokens remove: {error}", file=sys.stderr)
        return 1
    print(f"station {name!r} removed from {path}; its token stops working at the service's next start",
          file=sys.stderr)
    return 0


def _name_for(table: str | None, role: str, stations: dict[str, Any]) -> str:
    """A station name from its table and role (``mesa-1-dealer``), numbered if taken."""
    stem = re.sub(r"[^a-z0-9]+", "-", f"{table or ''} {role}".lower()).strip("-")
    name, number = stem, 1
    while name in stations:
        number += 1
        name = f"{stem}-{number}"
    return name


def _key(name: str) -> str:
    """A TOML key for a station's name (quoted unless bare)."""
    return name if _BARE.fullmatch(name) else json.dumps(name)


class KeptOwnerError(Exception):
    """The file's owner and group cannot be kept by who runs the command: nothing was written."""


def _write(path: Path, text: str) -> None:
    """Replace the file atomically, keeping its owner, its group and its mode less any access for others (it names
    the stations and their digests, and the service's user reads it: docs/ops/install.md); a new file is readable
    by its owner only.  :class:`KeptOwnerError` (nothing written) when its owner or group cannot be kept."""
    before = path.stat() if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o600 if before is None else stat.S_IMODE(before.st_mode) & ~0o007)
        if before is not None and (before.st_uid, before.st_gid) != (os.geteuid(), os.getegid()):
            try:
                os.chown(temporary, before.st_uid, before.st_gid)
            except PermissionError:
                raise KeptOwnerError(f"{path} belongs to uid {before.st_uid}, gid {before.st_gid}: run the command "
                                     "as its owner or as root, so that the service can still read it") from None
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
