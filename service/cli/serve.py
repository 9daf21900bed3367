"""``pokertable serve``: run the table service."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import grpc
from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization

from domain.integrity.monitor import MonitorSettings
from service.app import significant
from service.app.access import Role
from service.app.application import PokerTables
from service.app.clock import ClockWatch, watch_clock
from service.app.floor_log import follow_floor
from service.app.install_check import watch_installation
from service.app.shuffler_watch import watch_shufflers
from service.app.tampering import audit_periodically
from service.bootstrap import Store, open_signed_store
from service.cli.logs import add_logging_arguments, configure_logging
from service.cli.settings import KEYS, Settings, SettingsError, read_file, settings
from service.grpc.hardening import HARDENED
from service.grpc.metrics import ServiceMetrics
from service.grpc.server import ListenError, StationConfigError, Stations, serve
from service.store.keyring import keyring_path, load_keyring, rotate
from service.store.persistence import PersistenceUrlError, StoreInUseError, masked_url
from service.store.signer import HeadSigner
from service.store.signing import KEY_FILE_NAME, SigningKeyError
from service.web.floor_rows import Thresholds
from service.web.server import Tls, bind, serve_dashboard

DASHBOARD_STATION = "pit-dashboard"
"""The station of the service's own dashboard (``--http``; issue 32): a shared one, where the pit's people sign in
each with his own session, made for the run with a token that never leaves the process."""

def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` on the CLI. Every setting is also read from its ``POKERTABLE_*`` variable and from the
    configuration file's ``[service]`` table (flags first; :mod:`service.cli.settings`, docs/ops/configuration.md)."""
    parser = commands.add_parser(
        "serve", help="run the gRPC table service",
        description="Run the table service. Each option is also read from its POKERTABLE_* environment variable "
                    "(e.g. POKERTABLE_PORT) and from the [service] table of the configuration file; a flag wins "
                    "over the environment, which wins over the file. Exit codes: 0 stopped (SIGTERM, SIGINT), 2 a "
                    "setting, the database or the port cannot be used.")
    parser.add_argument("--config", type=Path, default=None,
                        help="the configuration file (TOML: [service] settings, [stations.NAME] tokens and roles; "
                        "default POKERTABLE_CONFIG)")

    def option(name: str, *, kind: type | None = None, metavar: str | None = None, more: str = "") -> None:
        key = KEYS[name]
        default = "" if key.default is None else f" (default {key.default})"
        parser.add_argument(key.flag(name), type=kind or str, default=None, metavar=metavar,
                            help=f"{key.help}{default}{more}")

    option("db")
    option("host")
    option("port", kind=int)
    option("tls_cert", kind=Path)
    option("tls_key", kind=Path)
    option("signing_key", kind=Path, more=f"; created on first start ({KEY_FILE_NAME} beside --config), readable "
           "by its owner only")
    option("sign_every", kind=int, metavar="N", more="; also at every table close and when the service stops")
    option("hole_cards_live", metavar="true|false")
    option("station_idle_minutes", kind=int, metavar="MINUTES")
    option("lock_after", kind=int, metavar="N")
    option("instance", metavar="NAME", more="; SIGHUP rotates the signing key (docs/audit.md)")
    option("http", metavar="HOST:PORT", more=": the floor, tables, approvals, alerts, disputes, shift reports "
           "(docs/pit.md), /metrics, /livez and /readyz")
    option("audit_every", kind=float, metavar="SECONDS", more="; tampering found is an alert of the pit (R-AUD-1)")
    option("grace", kind=float, metavar="SECONDS", more=" (SIGTERM: no new call, those in flight finish)")
    option("shuffler_check_every", kind=float, metavar="SECONDS",
           more="; a shuffler deck that fails holds its tables (R-HOLD-1, docs/integrity.md)")
    option("verify_install_every", kind=float, metavar="SECONDS", more="; also at start (docs/ops/install.md)")
    option("clock_check_every", kind=float, metavar="SECONDS", more="; never holds play (docs/ops/monitoring.md)")
    option("clock_max_error", kind=float, metavar="SECONDS")
    option("escalate_after_minutes", kind=int, metavar="MINUTES", more="; the floor's thresholds (docs/pit.md)")
    option("alert_hand_minutes", kind=int, metavar="MINUTES")
    option("alert_hands_per_hour_below", kind=int, metavar="N")
    option("alert_hands_per_hour_above", kind=int, metavar="N")
    option("db_password_file", kind=Path)
    add_logging_arguments(parser)  # --log-format, --log-level (docs/ops/monitoring.md)
    parser.set_defaults(run=run, hardening=HARDENED,  # benchmarks/flood.py alone runs it as it was (GRPC_DEFAULTS)
                        log_format=None, log_level=None)  # from the settings unless given


