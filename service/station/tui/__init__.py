"""The full-screen dealer station (issue 15): ``StationApp`` (Textual) for one table, a pure gRPC client.

``add_arguments(parser)`` declares its options and ``run(args)`` runs it (``pokertable station`` wires them)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import grpc

from service.api import table_service_pb2 as svc
from service.station.client import Station, croupier_pin, station_token
from service.station.tui.app import StationApp
from service.station.tui.devices import DevicePorts
from service.station.tui.i18n import LANGUAGES
from service.station.tui.link import table_language
from service.station.tui.shift import Person

__all__ = ["DevicePorts", "StationApp", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The full-screen station's options."""
    parser.add_argument("--server", default="127.0.0.1:50051", help="the table service, HOST:PORT")
    parser.add_argument("--table", required=True, help="the table this station deals")
    parser.add_argument("--token-file", type=Path, metavar="FILE",
                        help="the station's token, the file's first line (default POKERTABLE_TOKEN)")
    parser.add_argument("--token", help="the station's token on the command line: deprecated, everyone on the "
                                        "machine sees it (ps); kept with a warning")
    parser.add_argument("--badge", metavar="ID",
                        help="the croupier signing in at this station (docs/staff.md): his employee number; his PIN "
                             "from POKERTABLE_PIN or asked")
    parser.add_argument("--lang", choices=LANGUAGES,
                        help="the screen's language (es: Spanish); default: the table's, as the pit opened it")
    parser.add_argument("--tls-ca", type=Path, help="the CA certificate of a TLS server (PEM); plain text without")
    parser.add_argument("--shoe", metavar="URL",
                        help="port URL of the card-reading shoe (/dev/ttyUSB0, socket://HOST:PORT): it deals every "
                             "checked read; cards are typed only without it")
    parser.add_argument("--shuffler", metavar="URL", help="port URL of the automatic shuffler (red and blue decks)")
    parser.add_argument("--baud", type=int, default=115200, help="the devices' line speed (default 115200)")
    parser.add_argument("--pit", action="store_true",
                        help="the pit boss's station: face-down cards are shown (the croupier's never shows them)")


def run(args: argparse.Namespace) -> int:
    """Run the station full-screen until the croupier quits; with ``--badge``, the croupier signs in first."""
    credentials = grpc.ssl_channel_credentials(args.tls_ca.read_bytes()) if args.tls_ca else None
    try:
        token = station_token(args)
        person = signed_in(args, token, credentials)
    except (ValueError, grpc.RpcError) as error:
        message = f"{error.details()}" if isinstance(error, grpc.RpcError) else str(error)
        print(f"pokertable station: {message}", file=sys.stderr)
        return 2
    session = person.session if person is not None else ""
    lang = args.lang or asyncio.run(table_language(args.server, token, args.table, credentials, session))
    devices = DevicePorts(args.shoe, args.shuffler, args.baud) if args.shoe else None
    StationApp(args.server, token, args.table, lang=lang, sees_down_cards=args.pit,
               credentials=credentials, devices=devices, session=person.session if person else "",
               person=Person(person.person_id, person.name, person.role) if person else None).run()
    return 0


def signed_in(args: argparse.Namespace, token: str,
              credentials: grpc.ChannelCredentials | None) -> svc.SignInResponse | None:
    """``--badge``: the croupier signs in at the station (his PIN from POKERTABLE_PIN or asked); the answer."""
    if not getattr(args, "badge", None):
        return None
    station = Station(args.server, token, credentials)
    try:
        reply = station.sign_in(args.badge, croupier_pin(args.badge))
    finally:
        station.channel.close()
    print(f"{reply.name or reply.person_id} signed in at the station as {reply.role}; it locks after "
          f"{reply.idle_seconds // 60} minutes unused", file=sys.stderr, flush=True)
    return reply
