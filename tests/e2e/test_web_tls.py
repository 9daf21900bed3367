"""Issue 16, item 7: with TLS (``pokertable serve --tls-cert --tls-key --http``) the dashboard is served over HTTPS
with the service's certificate, its session cookie is ``Secure``, and it reads the tables over TLS too — run as the
CLI runs it, in its own process, with a certificate made for the test."""

from __future__ import annotations

import datetime
import re
import ssl
import subprocess
import sys
import time
from pathlib import Path

import grpc
import httpx
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from service.web.sessions import COOKIE

TOKEN = "tls-pit-boss-token-012345678"


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now)
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
                   .sign(key, hashes.SHA256()))
    cert, private, stations = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "stations.toml"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    stations.write_text(f'[stations.pit]\ntoken = "{TOKEN}"\nrole = "pit-boss"\n', encoding="utf-8")
    stations.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    return cert, private, stations


def test_over_tls_the_dashboard_is_https_its_cookie_secure_and_it_reads_the_tables(tmp_path: Path) -> None:
    cert, key, stations = _files(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--db", f"sqlite:///{tmp_path / 'tables.db'}", "--port", "0",
         "--config", str(stations), "--tls-cert", str(cert), "--tls-key", str(key), "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        serving = re.search(r"serving on [^:\s]+:(\d+) over TLS", process.stdout.readline())
        assert serving is not None
        grpc_port = int(serving.group(1))
        while "pit dashboard on" not in (line := process.stdout.readline()):
            assert line, process.stderr.read() if process.stderr else ""
        assert "https://" in line
        http_port = int(line.rstrip("/\n").rsplit(":", 1)[1])
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(f"localhost:{grpc_port}", credentials) as channel:
            stub = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            settings = pb.CircleSettings(blinds=[1, 2], structure=pb.BETTING_STRUCTURE_NO_LIMIT)
            stub.OpenTable(svc.OpenTableRequest(command_id="open-1", table="Mesa TLS", game=pb.GAME_HOLDEM,
                                                circle=settings),
                           metadata=(("authorization", f"Bearer {TOKEN}"),), timeout=10)
        trusted = ssl.create_default_context(cafile=cert)
        with httpx.Client(base_url=f"https://localhost:{http_port}", verify=trusted) as http:
            reply = http.post("/signin", data={"station": "pit", "token": TOKEN})
            assert reply.status_code == 303 and "Secure" in reply.headers["set-cookie"]
            assert COOKIE in http.cookies
            floor = ""
            for _ in range(50):
                floor = http.get("/").text
                if "Mesa TLS" in floor:
                    break
                time.sleep(0.1)
            assert "Mesa TLS" in floor  # read from the service over TLS
        with httpx.Client(base_url=f"http://localhost:{http_port}") as plain:
            try:
                plain.get("/signin")
            except httpx.HTTPError:
                pass
            else:
                raise AssertionError("the dashboard answered plain HTTP while the service has TLS")
    finally:
        process.terminate()
        process.wait(timeout=10)
