"""``pokertable serve``: run the table service."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization

from service.app.access import Role
from service.app.application import PokerTables
from service.app.tampering import DEFAULT_AUDIT_EVERY, audit_periodically
from service.bootstrap import open_signed_store
from service.cli.logs import add_logging_arguments, configure_logging
from service.grpc.hardening import HARDENED
from service.grpc.metrics import ServiceMetrics
from service.grpc.server import ListenError, StationConfigError, Stations, serve
from service.store.persistence import DEFAULT_DB, PersistenceUrlError, StoreInUseError, masked_url
from service.store.signing import DEFAULT_EVERY, KEY_FILE_NAME, SigningKeyError
from service.web.server import Tls, bind, serve_dashboard


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` on the CLI."""
    parser = commands.add_parser("serve", help="run the gRPC table service")
    parser.add_argument("--db", default=DEFAULT_DB, help="sqlite:///FILE (default pokertable.db) or postgresql://…")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50051, help="0 picks a free port (printed at start)")
    parser.add_argument("--config", type=Path, required=True, help="stations file (TOML): tokens and roles")
    parser.add_argument("--tls-cert", type=Path, help="PEM certificate chain: serve over TLS (with --tls-key)")
    parser.add_argument("--tls-key", type=Path, help="PEM private key of --tls-cert")
    parser.add_argument("--signing-key", type=Path,
                        help=f"Ed25519 key that signs the chain head (default: {KEY_FILE_NAME} beside --config); "
                        "created on first start, readable by its owner only")
    parser.add_argument("--sign-every", type=int, default=DEFAULT_EVERY, metavar="N",
                        help=f"sign the chain head once N events have been stored since the last (default "
                        f"{DEFAULT_EVERY}); also at every table close and when the service stops")
    parser.add_argument("--http", metavar="HOST:PORT",
                        help="also serve the pit's web dashboard there (off by default; port 0 picks a free one): "
                             "the floor, tables, approvals, alerts, disputes, shift reports (docs/pit.md)")
    parser.add_argument("--audit-every", type=float, default=DEFAULT_AUDIT_EVERY, metavar="SECONDS",
                        help="check the whole log and its signed heads at start and then every SECONDS (default "
                        f"{DEFAULT_AUDIT_EVERY:.0f}); tampering found is an alert of the pit (R-AUD-1); 0: never")
    add_logging_arguments(parser)  # --log-format, --log-level (docs/ops/monitoring.md)
    parser.set_defaults(run=run, hardening=HARDENED)  # benchmarks/flood.py alone runs it as it was (GRPC_DEFAULTS)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    configure_logging(args)
    try:
        stations = Stations.load(args.config)
        credentials = _credentials(args.tls_cert, args.tls_key)  # checked first: a bad file claims and creates nothing
        key_path = args.signing_key or args.config.parent / KEY_FILE_NAME
        listener = bind(args.http) if args.http else None  # before the store: a taken port claims nothing
        # the dashboard's floor reads every table as an observer, with a token made for this run only
        stations, floor_token = stations.with_station("pit-dashboard-floor", Role.OBSERVER) if args.http \
            else (stations, "")
        # SQLite: this process is the file's only writer while it serves
        store, created, unsigned = open_signed_store(args.db, key_path, args.sign_every)
        app, signer = store.app, store.signer
        assert signer is not None
    except (StationConfigError, PersistenceUrlError, StoreInUseError, SigningKeyError, OSError, ValueError) as error:
        print(f"pokertable serve: {error}", file=sys.stderr)
        return 2
    print(f"pokertable signs chain heads with {'the new key ' if created else ''}{key_path} "
          f"({signer.fingerprint}); {unsigned} events after the last head it signed", file=sys.stderr, flush=True)

    def ready(port: int) -> None:
        tls = " over TLS" if credentials else ""
        print(f"pokertable serving on {args.host}:{port}{tls} ({masked_url(args.db)})", flush=True)

    def warm(seconds: float) -> None:
        print(f"pokertable warm: hand-ranking tables of every deck built in {seconds:.1f} s", flush=True)

    status = 0
    try:
        audit = audit_periodically(app, args.audit_every, signer.public_key) if args.audit_every > 0 else None
        asyncio.run(_until_stopped(_service(args, app, stations, credentials=credentials, ready=ready, warm=warm,
                                            listener=listener, floor_token=floor_token,
                                            metrics=ServiceMetrics(signer)), audit))
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    except ListenError as error:  # the port is taken, or the address is not this machine's
        print(f"pokertable serve: {error}", file=sys.stderr)
        status = 2
    finally:
        try:  # the service's stop closes a shift: the head is signed, so nothing before it can be rewritten unseen
            signed = signer.sign("service stop")
            if signed is not None:
                print(f"pokertable signed the chain head at position {signed.position} (service stop)", flush=True)
        except Exception as error:  # the store is gone (e.g. PostgreSQL down): say so; the tail stays unsigned
            print(f"pokertable serve: the chain head could not be signed at stop: {error}", file=sys.stderr)
        finally:
            store.close()
    return status


