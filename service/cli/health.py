"""``pokertable health``: ask a running service whether it serves (``grpc.health.v1``), for a container's
``HEALTHCHECK``, a load balancer's probe or an engineer at the console.

The service says NOT_SERVING until its hand-ranking tables are built and its store has answered, and again while it
stops (docs/service.md).  Exit status 0 when the answer is SERVING, 1 for any other answer or none (refused,
unreachable, timed out, a TLS handshake that fails); the status or the reason is printed either way.  The health
service needs no station token."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_TIMEOUT = 5.0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``health`` on the CLI."""
    parser = commands.add_parser(
        "health", help="ask a running service whether it serves (exit 0 when SERVING, 1 otherwise)",
        description="Ask a running table service whether it serves (grpc.health.v1; no station token needed): "
                    "exit status 0 when it answers SERVING, 1 for NOT_SERVING (warming up, stopping, its store not "
                    "answering) or no answer.")
    parser.add_argument("--address", default=DEFAULT_ADDRESS, metavar="HOST:PORT",
                        help=f"the service's gRPC address (default {DEFAULT_ADDRESS})")
    parser.add_argument("--service", default="", metavar="NAME",
                        help="the health service's entry to ask (default: the server as a whole; "
                             "pokertable.v1.TableService is the table service itself)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"give up after this long (default {DEFAULT_TIMEOUT:g} s)")
    parser.add_argument("--tls-ca", type=Path, metavar="FILE",
                        help="the CA certificate of a TLS server (PEM); plain text without --tls-ca and "
                             "--tls-server-name")
    parser.add_argument("--tls-server-name", metavar="NAME",
                        help="TLS: the name the server's certificate carries, when HOST is not it (e.g. an IP "
                             "address); the system's CAs without --tls-ca")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Ask once; 0 when SERVING."""
    try:
        tls = args.tls_ca is not None or args.tls_server_name is not None
        status = check(args.address, args.service, timeout=args.timeout, tls=tls,
                       ca=args.tls_ca.read_bytes() if args.tls_ca else None, server_name=args.tls_server_name)
    except OSError as error:
        print(f"pokertable health: --tls-ca: {error}", file=sys.stderr)
        return 1
    except grpc.RpcError as error:
        code = error.code() if isinstance(error, grpc.Call) else None
        details = error.details() if isinstance(error, grpc.Call) else str(error)
        print(f"pokertable health: {args.address}: {code.name if code else 'no answer'}: {details}", file=sys.stderr)
        return 1
    name = health_pb2.HealthCheckResponse.ServingStatus.Name(status)
    print(f"{args.address}{' ' + args.service if args.service else ''}: {name}", flush=True)
    return 0 if status == health_pb2.HealthCheckResponse.SERVING else 1


def check(address: str, service: str = "", *, timeout: float = DEFAULT_TIMEOUT, tls: bool = False,
          ca: bytes | None = None, server_name: str | None = None) -> int:
    """The serving status ``address`` gives for ``service`` (``grpc.RpcError`` when it gives none); with ``tls``,
    over TLS checked against ``ca`` (the system's CAs when ``None``) and ``server_name``."""
    options = [("grpc.ssl_target_name_override", server_name)] if server_name else []
    channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=ca), options) \
        if tls else grpc.insecure_channel(address, options)
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)  # its stubs do not declare the generated methods
        response: health_pb2.HealthCheckResponse = stub.Check(  # type: ignore[attr-defined]
            health_pb2.HealthCheckRequest(service=service), timeout=timeout, wait_for_ready=False)
    return int(response.status)
