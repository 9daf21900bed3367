"""``pokertable pit``: the pit's dashboard in a process of its own, a client of a running service (docs/pit.md).

``pokertable serve --http`` serves the dashboard in the service's own process and event loop: simple for one table
on a laptop, but the dashboard's work (the floor's stream of every event, the tables' summaries, the browsers' live
streams) then shares one interpreter with the tables' commands. A casino on PostgreSQL runs it apart, on a core of its
own, as it would any other client of the service: ``pokertable pit --service HOST:PORT --http HOST:PORT``.

- The stations that may sign in are those of the service's configuration file (``--config``; the same tokens, in
  any of their forms: ``token``, ``token_sha256``, ``token_file``).
- The floor reads every table with the token of an observer station of that file (``--floor-token-file``, or
  ``POKERTABLE_FLOOR_TOKEN``): the service must know it (``pokertable tokens add pit-floor --role observer``).
- With ``--tls-cert``/``--tls-key`` it serves HTTPS with that certificate and trusts it for the service's channel.

Exit codes: 0 stopped (SIGTERM, SIGINT), 2 a setting, a file or the port cannot be used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

from service.app.access import Role
from service.cli.conventions import epilog
from service.cli.logs import add_logging_arguments, configure_logging
from service.cli.settings import SettingsError, read_file
from service.grpc.stations import StationConfigError, Stations, verify_not_world_readable
from service.web.server import Tls, bind, serve_dashboard

FLOOR_ROLES = (Role.OBSERVER, Role.PIT_BOSS, Role.GAMES_DIRECTOR)
"""The roles whose token the floor may read the tables with (an observer's shows no face-down card: the floor
shows none)."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``pit`` on the CLI."""
    parser = commands.add_parser(
        "pit", help="serve the pit's web dashboard in a process of its own, for a running service",
        description="The pit's dashboard (docs/pit.md) in a process of its own, a client of a running service: "
        "'pokertable serve --http' serves it in the service's own process, where its work shares one interpreter "
        "with the tables' commands.", epilog=epilog("pit"))
    parser.add_argument("--config", type=Path, default=None,
                        help="the service's configuration file: its [stations] may sign in (default POKERTABLE_CONFIG)")
    parser.add_argument("--service", default="127.0.0.1:50051", metavar="HOST:PORT",
                        help="the gRPC table service (default 127.0.0.1:50051)")
    parser.add_argument("--http", default="127.0.0.1:8080", metavar="HOST:PORT",
                        help="where the dashboard listens (default 127.0.0.1:8080; port 0: a free one)")
    parser.add_argument("--floor-token-file", type=Path, default=None, metavar="FILE",
                        help="the token of an observer station of the configuration file, with which the floor "
                        "reads every table (default: POKERTABLE_FLOOR_TOKEN)")
    parser.add_argument("--tls-cert", type=Path, default=None, help="HTTPS, and the service's certificate (PEM)")
    parser.add_argument("--tls-key", type=Path, default=None, help="the certificate's key (PEM)")
    add_logging_arguments(parser)
    parser.set_defaults(run=run)


def _floor_token(args: argparse.Namespace, stations: Stations) -> str:
    """The floor's token, checked against the stations (:class:`SettingsError`)."""
    if args.floor_token_file is not None:
        try:
            verify_not_world_readable(args.floor_token_file, "the floor's token")
        except StationConfigError as error:
            raise SettingsError(str(error)) from None
        try:
            token = args.floor_token_file.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise SettingsError(f"--floor-token-file {args.floor_token_file}: {error.strerror}") from None
    else:
        token = os.environ.get("POKERTABLE_FLOOR_TOKEN", "").strip()
    if not token:
        raise SettingsError("the floor's token: --floor-token-file FILE or POKERTABLE_FLOOR_TOKEN (an observer "
                            "station's: 'pokertable tokens add pit-floor --role observer')")
    viewer = stations.by_token.get(token)
    if viewer is None:
        raise SettingsError("the floor's token is no station's of the configuration file")
    if viewer.role not in FLOOR_ROLES:
        raise SettingsError(f"the floor's token is station {viewer.station!r}'s, a {viewer.role.value}: the floor "
                            "reads with an observer's (or the pit's)")
    return str(token)


def run(args: argparse.Namespace) -> int:
    """Serve the dashboard until interrupted."""
    try:
        path = args.config or (Path(os.environ["POKERTABLE_CONFIG"]) if os.environ.get("POKERTABLE_CONFIG") else None)
        if path is None:
            raise SettingsError("no configuration file: --config FILE or POKERTABLE_CONFIG (the service's: its "
                                "[stations] may sign in)")
        stations = Stations.of_file(read_file(path).get("stations", {}), path)
        token = _floor_token(args, stations)
        if (args.tls_cert is None) != (args.tls_key is None):
            raise SettingsError("--tls-cert and --tls-key go together")
        tls = Tls(args.tls_cert, args.tls_key) if args.tls_cert is not None and args.tls_key is not None else None
        host, _, port = args.service.rpartition(":")
        if not host or not port.isdigit():
            raise SettingsError(f"--service {args.service}: HOST:PORT")
        listener = bind(args.http)
    except (SettingsError, StationConfigError, ValueError, OSError) as error:
        print(f"pokertable pit: {error}", file=sys.stderr)
        return 2
    configure_logging(args)

    def ready(bound: int) -> None:
        print(f"pokertable pit dashboard on {'https' if tls else 'http'}://{args.http.rpartition(':')[0]}:{bound}/ "
              f"for the service at {args.service}", flush=True)

    async def dashboard() -> None:
        service_port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        service_port.set_result(int(port))
        task = asyncio.ensure_future(serve_dashboard(listener, service_port, host, stations.authenticate, token,
                                                     tls=tls, ready=ready))
        loop = asyncio.get_running_loop()
        for stop in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(stop, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await task

    try:
        asyncio.run(dashboard())
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
    return 0