async def _service(args: argparse.Namespace, app: PokerTables, stations: Stations, *,
                   credentials: grpc.ServerCredentials | None, ready: Callable[[int], None],
                   warm: Callable[[float], None], listener: socket.socket | None, floor_token: str,
                   metrics: ServiceMetrics) -> None:
    """The gRPC service; with ``--http``, the pit's dashboard beside it, once the service listens, and the
    service's metrics at its ``/metrics``."""
    if listener is None:
        await serve(app, stations, f"{args.host}:{args.port}", ready, credentials, warm=warm, hardening=args.hardening,
                    metrics=metrics)
        return
    bound: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def listening(port: int) -> None:
        ready(port)
        bound.set_result(port)

    def dashboard_ready(port: int) -> None:
        scheme, host = "https" if credentials else "http", args.http.rpartition(":")[0] or "127.0.0.1"
        print(f"pokertable pit dashboard on {scheme}://{host}:{port}/", flush=True)

    try:
        await asyncio.gather(
            serve(app, stations, f"{args.host}:{args.port}", listening, credentials, warm=warm,
                  hardening=args.hardening, metrics=metrics),
            serve_dashboard(listener, bound, args.host, stations.authenticate, floor_token,
                            tls=Tls(args.tls_cert, args.tls_key) if credentials else None, ready=dashboard_ready,
                            metrics=metrics.render))
    finally:
        listener.close()


async def _until_stopped(serving: Awaitable[None], beside: Awaitable[None] | None = None) -> None:
    """Serve until SIGINT or SIGTERM (a service manager's stop), which end it as an interrupt does; ``beside`` (the
    service's own audit of its log) runs as long as the service does."""
    task = asyncio.ensure_future(serving)
    helper = asyncio.ensure_future(beside) if beside is not None else None
    loop = asyncio.get_running_loop()
    for stop in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(stop, task.cancel)
    try:
        await task
    finally:
        if helper is not None:
            helper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await helper


def _credentials(cert: Path | None, key: Path | None) -> grpc.ServerCredentials | None:
    """TLS credentials from PEM files, or ``None`` for plaintext (loopback, tests). The files are checked here, with a
    message saying what is wrong (``ValueError``): gRPC only fails to bind, with a traceback (issue 13)."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise ValueError("--tls-cert and --tls-key go together")
    chain, private = cert.read_bytes(), key.read_bytes()
    try:
        certificates = x509.load_pem_x509_certificates(chain)
    except ValueError:
        raise ValueError(f"--tls-cert {cert} is not a PEM certificate chain") from None
    try:
        private_key = serialization.load_pem_private_key(private, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise ValueError(f"--tls-key {key} is not an unencrypted PEM private key") from None
    spki = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    if private_key.public_key().public_bytes(*spki) != certificates[0].public_key().public_bytes(*spki):
        raise ValueError(f"--tls-key {key} is not the key of the first certificate in --tls-cert {cert}")
    return grpc.ssl_server_credentials([(private, chain)])