def _settings(args: argparse.Namespace) -> Settings:
    """The settings in effect (flags, environment, file), written back on ``args`` (:class:`SettingsError`)."""
    path = args.config or (Path(os.environ["POKERTABLE_CONFIG"]) if os.environ.get("POKERTABLE_CONFIG") else None)
    if path is None:
        raise SettingsError("no configuration file: --config FILE or POKERTABLE_CONFIG (its [stations] are who may "
                            "call the service; 'pokertable tokens add' makes them)")
    chosen = settings({name: getattr(args, name, None) for name in KEYS}, os.environ, read_file(path), path)
    vars(args).update(chosen.values)
    args.config, args.db = path, chosen.db
    return chosen


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    try:
        chosen = _settings(args)
    except SettingsError as error:
        print(f"pokertable serve: {error}", file=sys.stderr)
        return 2
    try:
        stations = Stations.of_file(chosen.stations, args.config)
        credentials = _credentials(args.tls_cert, args.tls_key)  # checked first: a bad file claims and creates nothing
        key_path = args.signing_key or args.config.parent / KEY_FILE_NAME
        listener = bind(args.http) if args.http else None  # before the store: a taken port claims nothing
        # the dashboard's floor reads every table as an observer, with a token made for this run only
        stations, floor_token = stations.with_station("pit-dashboard-floor", Role.OBSERVER) if args.http \
            else (stations, "")
        # issue 32: the dashboard's own station, shared by the pit's people who sign in there
        stations, dashboard_token = stations.with_station(DASHBOARD_STATION, Role.OBSERVER, "pit") if args.http \
            else (stations, "")
        configure_logging(args)  # the configuration in effect is logged once it is known to be usable
        # SQLite: this process is the file's only writer while it serves
        store, created, unsigned = open_signed_store(args.db, key_path, args.sign_every,
                                                     writer=args.instance or f"{socket.gethostname()}:{args.port}")
        app, signer = store.app, store.signer
        assert signer is not None
        app.sessions.idle_seconds, app.sessions.lock_after = args.station_idle_minutes * 60, args.lock_after
        trusted = load_keyring(keyring_path(key_path))
    except (StationConfigError, PersistenceUrlError, StoreInUseError, SigningKeyError, OSError, ValueError) as error:
        print(f"pokertable serve: {masked_url(str(error)) if '://' in str(error) else error}", file=sys.stderr)
        return 2
    print(f"pokertable signs chain heads with {'the new key ' if created else ''}{key_path} "
          f"({signer.fingerprint}); {unsigned} events after the last head it signed", file=sys.stderr, flush=True)
    instance = signer.writer
    _significant(lambda: significant.started(app, instance=instance, configuration=chosen.described(),
                                             key=signer.fingerprint))

    def ready(port: int) -> None:
        tls = " over TLS" if credentials else ""
        print(f"pokertable serving on {args.host}:{port}{tls} ({masked_url(args.db)})", flush=True)

    def warm(seconds: float) -> None:
        print(f"pokertable warm: hand-ranking tables of the decks its tables deal built in {seconds:.1f} s", flush=True)

    status = 0
    try:
        audit = audit_periodically(app.audit, args.audit_every, trusted, instance=instance) \
            if args.audit_every > 0 else None
        monitor, zone = chosen.shuffler_monitor(), ZoneInfo(args.tz)
        shufflers = watch_shufflers(app, monitor, zone, args.shuffler_check_every) \
            if args.shuffler_check_every > 0 else None
        installation = watch_installation(app, args.verify_install_every, instance=instance) \
            if args.verify_install_every > 0 else None
        clock = ClockWatch(args.clock_max_error) if args.clock_check_every > 0 else None
        if clock is not None:  # each change of the clock's state, a significant event (issue 29, item 2)
            clock.on_change = lambda state, said: significant.record(app, "clock", f"{state}: {said}",
                                                                     instance=instance)
        clocks = watch_clock(clock, args.clock_check_every) if clock is not None else None
        asyncio.run(_until_stopped(_service(args, app, stations, credentials=credentials, ready=ready, warm=warm,
                                            listener=listener, floor_token=floor_token,
                                            dashboard_token=dashboard_token,
                                            metrics=ServiceMetrics(signer, clock=clock), shufflers=monitor,
                                            zone=zone),
                                   audit, shufflers, installation, clocks, follow_floor(app.floor_log),
                                   rotate=lambda: _rotate(app, signer, key_path)))
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    except ListenError as error:  # the port is taken, or the address is not this machine's
        print(f"pokertable serve: {error}", file=sys.stderr)
        status = 2
    finally:
        _stop(store, signer, status)
    return status


