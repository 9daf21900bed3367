"""``pokertable serve``: run the table service."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import grpc

from service.application import PokerTables
from service.persistence import DEFAULT_DB, PersistenceUrlError, StoreInUseError, claim_sole_writer, environment
from service.server import StationConfigError, Stations, serve


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` on the CLI."""
    parser = commands.add_parser("serve", help="run the gRPC table service")
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50051, help="0 picks a free port (printed at start)")
    parser.add_argument("--config", type=Path, required=True, help="stations file (TOML): tokens and roles")
    parser.add_argument("--tls-cert", type=Path, help="PEM certificate chain: serve over TLS (with --tls-key)")
    parser.add_argument("--tls-key", type=Path, help="PEM private key of --tls-cert")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    try:
        stations = Stations.load(args.config)
        claim = claim_sole_writer(args.db)  # SQLite: this process is the file's only writer while it serves
        app = PokerTables(env=environment(args.db, sole_writer=claim is not None))
        credentials = _credentials(args.tls_cert, args.tls_key)
    except (StationConfigError, PersistenceUrlError, StoreInUseError, OSError, ValueError) as error:
        print(f"pokertable serve: {error}", file=sys.stderr)
        return 2

    def ready(port: int) -> None:
        tls = " over TLS" if credentials else ""
        print(f"pokertable serving on {args.host}:{port}{tls} ({args.db})", flush=True)

    def warm(seconds: float) -> None:
        print(f"pokertable warm: hand-ranking tables of every deck built in {seconds:.1f} s", flush=True)

    try:
        asyncio.run(serve(app, stations, f"{args.host}:{args.port}", ready, credentials, warm=warm))
    except KeyboardInterrupt:
        return 0
    finally:
        if claim is not None:
            claim.release()
    return 0


def _credentials(cert: Path | None, key: Path | None) -> grpc.ServerCredentials | None:
    """TLS credentials from PEM files, or ``None`` for plaintext (loopback, tests)."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise ValueError("--tls-cert and --tls-key go together")
    return grpc.ssl_server_credentials([(key.read_bytes(), cert.read_bytes())])
