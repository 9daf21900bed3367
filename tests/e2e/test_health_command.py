"""``pokertable health`` (issue 17, item 7): what a container's HEALTHCHECK or an engineer asks a running service.
Exit status 0 when it says SERVING, 1 while it warms up (NOT_SERVING), for an entry it does not have, and with
nothing listening; over TLS with the service's certificate."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from grpc_health.v1 import health_pb2

from service.cli import health
from service.cli.main import main
from service.grpc.server import SERVICE_NAME
from tests.support.certificates import _certificate, _key_pem
from tests.support.grpc_support import health_service

SCRIPT = shutil.which("pokertable", path=str(Path(sys.executable).parent)) or "pokertable"


def serving_within(address: str, seconds: float, *, ca: bytes | None = None) -> int:
    """The status once it is SERVING, or the last one after ``seconds`` (the hand-ranking tables warm up first);
    with ``ca``, over TLS to the certificate's name, localhost."""
    deadline = time.monotonic() + seconds
    while True:
        status = health.check(address, tls=ca is not None, ca=ca, server_name="localhost" if ca else None)
        if status == health_pb2.HealthCheckResponse.SERVING or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


def test_warming_up_is_status_1_and_serving_is_status_0_from_the_console_script() -> None:
    ready = threading.Event()
    with health_service(ready) as port:
        address = f"127.0.0.1:{port}"
        warming = subprocess.run([SCRIPT, "health", "--address", address], capture_output=True, text=True,
                                 timeout=60, check=False)
        assert (warming.returncode, warming.stdout.strip()) == (1, f"{address}: NOT_SERVING"), warming.stderr
        ready.set()
        assert serving_within(address, 60) == health_pb2.HealthCheckResponse.SERVING
        serving = subprocess.run([SCRIPT, "health", "--address", address, "--service", SERVICE_NAME],
                                 capture_output=True, text=True, timeout=60, check=False)
        assert (serving.returncode, serving.stdout.strip()) == (0, f"{address} {SERVICE_NAME}: SERVING"), serving.stderr


def test_an_entry_the_service_does_not_have_is_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    ready = threading.Event()
    ready.set()
    with health_service(ready) as port:
        assert serving_within(f"127.0.0.1:{port}", 60) == health_pb2.HealthCheckResponse.SERVING
        assert main(["health", "--address", f"127.0.0.1:{port}", "--service", "no.such.Service"]) == 1
    assert "NOT_FOUND" in capsys.readouterr().err


def test_nothing_listening_is_status_1_naming_why(capsys: pytest.CaptureFixture[str]) -> None:
    ready = threading.Event()
    with health_service(ready) as port:
        pass  # the port was this service's: nothing listens there any more
    started = time.monotonic()
    assert main(["health", "--address", f"127.0.0.1:{port}", "--timeout", "2"]) == 1
    assert time.monotonic() - started < 10
    err = capsys.readouterr().err
    assert f"pokertable health: 127.0.0.1:{port}: UNAVAILABLE" in err


def test_over_tls_with_the_service_certificate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    cert, other = _certificate(key), _certificate(ec.generate_private_key(ec.SECP256R1()))
    (tmp_path / "cert.pem").write_bytes(cert)
    (tmp_path / "other.pem").write_bytes(other)
    ready = threading.Event()
    ready.set()
    with health_service(ready, grpc.ssl_server_credentials([(_key_pem(key), cert)])) as port:
        address = f"127.0.0.1:{port}"  # the certificate names localhost, not the address
        assert serving_within(address, 60, ca=cert) == health_pb2.HealthCheckResponse.SERVING
        capsys.readouterr()
        assert main(["health", "--address", address, "--tls-ca", str(tmp_path / "cert.pem"),
                     "--tls-server-name", "localhost"]) == 0
        assert capsys.readouterr().out.strip() == f"{address}: SERVING"
        assert main(["health", "--address", address, "--timeout", "2"]) == 1  # plain text to a TLS port
        assert main(["health", "--address", address, "--tls-ca", str(tmp_path / "other.pem"),
                     "--tls-server-name", "localhost", "--timeout", "2"]) == 1  # someone else's certificate
        assert "UNAVAILABLE" in capsys.readouterr().err
        assert main(["health", "--address", address, "--tls-ca", str(tmp_path / "missing.pem")]) == 1
        assert "missing.pem" in capsys.readouterr().err