def _stop(store: Store, signer: HeadSigner, status: int) -> None:
    """The service's stop closes a shift: recorded, then the head signed (nothing before it can be rewritten unseen),
    then the store closed."""
    try:
        _significant(lambda: significant.record(store.app, "service-stop", f"status {status}",
                                                instance=signer.writer))
        signed = signer.stop("service stop")
        if signed is not None:
            print(f"pokertable signed the chain head at position {signed.position} (service stop)", flush=True)
    except Exception as error:  # the store is gone (e.g. PostgreSQL down): say so; the tail stays unsigned
        print(f"pokertable serve: the chain head could not be signed at stop: {error}", file=sys.stderr)
    finally:
        store.close()


async def _service(args: argparse.Namespace, app: PokerTables, stations: Stations, *,
                   credentials: grpc.ServerCredentials | None, ready: Callable[[int], None],
                   warm: Callable[[float], None], listener: socket.socket | None, floor_token: str,
                   metrics: ServiceMetrics, dashboard_token: str = "", shufflers: MonitorSettings | None = None,
                   zone: ZoneInfo | None = None) -> None:
    """The gRPC service (``shufflers``: the shuffler integrity monitor's settings, and ``zone`` the casino's time
    zone, whose shifts ListShufflers and ListDealerFigures count); with ``--http``, the pit's dashboard beside it,
    once the service listens, and the service's metrics at its ``/metrics``."""
    if listener is None:
        await serve(app, stations, f"{args.host}:{args.port}", ready, credentials, warm=warm, hardening=args.hardening,
                    metrics=metrics, grace=args.grace, shufflers=shufflers, zone=zone,
                    hole_cards_live=args.hole_cards_live)
        return
    bound: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def listening(port: int) -> None:
        ready(port)
        bound.set_result(port)

    def dashboard_ready(port: int) -> None:
        scheme, host = "https" if credentials else "http", args.http.rpartition(":")[0] or "127.0.0.1"
        print(f"pokertable pit dashboard on {scheme}://{host}:{port}/", flush=True)

    service = asyncio.ensure_future(serve(app, stations, f"{args.host}:{args.port}", listening, credentials,
                                          warm=warm, hardening=args.hardening, metrics=metrics, grace=args.grace,
                                          shufflers=shufflers, zone=zone, hole_cards_live=args.hole_cards_live))
    dashboard = asyncio.ensure_future(serve_dashboard(
        listener, bound, args.host, stations.authenticate, floor_token,
        tls=Tls(args.tls_cert, args.tls_key) if credentials else None, ready=dashboard_ready, metrics=metrics.render,
        station=(DASHBOARD_STATION, dashboard_token), zone=zone or ZoneInfo("UTC"),
        thresholds=Thresholds(args.escalate_after_minutes, args.alert_hand_minutes, args.alert_hands_per_hour_below,
                              args.alert_hands_per_hour_above)))
    try:
        done, _ = await asyncio.wait((service, dashboard), return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            task.result()  # a failure to listen, say: raised here
    finally:
        # Stopping (SIGTERM, Ctrl-C, a failure): the gRPC service first, its calls in flight given their grace,
        # then the dashboard; this returns only once both have ended (the store is closed after, by the caller).
        for task in (service, dashboard):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(_ended(task))
        listener.close()


async def _ended(task: asyncio.Future[None]) -> None:
    """Wait until ``task`` has ended, whatever its outcome (it was cancelled, or it failed and was reported)."""
    await asyncio.wait((task,))


def _rotate(app: PokerTables, signer: HeadSigner, key_path: Path) -> None:
    """SIGHUP: rotate the signing key (a last head with the old key, the new one announced by it)."""
    old = signer.fingerprint
    try:
        new = rotate(signer, key_path, "key rotation (SIGHUP)")
    except Exception as error:  # the store refused: the old key goes on signing
        print(f"pokertable serve: the signing key could not be rotated: {error}", file=sys.stderr, flush=True)
        return
    print(f"pokertable rotated its signing key: {new} now signs ({key_path})", file=sys.stderr, flush=True)
    _significant(lambda: significant.record(app, "key-rotated", f"{old} -> {new}", instance=signer.writer))


def _significant(recording: Callable[[], None]) -> None:
    """Record a significant event (:mod:`service.app.significant`); a store that refuses is said, not fatal."""
    try:
        recording()
    except Exception as error:
        print(f"pokertable serve: a significant event could not be recorded: {error}", file=sys.stderr, flush=True)


async def _until_stopped(serving: Awaitable[None], *beside: Awaitable[None] | None,
                         rotate: Callable[[], None] | None = None) -> None:
    """Serve until SIGINT or SIGTERM (a service manager's stop), which end it as an interrupt does; ``beside`` (the
    service's own audit of its log, its watch of the shufflers) runs as long as the service does."""
    task = asyncio.ensure_future(serving)
    helpers = [work for work in beside if work is not None]
    helper = asyncio.ensure_future(asyncio.gather(*helpers)) if helpers else None
    loop = asyncio.get_running_loop()
    for stop in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(stop, task.cancel)
    if rotate is not None:
        loop.add_signal_handler(signal.SIGHUP, lambda: loop.run_in_executor(None, rotate))
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
