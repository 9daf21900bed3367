"""The full-screen dealer station (issue 15): ``StationApp`` (Textual) for one table, a pure gRPC client.

``add_arguments(parser)`` declares its options and ``run(args)`` runs it (``pokertable station`` wires them)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import grpc

from service.station.tui.app import StationApp
from service.station.tui.devices import DevicePorts
from service.station.tui.i18n import LANGUAGES
from service.station.tui.link import table_language

__all__ = ["DevicePorts", "StationApp", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The full-screen station's options."""
    parser.add_argument("--server", default="127.0.0.1:50051", help="the table service, HOST:PORT")
    parser.add_argument("--table", required=True, help="the table this station deals")
    parser.add_argument("--token", required=True, help="the station's token (its role and table)")
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
    """Run the station full-screen until the croupier quits."""
    credentials = grpc.ssl_channel_credentials(args.tls_ca.read_bytes()) if args.tls_ca else None
    lang = args.lang or asyncio.run(table_language(args.server, args.token, args.table, credentials))
    devices = DevicePorts(args.shoe, args.shuffler, args.baud) if args.shoe else None
    StationApp(args.server, args.token, args.table, lang=lang, sees_down_cards=args.pit,
               credentials=credentials, devices=devices).run()
    return 0
