"""``pokertable staff add|list|suspend|reinstate|reset|remove|change`` (issue 32; docs/staff.md): the administrator
keeps the casino's staff through the running service, each change an event of the log in his name.

The command is a client of the service, like a station: it calls from an administrator's station (the token of
``--token-file FILE``, else ``POKERTABLE_TOKEN``), and the administrator signs in there first (``--as ID``, his PIN
from ``POKERTABLE_PIN`` or asked on the terminal).  Before the staff are in force the station acts alone: that is how
the first administrator is enrolled (docs/staff.md, "The first administrator").  A new PIN (``add``, ``reset``) is read
from ``--pin-file FILE``, else ``POKERTABLE_NEW_PIN``, else asked twice on the terminal.  No token or PIN is ever
taken on the command line (``ps`` shows it to everyone on the machine) nor printed.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import grpc

from domain.staff import STAFF_ROLES
from service.cli.conventions import OK, REFUSED, USAGE, epilog, fail

DEFAULT_SERVER = "127.0.0.1:50051"


def add_parser(commands: Any) -> None:
    """Register ``pokertable staff``."""
    parser = commands.add_parser("staff", help="the casino's staff: enrol, list, suspend, reset a PIN (an "
                                               "administrator's)", description=__doc__, epilog=epilog("staff"),
                                 formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    parser.add_argument("--server", default=os.environ.get("POKERTABLE_SERVER", DEFAULT_SERVER),
                        help="the table service, HOST:PORT (default POKERTABLE_SERVER, else 127.0.0.1:50051)")
    parser.add_argument("--tls-ca", type=Path, help="the CA certificate of a TLS server (PEM); plain text without")
    parser.add_argument("--token-file", type=Path, metavar="FILE",
                        help="the administrator's station's token (its first line; default POKERTABLE_TOKEN)")
    parser.add_argument("--as", dest="admin", metavar="ID",
                        help="the administrator's employee number (his PIN: POKERTABLE_PIN, else asked); without it "
                             "the station acts alone, which only enrols the first administrator")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="enrol a person (his first PIN: --pin-file, POKERTABLE_NEW_PIN or asked)",
                             allow_abbrev=False)
    add.add_argument("person", metavar="ID", help="his employee number (his badge's)")
    add.add_argument("--name", required=True)
    add.add_argument("--role", dest="roles", action="append", required=True, choices=STAFF_ROLES,
                     help="a role he holds (again for several)")
    add.add_argument("--pin-file", type=Path, metavar="FILE", help="his first PIN (the file's first line)")
    actions.add_parser("list", help="everyone enrolled (no credential)").add_argument(
        "--format", choices=("table", "json"), default="table")
    for action, what in (("suspend", "suspend a person (he may not sign in; his sessions end)"),
                         ("reinstate", "lift a person's suspension"), ("remove", "remove a person from the staff")):
        sub = actions.add_parser(action, help=what)
        sub.add_argument("person", metavar="ID")
        sub.add_argument("--reason", required=True)
    reset = actions.add_parser("reset", help="a new PIN for a person (unlocks a locked badge)", allow_abbrev=False)
    reset.add_argument("person", metavar="ID")
    reset.add_argument("--pin-file", type=Path, metavar="FILE", help="the new PIN (the file's first line)")
    change = actions.add_parser("change", help="a person's name and roles, anew")
    change.add_argument("person", metavar="ID")
    change.add_argument("--name", required=True)
    change.add_argument("--role", dest="roles", action="append", required=True, choices=STAFF_ROLES)
    parser.set_defaults(run=run)


def _first_line(path: Path, what: str) -> str:
    from service.grpc.stations import StationConfigError, verify_not_world_readable  # only when a file is given

    try:
        verify_not_world_readable(path, what)  # a file of secrets is its owner's (issue 32)
    except StationConfigError as error:
        raise ValueError(str(error)) from None
    try:
        text = path.read_text(encoding="utf-8").partition("\n")[0].strip()
    except OSError as error:
        raise ValueError(f"{what} {path}: {error.strerror}") from None
    if not text:
        raise ValueError(f"{what} {path} is empty")
    return text


def _token(args: argparse.Namespace) -> str:
    token = _first_line(args.token_file, "--token-file") if args.token_file else \
        os.environ.get("POKERTABLE_TOKEN", "").strip()
    if not token:
        raise ValueError("the station's token: --token-file FILE or POKERTABLE_TOKEN (never on the command line)")
    return token


def _secret(variable: str, prompt: str, *, twice: bool = False, path: Path | None = None) -> str:
    """A PIN: from a file, else an environment variable, else asked on the terminal (not echoed)."""
    if path is not None:
        return _first_line(path, "--pin-file")
    value = os.environ.get(variable, "")
    if value:
        return value
    if not sys.stdin.isatty():
        raise ValueError(f"{prompt}: {variable}, or run it on a terminal to be asked")
    value = getpass.getpass(f"{prompt}: ")
    if twice and getpass.getpass(f"{prompt} (again): ") != value:
        raise ValueError("the two PINs typed differ")
    return value


def run(args: argparse.Namespace) -> int:
    """Sign in (``--as``), do the action, sign out; what was done on standard error, a listing on standard output."""
    from service.api import table_service_pb2 as svc
    from service.api import table_service_pb2_grpc as svc_grpc

    try:
        token = _token(args)
        pin = _secret("POKERTABLE_PIN", f"PIN of {args.admin}") if args.admin else ""
        new_pin = _secret("POKERTABLE_NEW_PIN", f"new PIN of {args.person}", twice=True, path=args.pin_file) \
            if args.action in ("add", "reset") else ""
        credentials = grpc.ssl_channel_credentials(args.tls_ca.read_bytes()) if args.tls_ca else None
    except (ValueError, OSError) as error:
        return fail("staff", error, USAGE)
    channel = grpc.secure_channel(args.server, credentials) if credentials else grpc.insecure_channel(args.server)
    stub: Any = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
    metadata: list[tuple[str, str]] = [("authorization", f"Bearer {token}")]

    def call(method: str, request: Any) -> Any:
        return getattr(stub, method)(request, metadata=metadata, timeout=30)

    command_id = f"staff-{uuid.uuid4().hex}"
    try:
        if args.admin:
            signed = call("SignIn", svc.SignInRequest(badge=args.admin, pin=pin, role="administrator"))
            metadata.append(("pokertable-session", signed.session))
        if args.action == "list":
            people = call("ListStaff", svc.ListStaffRequest()).people
            _list(people, args.format)
        elif args.action == "add":
            call("EnrolPerson", svc.EnrolPersonRequest(command_id=command_id, person_id=args.person, name=args.name,
                                                       roles=args.roles, pin=new_pin))
            print(f"{args.person} ({args.name}) enrolled as {', '.join(args.roles)}", file=sys.stderr)
        else:
            changes: dict[str, dict[str, Any]] = {
                "suspend": {"suspend": getattr(args, "reason", "")},
                "reinstate": {"reinstate": getattr(args, "reason", "")},
                "remove": {"remove": getattr(args, "reason", "")},
                "reset": {"reset_pin": new_pin},
                "change": {"details": svc.PersonDetails(name=getattr(args, "name", ""),
                                                        roles=getattr(args, "roles", None) or [])},
            }
            call("ChangePerson", svc.ChangePersonRequest(command_id=command_id, person_id=args.person,
                                                         **changes[args.action]))
            print(f"{args.person}: {args.action} done", file=sys.stderr)
    except grpc.RpcError as error:
        code = error.code()
        status = USAGE if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) else REFUSED
        return fail("staff", f"{error.details()} ({code.name})", status)
    finally:
        if args.admin and any(key == "pokertable-session" for key, _ in metadata):
            with contextlib.suppress(grpc.RpcError):
                call("SignOut", svc.SignOutRequest(command_id=f"{command_id}-out"))
        channel.close()
    return OK


def _list(people: Any, fmt: str) -> None:
    rows = [{"id": p.person_id, "name": p.name, "roles": list(p.roles), "status": p.status, "failures": p.failures}
            for p in people]
    if fmt == "json":
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        columns = ("id", "name", "roles", "status", "failures")
        cells = [[", ".join(row["roles"]) if c == "roles" else str(row[c]) for c in columns] for row in rows]
        widths = [max([len(c), *(len(line[i]) for line in cells)]) for i, c in enumerate(columns)]
        print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip())
        for line in cells:
            print("  ".join(text.ljust(w) for text, w in zip(line, widths, strict=True)).rstrip())
    print(f"{len(rows)} person(s)", file=sys.stderr)
