"""``pokertable serve``: run the table service."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from service.application import PokerTables
from service.persistence import DEFAULT_DB, PersistenceUrlError, environment
from service.server import StationConfigError, Stations, serve


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` on the CLI."""
    parser = commands.add_parser("serve", help="run the gRPC table service")
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50051, help="0 picks a free port (printed at start)")
    parser.add_argument("--config", type=Path, required=True, help="stations file (TOML): tokens and roles")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    try:
        stations = Stations.load(args.config)
        app = PokerTables(env=environment(args.db))
    except (StationConfigError, PersistenceUrlError) as error:
        print(f"pokertable serve: {error}", file=sys.stderr)
        return 2

    def ready(port: int) -> None:
        print(f"pokertable serving on {args.host}:{port} ({args.db})", flush=True)

    try:
        asyncio.run(serve(app, stations, f"{args.host}:{args.port}", ready))
    except KeyboardInterrupt:
        return 0
    return 0
