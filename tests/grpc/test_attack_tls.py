"""Issue 13 — ``pokertable serve`` given a garbage TLS certificate or key, or a port it cannot have: a message saying
what is wrong and exit status 2, never a traceback; and nothing created or claimed on the way."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from service.cli import serve as serve_command
from service.cli.main import main
from tests.support.certificates import _certificate, _key_pem
from tests.support.grpc_support import TOKENS


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    key, other = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    contents = {"cert.pem": _certificate(key), "key.pem": _key_pem(key), "other-key.pem": _key_pem(other),
                "garbage.pem": b"garbage\n", "empty.pem": b"",
                "truncated.pem": _certificate(key)[:200],
                "stations.toml": f'[stations.pit]\ntoken = "{TOKENS["pit"]}"\nrole = "pit-boss"\n'.encode()}
    paths = {}
    for name, content in contents.items():
        paths[name] = tmp_path / name
        paths[name].write_bytes(content)
        paths[name].chmod(0o600)  # station tokens in clear, keys: their owner's only (issue 32)
    return paths


def _serve(files: dict[str, Path], *extra: str, port: int = 0) -> list[str]:
    return ["serve", "--db", f"sqlite:///{files['stations.toml'].parent / 'tables.db'}", "--port", str(port),
            "--config", str(files["stations.toml"]), *extra]


@pytest.mark.parametrize(("cert", "key", "says"), [
    ("garbage.pem", "key.pem", "is not a PEM certificate chain"),
    ("empty.pem", "key.pem", "is not a PEM certificate chain"),
    ("truncated.pem", "key.pem", "is not a PEM certificate chain"),
    ("key.pem", "key.pem", "is not a PEM certificate chain"),
    ("cert.pem", "garbage.pem", "is not an unencrypted PEM private key"),
    ("cert.pem", "cert.pem", "is not an unencrypted PEM private key"),
    ("cert.pem", "other-key.pem", "is not the key of the first certificate"),
    ("cert.pem", "missing.pem", "missing.pem"),
])
def test_a_garbage_tls_file_is_a_clear_error_and_exit_status_2(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], cert: str, key: str, says: str,
) -> None:
    directory = files["stations.toml"].parent
    status = main(_serve(files, "--tls-cert", str(directory / cert), "--tls-key", str(directory / key)))
    err = capsys.readouterr().err
    assert status == 2 and says in err and "Traceback" not in err, err
    assert err.startswith("pokertable serve: ")
    assert not (directory / "tables.db").exists(), "checked before the store is opened or claimed"
    assert not any(path.suffix == ".key" for path in directory.iterdir()), "no signing key created"


def test_a_matching_certificate_and_key_make_credentials(files: dict[str, Path]) -> None:
    assert serve_command._credentials(files["cert.pem"], files["key.pem"]) is not None


def test_a_port_that_is_taken_is_a_clear_error_and_exit_status_2(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        status = main(_serve(files, port=taken.getsockname()[1]))
    err = capsys.readouterr().err
    assert status == 2 and "cannot listen on 127.0.0.1:" in err and "Traceback" not in err, err
